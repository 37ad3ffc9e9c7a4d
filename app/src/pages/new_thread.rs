//! `/new`: a thread before its first message — the agent it will talk to, what that agent
//! offers to try, and the composer. The thread is made with its first message, so none is
//! kept empty; the home page shows the same while nothing waits and nothing runs.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_navigate, use_query_map};

use crate::codec::Json;
use crate::components::composer::Composer;
use crate::components::identity::{VIEWER_NOTE, may_act};
use crate::components::layout::ContextFrame;
use crate::components::sidebar::ThreadsChanged;
use crate::error::ApiError;
use crate::model::{Starter, ThreadDraft, ThreadSummary};

/// What a new thread starts from: the agents, their starters, the project it goes in.
#[server(prefix = "/fn", endpoint = "thread_draft")]
pub async fn load_thread_draft(project_id: Option<String>) -> Result<ThreadDraft, ApiError> {
    use crate::api::service::*;
    let project_id = project_id.filter(|id| !id.is_empty());
    with_status(
        workspace()?
            .thread_draft(&tenant()?, project_id.as_deref())
            .await,
    )
}

/// A new thread with `text` as its first message, talking to `agent` (or the project's
/// or the console's default), in project `project_id` when given.
#[server(prefix = "/fn", endpoint = "start_thread")]
pub async fn start_thread(
    agent: Option<String>,
    project_id: Option<String>,
    text: String,
) -> Result<ThreadSummary, ApiError> {
    use crate::api::service::*;
    let agent = agent.filter(|name| !name.is_empty());
    let project_id = project_id.filter(|id| !id.is_empty());
    with_status(
        workspace()?
            .start_thread(&tenant()?, agent.as_deref(), project_id.as_deref(), &text)
            .await,
    )
}

#[component]
pub fn NewThreadPage() -> impl IntoView {
    let query = use_query_map();
    let draft = Resource::<_, Json>::new_with_options(
        move || query.with(|query| query.get("project")),
        load_thread_draft,
        false,
    );
    view! {
        <Title text="New thread" />
        <main class="main start-page" id="main" tabindex="-1">
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match draft.await {
                        Ok(draft) => view! { <StartThread draft title="New thread" focus=true /> }.into_any(),
                        Err(error) => view! {
                            <section class="empty-state" role="alert">
                                <h1>"New thread"</h1>
                                <p>{error.say()}</p>
                            </section>
                        }.into_any(),
                    }
                })}
            </Transition>
        </main>
        <ContextFrame>
            <section class="pane-section">
                <h2>"Context"</h2>
                <p class="muted">"Notes and memory can be pinned to the thread once it has started."</p>
            </section>
        </ContextFrame>
    }
}

/// The agent picker, the composer and the chosen agent's starters; the first message
/// makes the thread and opens it. `title` is the section's heading (a page's `h1` when
/// `focus`, which also puts the cursor in the composer).
#[component]
pub fn StartThread(
    draft: ThreadDraft,
    title: &'static str,
    #[prop(optional)] focus: bool,
) -> impl IntoView {
    let agent = RwSignal::new(draft.agent.clone());
    let busy = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    let returned = RwSignal::new(None::<String>);
    let may_act = may_act();
    let navigate = StoredValue::new(use_navigate());
    let threads_changed = use_context::<ThreadsChanged>();
    let project = draft.project.clone();
    let project_id = project.as_ref().map(|(id, _)| id.clone());
    let start = Callback::new(move |text: String| {
        if busy.get_untracked() {
            return;
        }
        busy.set(true);
        problem.set(None);
        returned.set(None);
        let (agent, project_id) = (agent.get_untracked(), project_id.clone());
        leptos::task::spawn_local(async move {
            match start_thread(agent, project_id, text.clone()).await {
                Ok(thread) => {
                    if let Some(ThreadsChanged(changed)) = threads_changed {
                        changed.try_update(|count| *count += 1);
                    }
                    crate::components::focus::WriteOn::request();
                    navigate.with_value(|navigate| {
                        navigate(&format!("/threads/{}", thread.id), Default::default())
                    });
                }
                Err(error) => {
                    problem.try_set(Some(error.say()));
                    returned.try_set(Some(text));
                    busy.try_set(false);
                }
            }
        });
    });
    if focus {
        Effect::new(move |_| {
            crate::components::focus::focus_by_id(crate::components::focus::COMPOSER_ID)
        });
    }
    let agents = draft.agents.clone();
    let draft = StoredValue::new(draft);
    let starters = Signal::derive(move || {
        draft.with_value(|draft| {
            crate::model::starters_of(&draft.starters, agent.get().as_deref()).to_vec()
        })
    });
    let heading = if focus {
        view! { <h1 id="start-heading">{title}</h1> }.into_any()
    } else {
        view! { <h2 id="start-heading">{title}</h2> }.into_any()
    };
    view! {
        <section class="start-thread" aria-labelledby="start-heading">
            <header class="start-head">
                {heading}
                {project.map(|(id, name)| view! {
                    <p class="muted">"In the project " <a href=format!("/projects/{id}")>{name}</a></p>
                })}
                <label class="agent-choice">"Agent "
                    <select disabled=move || !may_act.get() title=move || (!may_act.get()).then_some(VIEWER_NOTE)
                        on:change=move |event| agent.set(Some(event_target_value(&event)))>
                        {agents.into_iter().map(|name| {
                            let selected = agent.get_untracked().as_deref() == Some(name.as_str());
                            view! { <option value=name.clone() selected=selected>{name.clone()}</option> }
                        }).collect_view()}
                    </select>
                </label>
            </header>
            {move || problem.get().map(|text| view! { <p class="error-text" role="alert">{text}</p> })}
            <Composer running=false suggestions=Signal::stored(Vec::new()) on_send=start on_stop=|_| ()
                busy returned pending=Signal::stored(None) on_reply=|_| () />
            <Starters starters start busy />
        </section>
    }
}

/// A card per thing the chosen agent offers to try; a card starts the thread with it.
#[component]
fn Starters(
    starters: Signal<Vec<Starter>>,
    start: Callback<String>,
    busy: RwSignal<bool>,
) -> impl IntoView {
    let may_act = may_act();
    view! {
        {move || {
            let list = starters.get();
            (!list.is_empty()).then(|| view! {
                <section class="starters" aria-labelledby="starters-heading">
                    <h3 id="starters-heading">"Things to try"</h3>
                    <ul class="starter-list">
                        {list.into_iter().enumerate().map(|(index, starter)| {
                            let line_id = format!("starter-line-{index}");
                            let described_by = line_id.clone();
                            let Starter { prompt, line } = starter;
                            let (label, sent) = (prompt.clone(), prompt.clone());
                            view! {
                                <li>
                                    <button type="button" class="starter" aria-label=label
                                        aria-describedby=described_by
                                        disabled=move || busy.get() || !may_act.get()
                                        title=move || (!may_act.get()).then_some(VIEWER_NOTE)
                                        on:click=move |_| start.run(sent.clone())>
                                        <span class="starter-prompt">{prompt}</span>
                                        <span class="starter-line" id=line_id>{line}</span>
                                    </button>
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                </section>
            })
        }}
    }
}
