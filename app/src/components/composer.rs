//! The composer: a message box (Enter sends, Shift+Enter breaks the line), Send, and Stop
//! while a run is active; scenario words suggested on an empty thread.

use leptos::prelude::*;

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
) -> impl IntoView {
    let field: NodeRef<leptos::html::Textarea> = NodeRef::new();
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
        area.set_value("");
        on_send.run(text);
    };
    let on_keydown = move |event: leptos::ev::KeyboardEvent| {
        if event.key() == "Enter" && !event.shift_key() && !event.is_composing() {
            event.prevent_default();
            send();
        }
    };
    view! {
        <form class="composer" on:submit=move |event| { event.prevent_default(); send(); }>
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
            <textarea id="composer-message" node_ref=field rows="2" placeholder="Message the agent (Enter sends, Shift+Enter for a new line)"
                aria-label="Message" on:keydown=on_keydown></textarea>
            <div class="composer-actions">
                {move || running.get().then(|| view! {
                    <button type="button" class="button danger" on:click=move |_| on_stop.run(())>"Stop"</button>
                })}
                <button type="submit" class="button primary" disabled=move || busy.get()>"Send"</button>
            </div>
        </form>
    }
}
