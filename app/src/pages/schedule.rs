//! One schedule in full on the Schedules page — its clock and policies, its next 10 times
//! in its zone, its last 10 fires with their runs — and the form that makes or edits one.

use leptos::prelude::*;

use crate::codec::Json;
use crate::components::identity::may_act;
use crate::error::ApiError;
use crate::model::schedules::{
    AskPolicy, Fire, Missed, Overlap, Schedule, ScheduleDetail, Target, choice_name,
};
use crate::pages::notes::{ProjectOptions, time_view};
use crate::pages::schedule_calls::{
    DeleteSchedule, ResumeSchedule, RunSchedule, ScheduleActions, ScheduleChoices, load_schedule,
};

/// Zones offered as the zone is typed (any IANA zone is taken).
const ZONES: &[&str] = &[
    "UTC",
    "Europe/London",
    "Europe/Berlin",
    "Europe/Paris",
    "Europe/Madrid",
    "Europe/Helsinki",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "America/Sao_Paulo",
    "Asia/Kolkata",
    "Asia/Singapore",
    "Asia/Tokyo",
    "Australia/Sydney",
    "Pacific/Auckland",
];

/// The zone this browser is in, once it runs here.
fn browser_zone() -> Option<String> {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        let format =
            js_sys::Intl::DateTimeFormat::new(&js_sys::Array::new(), &js_sys::Object::new());
        let options = format.resolved_options();
        js_sys::Reflect::get(&options, &"timeZone".into())
            .ok()
            .and_then(|zone| zone.as_string())
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    None
}

/// A random key for one submission of the new-schedule form: sent twice (a double
/// click, a retried request), it makes one schedule.
fn fresh_key() -> String {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        let part = || (js_sys::Math::random() * 1e15) as u64;
        format!("form-{:x}{:x}", part(), part())
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    String::new()
}

/// A `<select>` of a choice's values, each named as the API names it.
fn choice_select<T: serde::Serialize + Copy + PartialEq + 'static>(
    id: String,
    name: &'static str,
    options: &[T],
    chosen: T,
    label: fn(T) -> &'static str,
) -> impl IntoView {
    let options = options
        .iter()
        .map(|option| {
            view! { <option value=choice_name(option) selected=*option == chosen>{label(*option)}</option> }
        })
        .collect_view();
    view! { <select id=id name=name>{options}</select> }
}

/// The fields of the new-schedule and edit forms, filled from `schedule` when editing.
#[component]
pub fn ScheduleFields(
    prefix: String,
    schedule: Option<Schedule>,
    choices: ScheduleChoices,
    /// Moves after each schedule made, so the next submission gets a new key.
    #[prop(optional)]
    made: Option<RwSignal<u32>>,
) -> impl IntoView {
    let field = {
        let prefix = prefix.clone();
        move |name: &str| format!("{prefix}-{name}")
    };
    let new = schedule.is_none();
    let (when_kind, when_text) = schedule
        .as_ref()
        .map(|schedule| {
            let (kind, text) = schedule.when.parts();
            (kind, text.to_owned())
        })
        .unwrap_or(("cron", String::new()));
    let zone = RwSignal::new(
        schedule
            .as_ref()
            .map_or_else(|| "UTC".to_owned(), |schedule| schedule.timezone.clone()),
    );
    let key = RwSignal::new(String::new());
    Effect::new(move |_| {
        if let Some(made) = made {
            made.track();
        }
        if new {
            key.set(fresh_key());
        }
    });
    Effect::new(move |_| {
        if new && let Some(here) = browser_zone() {
            zone.set(here);
        }
    });
    let chosen_agent = schedule.as_ref().map(|schedule| schedule.agent.clone());
    let ScheduleChoices { agents, projects } = choices;
    let agent_options = agents
        .into_iter()
        .map(|agent| {
            let selected = chosen_agent.as_deref() == Some(agent.as_str());
            view! { <option value=agent.clone() selected=selected>{agent.clone()}</option> }
        })
        .collect_view();
    let current = schedule.clone();
    let pick =
        move |read: fn(&Schedule) -> u64, default: u64| current.as_ref().map_or(default, read);
    let zones_id = field("zones");
    view! {
        {new.then(|| view! { <input type="hidden" name="idempotency_key" prop:value=move || key.get() /> })}
        <label class="field-label" for=field("name")>"Name"</label>
        <input id=field("name") name="name" required maxlength="100" value=schedule.as_ref().map(|s| s.name.clone()) />
        <label class="field-label" for=field("agent")>"Agent"</label>
        <select id=field("agent") name="agent">{agent_options}</select>
        <label class="field-label" for=field("prompt")>"Prompt (markdown)"</label>
        <textarea id=field("prompt") name="prompt" rows="4" required>{schedule.as_ref().map(|s| s.prompt.clone())}</textarea>
        <fieldset class="schedule-when">
            <legend>"When"</legend>
            <label class="field-label" for=field("when-kind")>"Kind"</label>
            <select id=field("when-kind") name="when_kind">
                <option value="cron" selected=when_kind == "cron">"Cron (5 fields)"</option>
                <option value="every" selected=when_kind == "every">"Every (an interval)"</option>
                <option value="once" selected=when_kind == "once">"Once (at a time)"</option>
            </select>
            <label class="field-label" for=field("when-text")>"Expression, interval or time"</label>
            <input id=field("when-text") name="when_text" required spellcheck="false" value=when_text
                placeholder="0 9 * * 1-5 · every 2h · 2026-12-24T09:00" />
            <label class="field-label" for=field("timezone")>"Time zone (IANA)"</label>
            <input id=field("timezone") name="timezone" required spellcheck="false" list=zones_id.clone() prop:value=move || zone.get() />
            <datalist id=zones_id>{ZONES.iter().map(|zone| view! { <option value=*zone></option> }).collect_view()}</datalist>
        </fieldset>
        <label class="field-label" for=field("project")>"Project"</label>
        <select id=field("project") name="project_id">
            <ProjectOptions list=projects current=schedule.as_ref().and_then(|s| s.project_id.clone()) />
        </select>
        <label class="field-label" for=field("target")>"Where each fire runs"</label>
        {choice_select(field("target"), "target", &[Target::NewThread, Target::OneThread], schedule.as_ref().map_or(Target::default(), |s| s.target), Target::label)}
        <label class="field-label" for=field("missed")>"Missed fires"</label>
        {choice_select(field("missed"), "missed", &[Missed::Skip, Missed::CatchUp], schedule.as_ref().map_or(Missed::default(), |s| s.missed), Missed::label)}
        <label class="field-label" for=field("window")>"Catch-up window (seconds)"</label>
        <input id=field("window") name="catch_up_window_s" type="number" min="0" value=pick(|s| s.catch_up_window_s, 3600).to_string() />
        <label class="field-label" for=field("overlap")>"While the last fire still runs"</label>
        {choice_select(field("overlap"), "overlap", &[Overlap::Skip, Overlap::Queue, Overlap::Allow, Overlap::Cancel], schedule.as_ref().map_or(Overlap::default(), |s| s.overlap), Overlap::label)}
        <label class="field-label" for=field("asks")>"Asks of an unattended run"</label>
        {choice_select(field("asks"), "asks", &[AskPolicy::Wait, AskPolicy::Deny], schedule.as_ref().map_or(AskPolicy::default(), |s| s.asks), AskPolicy::label)}
    }
}

/// The schedule `id` in full, read again whenever it or its fires change.
#[component]
pub fn ScheduleView(
    id: String,
    actions: ScheduleActions,
    choices: Resource<Result<ScheduleChoices, ApiError>, Json>,
    heard: Signal<u64>,
) -> impl IntoView {
    let id = StoredValue::new(id);
    let detail = Resource::<_, Json>::new_with_options(
        move || (id.get_value(), actions.changed.get(), heard.get()),
        |(id, _, _)| load_schedule(id),
        false,
    );
    view! {
        <Transition fallback=|| view! { <p class="muted">"Loading the schedule…"</p> }>
            {move || Suspend::new(async move {
                match detail.await {
                    Ok(detail) => view! { <Detail detail actions choices /> }.into_any(),
                    Err(ApiError::NotFound(_)) => view! {
                        <section class="schedule-detail" aria-label="Schedule">
                            <p class="muted" role="status">"There is no such schedule here (it may have been deleted). " <a href="/schedules">"All schedules"</a></p>
                        </section>
                    }.into_any(),
                    Err(error) => view! { <p class="error-text" role="alert">{error.say()}</p> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn Detail(
    detail: ScheduleDetail,
    actions: ScheduleActions,
    choices: Resource<Result<ScheduleChoices, ApiError>, Json>,
) -> impl IntoView {
    let ScheduleDetail {
        schedule,
        next,
        fires,
    } = detail;
    let may_act = may_act();
    let editing = RwSignal::new(false);
    let confirm_delete = RwSignal::new(false);
    let heading_id = format!("schedule-{}", schedule.id);
    let thread = schedule.thread_id.clone().map(|thread| {
        view! { <dt>"Thread"</dt><dd><a href=format!("/threads/{thread}")>"The schedule's thread"</a></dd> }
    });
    let project = schedule.project_id.clone().map(|project| {
        let href = format!("/projects/{project}");
        view! {
            <dt>"Project"</dt>
            <dd>
                <Transition fallback=|| ()>
                    {move || {
                        let (project, href) = (project.clone(), href.clone());
                        Suspend::new(async move {
                            let name = choices
                                .await
                                .ok()
                                .and_then(|choices| choices.projects.into_iter().find(|known| known.id == project))
                                .map_or_else(|| "(an archived project)".to_owned(), |known| known.name);
                            view! { <a href=href>{name}</a> }
                        })
                    }}
                </Transition>
            </dd>
        }
    });
    let paused = schedule.paused_at_ms.map(|at| {
        let reason = schedule.paused_reason.clone().filter(|reason| !reason.is_empty());
        view! { <p class="schedule-paused" role="status">"Paused " {time_view(at)} {reason.map(|reason| view! { ": " {reason} })}</p> }
    });
    let edit_schedule = schedule.clone();
    let controls_schedule = schedule.clone();
    let (labelled_by, schedule_id) = (heading_id.clone(), schedule.id.clone());
    view! {
        <section class="schedule-detail" aria-labelledby=labelled_by data-schedule=schedule_id>
            <h2 id=heading_id>{schedule.name.clone()}</h2>
            {paused}
            {schedule.last_error.clone().map(|error| view! { <p class="error-text" role="alert">"Last error: " {error}</p> })}
            <dl class="schedule-facts">
                <dt>"When"</dt><dd><code>{schedule.when.describe()}</code> " in " {schedule.timezone.clone()}</dd>
                <dt>"Agent"</dt><dd>{schedule.agent.clone()}</dd>
                <dt>"Runs in"</dt><dd>{schedule.target.label()}</dd>
                {project}
                {thread}
                <dt>"Missed fires"</dt><dd>{schedule.missed.label()} {(schedule.missed == Missed::CatchUp).then(|| format!(" ({} s)", schedule.catch_up_window_s))}</dd>
                <dt>"Overlap"</dt><dd>{schedule.overlap.label()}</dd>
                <dt>"Asks"</dt><dd>{schedule.asks.label()}</dd>
                <dt>"Missed"</dt><dd>{schedule.missed_count}</dd>
                <dt>"Skipped"</dt><dd>{schedule.skipped_count}</dd>
                <dt>"Made by"</dt><dd>{schedule.created_by.clone()} " · " {time_view(schedule.created_at_ms)}</dd>
            </dl>
            <details class="schedule-prompt">
                <summary>"Prompt"</summary>
                <pre class="schedule-prompt-text">{schedule.prompt.clone()}</pre>
            </details>
            <Show when=move || may_act.get()>
                <Controls schedule=controls_schedule.clone() actions editing confirm_delete />
            </Show>
            {move || (may_act.get() && editing.get()).then(|| {
                let schedule = edit_schedule.clone();
                view! {
                    <ActionForm action=actions.edit attr:class="note-form schedule-form" attr:autocomplete="off">
                        <input type="hidden" name="schedule_id" value=schedule.id.clone() />
                        <Transition fallback=|| ()>
                            {
                                let schedule = schedule.clone();
                                move || {
                                    let schedule = schedule.clone();
                                    Suspend::new(async move {
                                        let choices = choices.await.unwrap_or_default();
                                        view! { <ScheduleFields prefix=format!("schedule-edit-{}", schedule.id) schedule=Some(schedule) choices /> }
                                    })
                                }
                            }
                        </Transition>
                        <button type="submit" class="button small primary">"Save"</button>
                    </ActionForm>
                }
            })}
            <h3>"Next fires"</h3>
            {if next.is_empty() {
                view! { <p class="muted">"None: it is paused, or a one-time schedule that fired."</p> }.into_any()
            } else {
                view! {
                    <ol class="schedule-next" aria-label="Next fires">
                        {next.into_iter().map(|time| view! {
                            <li><time datetime=crate::when::rfc3339(time.at_ms)>{time.local}</time></li>
                        }).collect_view()}
                    </ol>
                }.into_any()
            }}
            <h3>"Last fires"</h3>
            <Fires fires />
        </section>
    }
}

#[component]
fn Controls(
    schedule: Schedule,
    actions: ScheduleActions,
    editing: RwSignal<bool>,
    confirm_delete: RwSignal<bool>,
) -> impl IntoView {
    let id = schedule.id.clone();
    let reason_id = format!("pause-reason-{id}");
    let pause_id = id.clone();
    let pause_or_resume = if schedule.paused_at_ms.is_some() {
        let id = id.clone();
        view! {
            <button type="button" class="button small" on:click=move |_| {
                actions.resume.dispatch(ResumeSchedule { schedule_id: id.clone() });
            }>"Resume"</button>
        }
        .into_any()
    } else {
        view! {
            <ActionForm action=actions.pause attr:class="schedule-pause">
                <input type="hidden" name="schedule_id" value=pause_id />
                <label class="visually-hidden" for=reason_id.clone()>"Why it is paused"</label>
                <input id=reason_id name="reason" placeholder="Why (optional)" maxlength="200" />
                <button type="submit" class="button small">"Pause"</button>
            </ActionForm>
        }
        .into_any()
    };
    let (run_id, delete_id) = (id.clone(), id.clone());
    view! {
        <div class="note-actions schedule-actions">
            <button type="button" class="button small primary" on:click=move |_| {
                actions.run.dispatch(RunSchedule { schedule_id: run_id.clone() });
            }>"Run now"</button>
            {pause_or_resume}
            <button type="button" class="button small ghost" aria-expanded=move || editing.get().to_string()
                on:click=move |_| editing.update(|on| *on = !*on)>"Edit"</button>
            <button type="button" class="button small ghost" on:click=move |_| confirm_delete.set(true)>"Delete…"</button>
        </div>
        {move || confirm_delete.get().then(|| {
            let id = delete_id.clone();
            view! {
                <div class="note-confirm" role="alertdialog" aria-label="Delete this schedule?">
                    <p>"Delete this schedule and the record of its fires? Threads and runs it made stay."</p>
                    <button type="button" class="button danger" on:click=move |_| {
                        actions.delete.dispatch(DeleteSchedule { schedule_id: id.clone() });
                    }>"Delete the schedule"</button>
                    <button type="button" class="button ghost" on:click=move |_| confirm_delete.set(false)>"Keep it"</button>
                </div>
            }
        })}
    }
}

/// The last fires, newest first: when each was due and started, how it went, its run.
#[component]
fn Fires(fires: Vec<Fire>) -> impl IntoView {
    if fires.is_empty() {
        return view! { <p class="muted">"It has not fired yet."</p> }.into_any();
    }
    view! {
        <table class="schedule-fires">
            <caption class="visually-hidden">"Last fires"</caption>
            <thead><tr><th scope="col">"Due"</th><th scope="col">"Started"</th><th scope="col">"Outcome"</th><th scope="col">"Run"</th></tr></thead>
            <tbody>
                {fires.into_iter().map(|fire| {
                    let late = fire.late();
                    let started = fire.fired_at_ms.map(time_view);
                    let tags = [
                        late.then_some("late"),
                        fire.manual.then_some("run now"),
                        fire.catch_up.then_some("caught up"),
                    ];
                    let run = fire.thread_id.clone().map(|thread| view! { <a href=format!("/threads/{thread}")>"Open the run"</a> });
                    view! {
                        <tr data-outcome=fire.outcome.clone()>
                            <td>{time_view(fire.slot_ms)}</td>
                            <td>{started}</td>
                            <td>
                                <span class=format!("fire-outcome {}", fire.outcome)>{fire.outcome.clone()}</span>
                                {tags.into_iter().flatten().map(|tag| view! { " " <span class=format!("fire-tag {}", tag.replace(' ', "-"))>{tag}</span> }).collect_view()}
                                {fire.error.clone().map(|error| view! { <p class="muted fire-error">{error}</p> })}
                            </td>
                            <td>{run}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}
