//! The agents' own scheduled jobs on the Schedules page, beside the console's: each
//! Hermes gateway's `cron.manage` jobs (paused ones included, which the gateway itself
//! stops listing), added, paused, resumed and removed by owners.

use leptos::prelude::*;

use crate::codec::Json;
use crate::components::identity::is_owner;
use crate::error::{ApiError, refusal};
use crate::model::gateway_jobs::{GatewayJob, GatewayJobs};

#[server(prefix = "/fn", endpoint = "agent_jobs")]
pub async fn load_agent_jobs() -> Result<Vec<GatewayJobs>, ApiError> {
    use crate::api::service::*;
    with_status(gateway_jobs()?.gateway_jobs(&context()?).await)
}

#[server(prefix = "/fn", endpoint = "add_agent_job")]
pub async fn add_agent_job(
    agent: String,
    name: String,
    schedule: String,
    prompt: String,
) -> Result<GatewayJob, ApiError> {
    use crate::api::service::*;
    let job = crate::model::gateway_jobs::NewGatewayJob {
        name,
        schedule,
        prompt,
    };
    with_status(
        gateway_jobs()?
            .add_gateway_job(&context()?, &agent, job)
            .await,
    )
}

#[server(prefix = "/fn", endpoint = "pause_agent_job")]
pub async fn pause_agent_job(agent: String, job_id: String) -> Result<GatewayJob, ApiError> {
    use crate::api::service::*;
    with_status(
        gateway_jobs()?
            .pause_gateway_job(&context()?, &agent, &job_id)
            .await,
    )
}

#[server(prefix = "/fn", endpoint = "resume_agent_job")]
pub async fn resume_agent_job(agent: String, job_id: String) -> Result<GatewayJob, ApiError> {
    use crate::api::service::*;
    with_status(
        gateway_jobs()?
            .resume_gateway_job(&context()?, &agent, &job_id)
            .await,
    )
}

#[server(prefix = "/fn", endpoint = "remove_agent_job")]
pub async fn remove_agent_job(agent: String, job_id: String) -> Result<(), ApiError> {
    use crate::api::service::*;
    with_status(
        gateway_jobs()?
            .remove_gateway_job(&context()?, &agent, &job_id)
            .await,
    )
}

#[derive(Clone, Copy)]
struct Actions {
    add: ServerAction<AddAgentJob>,
    pause: ServerAction<PauseAgentJob>,
    resume: ServerAction<ResumeAgentJob>,
    remove: ServerAction<RemoveAgentJob>,
}

/// Every agent's own jobs, read when the page opens and after each change made here.
#[component]
pub fn AgentJobsSection() -> impl IntoView {
    let actions = Actions {
        add: ServerAction::new(),
        pause: ServerAction::new(),
        resume: ServerAction::new(),
        remove: ServerAction::new(),
    };
    let versions = move || {
        (
            actions.add.version().get(),
            actions.pause.version().get(),
            actions.resume.version().get(),
            actions.remove.version().get(),
        )
    };
    let listed = Resource::<_, Json>::new_with_options(versions, |_| load_agent_jobs(), false);
    let problem = move || {
        [
            actions.add.value().with(refusal),
            actions.pause.value().with(refusal),
            actions.resume.value().with(refusal),
            actions.remove.value().with(refusal),
        ]
        .into_iter()
        .flatten()
        .next()
    };
    view! {
        <Transition fallback=|| ()>
            {move || Suspend::new(async move {
                match listed.await {
                    Ok(all) if all.is_empty() => ().into_any(),
                    Ok(all) => view! {
                        <section class="agent-jobs" aria-labelledby="agent-jobs-heading">
                            <h2 id="agent-jobs-heading">"Agents' own schedules"</h2>
                            <p class="muted">"Jobs an agent keeps and runs itself (a Hermes gateway's scheduler). The console lists and changes them here; their runs happen inside the agent, not as console runs."</p>
                            {move || problem().map(|problem| view! { <p class="error-text" role="alert">{problem}</p> })}
                            {all.into_iter().map(|gateway| view! { <Gateway gateway actions /> }).collect_view()}
                        </section>
                    }.into_any(),
                    Err(error) => view! { <p class="error-text" role="alert">{error.say()}</p> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn Gateway(gateway: GatewayJobs, actions: Actions) -> impl IntoView {
    let owner = is_owner();
    let GatewayJobs {
        agent,
        shared,
        jobs,
        problem,
    } = gateway;
    let label = format!("Jobs of {agent}");
    let field = {
        let agent = agent.clone();
        move |name: &str| format!("agent-job-{agent}-{name}")
    };
    let form_agent = StoredValue::new(agent.clone());
    let field = StoredValue::new(field);
    view! {
        <div class="agent-jobs-gateway" data-agent=agent.clone()>
            <h3>{agent.clone()}</h3>
            {shared.then(|| view! { <p class="muted">"This gateway serves every tenant: its jobs are shared by all of them, so only owners see them."</p> })}
            {problem.map(|problem| view! { <p class="error-text">"The gateway could not be asked: " {problem}</p> })}
            {if jobs.is_empty() {
                view! { <p class="muted">"No jobs."</p> }.into_any()
            } else {
                let agent = agent.clone();
                view! {
                    <table class="job-table" aria-label=label>
                        <thead><tr><th scope="col">"Name"</th><th scope="col">"Schedule"</th><th scope="col">"Next run"</th><th scope="col">"Last run"</th><th scope="col">"State"</th><th scope="col"><span class="visually-hidden">"Actions"</span></th></tr></thead>
                        <tbody>{jobs.into_iter().map(|job| view! { <JobRow agent=agent.clone() job actions /> }).collect_view()}</tbody>
                    </table>
                }.into_any()
            }}
            <Show when=move || owner.get()>
                <details class="schedule-new">
                    <summary>{format!("Add a job to {}", form_agent.get_value())}</summary>
                    <ActionForm action=actions.add attr:class="note-form" attr:autocomplete="off">
                        <input type="hidden" name="agent" value=form_agent.get_value() />
                        <label class="field-label" for=field.with_value(|field| field("name"))>"Job name"</label>
                        <input id=field.with_value(|field| field("name")) name="name" required maxlength="100" />
                        <label class="field-label" for=field.with_value(|field| field("schedule"))>"Schedule (cron or every …)"</label>
                        <input id=field.with_value(|field| field("schedule")) name="schedule" required spellcheck="false" placeholder="0 9 * * 1-5 · every 2h" />
                        <label class="field-label" for=field.with_value(|field| field("prompt"))>"Job prompt"</label>
                        <textarea id=field.with_value(|field| field("prompt")) name="prompt" rows="3" required></textarea>
                        <button type="submit" class="button small primary">"Add job"</button>
                    </ActionForm>
                </details>
            </Show>
        </div>
    }
}

#[component]
fn JobRow(agent: String, job: GatewayJob, actions: Actions) -> impl IntoView {
    let owner = is_owner();
    let paused = !job.enabled;
    let (toggle_agent, toggle_id) = (agent.clone(), job.id.clone());
    let (remove_agent, remove_id) = (agent, job.id.clone());
    let name = job.name.clone();
    let confirm_remove = RwSignal::new(false);
    let last = job
        .last_run_at
        .clone()
        .map(|at| format!("{at} ({})", job.last_status.clone().unwrap_or_default()));
    view! {
        <tr data-job=job.id.clone() data-state=job.state.clone()>
            <td>{job.name.clone()} <p class="muted fire-error">{job.prompt_preview.clone()}</p></td>
            <td><code>{job.schedule.clone()}</code></td>
            <td>{job.next_run_at.clone().filter(|_| !paused)}</td>
            <td>{last}</td>
            <td><span class=format!("job-state {}", job.state)>{job.state.clone()}</span>
                {job.paused_at.clone().map(|at| view! { <span class="muted">" since " {at}</span> })}</td>
            <td>
                <Show when=move || owner.get()>
                    {
                        let (agent, id, name) = (toggle_agent.clone(), toggle_id.clone(), name.clone());
                        let (remove_agent, remove_id, remove_name) = (remove_agent.clone(), remove_id.clone(), name.clone());
                        view! {
                            <button type="button" class="button small ghost" aria-label=format!("{} {name}", if paused { "Resume" } else { "Pause" })
                                on:click=move |_| {
                                    let (agent, job_id) = (agent.clone(), id.clone());
                                    if paused {
                                        actions.resume.dispatch(ResumeAgentJob { agent, job_id });
                                    } else {
                                        actions.pause.dispatch(PauseAgentJob { agent, job_id });
                                    }
                                }>{if paused { "Resume" } else { "Pause" }}</button>
                            <button type="button" class="button small ghost" aria-label=format!("Remove {remove_name}")
                                aria-expanded=move || confirm_remove.get().to_string()
                                on:click=move |_| confirm_remove.set(true)>"Remove…"</button>
                            {move || confirm_remove.get().then(|| {
                                let (agent, job_id) = (remove_agent.clone(), remove_id.clone());
                                view! {
                                    <span class="note-confirm" role="alertdialog" aria-label=format!("Remove {remove_name}?")>
                                        "The agent stops running it; this cannot be undone. "
                                        <button type="button" class="button small danger" on:click=move |_| {
                                            actions.remove.dispatch(RemoveAgentJob { agent: agent.clone(), job_id: job_id.clone() });
                                        }>"Remove the job"</button>
                                        <button type="button" class="button small ghost" on:click=move |_| confirm_remove.set(false)>"Keep it"</button>
                                    </span>
                                }
                            })}
                        }
                    }
                </Show>
            </td>
        </tr>
    }
}
