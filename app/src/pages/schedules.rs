//! `/schedules`: the tenant's schedules — each one's clock in its own zone, when it fires
//! next, how its last fires went — and, with `?id=`, one schedule in full with its next 10
//! times, its last 10 fires and what an operator does to it. Viewers read; operators make,
//! change, pause, run and delete. The page follows the tenant's live stream.

// The schedule form's server functions take one argument per field of the form, as a
// server function reads a form: more than clippy's seven.
#![allow(clippy::too_many_arguments)]

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::codec::Json;
use crate::components::identity::may_act;
use crate::components::inbox::{Background, background_changes};
use crate::components::layout::ContextFrame;
use crate::error::{ApiError, refusal};
use crate::model::schedules::{Schedule, ScheduleDetail, ScheduleList};
use crate::pages::agent_jobs::AgentJobsSection;
use crate::pages::notes::time_view;
use crate::pages::schedule::{ScheduleFields, ScheduleView};

/// Schedules a page lists.
const PAGE: u32 = 50;

#[server(prefix = "/fn", endpoint = "schedules")]
pub async fn load_schedules(offset: u32) -> Result<ScheduleList, ApiError> {
    use crate::api::service::*;
    with_status(schedules()?.list_schedules(&context()?, offset, PAGE).await)
}

#[server(prefix = "/fn", endpoint = "schedule")]
pub async fn load_schedule(schedule_id: String) -> Result<ScheduleDetail, ApiError> {
    use crate::api::service::*;
    with_status(schedules()?.schedule(&context()?, &schedule_id).await)
}

/// The agents a schedule may name.
#[server(prefix = "/fn", endpoint = "schedule_agents")]
pub async fn load_schedule_agents() -> Result<Vec<String>, ApiError> {
    use crate::api::service::*;
    Ok(schedules()?.agents())
}

/// A form's field refused, as the API refuses it: 400 naming the field.
#[cfg(feature = "ssr")]
fn field<T>(result: Result<T, String>) -> Result<T, ApiError> {
    crate::api::service::with_status(result.map_err(ApiError::BadRequest))
}

#[cfg(feature = "ssr")]
fn window_from(text: &str) -> Result<u64, ApiError> {
    field(text.trim().parse::<u64>().map_err(|_| {
        format!(
            "catch_up_window_s: {:?} is not a number of seconds",
            text.trim()
        )
    }))
}

#[server(prefix = "/fn", endpoint = "create_schedule")]
pub async fn create_schedule(
    name: String,
    agent: String,
    prompt: String,
    when_kind: String,
    when_text: String,
    timezone: String,
    target: String,
    missed: String,
    catch_up_window_s: String,
    overlap: String,
    asks: String,
    idempotency_key: String,
) -> Result<Schedule, ApiError> {
    use crate::api::service::*;
    use crate::model::schedules::{NewSchedule, When, choice};
    let schedule = NewSchedule {
        name,
        agent,
        prompt,
        project_id: None,
        target: field(choice("target", &target))?,
        when: field(When::from_parts(&when_kind, &when_text))?,
        timezone,
        missed: field(choice("missed", &missed))?,
        catch_up_window_s: window_from(&catch_up_window_s)?,
        overlap: field(choice("overlap", &overlap))?,
        asks: field(choice("asks", &asks))?,
        paused_reason: None,
        idempotency_key: Some(idempotency_key).filter(|key| !key.trim().is_empty()),
    };
    with_status(
        schedules()?
            .create_schedule(&context()?, schedule)
            .await
            .map(|(schedule, _)| schedule),
    )
}

#[server(prefix = "/fn", endpoint = "edit_schedule")]
pub async fn edit_schedule(
    schedule_id: String,
    name: String,
    agent: String,
    prompt: String,
    when_kind: String,
    when_text: String,
    timezone: String,
    target: String,
    missed: String,
    catch_up_window_s: String,
    overlap: String,
    asks: String,
) -> Result<Schedule, ApiError> {
    use crate::api::service::*;
    use crate::model::schedules::{ScheduleEdit, When, choice};
    let edit = ScheduleEdit {
        name: Some(name),
        agent: Some(agent),
        prompt: Some(prompt),
        when: Some(field(When::from_parts(&when_kind, &when_text))?),
        timezone: Some(timezone),
        missed: Some(field(choice("missed", &missed))?),
        catch_up_window_s: Some(window_from(&catch_up_window_s)?),
        overlap: Some(field(choice("overlap", &overlap))?),
        asks: Some(field(choice("asks", &asks))?),
        target: Some(field(choice("target", &target))?),
        ..ScheduleEdit::default()
    };
    with_status(
        schedules()?
            .edit_schedule(&context()?, &schedule_id, edit)
            .await,
    )
}

#[server(prefix = "/fn", endpoint = "pause_schedule")]
pub async fn pause_schedule(schedule_id: String, reason: String) -> Result<Schedule, ApiError> {
    use crate::api::service::*;
    let edit = crate::model::schedules::ScheduleEdit {
        pause: Some(reason),
        ..Default::default()
    };
    with_status(
        schedules()?
            .edit_schedule(&context()?, &schedule_id, edit)
            .await,
    )
}

#[server(prefix = "/fn", endpoint = "resume_schedule")]
pub async fn resume_schedule(schedule_id: String) -> Result<Schedule, ApiError> {
    use crate::api::service::*;
    let edit = crate::model::schedules::ScheduleEdit {
        resume: true,
        ..Default::default()
    };
    with_status(
        schedules()?
            .edit_schedule(&context()?, &schedule_id, edit)
            .await,
    )
}

#[server(prefix = "/fn", endpoint = "run_schedule")]
pub async fn run_schedule(schedule_id: String) -> Result<ScheduleDetail, ApiError> {
    use crate::api::service::*;
    with_status(schedules()?.run_schedule(&context()?, &schedule_id).await)
}

#[server(prefix = "/fn", endpoint = "delete_schedule")]
pub async fn delete_schedule(schedule_id: String) -> Result<(), ApiError> {
    use crate::api::service::*;
    with_status(
        schedules()?
            .delete_schedule(&context()?, &schedule_id)
            .await,
    )
}

/// What every change on the page shares: the actions, and a count that moves when one
/// worked (the page reads again) — a refused form keeps what was typed.
#[derive(Clone, Copy)]
pub struct ScheduleActions {
    pub create: ServerAction<CreateSchedule>,
    pub edit: ServerAction<EditSchedule>,
    pub pause: ServerAction<PauseSchedule>,
    pub resume: ServerAction<ResumeSchedule>,
    pub run: ServerAction<RunSchedule>,
    pub delete: ServerAction<DeleteSchedule>,
    pub changed: RwSignal<u32>,
}

impl ScheduleActions {
    fn new() -> Self {
        let actions = Self {
            create: ServerAction::new(),
            edit: ServerAction::new(),
            pause: ServerAction::new(),
            resume: ServerAction::new(),
            run: ServerAction::new(),
            delete: ServerAction::new(),
            changed: RwSignal::new(0),
        };
        let changed = actions.changed;
        let bump = move |worked: bool| {
            if worked {
                changed.update(|count| *count += 1);
            }
        };
        let ScheduleActions {
            create,
            edit,
            pause,
            resume,
            run,
            delete,
            ..
        } = actions;
        Effect::new(move |_| bump(create.value().with(worked)));
        Effect::new(move |_| bump(edit.value().with(worked)));
        Effect::new(move |_| bump(pause.value().with(worked)));
        Effect::new(move |_| bump(resume.value().with(worked)));
        Effect::new(move |_| bump(run.value().with(worked)));
        Effect::new(move |_| bump(delete.value().with(worked)));
        actions
    }

    /// The last refusal of any action, in words.
    fn problem(&self) -> Option<String> {
        [
            self.create.value().with(refusal),
            self.edit.value().with(refusal),
            self.pause.value().with(refusal),
            self.resume.value().with(refusal),
            self.run.value().with(refusal),
            self.delete.value().with(refusal),
        ]
        .into_iter()
        .flatten()
        .next()
    }
}

fn worked<T>(value: &Option<Result<T, ApiError>>) -> bool {
    matches!(value, Some(Ok(_)))
}

#[component]
pub fn SchedulesPage() -> impl IntoView {
    let query = use_query_map();
    let selected = move || query.with(|query| query.get("id"));
    let offset = move || {
        query.with(|query| {
            query
                .get("offset")
                .and_then(|offset| offset.parse::<u32>().ok())
                .unwrap_or(0)
        })
    };
    let actions = ScheduleActions::new();
    let heard = background_changes(Background::Schedules);
    let list = Resource::<_, Json>::new_with_options(
        move || (offset(), actions.changed.get(), heard.get()),
        |(offset, _, _)| load_schedules(offset),
        false,
    );
    let agents = Resource::<_, Json>::new_with_options(|| (), |_| load_schedule_agents(), false);
    let may_act = may_act();
    view! {
        <Title text="Schedules" />
        <main class="main section-page schedules-page" id="main" tabindex="-1">
            <h1>"Schedules"</h1>
            <p class="muted">"An agent given a prompt on a clock — a cron expression, an interval or once — read in the schedule's own time zone. Every fire is a real run in a real thread; its asks wait in the inbox like any other."</p>
            {move || actions.problem().map(|problem| view! { <p class="error-text" role="alert">{problem}</p> })}
            <Show when=move || may_act.get()>
                <details class="schedule-new">
                    <summary>"New schedule"</summary>
                    <ActionForm action=actions.create attr:class="note-form schedule-form" attr:autocomplete="off">
                        <Transition fallback=|| view! { <p class="muted">"Loading agents…"</p> }>
                            {move || Suspend::new(async move {
                                let agents = agents.await.unwrap_or_default();
                                view! { <ScheduleFields prefix="schedule-new".to_owned() schedule=None agents made=actions.changed /> }
                            })}
                        </Transition>
                        <button type="submit" class="button primary">"Make schedule"</button>
                    </ActionForm>
                </details>
            </Show>
            <Transition fallback=|| view! { <p class="muted">"Loading schedules…"</p> }>
                {move || Suspend::new(async move {
                    match list.await {
                        Ok(list) if list.schedules.is_empty() => view! {
                            <p class="muted" role="status">"No schedules yet. A schedule starts an agent run at set times."</p>
                        }.into_any(),
                        Ok(list) => {
                            let next = list.next_offset;
                            let previous = offset().checked_sub(PAGE);
                            view! {
                                <ul class="note-list schedule-list" aria-label="Schedules">
                                    {list.schedules.into_iter().map(|schedule| view! { <ScheduleRow schedule /> }).collect_view()}
                                </ul>
                                <nav class="note-pages" aria-label="Pages">
                                    {previous.map(|offset| view! { <a href=format!("/schedules?offset={offset}")>"Previous"</a> })}
                                    {next.map(|offset| view! { <a href=format!("/schedules?offset={offset}")>"Next"</a> })}
                                </nav>
                            }.into_any()
                        }
                        Err(error) => view! { <p class="error-text" role="alert">{error.say()}</p> }.into_any(),
                    }
                })}
            </Transition>
            {move || selected().map(|id| view! { <ScheduleView id actions agents heard /> })}
            <AgentJobsSection />
        </main>
        <ContextFrame>
            <section class="pane-section">
                <h2>"How schedules fire"</h2>
                <p class="muted">"Each scheduled time fires once, ever — across restarts and across servers. A time that passed while nothing could fire it is skipped, or caught up once within the window. While the last fire still runs, the next one is skipped, queued, run beside it, or stops it."</p>
                <p class="muted">"A fire that started more than five seconds after its time is marked late."</p>
            </section>
        </ContextFrame>
    }
}

#[component]
fn ScheduleRow(schedule: Schedule) -> impl IntoView {
    let href = format!("/schedules?id={}", schedule.id);
    let state = match (&schedule.paused_at_ms, schedule.next_fire_ms) {
        (Some(_), _) => view! {
            <span class="schedule-state paused">"Paused"</span>
            {schedule.paused_reason.clone().filter(|reason| !reason.is_empty()).map(|reason| view! { " · " <span class="muted">{reason}</span> })}
        }
        .into_any(),
        (None, Some(next)) => view! { <span class="schedule-state">"Next " {time_view(next)}</span> }.into_any(),
        (None, None) => view! { <span class="schedule-state done">"Nothing more to fire"</span> }.into_any(),
    };
    view! {
        <li class="note-row schedule-row" data-schedule=schedule.id.clone()>
            <a class="note-title" href=href>{schedule.name.clone()}</a>
            <span class="muted note-meta">
                <code>{schedule.when.describe()}</code> " · " {schedule.timezone.clone()} " · " {schedule.agent.clone()}
            </span>
            <span class="note-meta">{state}</span>
            <span class="muted note-meta">
                {format!("{} missed · {} skipped", schedule.missed_count, schedule.skipped_count)}
            </span>
            {schedule.last_error.clone().map(|error| view! { <p class="error-text schedule-error">"Last error: " {error}</p> })}
        </li>
    }
}
