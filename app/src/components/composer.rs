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
                on_reply.run((run_id, ask, text));
            }
            // Never start a run past a waiting ask without saying so.
            Some(_) => held.set(true),
            None => {
                area.set_value("");
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
    view! {
        <form class="composer" on:submit=move |event| { event.prevent_default(); send(); }>
            {move || (!may_act.get()).then(|| view! {
                <p class="composer-notice read-only" role="note">{crate::components::identity::VIEWER_NOTE}</p>
            })}
            <fieldset class="bare" disabled=move || !may_act.get()>
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
                aria-label="Message" on:keydown=on_keydown></textarea>
            <div class="composer-actions">
                {move || running.get().then(|| view! {
                    <button type="button" class="button danger" on:click=move |_| on_stop.run(())>"Stop"</button>
                })}
                <button type="submit" class="button primary" disabled=move || busy.get()>"Send"</button>
            </div>
            </fieldset>
        </form>
    }
}
