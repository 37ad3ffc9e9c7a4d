//! `/projects`: the tenant's projects (the archived ones apart, `?archived=1`) and a form
//! for a new one. Server functions here serve this page and the project page beside it.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_navigate, use_query_map};

use crate::codec::Json;
use crate::components::identity::may_act;
use crate::components::layout::ContextFrame;
use crate::components::search_box::SearchBox;
use crate::error::ApiError;
use crate::model::projects::{Project, ProjectList, ProjectPage};

/// What a viewer is told where projects could be changed.
pub const VIEWER_PROJECTS: &str =
    "You are a viewer in this tenant: you can open projects, but not create or change them.";

#[server(prefix = "/fn", endpoint = "projects")]
pub async fn load_projects(
    archived: bool,
    q: String,
    offset: u32,
) -> Result<ProjectList, ApiError> {
    use crate::api::service::*;
    with_status(
        projects()?
            .list_projects(&context()?, archived, Some(&q), offset, 100)
            .await,
    )
}

#[server(prefix = "/fn", endpoint = "project_page")]
pub async fn load_project_page(project_id: String) -> Result<ProjectPage, ApiError> {
    use crate::api::service::*;
    with_status(projects()?.project_page(&context()?, &project_id).await)
}

/// The agents a project may name as its default.
#[server(prefix = "/fn", endpoint = "agents")]
pub async fn load_agents() -> Result<Vec<String>, ApiError> {
    use crate::api::service::*;
    Ok(projects()?.agents())
}

#[server(prefix = "/fn", endpoint = "create_project")]
pub async fn create_project(
    name: String,
    description: String,
    default_agent: String,
) -> Result<Project, ApiError> {
    use crate::api::service::*;
    let project = crate::model::projects::NewProject {
        name,
        description,
        default_agent: Some(default_agent),
    };
    with_status(projects()?.create_project(&context()?, project).await)
}

/// Saves the project's name, description and default agent (empty: none).
#[server(prefix = "/fn", endpoint = "edit_project")]
pub async fn edit_project(
    project_id: String,
    name: String,
    description: String,
    default_agent: String,
) -> Result<Project, ApiError> {
    use crate::api::service::*;
    let edit = crate::model::projects::ProjectEdit {
        name: Some(name),
        description: Some(description),
        default_agent: Some(Some(default_agent)),
        archived: None,
    };
    with_status(
        projects()?
            .edit_project(&context()?, &project_id, edit)
            .await,
    )
}

/// Archives the project (`archived`) or restores it.
#[server(prefix = "/fn", endpoint = "archive_project")]
pub async fn archive_project(project_id: String, archived: bool) -> Result<Project, ApiError> {
    use crate::api::service::*;
    let edit = crate::model::projects::ProjectEdit {
        archived: Some(archived),
        ..Default::default()
    };
    with_status(
        projects()?
            .edit_project(&context()?, &project_id, edit)
            .await,
    )
}

#[server(prefix = "/fn", endpoint = "delete_project")]
pub async fn delete_project(project_id: String) -> Result<(), ApiError> {
    use crate::api::service::*;
    with_status(projects()?.delete_project(&context()?, &project_id).await)
}

/// The agent choices of a form: "none" and each configured agent, `current` selected.
#[component]
pub fn AgentOptions(agents: Vec<String>, current: Option<String>) -> impl IntoView {
    view! {
        <option value="" selected=current.is_none()>"none (the console's default)"</option>
        {agents.into_iter().map(|agent| {
            let selected = current.as_deref() == Some(agent.as_str());
            view! { <option value=agent.clone() selected=selected>{agent.clone()}</option> }
        }).collect_view()}
    }
}

#[component]
pub fn ProjectsPage() -> impl IntoView {
    let query = use_query_map();
    let archived =
        move || query.with(|query| query.get("archived").is_some_and(|value| value == "1"));
    let search = move || query.with(|query| query.get("q").unwrap_or_default());
    let create = ServerAction::<CreateProject>::new();
    let projects = Resource::<_, Json>::new_with_options(
        move || (archived(), search(), create.version().get()),
        |(archived, q, _)| load_projects(archived, q, 0),
        false,
    );
    let agents = Resource::<_, Json>::new_with_options(|| (), |_| load_agents(), false);
    let navigate = use_navigate();
    Effect::new(move |_| {
        if let Some(Ok(project)) = create.value().get() {
            navigate(&format!("/projects/{}", project.id), Default::default());
        }
    });
    let may = may_act();
    view! {
        <Title text="Projects" />
        <main class="main section-page" id="main" tabindex="-1">
            <h1>"Projects"</h1>
            <nav class="note-pages" aria-label="Which projects">
                <a href="/projects" aria-current=move || (!archived()).then_some("page")>"Active"</a>
                <a href="/projects?archived=1" aria-current=move || archived().then_some("page")>"Archived"</a>
            </nav>
            {move || {
                let kept = if archived() { "1".to_owned() } else { String::new() };
                view! {
                    <SearchBox action="/projects" id="project-search" label="Search projects"
                        placeholder="Search names and descriptions" value=Signal::derive(search)
                        keep=vec![("archived", kept)] />
                }
            }}
            <Transition fallback=|| view! { <p class="muted">"Loading projects…"</p> }>
                {move || Suspend::new(async move {
                    match projects.await {
                        Ok(list) if list.projects.is_empty() => view! {
                            <p role="status" class="muted">{if !search().is_empty() { "No project matches." } else if archived() { "No archived projects." } else { "No projects yet. Start one below." }}</p>
                        }.into_any(),
                        Ok(list) => view! {
                            <ul class="note-list" aria-label="Projects">
                                {list.projects.into_iter().map(|project| view! {
                                    <li class="note-row">
                                        <a class="note-title" href=format!("/projects/{}", project.id)>{project.name}</a>
                                        {project.default_agent.map(|agent| view! { <span class="tag">{agent}</span> })}
                                        <span class="note-snippet">{project.description.lines().next().unwrap_or_default().to_owned()}</span>
                                    </li>
                                }).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(error) => view! { <p class="error-text" role="alert">"Projects could not be loaded: " {error.say()}</p> }.into_any(),
                    }
                })}
            </Transition>
            <section aria-labelledby="new-project-heading" class="new-note">
                <h2 id="new-project-heading">"New project"</h2>
                <Show when=move || may.get() fallback=|| view! { <p class="muted">{VIEWER_PROJECTS}</p> }>
                    {move || create.value().get().and_then(Result::err).map(|error| view! {
                        <p class="error-text" role="alert">{error.say()}</p>
                    })}
                    <ActionForm action=create attr:class="note-form">
                        <label class="field-label" for="new-project-name">"Name"</label>
                        <input id="new-project-name" name="name" type="text" required maxlength="100" />
                        <label class="field-label" for="new-project-description">"Description (Markdown)"</label>
                        <textarea id="new-project-description" name="description" rows="4"></textarea>
                        <label class="field-label" for="new-project-agent">"Default agent"</label>
                        <select id="new-project-agent" name="default_agent">
                            <Transition fallback=|| ()>
                                {move || Suspend::new(async move {
                                    let agents = agents.await.unwrap_or_default();
                                    view! { <AgentOptions agents current=None /> }
                                })}
                            </Transition>
                        </select>
                        <button type="submit" class="button primary">"Create project"</button>
                    </ActionForm>
                </Show>
            </section>
        </main>
        <ContextFrame>
            <section class="pane-section">
                <h2>"Projects"</h2>
                <p class="muted">"A project groups threads and notes around one piece of work. Threads started in it talk to its default agent; archiving keeps everything and stops new threads."</p>
            </section>
        </ContextFrame>
    }
}
