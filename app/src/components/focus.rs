//! Where keyboard focus goes in the thread: to an ask as it arrives (unless the operator
//! is typing), back to the composer on Esc, after an answer to the next waiting ask or
//! the composer, into the composer of a thread just started — never to the page body.

use leptos::prelude::{GetUntracked, RwSignal, Set, provide_context, use_context};

/// Set when a thread is opened for the operator to go on writing in (one just started
/// from its first message): its page then puts the cursor in its composer.
#[derive(Clone, Copy)]
pub struct WriteOn(RwSignal<bool>);

impl WriteOn {
    pub fn provide() {
        provide_context(Self(RwSignal::new(false)));
    }

    /// Asks the next thread page shown to put the cursor in its composer.
    pub fn request() {
        if let Some(Self(wanted)) = use_context::<Self>() {
            wanted.set(true);
        }
    }

    /// Whether it was asked, once.
    pub fn take() -> bool {
        use_context::<Self>().is_some_and(|Self(wanted)| {
            let asked = wanted.get_untracked();
            wanted.set(false);
            asked
        })
    }
}

/// Opens `dialog` as a modal: the browser traps focus in it and closes it on Escape. The
/// server never opens one, so both render it closed.
pub fn show_modal(dialog: leptos::prelude::NodeRef<leptos::html::Dialog>) {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    if let Some(dialog) =
        leptos::prelude::GetUntracked::get_untracked(&dialog).filter(|d| !d.open())
    {
        let _ = dialog.show_modal();
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    let _ = dialog;
}

/// Runs `then` once `dialog` is in the document: at once, or at the next frame for a
/// dialog drawn on demand, whose first effects run before it is placed (a dialog that is
/// not in the document cannot be shown).
pub fn once_placed(
    dialog: leptos::prelude::NodeRef<leptos::html::Dialog>,
    then: impl FnOnce() + 'static,
) {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        let placed = leptos::prelude::GetUntracked::get_untracked(&dialog)
            .is_some_and(|dialog| dialog.is_connected());
        if placed {
            then();
        } else {
            leptos::prelude::request_animation_frame(then);
        }
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    let _ = (dialog, then);
}

/// Moves keyboard focus to the element with DOM id `id`, if there is one.
pub fn focus_by_id(id: &str) {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    if let Some(element) = leptos::prelude::document().get_element_by_id(id) {
        use wasm_bindgen::JsCast;
        if let Ok(element) = element.dyn_into::<web_sys::HtmlElement>() {
            let _ = element.focus();
        }
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    let _ = id;
}

/// Brings the waiting ask `ask_id` in the lane into view and focuses its answer.
pub fn focus_ask(ask_id: &str) {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        use wasm_bindgen::JsCast;
        let Ok(cards) = leptos::prelude::document().query_selector_all(".ask-lane .ask-card")
        else {
            return;
        };
        for index in 0..cards.length() {
            let Some(card) = cards
                .item(index)
                .and_then(|node| node.dyn_into::<web_sys::Element>().ok())
            else {
                continue;
            };
            if card.get_attribute("data-ask-id").as_deref() == Some(ask_id) {
                card.scroll_into_view();
                browser::focus_answer_control(&card);
                return;
            }
        }
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    let _ = ask_id;
}

/// The composer's message box.
pub const COMPOSER_ID: &str = "composer-message";

/// Whether a key press in a text box sends what it holds: Enter, not Shift+Enter (a new
/// line) and not while an input method is composing. The composer and every answer box
/// agree on it.
pub fn sends(event: &leptos::ev::KeyboardEvent) -> bool {
    event.key() == "Enter" && !event.shift_key() && !event.is_composing()
}

/// The controls an ask card would be answered with, most likely first.
#[cfg(any(feature = "hydrate", feature = "csr"))]
const ANSWER_CONTROLS: [&str; 5] = [
    "textarea:not([disabled]), input:not([type=hidden]):not([disabled])",
    "[role=option][tabindex='0']",
    "button[data-primary]:not([disabled])",
    "button:not([disabled])",
    "summary",
];

#[cfg(any(feature = "hydrate", feature = "csr"))]
mod browser {
    use leptos::prelude::document;
    use wasm_bindgen::JsCast;
    use web_sys::{Element, HtmlElement};

    use super::{ANSWER_CONTROLS, COMPOSER_ID};

    fn is_shown(element: &Element) -> bool {
        element.get_client_rects().length() > 0
    }

    fn focus(element: Element) -> bool {
        match element.dyn_into::<HtmlElement>() {
            Ok(element) => element.focus().is_ok(),
            Err(_) => false,
        }
    }

    /// The operator is writing something: focus stays where it is.
    pub fn is_typing() -> bool {
        let Some(active) = document().active_element() else {
            return false;
        };
        if let Some(area) = active.dyn_ref::<web_sys::HtmlTextAreaElement>() {
            return !area.value().is_empty();
        }
        if let Some(input) = active.dyn_ref::<web_sys::HtmlInputElement>() {
            return !input.value().is_empty();
        }
        active.has_attribute("contenteditable")
    }

    /// Nothing in particular has focus (the body, or an element that is gone).
    pub fn focus_is_lost() -> bool {
        match document().active_element() {
            None => true,
            Some(active) => !active.is_connected() || active.tag_name() == "BODY",
        }
    }

    /// Focuses the control `card` is most likely answered with; false if it has none.
    pub fn focus_answer_control(card: &Element) -> bool {
        ANSWER_CONTROLS
            .iter()
            .any(|selector| focus_first_shown(card, selector))
    }

    /// Focuses the first element matching `selector` in `container` that is shown.
    pub fn focus_first_shown(container: &Element, selector: &str) -> bool {
        let Ok(found) = container.query_selector_all(selector) else {
            return false;
        };
        for index in 0..found.length() {
            if let Some(element) = found
                .item(index)
                .and_then(|node| node.dyn_into::<Element>().ok())
                && is_shown(&element)
            {
                return focus(element);
            }
        }
        false
    }

    pub fn focus_composer() {
        if let Some(element) = document().get_element_by_id(COMPOSER_ID) {
            focus(element);
        }
    }

    /// The first waiting ask, else the composer.
    pub fn focus_next_ask_or_composer() {
        let next = document()
            .query_selector(".ask-lane .ask-card:not([aria-busy='true'])")
            .ok()
            .flatten();
        if !next.is_some_and(|card| focus_answer_control(&card)) {
            focus_composer();
        }
    }

    /// Picks the `number`th (from 1) option shown in `card`, as a click would.
    pub fn pick_option(card: &Element, number: u32) -> bool {
        // Options of a list, and an approval's answers (`data-choice`), in page order.
        let Ok(options) = card.query_selector_all("[role=option], [data-choice]") else {
            return false;
        };
        let shown: Vec<Element> = (0..options.length())
            .filter_map(|index| options.item(index)?.dyn_into::<Element>().ok())
            .filter(is_shown)
            .collect();
        let Some(option) = usize::try_from(number)
            .ok()
            .and_then(|number| number.checked_sub(1))
            .and_then(|index| shown.get(index).cloned())
        else {
            return false;
        };
        let Ok(option) = option.dyn_into::<HtmlElement>() else {
            return false;
        };
        option.click();
        let _ = option.focus();
        true
    }
}

#[cfg(any(feature = "hydrate", feature = "csr"))]
pub use browser::*;
