//! `/notes`: the tenant's notes — search (full text, linkable as `?q=`), filter by tag,
//! page through, and write a new one. Server functions here serve this page and the note
//! page beside it.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_navigate, use_query_map};

use crate::codec::Json;
use crate::components::identity::may_act;
use crate::components::layout::ContextFrame;
use crate::components::search_box::query_value;
use crate::error::ApiError;
use crate::model::notes::{Note, NoteList, NoteSummary, NoteVersion, NoteVersionSummary};
use crate::model::projects::Project;
use crate::when::{readable, rfc3339};

/// What a viewer is told where notes could be written.
pub const VIEWER_NOTES: &str =
    "You are a viewer in this tenant: you can read and search notes, but not write them.";

/// How many notes one page of the list shows.
const PAGE: u32 = 50;

#[server(prefix = "/fn", endpoint = "notes")]
pub async fn load_notes(q: String, tag: String, offset: u32) -> Result<NoteList, ApiError> {
    use crate::api::service::*;
    let query = crate::model::notes::NoteQuery {
        q: Some(q),
        tag: Some(tag),
        project_id: None,
        offset: Some(offset),
        limit: Some(PAGE),
    };
    with_status(notes()?.list_notes(&context()?, &query).await)
}

#[server(prefix = "/fn", endpoint = "note")]
pub async fn load_note(note_id: String) -> Result<Note, ApiError> {
    use crate::api::service::*;
    with_status(notes()?.get_note(&context()?, &note_id).await)
}

#[server(prefix = "/fn", endpoint = "note_versions")]
pub async fn load_note_versions(note_id: String) -> Result<Vec<NoteVersionSummary>, ApiError> {
    use crate::api::service::*;
    with_status(notes()?.note_versions(&context()?, &note_id).await)
}

#[server(prefix = "/fn", endpoint = "note_version")]
pub async fn load_note_version(note_id: String, version: u32) -> Result<NoteVersion, ApiError> {
    use crate::api::service::*;
    with_status(notes()?.note_version(&context()?, &note_id, version).await)
}

/// A new note; `tags` as typed on one line (commas or spaces between them); in project
/// `project_id` unless it is empty.
#[server(prefix = "/fn", endpoint = "create_note")]
pub async fn create_note(
    title: String,
    body: String,
    tags: String,
    project_id: String,
) -> Result<Note, ApiError> {
    use crate::api::service::*;
    let note = crate::model::notes::NewNote {
        title,
        body,
        tags: crate::model::notes::tags_from_line(&tags),
        project_id: Some(project_id).filter(|id| !id.is_empty()),
    };
    with_status(notes()?.create_note(&context()?, note).await)
}

/// Saves an edit made on version `base_version`; refused when the note has moved on.
#[server(prefix = "/fn", endpoint = "edit_note")]
pub async fn edit_note(
    note_id: String,
    title: String,
    body: String,
    tags: String,
    project_id: String,
    base_version: u32,
) -> Result<Note, ApiError> {
    use crate::api::service::*;
    let edit = crate::model::notes::NoteEdit {
        title: Some(title),
        body: Some(body),
        tags: Some(crate::model::notes::tags_from_line(&tags)),
        project_id: Some(Some(project_id).filter(|id| !id.is_empty())),
        base_version: Some(base_version),
    };
    with_status(notes()?.edit_note(&context()?, &note_id, edit).await)
}

#[server(prefix = "/fn", endpoint = "delete_note")]
pub async fn delete_note(note_id: String) -> Result<(), ApiError> {
    use crate::api::service::*;
    with_status(notes()?.delete_note(&context()?, &note_id).await)
}

#[server(prefix = "/fn", endpoint = "restore_note")]
pub async fn restore_note(note_id: String, version: u32) -> Result<Note, ApiError> {
    use crate::api::service::*;
    with_status(notes()?.restore_note(&context()?, &note_id, version).await)
}

/// The notes list searching for `q`, showing `tag`, from `offset` (each left out when
/// empty or zero).
pub fn notes_link(q: &str, tag: &str, offset: u32) -> String {
    let mut parts = Vec::new();
    for (name, value) in [("q", q.trim()), ("tag", tag)] {
        if !value.is_empty() {
            parts.push(format!("{name}={}", query_value(value)));
        }
    }
    if offset > 0 {
        parts.push(format!("offset={offset}"));
    }
    match parts.is_empty() {
        true => "/notes".to_owned(),
        false => format!("/notes?{}", parts.join("&")),
    }
}

/// A form's choice of the project a note belongs to (`project_id`; empty: none), among
/// the active projects and the note's own.
#[component]
pub fn ProjectChoice(id: &'static str, current: Option<String>) -> impl IntoView {
    let projects = Resource::<_, Json>::new_with_options(
        || (),
        |_| crate::pages::projects::load_projects(false, String::new(), 0),
        false,
    );
    view! {
        <label class="field-label" for=id>"Project"</label>
        <select id=id name="project_id">
            <Transition fallback=|| ()>
                {
                    let current = current.clone();
                    move || {
                        let current = current.clone();
                        Suspend::new(async move {
                            let list = projects.await.map(|list| list.projects).unwrap_or_default();
                            view! { <ProjectOptions list current /> }
                        })
                    }
                }
            </Transition>
        </select>
    }
}

/// The options of a project choice: none, the projects in `list`, and `current` though it
/// is not among them (archived).
#[component]
pub fn ProjectOptions(list: Vec<Project>, current: Option<String>) -> impl IntoView {
    let known = current
        .as_ref()
        .is_none_or(|id| list.iter().any(|project| &project.id == id));
    view! {
        <option value="" selected=current.is_none()>"No project"</option>
        {(!known).then(|| view! { <option value=current.clone().unwrap_or_default() selected=true>"(its archived project)"</option> })}
        {list.into_iter().map(|project| {
            let selected = current.as_deref() == Some(project.id.as_str());
            view! { <option value=project.id.clone() selected=selected>{project.name}</option> }
        }).collect_view()}
    }
}

/// A time as the console shows it, machine-readable underneath.
pub fn time_view(ms: i64) -> impl IntoView {
    let at = rfc3339(ms);
    view! { <time datetime=at.clone()>{readable(&at)}</time> }
}

#[component]
pub fn NotesPage() -> impl IntoView {
    let query = use_query_map();
    let search = move || {
        query.with(|query| {
            (
                query.get("q").unwrap_or_default(),
                query.get("tag").unwrap_or_default(),
                query
                    .get("offset")
                    .and_then(|offset| offset.parse::<u32>().ok())
                    .unwrap_or(0),
            )
        })
    };
    let create = ServerAction::<CreateNote>::new();
    let notes = Resource::<_, Json>::new_with_options(
        search,
        |(q, tag, offset)| load_notes(q, tag, offset),
        false,
    );
    let navigate = use_navigate();
    let go = navigate.clone();
    let typed = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(Ok(note)) = create.value().get() {
            navigate(&format!("/notes/{}", note.id), Default::default());
        }
    });
    let may = may_act();
    view! {
        <Title text="Notes" />
        <main class="main section-page" id="main" tabindex="-1">
            <h1>"Notes"</h1>
            <form method="get" action="/notes" class="note-search" role="search" on:submit=move |event| {
                event.prevent_default();
                let q = typed.get().map(|input| input.value()).unwrap_or_default();
                go(&notes_link(&q, &search().1, 0), Default::default());
            }>
                <label class="visually-hidden" for="note-search">"Search notes"</label>
                <input id="note-search" type="search" name="q" placeholder="Search titles, tags and text"
                    maxlength="400" node_ref=typed prop:value=move || search().0 />
                {move || {
                    let tag = search().1;
                    (!tag.is_empty()).then(|| view! { <input type="hidden" name="tag" value=tag /> })
                }}
                <button type="submit" class="button">"Search"</button>
            </form>
            {move || {
                let (q, tag, _) = search();
                (!q.is_empty() || !tag.is_empty()).then(|| {
                    let what = match (q.is_empty(), tag.is_empty()) {
                        (false, false) => format!("Notes tagged {tag} matching “{q}”"),
                        (false, true) => format!("Notes matching “{q}”"),
                        _ => format!("Notes tagged {tag}"),
                    };
                    view! { <p class="muted note-filter">{what} " · " <a href="/notes">"All notes"</a></p> }
                })
            }}
            <Transition fallback=|| view! { <p class="muted">"Loading notes…"</p> }>
                {move || Suspend::new(async move {
                    match notes.await {
                        Ok(list) => view! { <NoteTable list search=search() /> }.into_any(),
                        Err(error) => view! { <p class="error-text" role="alert">"Notes could not be loaded: " {error.say()}</p> }.into_any(),
                    }
                })}
            </Transition>
            <section aria-labelledby="new-note-heading" class="new-note">
                <h2 id="new-note-heading">"New note"</h2>
                <Show when=move || may.get() fallback=|| view! { <p class="muted">{VIEWER_NOTES}</p> }>
                    {move || create.value().get().and_then(Result::err).map(|error| view! {
                        <p class="error-text" role="alert">{error.say()}</p>
                    })}
                    <ActionForm action=create attr:class="note-form">
                        <label class="field-label" for="new-note-title">"Title"</label>
                        <input id="new-note-title" name="title" type="text" required maxlength="200" />
                        <label class="field-label" for="new-note-tags">"Tags (commas or spaces between)"</label>
                        <input id="new-note-tags" name="tags" type="text" autocapitalize="none" spellcheck="false" />
                        <ProjectChoice id="new-note-project" current=None />
                        <label class="field-label" for="new-note-body">"Text (Markdown)"</label>
                        <textarea id="new-note-body" name="body" rows="8"></textarea>
                        <button type="submit" class="button primary">"Save note"</button>
                    </ActionForm>
                </Show>
            </section>
        </main>
        <ContextFrame>
            <section class="pane-section">
                <h2>"Notes"</h2>
                <p class="muted">"Notes are Markdown kept beside the threads. Search finds words in titles, tags and text, also their other forms (“deploying” finds “deployment”). Every edit keeps the version before it."</p>
            </section>
        </ContextFrame>
    }
}

#[component]
fn NoteTable(list: NoteList, search: (String, String, u32)) -> impl IntoView {
    let (q, tag, offset) = search;
    if list.notes.is_empty() {
        let empty = if q.is_empty() && tag.is_empty() && offset == 0 {
            "No notes yet. Write the first one below."
        } else {
            "No note matches."
        };
        return view! { <p role="status" class="muted">{empty}</p> }.into_any();
    }
    let page_link = move |offset: u32| notes_link(&q, &tag, offset);
    let previous = (offset > 0).then(|| page_link(offset.saturating_sub(PAGE)));
    let next = list.next_offset.map(page_link);
    view! {
        <ul class="note-list" aria-label="Notes">
            {list.notes.into_iter().map(|note| view! { <NoteRow note /> }).collect_view()}
        </ul>
        <nav class="note-pages" aria-label="Pages">
            {previous.map(|href| view! { <a href=href>"Previous"</a> })}
            {next.map(|href| view! { <a href=href>"Next"</a> })}
        </nav>
    }
    .into_any()
}

#[component]
fn NoteRow(note: NoteSummary) -> impl IntoView {
    view! {
        <li class="note-row">
            <a class="note-title" href=format!("/notes/{}", note.id)>{note.title}</a>
            <span class="note-tags">
                {note.tags.into_iter().map(|tag| view! {
                    <a class="tag" href=notes_link("", &tag, 0)>{tag.clone()}</a>
                }).collect_view()}
            </span>
            <span class="muted note-meta">"v" {note.version} " · " {note.updated_by} " · " {time_view(note.updated_at_ms)}</span>
            {note.snippet.map(|text| view! { <p class="note-snippet">{text}</p> })}
        </li>
    }
}
