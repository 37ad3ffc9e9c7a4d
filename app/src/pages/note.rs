//! `/notes/:id`: one note rendered safely, edited with a live preview (an edit made on a
//! stale copy is refused and the typed text kept), its history with any earlier version
//! viewable and restorable, the threads it is pinned to, and deletion.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_navigate, use_params_map};

use crate::codec::Json;
use crate::components::identity::may_act;
use crate::components::layout::ContextFrame;
use crate::components::markdown::Markdown;
use crate::model::notes::{Note, NoteVersionSummary};
use crate::pages::notes::{
    DeleteNote, EditNote, ProjectChoice, RestoreNote, VIEWER_NOTES, load_note, load_note_version,
    load_note_versions, notes_link, time_view,
};

#[component]
pub fn NotePage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.with(|params| params.get("id").unwrap_or_default());
    let edit = ServerAction::<EditNote>::new();
    let restore = ServerAction::<RestoreNote>::new();
    let delete = ServerAction::<DeleteNote>::new();
    // Only a change that was saved reloads the note: after a refusal the editor keeps
    // what was typed.
    let saved = RwSignal::new(0_u32);
    let changed = move || saved.get();
    // Blocking: the status code (404 for an unknown id) and the title come with the page.
    let note = Resource::<_, Json>::new_with_options(
        move || (id(), changed()),
        |(id, _)| load_note(id),
        true,
    );
    let versions = Resource::<_, Json>::new_with_options(
        move || (id(), changed()),
        |(id, _)| load_note_versions(id),
        false,
    );
    // A version opened from the history, shown above the note.
    let opened = RwSignal::new(None::<u32>);
    let editing = RwSignal::new(false);
    Effect::new(move |_| {
        if let Some(Ok(_)) = edit.value().get() {
            editing.set(false);
            saved.update(|count| *count += 1);
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(_)) = restore.value().get() {
            opened.set(None);
            saved.update(|count| *count += 1);
        }
    });
    let navigate = use_navigate();
    Effect::new(move |_| {
        if let Some(Ok(())) = delete.value().get() {
            navigate("/notes", Default::default());
        }
    });
    let problem = move || {
        [
            restore.value().get().and_then(Result::err),
            delete.value().get().and_then(Result::err),
        ]
        .into_iter()
        .flatten()
        .next()
    };
    view! {
        <main class="main section-page note-page" id="main" tabindex="-1">
            <p class="muted"><a href="/notes">"← Notes"</a></p>
            {move || problem().map(|error| view! { <p class="error-text" role="alert">{error.say()}</p> })}
            <Transition fallback=|| view! { <p class="muted">"Loading the note…"</p> }>
                {move || Suspend::new(async move {
                    match note.await {
                        Ok(note) => view! {
                            <Title text=note.title.clone() />
                            {move || opened.get().map(|version| view! { <OpenedVersion note_id=id() version opened restore /> })}
                            <NoteView note editing edit delete />
                        }.into_any(),
                        Err(error) => view! {
                            <Title text="Note" />
                            <h1>"Note"</h1>
                            <p class="error-text" role="alert">{error.say()}</p>
                        }.into_any(),
                    }
                })}
            </Transition>
        </main>
        <ContextFrame>
            <section class="pane-section" aria-labelledby="history-heading">
                <h2 id="history-heading">"History"</h2>
                <Transition fallback=|| view! { <p class="muted">"Loading versions…"</p> }>
                    {move || Suspend::new(async move {
                        match versions.await {
                            Ok(list) => view! { <History list opened /> }.into_any(),
                            Err(_) => view! { <p class="muted">"No history."</p> }.into_any(),
                        }
                    })}
                </Transition>
            </section>
        </ContextFrame>
    }
}

#[component]
fn NoteView(
    note: Note,
    editing: RwSignal<bool>,
    edit: ServerAction<EditNote>,
    delete: ServerAction<DeleteNote>,
) -> impl IntoView {
    let may = may_act();
    let id = note.id.clone();
    let confirm_delete = RwSignal::new(false);
    let meta = {
        let note = note.clone();
        move || {
            view! {
                <p class="muted note-meta">
                    "Version " {note.version} " · edited by " {note.updated_by.clone()} " " {time_view(note.updated_at_ms)}
                    " · created by " {note.created_by.clone()} " " {time_view(note.created_at_ms)}
                {note.project_id.clone().map(|project| view! { " · " <a href=format!("/projects/{project}")>"in its project"</a> })}
                </p>
            }
        }
    };
    let tags = note.tags.clone();
    let threads = note.threads.clone();
    let shown = note.clone();
    view! {
        <Show when=move || editing.get() fallback=move || {
            let note = shown.clone();
            let id = id.clone();
            view! {
                <h1 class="note-heading">{note.title.clone()}</h1>
                <p class="note-tags">
                    {tags.clone().into_iter().map(|tag| view! {
                        <a class="tag" href=notes_link("", &tag, 0)>{tag.clone()}</a>
                    }).collect_view()}
                </p>
                {meta.clone()()}
                <Show when=move || may.get() fallback=|| view! { <p class="muted">{VIEWER_NOTES}</p> }>
                    <div class="note-actions">
                        <button type="button" class="button" on:click=move |_| editing.set(true)>"Edit"</button>
                        <button type="button" class="button ghost" on:click=move |_| confirm_delete.set(true)>"Delete…"</button>
                    </div>
                    {
                        let id = id.clone();
                        move || confirm_delete.get().then(|| {
                            let id = id.clone();
                            view! {
                                <div class="note-confirm" role="alertdialog" aria-label="Delete this note?">
                                    <p>"Delete this note and all its versions? This cannot be undone."</p>
                                    <button type="button" class="button danger" on:click=move |_| {
                                        delete.dispatch(DeleteNote { note_id: id.clone() });
                                    }>"Delete the note"</button>
                                    <button type="button" class="button ghost" on:click=move |_| confirm_delete.set(false)>"Keep it"</button>
                                </div>
                            }
                        })
                    }
                </Show>
                <article class="note-body" aria-label="Note text"><Markdown text=note.body.clone() /></article>
                {(!threads.is_empty()).then(|| view! {
                    <p class="muted">"Pinned to "
                        {threads.clone().into_iter().map(|thread| view! {
                            <a href=format!("/threads/{}", thread.id)>{thread.title}</a> " "
                        }).collect_view()}
                    </p>
                })}
            }
        }>
            <NoteEditor note=note.clone() editing edit />
        </Show>
    }
}

#[component]
fn NoteEditor(note: Note, editing: RwSignal<bool>, edit: ServerAction<EditNote>) -> impl IntoView {
    let body = RwSignal::new(note.body.clone());
    let preview = RwSignal::new(false);
    view! {
        <h1>"Editing “" {note.title.clone()} "”"</h1>
        {move || edit.value().get().and_then(Result::err).map(|error| view! {
            <p class="error-text" role="alert">{error.say()} " Your text is kept below."</p>
        })}
        <ActionForm action=edit attr:class="note-form">
            <input type="hidden" name="note_id" value=note.id.clone() />
            <input type="hidden" name="base_version" value=note.version.to_string() />
            <label class="field-label" for="note-title">"Title"</label>
            <input id="note-title" name="title" type="text" required maxlength="200" value=note.title.clone() />
            <label class="field-label" for="note-tags">"Tags (commas or spaces between)"</label>
            <input id="note-tags" name="tags" type="text" autocapitalize="none" spellcheck="false"
                value=note.tags.join(", ") />
            <ProjectChoice id="note-project" current=note.project_id.clone() />
            <div class="note-editor-tabs" role="group" aria-label="Text view">
                <button type="button" class="button small" aria-pressed=move || (!preview.get()).to_string()
                    on:click=move |_| preview.set(false)>"Write"</button>
                <button type="button" class="button small" aria-pressed=move || preview.get().to_string()
                    on:click=move |_| preview.set(true)>"Preview"</button>
            </div>
            <label class="field-label" for="note-body" class:visually-hidden=move || preview.get()>"Text (Markdown)"</label>
            <textarea id="note-body" name="body" rows="16" prop:value=move || body.get()
                class:visually-hidden=move || preview.get()
                on:input=move |event| body.set(event_target_value(&event))>{note.body.clone()}</textarea>
            {move || preview.get().then(|| view! {
                <div class="note-body note-preview" aria-label="Preview">{move || view! { <Markdown text=body.get() /> }}</div>
            })}
            <div class="note-actions">
                <button type="submit" class="button primary">"Save"</button>
                <button type="button" class="button ghost" on:click=move |_| editing.set(false)>"Cancel"</button>
            </div>
        </ActionForm>
    }
}

#[component]
fn History(list: Vec<NoteVersionSummary>, opened: RwSignal<Option<u32>>) -> impl IntoView {
    let newest = list.first().map(|version| version.version);
    view! {
        <ol class="note-history" aria-label="Versions, newest first">
            {list.into_iter().map(|version| {
                let number = version.version;
                let current = Some(number) == newest;
                view! {
                    <li>
                        <button type="button" class="button small ghost"
                            aria-pressed=move || (opened.get() == Some(number)).to_string()
                            disabled=current
                            on:click=move |_| opened.set(Some(number))>
                            "v" {number} {current.then_some(" (current)")}
                        </button>
                        " " <span class="muted">{version.edited_by} " " {time_view(version.edited_at_ms)}</span>
                    </li>
                }
            }).collect_view()}
        </ol>
    }
}

#[component]
fn OpenedVersion(
    note_id: String,
    version: u32,
    opened: RwSignal<Option<u32>>,
    restore: ServerAction<RestoreNote>,
) -> impl IntoView {
    let may = may_act();
    let id = note_id.clone();
    let old = Resource::<_, Json>::new_with_options(
        move || (note_id.clone(), version),
        |(id, version)| load_note_version(id, version),
        false,
    );
    view! {
        <section class="note-version" aria-label=format!("Version {version}")>
            <Transition fallback=|| view! { <p class="muted">"Loading the version…"</p> }>
                {move || {
                    let id = id.clone();
                    Suspend::new(async move {
                    match old.await {
                        Ok(old) => {
                            view! {
                                <p class="note-version-head">
                                    <strong>"Version " {old.version}</strong>
                                    " by " {old.edited_by.clone()} " " {time_view(old.edited_at_ms)}
                                </p>
                                <h2>{old.title.clone()}</h2>
                                <div class="note-body"><Markdown text=old.body.clone() /></div>
                                <div class="note-actions">
                                    <Show when=move || may.get()>
                                        {
                                            let id = id.clone();
                                            view! {
                                                <button type="button" class="button" on:click=move |_| {
                                                    restore.dispatch(RestoreNote { note_id: id.clone(), version });
                                                }>"Restore this version"</button>
                                            }
                                        }
                                    </Show>
                                    <button type="button" class="button ghost" on:click=move |_| opened.set(None)>"Close"</button>
                                </div>
                            }.into_any()
                        }
                        Err(error) => view! { <p class="error-text" role="alert">{error.say()}</p> }.into_any(),
                    }
                })}}
            </Transition>
        </section>
    }
}
