//! One job in full on the Curator page: where it stands, how far it got, each attempt and
//! every log line, read again whenever it changes (and every two seconds while it runs,
//! for its log).

use leptos::prelude::*;

use crate::codec::Json;
use crate::components::identity::may_act;
use crate::error::ApiError;
use crate::model::jobs::{JobDetail, JobState};
use crate::pages::job_calls::{CancelJob, JobActions, RetryJob, load_job};
use crate::pages::notes::time_view;

/// How often the log of a running job is read again.
#[cfg(any(feature = "hydrate", feature = "csr"))]
const LOG_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

#[component]
pub fn JobView(id: String, actions: JobActions, heard: Signal<u64>) -> impl IntoView {
    let id = StoredValue::new(id);
    let tick = RwSignal::new(0_u32);
    let detail = Resource::<_, Json>::new_with_options(
        move || {
            (
                id.get_value(),
                actions.changed.get(),
                heard.get(),
                tick.get(),
            )
        },
        |(id, _, _, _)| load_job(id),
        false,
    );
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    Effect::new(move |_| {
        let running = detail.with(
            |detail| matches!(detail, Some(Ok(detail)) if detail.job.state == JobState::Running),
        );
        if running {
            set_timeout(
                move || {
                    tick.try_update(|tick| *tick += 1);
                },
                LOG_EVERY,
            );
        }
    });
    view! {
        <Transition fallback=|| view! { <p class="muted">"Loading the job…"</p> }>
            {move || Suspend::new(async move {
                match detail.await {
                    Ok(detail) => view! { <Detail detail actions /> }.into_any(),
                    Err(ApiError::NotFound(_)) => view! {
                        <p class="muted" role="status">"There is no such job here. " <a href="/curator">"All jobs"</a></p>
                    }.into_any(),
                    Err(error) => view! { <p class="error-text" role="alert">{error.say()}</p> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn Detail(detail: JobDetail, actions: JobActions) -> impl IntoView {
    let JobDetail { job, attempts, log } = detail;
    let may_act = may_act();
    let ended = matches!(
        job.state,
        JobState::Completed | JobState::Failed | JobState::Cancelled
    );
    let retryable = matches!(job.state, JobState::Failed | JobState::Cancelled);
    let (cancel_id, retry_id) = (job.id.clone(), job.id.clone());
    let heading_id = format!("job-{}", job.id);
    let labelled_by = heading_id.clone();
    let payload = serde_json::to_string_pretty(&job.payload).unwrap_or_default();
    let result = job
        .result
        .as_ref()
        .map(|result| serde_json::to_string_pretty(result).unwrap_or_default());
    let schedule = job
        .created_by
        .strip_prefix("schedule:")
        .map(|id| view! { " · " <a href=format!("/schedules?id={id}")>"its schedule"</a> });
    view! {
        <section class="schedule-detail job-detail" aria-labelledby=labelled_by data-job=job.id.clone() data-state=job.state.as_str()>
            <h2 id=heading_id>{job.kind.clone()} " " <span class=format!("job-state {}", job.state.as_str())>{job.state.as_str()}</span></h2>
            {job.error.clone().map(|error| view! { <p class="error-text">"Last error: " {error}</p> })}
            <dl class="schedule-facts">
                <dt>"Job"</dt><dd><code>{job.id.clone()}</code></dd>
                <dt>"Made by"</dt><dd>{job.created_by.clone()} {schedule} " · " {time_view(job.created_at_ms)}</dd>
                {job.agent.clone().map(|agent| view! { <dt>"Agent"</dt><dd>{agent}</dd> })}
                {job.project_id.clone().map(|project| view! { <dt>"Project"</dt><dd><a href=format!("/projects/{project}")>{project.clone()}</a></dd> })}
                <dt>"Attempts"</dt><dd>{format!("{} of {}", job.attempts, job.max_attempts)}</dd>
                <dt>{if ended { "Ended" } else { "Due" }}</dt>
                <dd>{time_view(job.finished_at_ms.unwrap_or(job.run_at_ms))}</dd>
                {job.lease_owner.clone().filter(|_| job.state == JobState::Running).map(|owner| view! {
                    <dt>"Worker"</dt><dd><code>{owner}</code> {job.heartbeat_at_ms.map(|at| view! { " · last heartbeat " {time_view(at)} })}</dd>
                })}
                {job.progress.clone().map(|progress| view! { <dt>"Progress"</dt><dd>{progress_view(&progress)}</dd> })}
            </dl>
            <Show when=move || may_act.get()>
                <div class="note-actions">
                    {(!ended).then(|| {
                        let id = cancel_id.clone();
                        view! { <button type="button" class="button small ghost" on:click=move |_| {
                            actions.cancel.dispatch(CancelJob { job_id: id.clone() });
                        }>"Cancel"</button> }
                    })}
                    {retryable.then(|| {
                        let id = retry_id.clone();
                        view! { <button type="button" class="button small" on:click=move |_| {
                            actions.retry.dispatch(RetryJob { job_id: id.clone() });
                        }>"Retry"</button> }
                    })}
                </div>
            </Show>
            <h3>"Attempts"</h3>
            {if attempts.is_empty() {
                view! { <p class="muted">"Not tried yet."</p> }.into_any()
            } else {
                view! {
                    <table class="job-table" aria-label="Attempts">
                        <thead><tr><th scope="col">"#"</th><th scope="col">"Worker"</th><th scope="col">"Started"</th><th scope="col">"Ended"</th><th scope="col">"Outcome"</th></tr></thead>
                        <tbody>{attempts.into_iter().map(|attempt| view! {
                            <tr>
                                <td>{attempt.attempt}</td>
                                <td><code>{attempt.worker}</code></td>
                                <td>{time_view(attempt.started_at_ms)}</td>
                                <td>{attempt.finished_at_ms.map(time_view)}</td>
                                <td>{attempt.outcome.unwrap_or_else(|| "running".to_owned())}
                                    {attempt.error.map(|error| view! { <p class="muted fire-error">{error}</p> })}</td>
                            </tr>
                        }).collect_view()}</tbody>
                    </table>
                }.into_any()
            }}
            <h3>"Log"</h3>
            {if log.is_empty() {
                view! { <p class="muted">"Nothing logged."</p> }.into_any()
            } else {
                view! {
                    <ol class="job-log" aria-label="Log" role="log">
                        {log.into_iter().map(|line| view! {
                            <li class=line.level.clone()>
                                {time_view(line.at_ms)} " #" {line.attempt} " " {line.level.clone()} ": " {line.message}
                            </li>
                        }).collect_view()}
                    </ol>
                }.into_any()
            }}
            <details>
                <summary>"Payload"</summary>
                <pre class="schedule-prompt-text">{payload}</pre>
            </details>
            {result.map(|result| view! {
                <details>
                    <summary>"Result"</summary>
                    <pre class="schedule-prompt-text">{result}</pre>
                </details>
            })}
        </section>
    }
}

/// How far a job got: a bar when its total is known, and its note.
pub fn progress_view(progress: &crate::model::jobs::JobProgress) -> impl IntoView + use<> {
    let bar = progress.total.map(|total| {
        let label = format!("{} of {total}", progress.done);
        view! { <progress class="job-progress" max=total.to_string() value=progress.done.to_string() aria-label=label></progress> }
    });
    let note = (!progress.note.is_empty()).then(|| progress.note.clone());
    view! { {bar} " " <span class="muted">{note}</span> }
}
