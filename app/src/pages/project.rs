//! `/projects/:id`: one project — its description, default agent, threads (and a new thread
//! in it), notes, open asks and latest runs; edit, archive or restore, delete.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_navigate, use_params_map};

use crate::codec::Json;
use crate::components::identity::may_act;
use crate::components::layout::ContextFrame;
use crate::components::markdown::Markdown;
use crate::components::sidebar::{NewThreadButton, ThreadsChanged};
use crate::model::projects::ProjectPage;
use crate::pages::notes::time_view;
use crate::pages::projects::{
    AgentOptions, ArchiveProject, DeleteProject, EditProject, VIEWER_PROJECTS, load_agents,
    load_project_page,
};

#[component]
pub fn ProjectPageView() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.with(|params| params.get("id").unwrap_or_default());
    let edit = ServerAction::<EditProject>::new();
    let archive = ServerAction::<ArchiveProject>::new();
    let delete = ServerAction::<DeleteProject>::new();
    let saved = RwSignal::new(0_u32);
    let editing = RwSignal::new(false);
    Effect::new(move |_| {
        if let Some(Ok(_)) = edit.value().get() {
            editing.set(false);
            saved.update(|count| *count += 1);
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(_)) = archive.value().get() {
            saved.update(|count| *count += 1);
        }
    });
    // Blocking: the status code (404 for an unknown id) and the title come with the page.
    let page = Resource::<_, Json>::new_with_options(
        move || (id(), saved.get()),
        |(id, _)| load_project_page(id),
        true,
    );
    let navigate = use_navigate();
    Effect::new(move |_| {
        if let Some(Ok(())) = delete.value().get() {
            navigate("/projects", Default::default());
        }
    });
    let problem = move || {
        [
            archive.value().get().and_then(Result::err),
            delete.value().get().and_then(Result::err),
        ]
        .into_iter()
        .flatten()
        .next()
    };
    view! {
        <main class="main section-page project-page" id="main" tabindex="-1">
            <p class="muted"><a href="/projects">"← Projects"</a></p>
            {move || problem().map(|error| view! { <p class="error-text" role="alert">{error.say()}</p> })}
            <Transition fallback=|| view! { <p class="muted">"Loading the project…"</p> }>
                {move || Suspend::new(async move {
                    match page.await {
                        Ok(page) => view! {
                            <Title text=page.project.name.clone() />
                            <ProjectView page editing edit archive delete />
                        }.into_any(),
                        Err(error) => view! {
                            <Title text="Project" />
                            <h1>"Project"</h1>
                            <p class="error-text" role="alert">{error.say()}</p>
                        }.into_any(),
                    }
                })}
            </Transition>
        </main>
        <ContextFrame>
            <section class="pane-section">
                <h2>"Project"</h2>
                <p class="muted">"Threads started here talk to the project's default agent unless they name another. An archived project keeps its threads and notes and takes no new threads."</p>
            </section>
        </ContextFrame>
    }
}

#[component]
fn ProjectView(
    page: ProjectPage,
    editing: RwSignal<bool>,
    edit: ServerAction<EditProject>,
    archive: ServerAction<ArchiveProject>,
    delete: ServerAction<DeleteProject>,
) -> impl IntoView {
    let may = may_act();
    let project = page.project.clone();
    let id = project.id.clone();
    let archived = project.archived_at_ms.is_some();
    let confirm_delete = RwSignal::new(false);
    let threads_changed = use_context::<ThreadsChanged>();
    // The sidebar groups threads under their project's name: it reads them again after
    // the project is renamed, archived or deleted.
    Effect::new(move |first: Option<()>| {
        edit.version().track();
        archive.version().track();
        delete.version().track();
        if first.is_some()
            && let Some(changed) = threads_changed
        {
            changed.0.update(|count| *count += 1);
        }
    });
    let agents = Resource::<_, Json>::new_with_options(|| (), |_| load_agents(), false);
    let controls = {
        let id = id.clone();
        move || {
            let (archive_id, delete_id, thread_project) = (id.clone(), id.clone(), id.clone());
            view! {
                <div class="note-actions">
                    {(!archived).then(|| view! {
                        <NewThreadButton project_id=thread_project label="New thread in this project" />
                    })}
                    <button type="button" class="button" on:click=move |_| editing.set(true)>"Edit"</button>
                    <button type="button" class="button ghost" on:click=move |_| {
                        archive.dispatch(ArchiveProject { project_id: archive_id.clone(), archived: !archived });
                    }>{if archived { "Restore" } else { "Archive" }}</button>
                    <button type="button" class="button ghost" on:click=move |_| confirm_delete.set(true)>"Delete…"</button>
                </div>
                {
                    let delete_id = delete_id.clone();
                    move || confirm_delete.get().then(|| {
                        let delete_id = delete_id.clone();
                        view! {
                            <div class="note-confirm" role="alertdialog" aria-label="Delete this project?">
                                <p>"Delete this project? Its threads and notes stay, outside any project."</p>
                                <button type="button" class="button danger" on:click=move |_| {
                                    delete.dispatch(DeleteProject { project_id: delete_id.clone() });
                                }>"Delete the project"</button>
                                <button type="button" class="button ghost" on:click=move |_| confirm_delete.set(false)>"Keep it"</button>
                            </div>
                        }
                    })
                }
            }
        }
    };
    let editor = {
        let project = project.clone();
        move || {
            let project = project.clone();
            view! {
                {move || edit.value().get().and_then(Result::err).map(|error| view! {
                    <p class="error-text" role="alert">{error.say()}</p>
                })}
                <ActionForm action=edit attr:class="note-form">
                    <input type="hidden" name="project_id" value=project.id.clone() />
                    <label class="field-label" for="project-name">"Name"</label>
                    <input id="project-name" name="name" type="text" required maxlength="100" value=project.name.clone() />
                    <label class="field-label" for="project-description">"Description (Markdown)"</label>
                    <textarea id="project-description" name="description" rows="6">{project.description.clone()}</textarea>
                    <label class="field-label" for="project-agent">"Default agent"</label>
                    <select id="project-agent" name="default_agent">
                        <Transition fallback=|| ()>
                            {
                                let current = project.default_agent.clone();
                                move || {
                                    let current = current.clone();
                                    Suspend::new(async move {
                                        let agents = agents.await.unwrap_or_default();
                                        view! { <AgentOptions agents current /> }
                                    })
                                }
                            }
                        </Transition>
                    </select>
                    <div class="note-actions">
                        <button type="submit" class="button primary">"Save"</button>
                        <button type="button" class="button ghost" on:click=move |_| editing.set(false)>"Cancel"</button>
                    </div>
                </ActionForm>
            }
        }
    };
    view! {
        <h1 class="note-heading">{project.name.clone()} {archived.then(|| view! { " " <span class="tag">"archived"</span> })}</h1>
        <p class="muted note-meta">
            "Default agent: " {project.default_agent.clone().unwrap_or_else(|| "none".into())}
            " · updated " {time_view(project.updated_at_ms)}
        </p>
        {move || {
            if !may.get() {
                view! { <p class="muted">{VIEWER_PROJECTS}</p> }.into_any()
            } else if editing.get() {
                editor().into_any()
            } else {
                controls().into_any()
            }
        }}
        <div class="note-body"><Markdown text=project.description.clone() /></div>
        <section aria-labelledby="project-threads">
            <h2 id="project-threads">"Threads"</h2>
            {if page.threads.is_empty() {
                view! { <p class="muted">"No threads in this project yet."</p> }.into_any()
            } else {
                view! {
                    <ul class="note-list" aria-label="Threads in this project">
                        {page.threads.into_iter().map(|thread| view! {
                            <li class="note-row"><a class="note-title" href=format!("/threads/{}", thread.id)>{thread.title}</a>
                            <span class="muted note-meta">{time_view(thread.created_at_ms)}</span></li>
                        }).collect_view()}
                    </ul>
                }.into_any()
            }}
        </section>
        <section aria-labelledby="project-asks">
            <h2 id="project-asks">"Open asks"</h2>
            {if page.open_asks.is_empty() {
                view! { <p class="muted">"Nothing is waiting for an answer."</p> }.into_any()
            } else {
                view! {
                    <ul class="note-list" aria-label="Open asks in this project">
                        {page.open_asks.into_iter().map(|ask| view! {
                            <li class="note-row"><a class="note-title" href=format!("/threads/{}", ask.thread_id)>{ask.title}</a>
                            <span class="muted note-meta">"waiting since " {time_view(ask.created_at_ms)}</span></li>
                        }).collect_view()}
                    </ul>
                }.into_any()
            }}
        </section>
        <section aria-labelledby="project-runs">
            <h2 id="project-runs">"Latest runs"</h2>
            {if page.recent_runs.is_empty() {
                view! { <p class="muted">"No runs yet."</p> }.into_any()
            } else {
                view! {
                    <ul class="note-list" aria-label="Latest runs in this project">
                        {page.recent_runs.into_iter().map(|entry| view! {
                            <li class="note-row"><a class="note-title" href=format!("/threads/{}", entry.thread_id)>{entry.run.agent}</a>
                            <span class="tag">{entry.run.status.label()}</span>
                            <span class="muted note-meta">{time_view(entry.run.created_at_ms)}</span></li>
                        }).collect_view()}
                    </ul>
                }.into_any()
            }}
        </section>
        <section aria-labelledby="project-notes">
            <h2 id="project-notes">"Notes"</h2>
            {if page.notes.is_empty() {
                view! { <p class="muted">"No notes in this project."</p> }.into_any()
            } else {
                view! {
                    <ul class="note-list" aria-label="Notes in this project">
                        {page.notes.into_iter().map(|note| view! {
                            <li class="note-row"><a class="note-title" href=format!("/notes/{}", note.id)>{note.title}</a>
                            <span class="muted note-meta">{time_view(note.updated_at_ms)}</span></li>
                        }).collect_view()}
                    </ul>
                }.into_any()
            }}
        </section>
    }
}
