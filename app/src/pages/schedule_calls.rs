//! The Schedules page's calls to the server — each schedule read, made, edited, paused,
//! resumed, fired now and deleted — and the actions the page shares among its parts.

// The schedule form's server functions take one argument per field of the form, as a
// server function reads a form: more than clippy's seven.
#![allow(clippy::too_many_arguments)]

use leptos::prelude::*;

use crate::error::{ApiError, refusal};
use crate::model::schedules::{Schedule, ScheduleDetail, ScheduleList};

/// Schedules a page lists.
pub const PAGE: u32 = 50;

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

/// What a schedule's form offers: the agents a schedule may name, and the active projects.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScheduleChoices {
    pub agents: Vec<String>,
    pub projects: Vec<crate::model::projects::Project>,
}

#[server(prefix = "/fn", endpoint = "schedule_agents")]
pub async fn load_schedule_choices() -> Result<ScheduleChoices, ApiError> {
    use crate::api::service::*;
    let context = context()?;
    let projects = with_status(
        projects()?
            .list_projects(&context, false, None, 0, 100)
            .await,
    )?;
    Ok(ScheduleChoices {
        agents: schedules()?.agents(),
        projects: projects.projects,
    })
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
    #[server(default)] project_id: String,
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
        project_id: Some(project_id).filter(|id| !id.trim().is_empty()),
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
    #[server(default)] project_id: String,
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
        project_id: Some(project_id),
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
    pub fn new() -> Self {
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
    pub fn problem(&self) -> Option<String> {
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
