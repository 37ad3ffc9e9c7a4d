//! The approval card: the proposed action and the choices that allow or deny it.

use leptos::prelude::*;
use serde_json::json;

use super::{Metadata, Sender};
use crate::protocol::ask::Ask;

/// The label tool-ui and Hermes use for an approval choice.
fn approval_label(action: &str) -> &str {
    match action {
        "once" => "Approve once",
        "session" => "Approve for session",
        "always" => "Always approve",
        "deny" => "Deny",
        other => other,
    }
}

#[component]
pub(super) fn ApprovalCard(ask: Ask, id: String, sender: Sender) -> impl IntoView {
    let title_id = format!("{id}-title");
    let description_id = format!("{id}-description");
    let (labelled_by, described_by) = (title_id.clone(), description_id.clone());
    let class = if ask.dangerous {
        "ask approval destructive"
    } else {
        "ask approval"
    };
    let buttons = ask
        .actions
        .iter()
        .map(|action| {
            let action = action.clone();
            let class = match (action.as_str(), ask.dangerous) {
                ("deny", _) => "button ghost",
                (_, true) => "button danger",
                _ => "button primary",
            };
            let label = approval_label(&action).to_owned();
            view! {
                <button type="button" class=class disabled=move || sender.sending.get()
                    on:click=move |_| sender.send(&action, json!({}))>
                    {label}
                </button>
            }
        })
        .collect_view();
    let on_keydown = move |event: leptos::ev::KeyboardEvent| {
        if event.key() == "Escape"
            && sender
                .ask
                .with_value(|ask| ask.actions.iter().any(|a| a == "deny"))
        {
            sender.send("deny", json!({}));
        }
    };
    view! {
        <article class=class role="dialog" aria-labelledby=labelled_by aria-describedby=described_by on:keydown=on_keydown>
            <header class="ask-head">
                <span class="ask-kind">{if ask.dangerous { "Approval · destructive" } else { "Approval" }}</span>
                <h3 id=title_id>{ask.title.clone()}</h3>
            </header>
            <div id=description_id class="ask-body">
                {ask.command.clone().map(|command| view! { <pre class="command"><code>{command}</code></pre> })}
                {ask.description.clone().map(|text| view! { <p>{text}</p> })}
                {(!ask.pattern_keys.is_empty()).then(|| view! {
                    <p class="muted">"Pattern: " {ask.pattern_keys.join(", ")}</p>
                })}
                <Metadata pairs=ask.metadata.clone() />
            </div>
            <footer class="ask-actions">{buttons}</footer>
        </article>
    }
}
