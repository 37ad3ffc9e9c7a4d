//! The approval card: the proposed action, one primary choice ("Approve once"), the
//! wider scopes in a menu that says what each means, and a denial that can carry a
//! reason when the agent can read one.

use leptos::prelude::*;
use serde_json::json;

use super::{AskDeadline, Metadata, Sender, ToolCallBlock};
use crate::components::details_open;
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

/// What choosing a wider scope means, said before it is chosen.
fn scope_meaning(action: &str) -> &'static str {
    match action {
        "session" => "Runs like this one go ahead without asking until this session ends.",
        "always" => "Runs like this one never ask again, in this session or any later one.",
        _ => "Answers with this choice.",
    }
}

/// The card's heading: the ask's title, unless it only repeats the command shown below.
fn heading(ask: &Ask) -> String {
    match &ask.command {
        Some(command) if ask.title.contains(command.as_str()) => "Run this command?".to_owned(),
        _ => ask.title.clone(),
    }
}

#[component]
pub(super) fn ApprovalCard(ask: Ask, id: String, sender: Sender) -> impl IntoView {
    let title_id = format!("{id}-title");
    let description_id = format!("{id}-description");
    let reason_id = format!("{id}-reason");
    let (labelled_by, described_by) = (title_id.clone(), description_id.clone());
    let class = if ask.dangerous {
        "ask approval destructive"
    } else {
        "ask approval"
    };
    let approving: Vec<String> = ask
        .actions
        .iter()
        .filter(|action| *action != "deny")
        .cloned()
        .collect();
    let can_deny = ask.actions.iter().any(|action| action == "deny");
    let with_reason = can_deny && ask.denial_reason_reaches_agent();
    let primary = approving.first().cloned().map(|action| {
        let class = if ask.dangerous {
            "button danger"
        } else {
            "button primary"
        };
        let label = approval_label(&action).to_owned();
        view! {
            <button type="button" class=class data-primary="true" data-choice="" disabled=move || sender.sending.get()
                on:click=move |_| sender.send(&action, json!({}))>
                {label}
            </button>
        }
    });
    let wider: Vec<String> = approving.iter().skip(1).cloned().collect();
    let reasoning = RwSignal::new(false);
    // The menu is a popover over what follows: it closes once a choice is made, on Esc
    // and when focus leaves it.
    let menu_open = RwSignal::new(false);
    let reason: NodeRef<leptos::html::Textarea> = NodeRef::new();
    let deny_with_reason = move || {
        let text = reason
            .get_untracked()
            .map(|field| field.value())
            .unwrap_or_default();
        let text = text.trim();
        if text.is_empty() {
            sender.send("deny", json!({}));
        } else {
            sender.send("deny", json!({ "reason": text }));
        }
    };
    let menu = (!wider.is_empty() || with_reason).then(|| {
        let choices = wider
            .into_iter()
            .map(|action| {
                let label = approval_label(&action).to_owned();
                let meaning = scope_meaning(&action);
                view! {
                    <li>
                        <button type="button" class="button ghost" data-choice="" disabled=move || sender.sending.get()
                            on:click=move |_| sender.send(&action, json!({}))>{label}</button>
                        <span class="muted">{meaning}</span>
                    </li>
                }
            })
            .collect_view();
        view! {
            <details class="choice-menu" prop:open=move || menu_open.get()
                on:toggle=move |event| {
                    if let Some(open) = details_open(&event) {
                        menu_open.set(open);
                    }
                }
                on:keydown=move |event: leptos::ev::KeyboardEvent| {
                    if event.key() == "Escape" && menu_open.get_untracked() {
                        event.prevent_default();
                        event.stop_propagation();
                        menu_open.set(false);
                    }
                }
                on:focusout=move |event: leptos::ev::FocusEvent| {
                    if !focus_stays_inside(&event) {
                        menu_open.set(false);
                    }
                }>
                <summary class="button ghost">"More choices"</summary>
                <ul class="choice-list">
                    {choices}
                    {with_reason.then(|| view! {
                        <li>
                            <button type="button" class="button ghost" disabled=move || sender.sending.get()
                                on:click=move |_| { menu_open.set(false); reasoning.set(true); }>"Deny with a reason…"</button>
                            <span class="muted">"The agent reads your reason and can try another way."</span>
                        </li>
                    })}
                </ul>
            </details>
        }
    });
    let reason_form = move || {
        reasoning.get().then(|| {
            let reason_id = reason_id.clone();
            view! {
                <div class="deny-reason">
                    <label for=reason_id.clone()>"Why not? The agent receives this."</label>
                    <textarea id=reason_id node_ref=reason rows="2"
                        on:keydown=move |event: leptos::ev::KeyboardEvent| {
                            if crate::components::focus::sends(&event) {
                                event.prevent_default();
                                deny_with_reason();
                            }
                        }></textarea>
                    <div class="ask-actions">
                        <button type="button" class="button" disabled=move || sender.sending.get()
                            on:click=move |_| deny_with_reason()>"Send denial"</button>
                        <button type="button" class="button ghost" on:click=move |_| reasoning.set(false)>"Back"</button>
                    </div>
                </div>
            }
        })
    };
    // Focus the reason field as soon as it shows.
    Effect::new(move |_| {
        if reasoning.get()
            && let Some(field) = reason.get()
        {
            let _ = field.focus();
        }
    });
    let description = ask
        .description
        .clone()
        .filter(|text| text.trim() != ask.title.trim());
    let pattern = (!ask.pattern_keys.is_empty())
        .then(|| ask.pattern_keys.join(", "))
        .filter(|keys| Some(keys.as_str()) != ask.description.as_deref());
    view! {
        <article class=class role="dialog" aria-labelledby=labelled_by aria-describedby=described_by>
            <header class="ask-head">
                <span class="ask-kind">{if ask.dangerous { "Approval · destructive" } else { "Approval" }}</span>
                <h3 id=title_id>{heading(&ask)}</h3>
                <AskDeadline at=ask.expires_at_ms />
            </header>
            <div id=description_id class="ask-body">
                {ask.command.clone().map(|command| view! { <pre class="command"><code>{command}</code></pre> })}
                {ask.tool.clone().map(|tool| view! { <ToolCallBlock tool /> })}
                {description.map(|text| view! { <p>{text}</p> })}
                {pattern.map(|keys| view! { <p class="muted">"Pattern: " {keys}</p> })}
                <Metadata pairs=ask.metadata.clone() />
            </div>
            <footer class="ask-actions">
                {primary}
                {can_deny.then(|| view! {
                    <button type="button" class="button ghost" data-choice="" disabled=move || sender.sending.get()
                        on:click=move |_| sender.send("deny", json!({}))>"Deny"</button>
                })}
                {menu}
            </footer>
            {reason_form}
        </article>
    }
}

/// Whether focus moves to another element inside the element the event is on.
fn focus_stays_inside(event: &leptos::ev::FocusEvent) -> bool {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        use wasm_bindgen::JsCast;
        let Some(container) = event
            .current_target()
            .and_then(|target| target.dyn_into::<web_sys::Node>().ok())
        else {
            return false;
        };
        event
            .related_target()
            .and_then(|target| target.dyn_into::<web_sys::Node>().ok())
            .is_some_and(|next| container.contains(Some(&next)))
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    {
        let _ = event;
        false
    }
}
