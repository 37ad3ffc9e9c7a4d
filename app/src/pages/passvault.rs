//! `/passvault`: the tenant's secrets by name — what each is for, who added it, when it
//! last answered an ask. Owners keep them: add (the value goes in once), edit, replace a
//! value unseen, delete, and reveal one with their password again. Everyone else in the
//! tenant reads the list (and searches it); values never reach a listing.

// The edit form's server function takes one argument per field of the form, as a server
// function reads a form: more than clippy's seven.
#![allow(clippy::too_many_arguments)]

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::codec::Json;
use crate::components::identity::is_owner;
use crate::components::layout::ContextFrame;
use crate::components::search_box::{SearchBox, query_value};
use crate::error::ApiError;
use crate::model::passvault::{
    Revealed, SecretText, VaultEntry, VaultList, VaultUse, metadata_lines,
};
use crate::pages::notes::time_view;

/// Entries a page lists.
const PAGE: u32 = 50;

/// What someone who is not an owner is told where entries are kept.
pub const NOT_OWNER_PASSVAULT: &str = "Only an owner adds, changes, reveals or deletes secrets. An operator can answer an agent's ask with one of them: the server sends the value, never the browser.";

/// The list searching for `q` from `offset`.
fn vault_link(q: &str, offset: u32) -> String {
    match q.trim() {
        "" => format!("/passvault?offset={offset}"),
        q => format!("/passvault?q={}&offset={offset}", query_value(q)),
    }
}

/// Metadata typed as `key=value` lines, or the refusal naming the line.
#[cfg(feature = "ssr")]
fn metadata_from(lines: &str) -> Result<std::collections::BTreeMap<String, String>, ApiError> {
    crate::api::service::with_status(
        crate::model::passvault::parse_metadata_lines(lines).map_err(ApiError::BadRequest),
    )
}

#[server(prefix = "/fn", endpoint = "passvault")]
pub async fn load_passvault(q: String, offset: u32) -> Result<VaultList, ApiError> {
    use crate::api::service::*;
    with_status(
        passvault()?
            .list_secrets(&context()?, None, Some(&q), offset, PAGE)
            .await,
    )
}

/// The use policy as the forms send it: agents comma-separated (none: any), and the least
/// role that may send the value.
#[cfg(feature = "ssr")]
fn use_from(agents: &str, sent_by: &str) -> Result<crate::model::passvault::VaultUse, ApiError> {
    let sent_by = crate::model::Role::parse(sent_by.trim())
        .map_err(|problem| ApiError::BadRequest(format!("sent_by: {problem}")))?;
    Ok(crate::model::passvault::VaultUse {
        agents: agents
            .split(',')
            .map(str::trim)
            .filter(|agent| !agent.is_empty())
            .map(str::to_owned)
            .collect(),
        sent_by,
    })
}

#[server(prefix = "/fn", endpoint = "create_secret")]
pub async fn create_secret(
    name: String,
    env_var: String,
    description: String,
    metadata: String,
    value: SecretText,
    agents: String,
    sent_by: String,
) -> Result<VaultEntry, ApiError> {
    use crate::api::service::*;
    let metadata = metadata_from(&metadata)?;
    let entry = crate::model::passvault::NewVaultEntry {
        name,
        env_var,
        description,
        metadata,
        value,
        use_policy: use_from(&agents, &sent_by)?,
    };
    with_status(passvault()?.create_secret(&context()?, entry).await)
}

/// Changes an entry; an empty `value` keeps the one it has.
#[server(prefix = "/fn", endpoint = "edit_secret")]
pub async fn edit_secret(
    entry_id: String,
    name: String,
    env_var: String,
    description: String,
    metadata: String,
    value: SecretText,
    agents: String,
    sent_by: String,
) -> Result<VaultEntry, ApiError> {
    use crate::api::service::*;
    let metadata = metadata_from(&metadata)?;
    let edit = crate::model::passvault::VaultEntryEdit {
        name: Some(name),
        env_var: Some(env_var),
        description: Some(description),
        metadata: Some(metadata),
        value: (!value.is_empty()).then_some(value),
        use_policy: Some(use_from(&agents, &sent_by)?),
    };
    with_status(passvault()?.edit_secret(&context()?, &entry_id, edit).await)
}

#[server(prefix = "/fn", endpoint = "delete_secret")]
pub async fn delete_secret(entry_id: String) -> Result<(), ApiError> {
    use crate::api::service::*;
    with_status(passvault()?.delete_secret(&context()?, &entry_id).await)
}

#[server(prefix = "/fn", endpoint = "reveal_secret")]
pub async fn reveal_secret(entry_id: String, password: SecretText) -> Result<Revealed, ApiError> {
    use crate::api::service::*;
    with_status(
        passvault()?
            .reveal_secret(&context()?, &entry_id, password)
            .await,
    )
}

#[component]
pub fn PassvaultPage() -> impl IntoView {
    let query = use_query_map();
    let offset = move || {
        query.with(|query| {
            query
                .get("offset")
                .and_then(|offset| offset.parse::<u32>().ok())
                .unwrap_or(0)
        })
    };
    let search = move || query.with(|query| query.get("q").unwrap_or_default());
    let create = ServerAction::<CreateSecret>::new();
    let edit = ServerAction::<EditSecret>::new();
    let delete = ServerAction::<DeleteSecret>::new();
    // Reloaded after a change that worked only: a refused edit keeps its form and text.
    let changed = RwSignal::new(0_u32);
    let bump = move |worked: bool| {
        if worked {
            changed.update(|count| *count += 1);
        }
    };
    Effect::new(move |_| bump(create.value().with(|value| matches!(value, Some(Ok(_))))));
    Effect::new(move |_| bump(edit.value().with(|value| matches!(value, Some(Ok(_))))));
    Effect::new(move |_| bump(delete.value().with(|value| matches!(value, Some(Ok(()))))));
    let entries = Resource::<_, Json>::new_with_options(
        move || (search(), offset(), changed.get()),
        |(q, offset, _)| load_passvault(q, offset),
        false,
    );
    let owner = is_owner();
    let problem = move || {
        [
            create.value().get().and_then(Result::err),
            edit.value().get().and_then(Result::err),
            delete.value().get().and_then(Result::err),
        ]
        .into_iter()
        .flatten()
        .next()
    };
    view! {
        <Title text="Passvault" />
        <main class="main section-page" id="main" tabindex="-1">
            <h1>"Passvault"</h1>
            <p class="muted">"Secrets agents may be given, by name. A value goes in once and is not shown again; when an agent asks for one, answer from here and the server sends the value to the agent — it never passes through your browser."</p>
            {move || problem().map(|error| view! { <p class="error-text" role="alert">{error.say()}</p> })}
            <Show when=move || owner.get() fallback=|| view! { <p class="muted">{NOT_OWNER_PASSVAULT}</p> }>
                <details class="vault-new">
                    <summary>"Keep a new secret"</summary>
                    <ActionForm action=create attr:class="note-form" attr:autocomplete="off">
                        <label class="field-label" for="vault-name">"Name"</label>
                        <input id="vault-name" name="name" required maxlength="100" />
                        <label class="field-label" for="vault-env">"Environment variable"</label>
                        <input id="vault-env" name="env_var" required placeholder="ACME_API_KEY" spellcheck="false" />
                        <label class="field-label" for="vault-value">"Value"</label>
                        <input id="vault-value" name="value" type="password" required autocomplete="new-password" spellcheck="false" />
                        <label class="field-label" for="vault-description">"Description"</label>
                        <input id="vault-description" name="description" />
                        <label class="field-label" for="vault-metadata">"Metadata (key=value, one a line)"</label>
                        <textarea id="vault-metadata" name="metadata" rows="2" spellcheck="false"></textarea>
                        <UseFields prefix="vault".to_owned() policy=VaultUse::default() />
                        <button type="submit" class="button primary">"Keep secret"</button>
                    </ActionForm>
                </details>
            </Show>
            <SearchBox action="/passvault" id="vault-search" label="Search the passvault"
                placeholder="Search names, variables and descriptions" value=Signal::derive(search) />
            <Transition fallback=|| view! { <p class="muted">"Loading the passvault…"</p> }>
                {move || Suspend::new(async move {
                    match entries.await {
                        Ok(list) if list.entries.is_empty() => view! {
                            <p class="muted" role="status">{if search().is_empty() { "No secrets kept yet." } else { "No secret matches." }}</p>
                        }.into_any(),
                        Ok(list) => {
                            let next = list.next_offset;
                            let previous = offset().checked_sub(PAGE);
                            view! {
                                <ul class="note-list" aria-label="Passvault entries">
                                    {list.entries.into_iter().map(|entry| view! { <EntryRow entry edit delete /> }).collect_view()}
                                </ul>
                                <nav class="note-pages" aria-label="Pages">
                                    {previous.map(|offset| view! { <a href=vault_link(&search(), offset)>"Previous"</a> })}
                                    {next.map(|offset| view! { <a href=vault_link(&search(), offset)>"Next"</a> })}
                                </nav>
                            }.into_any()
                        }
                        Err(error) => view! { <p class="error-text" role="alert">{error.say()}</p> }.into_any(),
                    }
                })}
            </Transition>
        </main>
        <ContextFrame>
            <section class="pane-section">
                <h2>"Passvault"</h2>
                <p class="muted">"Values are sealed (XChaCha20-Poly1305) before they are stored, and never logged. An ask for an environment variable is offered the entries for that variable; a sudo ask, the entries for SUDO_PASSWORD. Revealing a value needs your password again and is recorded in the audit trail."</p>
            </section>
        </ContextFrame>
    }
}

#[component]
fn EntryRow(
    entry: VaultEntry,
    edit: ServerAction<EditSecret>,
    delete: ServerAction<DeleteSecret>,
) -> impl IntoView {
    let owner = is_owner();
    let editing = RwSignal::new(false);
    let revealing = RwSignal::new(false);
    let confirm_delete = RwSignal::new(false);
    let labels = [
        format!("Edit {}", entry.name),
        format!("Reveal {}", entry.name),
        format!("Delete {}", entry.name),
    ];
    let used = match (entry.last_used_at_ms, entry.last_used_by.clone()) {
        (Some(at), Some(by)) => view! { "Last used " {time_view(at)} " by " {by} }.into_any(),
        _ => view! { "Never used" }.into_any(),
    };
    let id = entry.id.clone();
    let form_entry = entry.clone();
    view! {
        <li class="note-row vault-entry">
            <span class="note-title">{entry.name.clone()}</span>
            " " <code class="vault-env">{entry.env_var.clone()}</code>
            {(!entry.description.is_empty()).then(|| view! { <p class="note-snippet">{entry.description.clone()}</p> })}
            {(!entry.metadata.is_empty()).then(|| view! {
                <dl class="vault-metadata">
                    {entry.metadata.iter().map(|(key, value)| view! { <dt>{key.clone()}</dt><dd>{value.clone()}</dd> }).collect_view()}
                </dl>
            })}
            <span class="muted note-meta">"Added by " {entry.created_by.clone()} " · " {time_view(entry.created_at_ms)} " · " {used}</span>
            <span class="muted note-meta vault-use">{use_line(&entry.use_policy)}</span>
            <Show when=move || owner.get()>
                {
                    let [edit_label, reveal_label, delete_label] = labels.clone();
                    view! {
                        <div class="note-actions">
                            <button type="button" class="button small ghost" aria-label=edit_label on:click=move |_| editing.update(|on| *on = !*on)>"Edit"</button>
                            <button type="button" class="button small ghost" aria-label=reveal_label on:click=move |_| revealing.update(|on| *on = !*on)>"Reveal…"</button>
                            <button type="button" class="button small ghost" aria-label=delete_label on:click=move |_| confirm_delete.set(true)>"Delete…"</button>
                        </div>
                    }
                }
            </Show>
            {
                let entry = form_entry.clone();
                move || (owner.get() && editing.get()).then(|| view! { <EditForm entry=entry.clone() edit /> })
            }
            {
                let id = id.clone();
                move || (owner.get() && revealing.get()).then(|| view! { <RevealForm entry_id=id.clone() /> })
            }
            {
                let (id, name) = (id.clone(), entry.name.clone());
                move || confirm_delete.get().then(|| {
                    let id = id.clone();
                    view! {
                        <div class="note-confirm" role="alertdialog" aria-label=format!("Delete {name}?")>
                            <p>"Delete this secret? Asks can no longer be answered from it. This cannot be undone."</p>
                            <button type="button" class="button danger" on:click=move |_| {
                                delete.dispatch(DeleteSecret { entry_id: id.clone() });
                            }>"Delete the secret"</button>
                            <button type="button" class="button ghost" on:click=move |_| confirm_delete.set(false)>"Keep it"</button>
                        </div>
                    }
                })
            }
        </li>
    }
}

/// The use policy in words, as a row shows it.
fn use_line(policy: &VaultUse) -> String {
    let agents = if policy.agents.is_empty() {
        "any agent".to_owned()
    } else {
        policy.agents.join(", ")
    };
    let senders = if policy.sent_by == crate::model::Role::Owner {
        "owners"
    } else {
        "operators and owners"
    };
    format!("Sent to {agents}, by {senders}")
}

/// The use policy's fields of a form: the agents the value may go to, and who may send it.
#[component]
fn UseFields(prefix: String, policy: VaultUse) -> impl IntoView {
    let agents_id = format!("{prefix}-agents");
    let sent_by_id = format!("{prefix}-sent-by");
    let owners_only = policy.sent_by == crate::model::Role::Owner;
    view! {
        <label class="field-label" for=agents_id.clone()>"Agents it may be sent to (comma-separated; empty: any)"</label>
        <input id=agents_id name="agents" value=policy.agents.join(", ") spellcheck="false" />
        <label class="field-label" for=sent_by_id.clone()>"Who may send it"</label>
        <select id=sent_by_id name="sent_by">
            <option value="operator" selected=!owners_only>"Operators and owners"</option>
            <option value="owner" selected=owners_only>"Owners only"</option>
        </select>
    }
}

#[component]
fn EditForm(entry: VaultEntry, edit: ServerAction<EditSecret>) -> impl IntoView {
    let prefix = format!("vault-edit-{}", entry.id);
    let field = move |name: &str| format!("{prefix}-{name}");
    view! {
        <ActionForm action=edit attr:class="note-form" attr:autocomplete="off">
            <input type="hidden" name="entry_id" value=entry.id.clone() />
            <label class="field-label" for=field("name")>"Name"</label>
            <input id=field("name") name="name" value=entry.name.clone() required />
            <label class="field-label" for=field("env")>"Environment variable"</label>
            <input id=field("env") name="env_var" value=entry.env_var.clone() required spellcheck="false" />
            <label class="field-label" for=field("value")>"New value (empty keeps the current one)"</label>
            <input id=field("value") name="value" type="password" autocomplete="new-password" spellcheck="false" />
            <label class="field-label" for=field("description")>"Description"</label>
            <input id=field("description") name="description" value=entry.description.clone() />
            <label class="field-label" for=field("metadata")>"Metadata (key=value, one a line)"</label>
            <textarea id=field("metadata") name="metadata" rows="2" spellcheck="false">{metadata_lines(&entry.metadata)}</textarea>
            <UseFields prefix=field("use") policy=entry.use_policy.clone() />
            <button type="submit" class="button small primary">"Save"</button>
        </ActionForm>
    }
}

/// Asks for the password, then shows the value until hidden; nothing of it is kept.
#[component]
fn RevealForm(entry_id: String) -> impl IntoView {
    let reveal = ServerAction::<RevealSecret>::new();
    let shown = RwSignal::new(None::<Result<Revealed, ApiError>>);
    Effect::new(move |_| {
        if let Some(result) = reveal.value().get() {
            shown.set(Some(result));
        }
    });
    let field_id = format!("vault-reveal-{entry_id}");
    view! {
        <ActionForm action=reveal attr:class="note-form vault-reveal" attr:autocomplete="off">
            <input type="hidden" name="entry_id" value=entry_id.clone() />
            <label class="field-label" for=field_id.clone()>"Your password, to reveal the value"</label>
            <input id=field_id name="password" type="password" required autocomplete="current-password" />
            <button type="submit" class="button small">"Reveal"</button>
        </ActionForm>
        {move || shown.get().map(|result| match result {
            Ok(revealed) => view! {
                <p class="vault-revealed">
                    <code aria-label=format!("Value of {}", revealed.name)>{revealed.value.expose().to_owned()}</code>
                    " "
                    <button type="button" class="button small ghost" on:click=move |_| {
                        shown.set(None);
                        reveal.value().set(None);
                    }>"Hide"</button>
                </p>
            }.into_any(),
            Err(error) => view! { <p class="error-text" role="alert">{error.say()}</p> }.into_any(),
        })}
    }
}
