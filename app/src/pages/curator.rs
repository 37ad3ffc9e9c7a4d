//! `/curator`: every background job of the tenant — tabs by state with their counts,
//! filters by kind, agent, project and text, one job in full with `?id=` — and retry or
//! cancel of one job or of everything the filter matches. Viewers read; operators act;
//! the server audits each action. The page follows the tenant's live stream.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::codec::Json;
use crate::components::identity::may_act;
use crate::components::inbox::{Background, background_changes};
use crate::components::layout::ContextFrame;
use crate::model::jobs::{Job, JobCounts, JobList, JobState};
use crate::pages::curator_job::{JobView, progress_view};
use crate::pages::curator_knowledge::{CuratorSettingsSection, KnowledgeCurator};
use crate::pages::job_calls::{
    CancelMatchingJobs, JobActions, JobQuery, PAGE, RetryMatchingJobs, load_jobs,
};
use crate::pages::notes::time_view;
use crate::pages::retention::RetentionSection;

/// The kinds of job the console runs, offered as the kind is typed.
const KINDS: &[&str] = &["schedule.fire", "card.work", "retention", "curator.pass"];

#[component]
pub fn CuratorPage() -> impl IntoView {
    let query_map = use_query_map();
    let query = Memo::new(move |_| {
        query_map.with(|map| JobQuery {
            state: map.get("state").unwrap_or_default(),
            kind: map.get("kind").unwrap_or_default(),
            agent: map.get("agent").unwrap_or_default(),
            project: map.get("project").unwrap_or_default(),
            q: map.get("q").unwrap_or_default(),
        })
    });
    let offset = move || {
        query_map.with(|map| {
            map.get("offset")
                .and_then(|offset| offset.parse::<u32>().ok())
                .unwrap_or(0)
        })
    };
    let selected = move || query_map.with(|map| map.get("id"));
    let actions = JobActions::new();
    let heard = background_changes(Background::Jobs);
    let list = Resource::<_, Json>::new_with_options(
        move || (query.get(), offset(), actions.changed.get(), heard.get()),
        |(query, offset, _, _)| {
            let JobQuery {
                state,
                kind,
                agent,
                project,
                q,
            } = query;
            load_jobs(state, kind, agent, project, q, offset)
        },
        false,
    );
    view! {
        <Title text="Curator jobs" />
        <main class="main section-page curator-page" id="main" tabindex="-1">
            <h1>"Curator jobs"</h1>
            <p class="muted">"All background work of this tenant: schedule fires, card attempts, curator passes and retention. Each job is tried again after a failure, with a growing pause, until its attempts run out."</p>
            {move || actions.said().map(|said| match said {
                Ok(done) => view! { <p class="muted" role="status">{done}</p> }.into_any(),
                Err(problem) => view! { <p class="error-text" role="alert">{problem}</p> }.into_any(),
            })}
            <Filters query=query.into() />
            <Transition fallback=|| view! { <p class="muted">"Loading jobs…"</p> }>
                {move || Suspend::new(async move {
                    match list.await {
                        Ok(list) => view! { <Listing list query=query.get_untracked() offset=offset() actions /> }.into_any(),
                        Err(error) => view! { <p class="error-text" role="alert">{error.say()}</p> }.into_any(),
                    }
                })}
            </Transition>
            {move || selected().map(|id| view! { <JobView id actions heard /> })}
            <KnowledgeCurator heard />
        </main>
        <ContextFrame>
            <section class="pane-section">
                <h2>"Background work"</h2>
                <p class="muted">"A job waits (scheduled, then available; after a failed attempt, retryable), runs under a lease its worker renews, and ends completed, failed or cancelled. A job whose worker stopped is taken again by any worker once its lease runs out."</p>
                <p class="muted">"Retry and cancel of everything matching the filter act on what matches when you press them."</p>
            </section>
            <CuratorSettingsSection />
            <RetentionSection />
        </ContextFrame>
    }
}

#[component]
fn Filters(query: Signal<JobQuery>) -> impl IntoView {
    let now = query.get_untracked();
    view! {
        <form class="work-filters" method="get" action="/curator" role="search" aria-label="Filter jobs">
            <input type="hidden" name="state" value=now.state.clone() />
            <label>"Kind"
                <input name="kind" list="job-kinds" value=now.kind.clone() spellcheck="false" />
            </label>
            <datalist id="job-kinds">{KINDS.iter().map(|kind| view! { <option value=*kind></option> }).collect_view()}</datalist>
            <label>"Agent"
                <input name="agent" value=now.agent.clone() spellcheck="false" />
            </label>
            <label>"Project id"
                <input name="project" value=now.project.clone() spellcheck="false" />
            </label>
            <label>"Words"
                <input type="search" name="q" value=now.q.clone() placeholder="error, creator, payload" />
            </label>
            <button type="submit" class="button small">"Filter"</button>
            <a class="button small ghost" href="/curator">"Clear"</a>
        </form>
    }
}

/// The state tabs with their counts, the bulk actions and the jobs of this page.
#[component]
fn Listing(list: JobList, query: JobQuery, offset: u32, actions: JobActions) -> impl IntoView {
    let may_act = may_act();
    let JobList {
        jobs,
        counts,
        next_offset,
    } = list;
    let total: u64 = JobState::ALL
        .iter()
        .map(|state| count_of(&counts, *state))
        .sum();
    let matching = if query.state.is_empty() {
        total
    } else {
        JobState::parse(&query.state).map_or(0, |state| count_of(&counts, state))
    };
    let tab = |label: String, state: &str, count: u64| {
        let current = query.state == state;
        view! {
            <li><a href=query.in_state(state).href(0, None) aria-current=current.then_some("page")>
                {label} <span class="count">{count}</span>
            </a></li>
        }
    };
    let tabs = std::iter::once(tab("All".to_owned(), "", total))
        .chain(JobState::ALL.into_iter().map(|state| {
            let name = state.as_str();
            tab(capitalized(name), name, count_of(&counts, state))
        }))
        .collect_view();
    let previous = offset.checked_sub(PAGE);
    let any_matching = matching > 0;
    let (bulk_query, pages_query) = (query.clone(), query.clone());
    view! {
        <nav aria-label="Jobs by state"><ul class="work-tabs">{tabs}</ul></nav>
        <Show when=move || may_act.get() && any_matching>
            <BulkActions query=bulk_query.clone() matching actions />
        </Show>
        {if jobs.is_empty() {
            view! { <p class="muted" role="status">"No job matches."</p> }.into_any()
        } else {
            view! {
                <table class="job-table" aria-label="Jobs">
                    <thead><tr>
                        <th scope="col">"Job"</th><th scope="col">"State"</th><th scope="col">"Attempts"</th>
                        <th scope="col">"Progress"</th><th scope="col">"Made by"</th><th scope="col">"Changed"</th>
                    </tr></thead>
                    <tbody>{jobs.into_iter().map(|job| job_row(job, &query, offset)).collect_view()}</tbody>
                </table>
            }.into_any()
        }}
        <nav class="note-pages" aria-label="Pages">
            {previous.map(|at| view! { <a href=pages_query.href(at, None)>"Previous"</a> })}
            {next_offset.map(|at| view! { <a href=pages_query.href(at, None)>"Next"</a> })}
        </nav>
    }
}

fn count_of(counts: &JobCounts, state: JobState) -> u64 {
    match state {
        JobState::Scheduled => counts.scheduled,
        JobState::Available => counts.available,
        JobState::Running => counts.running,
        JobState::Retryable => counts.retryable,
        JobState::Completed => counts.completed,
        JobState::Failed => counts.failed,
        JobState::Cancelled => counts.cancelled,
    }
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn job_row(job: Job, query: &JobQuery, offset: u32) -> impl IntoView {
    let href = query.href(offset, Some(&job.id));
    let progress = job
        .progress
        .clone()
        .map(|progress| progress_view(&progress));
    // Who made it, short: a schedule is a link to it, a user their name.
    let maker = match job.created_by.split_once(':') {
        Some(("schedule", id)) => {
            view! { <a href=format!("/schedules?id={id}")>"a schedule"</a> }.into_any()
        }
        Some(("user", name)) => name.to_owned().into_any(),
        _ => job.created_by.clone().into_any(),
    };
    let who = view! { {maker} {job.agent.clone().map(|agent| format!(" · {agent}"))} };
    view! {
        <tr data-job=job.id.clone() data-state=job.state.as_str()>
            <td>
                <a href=href>{job.kind.clone()}</a>
                {job.error.clone().map(|error| view! { <p class="muted fire-error">{error}</p> })}
            </td>
            <td><span class=format!("job-state {}", job.state.as_str())>{job.state.as_str()}</span>
                {job.cancel_requested_at_ms.filter(|_| job.state == JobState::Running).map(|_| view! { " " <span class="fire-tag">"stopping"</span> })}
            </td>
            <td>{format!("{} of {}", job.attempts, job.max_attempts)}</td>
            <td>{progress}</td>
            <td>{who}</td>
            <td>{time_view(job.updated_at_ms)}</td>
        </tr>
    }
}

/// Retry or cancel of everything matching the filter, after saying how much that is.
#[component]
fn BulkActions(query: JobQuery, matching: u64, actions: JobActions) -> impl IntoView {
    let confirm = RwSignal::new(None::<&'static str>);
    let fields = StoredValue::new(query);
    let dispatch = move |which: &'static str| {
        let JobQuery {
            state,
            kind,
            agent,
            project,
            q,
        } = fields.get_value();
        match which {
            "retry" => {
                actions.retry_matching.dispatch(RetryMatchingJobs {
                    state,
                    kind,
                    agent,
                    project,
                    q,
                });
            }
            _ => {
                actions.cancel_matching.dispatch(CancelMatchingJobs {
                    state,
                    kind,
                    agent,
                    project,
                    q,
                });
            }
        }
        confirm.set(None);
    };
    view! {
        <div class="note-actions work-bulk">
            <button type="button" class="button small" on:click=move |_| confirm.set(Some("retry"))>
                {format!("Retry the {matching} matching…")}
            </button>
            <button type="button" class="button small ghost" on:click=move |_| confirm.set(Some("cancel"))>
                {format!("Cancel the {matching} matching…")}
            </button>
        </div>
        {move || confirm.get().map(|which| {
            let words = if which == "retry" {
                format!("Run again every failed or cancelled job of the {matching} matching this filter?")
            } else {
                format!("Cancel every waiting or running job of the {matching} matching this filter? Running ones are asked to stop.")
            };
            view! {
                <div class="note-confirm" role="alertdialog" aria-label="Act on every matching job?">
                    <p>{words}</p>
                    <button type="button" class="button primary" on:click=move |_| dispatch(which)>
                        {if which == "retry" { "Retry them" } else { "Cancel them" }}
                    </button>
                    <button type="button" class="button ghost" on:click=move |_| confirm.set(None)>"Not now"</button>
                </div>
            }
        })}
    }
}
