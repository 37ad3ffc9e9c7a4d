//! The composer: a message box (Enter sends, Shift+Enter breaks the line), Send, and Stop
//! while a run is active; scenario words suggested on an empty thread. While an ask waits,
//! the box answers it when it takes free text, and otherwise says an answer is pending;
//! sent anyway, the message takes the place of the answers still missing.

use leptos::prelude::*;

use crate::components::asks::free_text_question;
use crate::protocol::ask::Ask;

#[component]
pub fn Composer(
    #[prop(into)] running: Signal<bool>,
    #[prop(into)] suggestions: Signal<Vec<String>>,
    #[prop(into)] on_send: Callback<String>,
    #[prop(into)] on_stop: Callback<()>,
    #[prop(into)] busy: Signal<bool>,
    /// A message the server refused, put back so that nothing typed is lost.
    #[prop(into)]
    returned: Signal<Option<String>>,
    /// The first ask still waiting in the thread, with its run.
    #[prop(into)]
    pending: Signal<Option<(String, Ask)>>,
    /// Answers that ask with the text typed here (run id, ask, text).
    #[prop(into)]
    on_reply: Callback<(String, Ask, String)>,
) -> impl IntoView {
    let field: NodeRef<leptos::html::Textarea> = NodeRef::new();
    // Text held back because an ask that takes no free text is waiting.
    let held = RwSignal::new(false);
    let empty = RwSignal::new(true);
    let reply_to = move || {
        pending.with(|pending| {
            pending
                .as_ref()
                .and_then(|(_, ask)| free_text_question(ask).map(|question| question.text.clone()))
        })
    };
    Effect::new(move |_| {
        if let (Some(text), Some(area)) = (returned.get(), field.get_untracked())
            && area.value().is_empty()
        {
            area.set_value(&text);
        }
    });
    let send = move || {
        let Some(area) = field.get_untracked() else {
            return;
        };
        let text = area.value();
        if text.trim().is_empty() || busy.get_untracked() {
            return;
        }
        match pending.get_untracked() {
            Some((run_id, ask)) if free_text_question(&ask).is_some() => {
                area.set_value("");
                empty.set(true);
                on_reply.run((run_id, ask, text));
            }
            // Never start a run past a waiting ask without saying so.
            Some(_) => held.set(true),
            None => {
                area.set_value("");
                empty.set(true);
                on_send.run(text);
            }
        }
    };
    let send_anyway = move |_| {
        let Some(area) = field.get_untracked() else {
            return;
        };
        let text = area.value();
        held.set(false);
        if text.trim().is_empty() {
            return;
        }
        area.set_value("");
        empty.set(true);
        on_send.run(text);
    };
    // Once nothing waits, held text is just a message again.
    Effect::new(move |_| {
        if pending.with(Option::is_none) {
            held.set(false);
        }
    });
    let on_keydown = move |event: leptos::ev::KeyboardEvent| {
        if crate::components::focus::sends(&event) {
            event.prevent_default();
            send();
        }
    };
    let may_act = crate::components::identity::may_act();
    // Send waits for something to send and for a network to send it over.
    let online = browser_online();
    Effect::new(move |_| {
        if returned.with(Option::is_some) {
            empty.set(
                field
                    .get_untracked()
                    .is_none_or(|area| area.value().trim().is_empty()),
            );
        }
    });
    let send_blocked = move || {
        if busy.get() {
            Some("Sending…")
        } else if !online.get() {
            Some("This browser is offline: the message cannot reach the server yet")
        } else if empty.get() {
            Some("Type a message first")
        } else {
            None
        }
    };
    let stop = move |_| {
        on_stop.run(());
        // Stop goes away with the run: focus stays where the next message is typed.
        if let Some(area) = field.get_untracked() {
            let _ = area.focus();
        }
    };
    view! {
        <form class="composer" on:submit=move |event| { event.prevent_default(); send(); }>
            {move || (!may_act.get()).then(|| view! {
                <p class="composer-notice read-only" role="note">{crate::components::identity::VIEWER_NOTE}</p>
            })}
            <fieldset class="bare" disabled=move || !may_act.get()
                title=move || (!may_act.get()).then_some(crate::components::identity::VIEWER_NOTE)>
            {move || {
                let words = suggestions.get();
                (!words.is_empty()).then(|| view! {
                    <div class="suggestions" role="group" aria-label="Try a scenario">
                        {words.into_iter().map(|word| {
                            let text = word.clone();
                            view! {
                                <button type="button" class="chip" on:click=move |_| on_send.run(text.clone())>{word}</button>
                            }
                        }).collect_view()}
                    </div>
                })
            }}
            <label for="composer-message" class="visually-hidden">"Message"</label>
            {move || reply_to().map(|question| view! {
                <p class="composer-reply" id="composer-reply">"Reply to: " {question}</p>
            })}
            {move || held.get().then(|| {
                let title = pending.with(|pending| pending.as_ref().map(|(_, ask)| ask.title.clone()).unwrap_or_default());
                view! {
                    <p class="composer-notice" role="status">
                        {format!("An answer is pending: \u{201c}{title}\u{201d}. Answer it above, or ")}
                        <button type="button" class="button small" on:click=send_anyway>"Send as a new message anyway"</button>
                        " — the asks still open are then cancelled, and the agent gets the message with the answers given."
                    </p>
                }
            })}
            <textarea id=crate::components::focus::COMPOSER_ID node_ref=field rows="2"
                placeholder=move || match reply_to() {
                    Some(question) => format!("Reply to: {question}"),
                    None => "Message the agent (Enter sends, Shift+Enter for a new line)".to_owned(),
                }
                aria-describedby=move || reply_to().map(|_| "composer-reply")
                aria-label="Message" on:keydown=on_keydown
                on:input=move |event| empty.set(event_target_value(&event).trim().is_empty())></textarea>
            <div class="composer-actions">
                {move || running.get().then(|| view! {
                    <button type="button" class="button danger" on:click=stop>"Stop"</button>
                })}
                <button type="submit" class="button primary" disabled=move || send_blocked().is_some()
                    title=send_blocked>"Send"</button>
            </div>
            </fieldset>
        </form>
    }
}

/// Whether the browser says it is online, kept current by its `online`/`offline` events
/// (the server's page assumes it is).
fn browser_online() -> Signal<bool> {
    let online = RwSignal::new(true);
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        online.set(window().navigator().on_line());
        let up = window_event_listener_untyped("online", move |_| online.set(true));
        let down = window_event_listener_untyped("offline", move |_| online.set(false));
        on_cleanup(move || {
            up.remove();
            down.remove();
        });
    }
    online.into()
}
