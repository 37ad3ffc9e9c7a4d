//! Review of a proposed edit: its diff, accepted or rejected.

use leptos::prelude::*;
use serde_json::Value;

use super::{AskDeadline, Sender, kind_label};
use crate::components::code_diff::CodeDiff;
use crate::protocol::ask::Ask;

#[component]
pub(super) fn EditReview(ask: Ask, id: String, sender: Sender) -> impl IntoView {
    let diff = ask.diff.clone();
    view! {
        <section class="ask edit" role="dialog" aria-labelledby=format!("{id}-title")>
            <header class="ask-head">
                <span class="ask-kind">{kind_label(ask.kind)}</span>
                <h3 id=format!("{id}-title")>{ask.title.clone()}</h3>
                <AskDeadline at=ask.expires_at_ms />
            </header>
            {diff.map(|diff| view! { <CodeDiff patch=diff.patch filename=diff.filename /> })}
            <footer class="ask-actions">
                <button type="button" class="button primary" data-primary="true" data-choice=""
                    disabled=move || sender.sending.get()
                    on:click=move |_| sender.send("accept", Value::Null)>"Accept"</button>
                <button type="button" class="button ghost" data-choice="" disabled=move || sender.sending.get()
                    on:click=move |_| sender.send("reject", Value::Null)>"Reject"</button>
            </footer>
        </section>
    }
}
