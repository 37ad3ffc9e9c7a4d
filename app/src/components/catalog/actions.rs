//! A component's response actions as buttons, with tool-ui's conventions: an action with
//! a `confirmLabel` arms on the first click and acts on the second (disarmed by Escape or
//! after its timeout); a shortcut is named in the label.

use leptos::prelude::*;
use serde_json::Value;

use super::OnAction;
use crate::catalog::actions::{Action, Align, ResponseActions, Variant};

fn button_class(action: &Action) -> &'static str {
    match action.variant {
        Variant::Destructive => "button danger",
        Variant::Ghost => "button ghost",
        Variant::Secondary | Variant::Outline => "button",
        Variant::Default => "button primary",
    }
}

/// The buttons of `actions`; a click sends `(id, data())`. Without `on_action` they are
/// shown disabled, so a read-only surface still says what it offered.
#[component]
pub fn ActionBar(
    actions: ResponseActions,
    on_action: OnAction,
    /// What a click sends with the action's id (the component's current value).
    #[prop(optional, into)]
    data: Option<Callback<(), Value>>,
    /// Disables every button while true (e.g. a selection below its minimum).
    #[prop(optional, into)]
    blocked: Option<Signal<bool>>,
) -> impl IntoView {
    let armed = RwSignal::new(None::<String>);
    let timeout = std::time::Duration::from_millis(actions.confirm_timeout_ms.max(0.0) as u64);
    let class = match actions.align {
        Some(Align::Left) => "catalog-actions align-left",
        Some(Align::Center) => "catalog-actions align-center",
        _ => "catalog-actions",
    };
    let buttons = actions
        .items
        .into_iter()
        .map(|action| {
            let id = action.id.clone();
            let label = action.label.clone();
            let confirm = action.confirm_label.clone();
            let aria = action
                .shortcut
                .as_ref()
                .map(|key| format!("{} ({key})", action.label));
            let shortcut = action.shortcut.clone();
            let disabled_by_payload = action.disabled || action.loading;
            let is_armed = {
                let id = id.clone();
                move || armed.with(|armed| armed.as_deref() == Some(id.as_str()))
            };
            let text = {
                let is_armed = is_armed.clone();
                move || match (&confirm, is_armed()) {
                    (Some(confirm), true) => confirm.clone(),
                    _ => label.clone(),
                }
            };
            let needs_confirm = action.confirm_label.is_some();
            let click = {
                let is_armed = is_armed.clone();
                move |_| {
                    let Some(send) = on_action else { return };
                    if needs_confirm && !is_armed() {
                        armed.set(Some(id.clone()));
                        set_timeout(move || armed.set(None), timeout);
                        return;
                    }
                    armed.set(None);
                    let value = data.map(|data| data.run(())).unwrap_or(Value::Null);
                    send.run((id.clone(), value));
                }
            };
            view! {
                <button type="button" class=button_class(&action) data-action=action.id.clone()
                    data-armed=move || is_armed().to_string() aria-label=aria
                    disabled=move || on_action.is_none() || disabled_by_payload || blocked.is_some_and(|b| b.get())
                    on:click=click>
                    {text}
                    {shortcut.map(|key| view! { <kbd>{key}</kbd> })}
                </button>
            }
        })
        .collect_view();
    view! {
        <footer class=class on:keydown=move |event: leptos::ev::KeyboardEvent| {
            if event.key() == "Escape" {
                armed.set(None);
            }
        }>{buttons}</footer>
    }
}
