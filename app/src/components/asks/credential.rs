//! The password and secret prompt: typed, or answered from the passvault.

use leptos::prelude::*;
use serde_json::{Value, json};

use super::{AskHead, Metadata, Sender};
use crate::error::ApiError;
use crate::model::passvault::SUDO_ENV_VAR;
use crate::model::passvault::VaultEntry;
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
    let action = if sudo { "submit" } else { "save" };
    let wanted = if sudo {
        Some(SUDO_ENV_VAR.to_owned())
    } else {
        ask.env_var.clone()
    };
    // Fetched once the page runs in the browser (effects never run on the server), so the
    // server-rendered card and the hydrated one agree: nothing, then the entries.
    let entries = RwSignal::new(Vec::<VaultEntry>::new());
    if let Some(env_var) = wanted {
        let run_id = sender.run_id.get_value();
        Effect::new(move |_| {
            let (env_var, run_id) = (env_var.clone(), run_id.clone());
            leptos::task::spawn_local(async move {
                // A viewer (or a console without the passvault) is offered nothing here.
                if let Ok(found) = vault_matches(env_var, run_id).await {
                    entries.try_set(found);
                }
            });
        });
    }
    // A matching passvault entry is the default answer; typing one is the other way.
    let from_vault = move || !entries.with(Vec::is_empty);
    let typed_class = move || {
        if from_vault() {
            "button"
        } else {
            "button primary"
        }
    };
    view! {
        <section class="ask credential" role="form" aria-labelledby=format!("{id}-title")>
            <AskHead ask=ask.clone() id=id.clone() />
            {ask.description.clone().filter(|text| text.trim() != ask.title.trim()).map(|text| view! { <p>{text}</p> })}
            <Metadata pairs=ask.metadata.clone() />
            <FromVault entries id=id.clone() action sender />
            <label for=field_id.clone() class="field-label">
                {move || if from_vault() { format!("Or type {label}") } else { label.clone() }}
            </label>
            <input id=field_id type="password" autocomplete="off" spellcheck="false" node_ref=field on:keydown=on_keydown />
            <footer class="ask-actions">
                <button type="button" class=typed_class disabled=move || sender.sending.get() on:click=move |_| submit(())>
                    {if sudo { "Send password" } else { "Send to agent" }}
                </button>
                <button type="button" class="button ghost" disabled=move || sender.sending.get()
                    on:click=move |_| sender.send("skip", Value::Null)>"Skip"</button>
            </footer>
        </section>
    }
}

/// The entries an ask of run `run_id` for `env_var` may be answered from by the caller:
/// those whose use policy lets the caller send them to the run's agent.
#[server(prefix = "/fn", endpoint = "vault_matches")]
pub async fn vault_matches(env_var: String, run_id: String) -> Result<Vec<VaultEntry>, ApiError> {
    use crate::api::service::*;
    with_status(
        passvault()?
            .usable_for(&context()?, &env_var, &run_id)
            .await,
    )
}

/// The passvault entries for the variable asked for, if any, the first chosen: choosing
/// one sends only its id; the server opens it and forwards the value, so it never reaches
/// this page.
#[component]
fn FromVault(
    entries: RwSignal<Vec<VaultEntry>>,
    id: String,
    action: &'static str,
    sender: Sender,
) -> impl IntoView {
    let choice: NodeRef<leptos::html::Select> = NodeRef::new();
    let select_id = format!("{id}-vault");
    move || {
        let list = entries.get();
        let select_id = select_id.clone();
        (!list.is_empty()).then(|| {
            view! {
                <div class="vault-choice">
                    <label for=select_id.clone() class="field-label">"From the passvault"</label>
                    <select id=select_id node_ref=choice>
                        {list.into_iter().map(|entry| view! {
                            <option value=entry.id.clone()>{entry.name.clone()}</option>
                        }).collect_view()}
                    </select>
                    <button type="button" class="button primary" disabled=move || sender.sending.get()
                        on:click=move |_| {
                            if let Some(select) = choice.get_untracked() {
                                sender.send(action, json!({ "vaultEntry": select.value() }));
                            }
                        }>"Send from the passvault"</button>
                </div>
            }
        })
    }
}
