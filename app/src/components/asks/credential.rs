//! The password and secret prompt.

use leptos::prelude::*;
use serde_json::{Value, json};

use super::{AskHead, Metadata, Sender};
use crate::protocol::ask::{Ask, Component};

/// A password or secret. The value is read from the field only when sent, never kept in
/// a signal or storage, and the field is emptied right after.
#[component]
pub(super) fn CredentialPrompt(ask: Ask, id: String, sender: Sender) -> impl IntoView {
    let sudo = ask.component == Component::SudoPrompt;
    let field: NodeRef<leptos::html::Input> = NodeRef::new();
    let field_id = format!("{id}-value");
    let label = if sudo {
        "Password".to_owned()
    } else {
        ask.env_var.clone().unwrap_or_else(|| "Secret".to_owned())
    };
    let submit = move |_| {
        let Some(input) = field.get_untracked() else {
            return;
        };
        let value = input.value();
        input.set_value("");
        if value.is_empty() {
            return;
        }
        if sudo {
            sender.send("submit", json!({ "password": value }));
        } else {
            sender.send("save", json!({ "value": value }));
        }
    };
    let on_keydown = move |event: leptos::ev::KeyboardEvent| {
        if event.key() == "Enter" {
            event.prevent_default();
            submit(());
        }
    };
    view! {
        <section class="ask credential" role="form" aria-labelledby=format!("{id}-title")>
            <AskHead ask=ask.clone() id=id.clone() />
            {ask.description.clone().map(|text| view! { <p>{text}</p> })}
            <Metadata pairs=ask.metadata.clone() />
            <label for=field_id.clone() class="field-label">{label}</label>
            <input id=field_id type="password" autocomplete="off" spellcheck="false" node_ref=field on:keydown=on_keydown />
            <footer class="ask-actions">
                <button type="button" class="button primary" disabled=move || sender.sending.get() on:click=move |_| submit(())>
                    {if sudo { "Send password" } else { "Save secret" }}
                </button>
                <button type="button" class="button ghost" disabled=move || sender.sending.get()
                    on:click=move |_| sender.send("skip", Value::Null)>"Skip"</button>
            </footer>
        </section>
    }
}
