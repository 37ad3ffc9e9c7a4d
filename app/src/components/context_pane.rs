//! The right-hand pane, in the order an operator needs it: the plan, the pinned notes and
//! memory, the agent's state as a tree, then the agent and run details, folded.

use crate::components::pinned::PinnedNotes;
use crate::components::pinned_memory::PinnedMemory;
use leptos::prelude::*;

use crate::components::artifacts::JsonTree;
use crate::components::layout::ContextFrame;
use crate::model::{AgentEnvironment, RunSummary};
use crate::projection::RunView;
use crate::protocol::status::RunStatus;

/// A run's view and summary, as the thread page keeps them.
#[derive(Clone, Copy)]
pub struct RunSignals {
    pub summary: RwSignal<RunSummary>,
    pub view: RwSignal<RunView>,
}

impl RunSignals {
    /// The run's status as shown: its events', except that only the store knows a paused
    /// run was taken up by its follow-up (resumed), which its events never say.
    pub fn status(&self) -> RunStatus {
        match self.summary.with(|summary| summary.status) {
            RunStatus::Resumed => RunStatus::Resumed,
            _ => self.view.with(|view| view.status),
        }
    }
}

/// How each configured agent is reached, the default first (what the pane shows of the
/// thread's agent, asked again while the console is still choosing for it).
#[server(prefix = "/fn", endpoint = "agent_environments")]
pub async fn agent_environments() -> Result<Vec<AgentEnvironment>, crate::error::ApiError> {
    use crate::api::service::*;
    tenant()?;
    Ok(workspace()?.environments())
}

#[component]
pub fn ContextPane(
    #[prop(into)] runs: Signal<Vec<RunSignals>>,
    #[prop(into)] agent: Signal<Option<String>>,
    /// Every configured agent's environment, the default first.
    #[prop(into)]
    environments: Signal<Vec<AgentEnvironment>>,
    thread_id: StoredValue<String>,
) -> impl IntoView {
    let environment = move || {
        let chosen = agent.get();
        environments.with(|environments| {
            environments
                .iter()
                .find(|environment| Some(&environment.agent) == chosen.as_ref())
                .or_else(|| environments.first())
                .cloned()
        })
    };
    let latest = move || runs.with(|runs| runs.last().copied());
    // State and plan belong to the thread: the last run that published one keeps showing
    // until a later run replaces it.
    let state_source = move || {
        runs.with(|runs| {
            runs.iter()
                .enumerate()
                .rev()
                .find(|(_, run)| run.view.with(RunView::has_state))
                .map(|(position, run)| (position, *run, runs.len()))
        })
    };
    let plan_source = move || {
        runs.with(|runs| {
            runs.iter()
                .enumerate()
                .rev()
                .find(|(_, run)| run.view.with(|view| !view.plan.is_empty()))
                .map(|(position, run)| (position, *run, runs.len()))
        })
    };
    // A run a schedule started names the schedule and the fire, and a run that works a
    // card names the card; each links back.
    let given = move |kind: &'static str| {
        latest().and_then(|run| {
            run.view
                .with(|view| view.given.iter().find(|item| item.kind == kind).cloned())
        })
    };
    let started_by = move || given("schedule");
    let works = move || given("card");
    view! {
        <ContextFrame>
            {move || started_by().map(|fire| view! {
                <section class="pane-section" aria-labelledby="ctx-schedule">
                    <h2 id="ctx-schedule">"Schedule"</h2>
                    <p>"Started by the schedule " <a href=format!("/schedules?id={}", fire.id)>{fire.title}</a></p>
                </section>
            })}
            {move || works().map(|card| view! {
                <section class="pane-section" aria-labelledby="ctx-card">
                    <h2 id="ctx-card">"Card"</h2>
                    <p>"Works the card " <a href=format!("/kanban?card={}", card.id)>{card.title}</a></p>
                </section>
            })}
            <section class="pane-section" aria-labelledby="ctx-plan">
                <h2 id="ctx-plan">"Plan"</h2>
                {move || {
                    let source = plan_source();
                    let earlier = source.and_then(|(position, _, count)| from_earlier_run(position, count));
                    let plan = source.map(|(_, run, _)| run.view.with(|view| view.plan.clone())).unwrap_or_default();
                    if plan.is_empty() {
                        view! { <p class="muted">"No plan published."</p> }.into_any()
                    } else {
                        let done = plan.iter().filter(|item| item.status == "completed").count();
                        let total = plan.len();
                        view! {
                            {earlier}
                            <p class="muted">{format!("{done} of {total} done")}</p>
                            <ol class="plan">
                                {plan.into_iter().map(|item| {
                                    let mark = match item.status.as_str() {
                                        "completed" => "✓",
                                        "in_progress" | "in-progress" => "▶",
                                        "cancelled" => "×",
                                        _ => "○",
                                    };
                                    view! {
                                        <li data-status=item.status.clone()>
                                            <span aria-hidden="true">{mark}</span>" " {item.label}
                                            <span class="visually-hidden">{format!(" ({})", item.status.replace('_', " "))}</span>
                                        </li>
                                    }
                                }).collect_view()}
                            </ol>
                        }.into_any()
                    }
                }}
            </section>
            <section class="pane-section" aria-labelledby="ctx-notes">
                <h2 id="ctx-notes">"Notes"</h2>
                <PinnedNotes thread_id=thread_id.get_value() given=Signal::derive(move || {
                    latest().map(|run| run.view.with(|view| view.given.clone())).unwrap_or_default()
                }) />
            </section>
            <section class="pane-section" aria-labelledby="ctx-memory">
                <h2 id="ctx-memory">"Memory"</h2>
                <PinnedMemory thread_id=thread_id.get_value() given=Signal::derive(move || {
                    latest().map(|run| run.view.with(|view| view.given.clone())).unwrap_or_default()
                }) />
            </section>
            <section class="pane-section" aria-labelledby="ctx-state">
                <h2 id="ctx-state">"Agent state"</h2>
                {move || match (state_source(), latest()) {
                    (Some((position, run, count)), _) => view! {
                        {from_earlier_run(position, count)}
                        <JsonTree value=run.view.with(|view| view.state.clone()) />
                    }
                    .into_any(),
                    (None, Some(_)) => view! { <p class="muted">"The agent has published no state."</p> }.into_any(),
                    (None, None) => view! { <p class="muted">"No run yet."</p> }.into_any(),
                }}
            </section>
            <details class="pane-section run-details">
                <summary>"Agent and run"</summary>
                <section class="pane-section" aria-labelledby="ctx-routing">
                    <h2 id="ctx-routing">"Routing"</h2>
                    <dl class="metadata">
                        <dt>"Agent"</dt>
                        <dd>{move || agent.get().unwrap_or_else(|| "default (bound on first message)".into())}</dd>
                        {move || latest().map(|run| {
                            let summary = run.summary.get();
                            let status = run.status().label();
                            view! {
                                <dt>"Run"</dt><dd><code>{summary.id}</code></dd>
                                <dt>"Status"</dt><dd>{status}</dd>
                                <dt>"Events"</dt><dd>{run.view.with(|view| view.last_sequence)}</dd>
                            }
                        })}
                    </dl>
                </section>
                <section class="pane-section" aria-labelledby="ctx-environment">
                    <h2 id="ctx-environment">"Environment"</h2>
                    {move || match environment() {
                        Some(environment) => {
                            let tools = if environment.tools.is_empty() {
                                "none".to_owned()
                            } else {
                                environment.tools.join(", ")
                            };
                            let version = latest().and_then(|run| run.view.with(|view| view.protocol_version.clone()));
                            view! {
                                <dl class="metadata">
                                    <dt>"Protocol"</dt><dd>{environment.protocol}</dd>
                                    <dt>"Transport"</dt><dd>{environment.transport}</dd>
                                    {environment.chosen_because.map(|why| view! { <dt>"Chosen because"</dt><dd class="chosen-because">{why}</dd> })}
                                    <dt>"Endpoint"</dt><dd><code>{environment.endpoint}</code></dd>
                                    <dt>"Console tools"</dt><dd>{tools}</dd>
                                    {version.map(|version| view! { <dt>"Protocol version"</dt><dd>{version}</dd> })}
                                </dl>
                            }
                            .into_any()
                        }
                        None => view! { <p class="muted">"No agent is configured."</p> }.into_any(),
                    }}
                </section>
            </details>
        </ContextFrame>
    }
}

/// A note that what is shown was published by an earlier run of the thread.
fn from_earlier_run(position: usize, count: usize) -> Option<impl IntoView + use<>> {
    (position + 1 < count).then(|| {
        view! { <p class="muted from-run">{format!("As run {} of {count} left it", position + 1)}</p> }
    })
}
