//! `/memory`: what agents remember — the tenant's memory, my own, or a project's
//! (`?scope=tenant|user|project&project=ID`), with how full the scope is; add, edit and
//! remove entries; the review queue of what agents propose; and, for owners, whether
//! proposals are accepted without review.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_navigate, use_query_map};

use crate::codec::Json;
use crate::components::identity::{is_owner, may_act};
use crate::components::layout::ContextFrame;
use crate::components::search_box::SearchBox;
use crate::error::ApiError;
use crate::memory::{Action, Operation, ScopeKind};
use crate::model::memory::{MemoryEntry, MemoryProposal, MemoryScope, MemorySettings};
use crate::pages::notes::time_view;
use crate::pages::projects::load_projects;

/// What a viewer is told where memory could be changed.
pub const VIEWER_MEMORY: &str =
    "You are a viewer in this tenant: you can read memory, but not change or review it.";

#[cfg(feature = "ssr")]
fn scope_of(scope: &str) -> Result<ScopeKind, ApiError> {
    ScopeKind::parse(scope).map_err(ApiError::BadRequest)
}

#[server(prefix = "/fn", endpoint = "memory")]
pub async fn load_memory(
    scope: String,
    project_id: String,
    q: String,
) -> Result<MemoryScope, ApiError> {
    use crate::api::service::*;
    let kind = with_status(scope_of(&scope))?;
    let project = Some(project_id.as_str()).filter(|id| !id.is_empty());
    let found = memory()?.memory(&context()?, kind, project).await;
    with_status(found.map(|scope| scope.matching(&q)))
}

/// Adds one entry to a scope.
#[server(prefix = "/fn", endpoint = "remember")]
pub async fn remember(
    scope: String,
    project_id: String,
    text: String,
) -> Result<MemoryScope, ApiError> {
    use crate::api::service::*;
    let batch = crate::model::memory::MemoryBatch {
        scope: with_status(scope_of(&scope))?,
        project_id: Some(project_id).filter(|id| !id.is_empty()),
        operations: vec![Operation {
            action: Action::Add,
            content: Some(text),
            old_text: None,
        }],
    };
    with_status(memory()?.change_memory(&context()?, batch).await)
}

#[server(prefix = "/fn", endpoint = "edit_memory")]
pub async fn edit_memory(entry_id: String, text: String) -> Result<MemoryEntry, ApiError> {
    use crate::api::service::*;
    with_status(memory()?.edit_memory(&context()?, &entry_id, &text).await)
}

#[server(prefix = "/fn", endpoint = "forget")]
pub async fn forget(entry_id: String) -> Result<(), ApiError> {
    use crate::api::service::*;
    with_status(memory()?.delete_memory(&context()?, &entry_id).await)
}

#[server(prefix = "/fn", endpoint = "memory_review")]
pub async fn load_memory_review() -> Result<Vec<MemoryProposal>, ApiError> {
    use crate::api::service::*;
    with_status(memory()?.proposals(&context()?, Some("pending")).await)
}

#[server(prefix = "/fn", endpoint = "decide_memory")]
pub async fn decide_memory(proposal_id: String, accept: bool) -> Result<MemoryProposal, ApiError> {
    use crate::api::service::*;
    with_status(
        memory()?
            .decide_proposal(&context()?, &proposal_id, accept)
            .await,
    )
}

#[server(prefix = "/fn", endpoint = "memory_settings")]
pub async fn load_memory_settings() -> Result<MemorySettings, ApiError> {
    use crate::api::service::*;
    with_status(memory()?.memory_settings(&context()?).await)
}

#[server(prefix = "/fn", endpoint = "set_memory_settings")]
pub async fn set_memory_settings(auto_accept: bool) -> Result<MemorySettings, ApiError> {
    use crate::api::service::*;
    let settings = MemorySettings { auto_accept };
    with_status(memory()?.set_memory_settings(&context()?, settings).await)
}

/// One operation as a reviewer reads it.
fn describe(operation: &Operation) -> String {
    let content = operation.content.as_deref().unwrap_or_default();
    let old = operation.old_text.as_deref().unwrap_or_default();
    match operation.action {
        Action::Add => format!("Add: “{content}”"),
        Action::Replace => format!("Replace the entry with “{old}” by: “{content}”"),
        Action::Remove => format!("Remove the entry with “{old}”"),
    }
}

#[component]
pub fn MemoryPage() -> impl IntoView {
    let query = use_query_map();
    let chosen = move || {
        query.with(|query| {
            let kind = query
                .get("scope")
                .and_then(|scope| ScopeKind::parse(&scope).ok())
                .unwrap_or(ScopeKind::Tenant);
            (kind, query.get("project").unwrap_or_default())
        })
    };
    let search = move || query.with(|query| query.get("q").unwrap_or_default());
    let add = ServerAction::<Remember>::new();
    let edit = ServerAction::<EditMemory>::new();
    let remove = ServerAction::<Forget>::new();
    let decide = ServerAction::<DecideMemory>::new();
    let settings_change = ServerAction::<SetMemorySettings>::new();
    let changed = move || {
        (
            add.version().get(),
            edit.version().get(),
            remove.version().get(),
            decide.version().get(),
        )
    };
    let scope = Resource::<_, Json>::new_with_options(
        move || (chosen(), search(), changed()),
        |((kind, project), q, _)| load_memory(kind.label().to_owned(), project, q),
        false,
    );
    let review = Resource::<_, Json>::new_with_options(changed, |_| load_memory_review(), false);
    let settings = Resource::<_, Json>::new_with_options(
        move || settings_change.version().get(),
        |_| load_memory_settings(),
        false,
    );
    let projects = Resource::<_, Json>::new_with_options(
        || (),
        |_| load_projects(false, String::new(), 0),
        false,
    );
    let navigate = use_navigate();
    let may = may_act();
    let owner = is_owner();
    let problem = move || {
        [
            add.value().get().and_then(Result::err),
            edit.value().get().and_then(Result::err),
            remove.value().get().and_then(Result::err),
            decide.value().get().and_then(Result::err),
            settings_change.value().get().and_then(Result::err),
        ]
        .into_iter()
        .flatten()
        .next()
    };
    let tab = move |kind: ScopeKind, label: &'static str| {
        let href = format!("/memory?scope={}", kind.label());
        view! {
            <a href=href aria-current=move || (chosen().0 == kind).then_some("page")>{label}</a>
        }
    };
    view! {
        <Title text="Memory" />
        <main class="main section-page" id="main" tabindex="-1">
            <h1>"Memory"</h1>
            <nav class="note-pages" aria-label="Whose memory">
                {tab(ScopeKind::Tenant, "The tenant's")}
                {tab(ScopeKind::User, "Mine")}
                <Transition fallback=|| ()>
                    {move || {
                    let navigate = navigate.clone();
                    Suspend::new(async move {
                        let list = projects.await.map(|list| list.projects).unwrap_or_default();
                        (!list.is_empty()).then(|| view! {
                            <label class="visually-hidden" for="memory-project">"A project's memory"</label>
                            <select id="memory-project" on:change=move |event| {
                                let id = event_target_value(&event);
                                if !id.is_empty() {
                                    navigate(&format!("/memory?scope=project&project={id}"), Default::default());
                                }
                            }>
                                <option value="">"A project's…"</option>
                                {list.into_iter().map(|project| {
                                    let selected = chosen().1 == project.id;
                                    view! { <option value=project.id.clone() selected=selected>{project.name}</option> }
                                }).collect_view()}
                            </select>
                        })
                    })}}
                </Transition>
            </nav>
            {move || problem().map(|error| view! { <p class="error-text" role="alert">{error.say()}</p> })}
            {move || {
                let (kind, project) = chosen();
                view! {
                    <SearchBox action="/memory" id="memory-search" label="Search memory"
                        placeholder="Search this memory" value=Signal::derive(search)
                        keep=vec![("scope", kind.label().to_owned()), ("project", project)] />
                }
            }}
            <Transition fallback=|| view! { <p class="muted">"Loading memory…"</p> }>
                {move || Suspend::new(async move {
                    match scope.await {
                        Ok(scope) => view! { <ScopeView scope edit remove /> }.into_any(),
                        Err(error) => view! { <p class="error-text" role="alert">{error.say()}</p> }.into_any(),
                    }
                })}
            </Transition>
            <Show when=move || may.get() fallback=|| view! { <p class="muted">{VIEWER_MEMORY}</p> }>
                <ActionForm action=add attr:class="note-form">
                    <input type="hidden" name="scope" prop:value=move || chosen().0.label() />
                    <input type="hidden" name="project_id" prop:value=move || chosen().1 />
                    <label class="field-label" for="memory-new">"Remember"</label>
                    <textarea id="memory-new" name="text" rows="2" required></textarea>
                    <button type="submit" class="button primary">"Remember this"</button>
                </ActionForm>
            </Show>
            <section aria-labelledby="review-heading">
                <h2 id="review-heading">"Proposed by agents"</h2>
                <Transition fallback=|| view! { <p class="muted">"Loading the review queue…"</p> }>
                    {move || Suspend::new(async move {
                        match review.await {
                            Ok(list) if list.is_empty() => view! { <p class="muted" role="status">"Nothing waits for review."</p> }.into_any(),
                            Ok(list) => view! {
                                <ul class="note-list" aria-label="Proposals waiting for review">
                                    {list.into_iter().map(|proposal| {
                                        let (accept_id, reject_id) = (proposal.id.clone(), proposal.id.clone());
                                        view! {
                                            <li class="note-row">
                                                <span class="note-title">{proposal.proposed_by.clone()} " · " {proposal.scope.label()}</span>
                                                <span class="muted note-meta">{time_view(proposal.created_at_ms)}</span>
                                                <ul class="note-snippet">
                                                    {proposal.operations.iter().map(|operation| view! { <li>{describe(operation)}</li> }).collect_view()}
                                                </ul>
                                                {proposal.reason.clone().map(|reason| view! { <p class="muted proposal-reason">"Why: " {reason}</p> })}
                                                <Show when=move || may.get()>
                                                    {
                                                        let (accept_id, reject_id) = (accept_id.clone(), reject_id.clone());
                                                        view! {
                                                            <div class="note-actions">
                                                                <button type="button" class="button small" on:click=move |_| {
                                                                    decide.dispatch(DecideMemory { proposal_id: accept_id.clone(), accept: true });
                                                                }>"Accept"</button>
                                                                <button type="button" class="button small ghost" on:click=move |_| {
                                                                    decide.dispatch(DecideMemory { proposal_id: reject_id.clone(), accept: false });
                                                                }>"Reject"</button>
                                                            </div>
                                                        }
                                                    }
                                                </Show>
                                            </li>
                                        }
                                    }).collect_view()}
                                </ul>
                            }.into_any(),
                            Err(error) => view! { <p class="error-text" role="alert">{error.say()}</p> }.into_any(),
                        }
                    })}
                </Transition>
                <Transition fallback=|| ()>
                    {move || Suspend::new(async move {
                        let auto = settings.await.map(|settings| settings.auto_accept).unwrap_or(false);
                        view! {
                            <label class="memory-setting">
                                <input type="checkbox" prop:checked=auto disabled=move || !owner.get()
                                    on:change=move |event| {
                                        settings_change.dispatch(SetMemorySettings { auto_accept: event_target_checked(&event) });
                                    } />
                                " Accept what agents propose without review"
                            </label>
                            {move || (!owner.get()).then(|| view! { <p class="muted">"Only an owner changes this."</p> })}
                        }
                    })}
                </Transition>
            </section>
        </main>
        <ContextFrame>
            <section class="pane-section">
                <h2>"Memory"</h2>
                <p class="muted">"Short facts agents remember across threads. Each scope holds a limited number of characters (the tenant's and a project's 2,200, yours 1,375, as Hermes keeps them). What agents propose waits here until someone accepts it."</p>
            </section>
        </ContextFrame>
    }
}

#[component]
fn ScopeView(
    scope: MemoryScope,
    edit: ServerAction<EditMemory>,
    remove: ServerAction<Forget>,
) -> impl IntoView {
    let may = may_act();
    let percent = scope.used * 100 / scope.limit.max(1);
    view! {
        <p class="memory-usage">
            <meter min="0" max=scope.limit.to_string() value=scope.used.to_string() aria-label="Memory used"></meter>
            " " {format!("{} of {} characters ({percent}%)", scope.used, scope.limit)}
        </p>
        {scope.entries.is_empty().then(|| view! { <p class="muted" role="status">"Nothing remembered here yet."</p> })}
        <ul class="note-list" aria-label="Memory entries">
            {scope.entries.into_iter().map(|entry| {
                let editing = RwSignal::new(false);
                let (edit_id, remove_id, text) = (entry.id.clone(), entry.id.clone(), entry.text.clone());
                let label = format!("Remove “{}”", entry.text.chars().take(40).collect::<String>());
                view! {
                    <li class="note-row">
                        <Show when=move || editing.get() fallback={
                            let text = text.clone();
                            move || view! { <span class="memory-text">{text.clone()}</span> }
                        }>
                            {
                                let (edit_id, text) = (edit_id.clone(), text.clone());
                                view! {
                                    <ActionForm action=edit attr:class="note-form">
                                        <input type="hidden" name="entry_id" value=edit_id />
                                        <label class="visually-hidden" for="memory-edit">"Entry text"</label>
                                        <textarea id="memory-edit" name="text" rows="2">{text}</textarea>
                                        <div class="note-actions">
                                            <button type="submit" class="button small primary">"Save"</button>
                                            <button type="button" class="button small ghost" on:click=move |_| editing.set(false)>"Cancel"</button>
                                        </div>
                                    </ActionForm>
                                }
                            }
                        </Show>
                        <span class="muted note-meta">{entry.author.clone()} " · " {time_view(entry.updated_at_ms)}</span>
                        <Show when=move || may.get()>
                            {
                                let (remove_id, label) = (remove_id.clone(), label.clone());
                                view! {
                                    <button type="button" class="button small ghost" on:click=move |_| editing.set(true)>"Edit"</button>
                                    <button type="button" class="button small ghost" aria-label=label
                                        on:click=move |_| { remove.dispatch(Forget { entry_id: remove_id.clone() }); }>"Remove"</button>
                                }
                            }
                        </Show>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
}
