//! The timeline's scrolling element: it follows the live end until the reader scrolls
//! away, stays pinned there whatever changes size under it, and counts what arrived
//! since the reader left so "Jump to latest" can say it.

use leptos::prelude::*;

/// How close to the bottom (in pixels) still counts as being at the live end.
const FOLLOW_SLACK_PX: i32 = 24;

/// The scrolling element the rows live in, and what the page knows of its scroll.
#[derive(Clone, Copy)]
pub struct ScrollPort {
    pub element: NodeRef<leptos::html::Section>,
    /// The element holding every row: its size changes are what pinning answers.
    pub content: NodeRef<leptos::html::Div>,
    /// Bumped on each scroll, so windowed lists re-slice.
    pub scrolled: RwSignal<u64>,
    /// True while the view is at (or within a few pixels of) the live end.
    pub following: RwSignal<bool>,
    /// The item count when the reader left the live end.
    left_at: RwSignal<Option<usize>>,
    last_offset: StoredValue<i32>,
    /// How many items the thread shows; read only while the reader is away.
    items: Signal<usize>,
}

impl ScrollPort {
    pub fn new(items: Signal<usize>) -> ScrollPort {
        ScrollPort {
            element: NodeRef::new(),
            content: NodeRef::new(),
            scrolled: RwSignal::new(0),
            following: RwSignal::new(true),
            left_at: RwSignal::new(None),
            last_offset: StoredValue::new(0),
            items,
        }
    }

    /// A scroll of the element. Only the reader scrolling up leaves the live end; the
    /// list growing or re-slicing under a follower (which can move the offset down)
    /// never does.
    pub fn on_scroll(self) {
        if let Some(element) = self.element.get_untracked() {
            let offset = element.scroll_top();
            let at_end =
                offset + element.client_height() >= element.scroll_height() - FOLLOW_SLACK_PX;
            let was_following = self.following.get_untracked();
            let following = at_end || (was_following && offset >= self.last_offset.get_value());
            self.last_offset.set_value(offset);
            if was_following != following {
                self.following.set(following);
                self.left_at
                    .set((!following).then(|| self.items.try_get_untracked().unwrap_or_default()));
            }
        }
        self.scrolled.update(|count| *count += 1);
    }

    /// Items that arrived since the reader left the live end (0 while following).
    pub fn unseen(self) -> usize {
        match self.left_at.get() {
            Some(base) => self.items.get().saturating_sub(base),
            None => 0,
        }
    }

    /// Back to the live end, following it again.
    pub fn jump_to_latest(self) {
        self.left_at.set(None);
        self.following.set(true);
        self.to_end();
    }

    /// Scrolls to the live end if the view follows it.
    pub fn keep_at_end(self) {
        if self.following.get_untracked() {
            self.to_end();
        }
    }

    fn to_end(self) {
        if let Some(element) = self.element.get_untracked() {
            // Past the end lands on it without reading the height (no forced layout).
            element.set_scroll_top(i32::MAX);
        }
    }

    /// Keeps a following view at the live end whenever the rows or the viewport change
    /// size: a message growing, rows laid out after a bulk load, the page attached after
    /// a client-side navigation, the ask lane taking room.
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    pub fn pin(self) {
        use wasm_bindgen::JsCast;
        use wasm_bindgen::closure::Closure;

        Effect::new(move |_| {
            let (Some(element), Some(content)) = (self.element.get(), self.content.get()) else {
                return;
            };
            let on_resize = Closure::<dyn FnMut()>::new(move || self.keep_at_end());
            let Ok(observer) = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref())
            else {
                return;
            };
            observer.observe(&element);
            observer.observe(&content);
            let held = send_wrapper::SendWrapper::new((observer, on_resize));
            on_cleanup(move || held.0.disconnect());
        });
    }

    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    pub fn pin(self) {}
}

/// "Jump to latest", with the count of what arrived meanwhile, while the reader is away
/// from the live end.
#[component]
pub fn JumpToLatest(port: ScrollPort) -> impl IntoView {
    view! {
        <div class="jump-anchor">
            {move || (!port.following.get()).then(|| {
                let label = match port.unseen() {
                    0 => "Jump to latest".to_owned(),
                    1 => "Jump to latest (1 new)".to_owned(),
                    count => format!("Jump to latest ({count} new)"),
                };
                view! {
                    <button type="button" class="button small jump-latest"
                        on:click=move |_| port.jump_to_latest()>
                        <span aria-hidden="true">"↓ "</span>{label}
                    </button>
                }
            })}
        </div>
    }
}
