//! The schedules of every tenant: made, edited, paused, resumed, fired on request and
//! deleted here, and ticked by the job engine's scheduler, which fires what is due.

use std::sync::Arc;
use std::time::Duration;

use app::error::ApiError;
use app::model::schedules::{
    NAME_MOST, NewSchedule, PROMPT_MOST, Schedule, ScheduleDetail, ScheduleEdit, ScheduleList,
};

use super::plan::{on_request, plan};
use super::when::{Timing, read};
use crate::clock::{now_ms, stamp_after};
use crate::fields::check_text;
use crate::jobs::{Engine, Source};
use crate::store::Store;

/// How schedules are paced; shortened in tests by configuration.
#[derive(Clone, Debug)]
pub struct ScheduleConfig {
    /// A fire taken more than this after its time counts as missed.
    pub grace: Duration,
    /// The shortest interval a schedule may have.
    pub shortest: Duration,
}

impl Default for ScheduleConfig {
    fn default() -> Self {
        Self {
            grace: Duration::from_secs(60),
            shortest: Duration::from_secs(60),
        }
    }
}

/// Due schedules read per tick.
const DUE_PER_TICK: u32 = 200;

pub struct Schedules {
    store: Arc<dyn Store>,
    engine: Arc<Engine>,
    config: ScheduleConfig,
}

fn not_found(id: &str) -> ApiError {
    ApiError::NotFound(format!("schedule {id:?} does not exist"))
}

impl Schedules {
    pub fn new(store: Arc<dyn Store>, engine: Arc<Engine>, config: ScheduleConfig) -> Arc<Self> {
        let schedules = Arc::new(Self {
            store,
            engine: engine.clone(),
            config,
        });
        engine.add_source(schedules.clone());
        schedules
    }

    fn timing(&self, schedule: &Schedule) -> Result<Timing, ApiError> {
        read(
            &schedule.when,
            &schedule.timezone,
            schedule.created_at_ms,
            self.config.shortest,
        )
        .map_err(|error| ApiError::BadRequest(error.to_string()))
    }

    /// Makes a schedule; `created_by` says who (`user:NAME`, `agent:NAME`).
    pub async fn create(
        &self,
        tenant_id: &str,
        new: NewSchedule,
        created_by: &str,
    ) -> Result<(Schedule, bool), ApiError> {
        let now = now_ms();
        let paused_reason = new.paused_reason.map(|reason| reason.trim().to_owned());
        let mut schedule = Schedule {
            id: format!("sch-{}", uuid::Uuid::new_v4().simple()),
            name: check_text("name", &new.name, NAME_MOST)?,
            agent: check_text("agent", &new.agent, NAME_MOST)?,
            prompt: check_text("prompt", &new.prompt, PROMPT_MOST)?,
            project_id: new.project_id.filter(|id| !id.trim().is_empty()),
            target: new.target,
            thread_id: None,
            when: new.when,
            timezone: new.timezone.trim().to_owned(),
            missed: new.missed,
            catch_up_window_s: new.catch_up_window_s,
            overlap: new.overlap,
            asks: new.asks,
            paused_at_ms: paused_reason.is_some().then_some(now),
            paused_reason,
            next_fire_ms: None,
            missed_count: 0,
            skipped_count: 0,
            last_error: None,
            created_by: created_by.to_owned(),
            created_at_ms: now,
            updated_at_ms: now,
        };
        self.check_project(tenant_id, schedule.project_id.as_deref())
            .await?;
        schedule.next_fire_ms = self.timing(&schedule)?.next_after(now);
        let key = new.idempotency_key.as_deref().map(str::trim);
        let made = self
            .store
            .create_schedule(tenant_id, &schedule, key)
            .await?;
        self.engine.wake();
        self.engine.changed(tenant_id);
        Ok(made)
    }

    pub async fn get(&self, tenant_id: &str, id: &str) -> Result<Schedule, ApiError> {
        self.store
            .get_schedule(tenant_id, id)
            .await?
            .ok_or_else(|| not_found(id))
    }

    pub async fn list(
        &self,
        tenant_id: &str,
        offset: u32,
        limit: u32,
    ) -> Result<ScheduleList, ApiError> {
        Ok(self.store.list_schedules(tenant_id, offset, limit).await?)
    }

    /// A schedule with its next 10 fire times in its zone and its last 10 fires.
    pub async fn detail(&self, tenant_id: &str, id: &str) -> Result<ScheduleDetail, ApiError> {
        let schedule = self.get(tenant_id, id).await?;
        let next = match (schedule.paused_at_ms, self.timing(&schedule)) {
            (None, Ok(timing)) => match schedule.next_fire_ms {
                Some(first) => timing.upcoming(first - 1, 10),
                None => Vec::new(),
            },
            _ => Vec::new(),
        };
        let fires = self.store.fires(tenant_id, id, 10).await?;
        Ok(ScheduleDetail {
            schedule,
            next,
            fires,
        })
    }

    /// Applies `edit`; a new timing or a resume counts the next fire from now (fires
    /// missed while paused are not caught up).
    pub async fn edit(
        &self,
        tenant_id: &str,
        id: &str,
        edit: ScheduleEdit,
    ) -> Result<Schedule, ApiError> {
        for _ in 0..crate::clock::EDIT_TRIES {
            let before = self.get(tenant_id, id).await?;
            let mut schedule = before.clone();
            let mut retime = false;
            if let Some(name) = &edit.name {
                schedule.name = check_text("name", name, NAME_MOST)?;
            }
            if let Some(agent) = &edit.agent {
                schedule.agent = check_text("agent", agent, NAME_MOST)?;
            }
            if let Some(prompt) = &edit.prompt {
                schedule.prompt = check_text("prompt", prompt, PROMPT_MOST)?;
            }
            if let Some(when) = &edit.when {
                schedule.when = when.clone();
                retime = true;
            }
            if let Some(zone) = &edit.timezone {
                schedule.timezone = zone.trim().to_owned();
                retime = true;
            }
            if let Some(missed) = edit.missed {
                schedule.missed = missed;
            }
            if let Some(window) = edit.catch_up_window_s {
                schedule.catch_up_window_s = window;
            }
            if let Some(overlap) = edit.overlap {
                schedule.overlap = overlap;
            }
            if let Some(asks) = edit.asks {
                schedule.asks = asks;
            }
            if let Some(target) = edit.target {
                schedule.target = target;
            }
            if let Some(project) = &edit.project_id {
                let project = Some(project.trim().to_owned()).filter(|id| !id.is_empty());
                self.check_project(tenant_id, project.as_deref()).await?;
                if project != schedule.project_id {
                    // The thread a schedule accumulates in belongs to its old project: the
                    // next fire starts one in the new.
                    schedule.thread_id = None;
                    schedule.project_id = project;
                }
            }
            let now = now_ms();
            if let Some(reason) = &edit.pause {
                schedule.paused_at_ms = Some(schedule.paused_at_ms.unwrap_or(now));
                schedule.paused_reason = Some(reason.trim().to_owned());
            } else if edit.resume && schedule.paused_at_ms.is_some() {
                schedule.paused_at_ms = None;
                schedule.paused_reason = None;
                retime = true;
            }
            if retime {
                schedule.next_fire_ms = self.timing(&schedule)?.next_after(now);
            } else {
                self.timing(&schedule)?;
            }
            schedule.updated_at_ms = stamp_after(before.updated_at_ms);
            if self
                .store
                .replace_schedule(tenant_id, &schedule, before.updated_at_ms)
                .await?
            {
                self.engine.wake();
                self.engine.changed(tenant_id);
                return Ok(schedule);
            }
        }
        Err(ApiError::Conflict(format!(
            "schedule {id:?} kept changing; try again"
        )))
    }

    /// Refused (400 naming `project_id`) unless the project exists in the tenant.
    async fn check_project(&self, tenant_id: &str, project: Option<&str>) -> Result<(), ApiError> {
        if let Some(project) = project
            && self.store.get_project(tenant_id, project).await?.is_none()
        {
            return Err(ApiError::BadRequest(format!(
                "project_id: project {project:?} does not exist"
            )));
        }
        Ok(())
    }

    pub async fn delete(&self, tenant_id: &str, id: &str) -> Result<(), ApiError> {
        if self.store.delete_schedule(tenant_id, id).await? {
            self.engine.changed(tenant_id);
            Ok(())
        } else {
            Err(not_found(id))
        }
    }

    /// Fires the schedule now (paused or not), under its overlap policy.
    pub async fn run_now(&self, tenant_id: &str, id: &str) -> Result<ScheduleDetail, ApiError> {
        let schedule = self.get(tenant_id, id).await?;
        let live = self.store.live_fires(id).await?;
        let waiting = self.waiting(tenant_id, id).await?;
        let plan = on_request(tenant_id, &schedule, now_ms(), &live, waiting);
        if !self.store.apply_fire_plan(&plan).await? {
            return Err(ApiError::Conflict(
                "a fire at this very moment exists already; try again".into(),
            ));
        }
        self.engine.wake();
        self.engine.changed(tenant_id);
        self.detail(tenant_id, id).await
    }

    async fn waiting(&self, tenant_id: &str, id: &str) -> Result<usize, ApiError> {
        Ok(self
            .store
            .fires(tenant_id, id, 50)
            .await?
            .iter()
            .filter(|fire| fire.outcome == "waiting")
            .count())
    }

    /// Fires every schedule due at `now_ms`; how many fired (or missed) here.
    pub async fn fire_due(&self, now_ms: i64) -> Result<usize, ApiError> {
        let grace = i64::try_from(self.config.grace.as_millis()).unwrap_or(i64::MAX);
        let mut decided = 0;
        for (tenant_id, schedule) in self.store.due_schedules(now_ms, DUE_PER_TICK).await? {
            let timing = match self.timing(&schedule) {
                Ok(timing) => timing,
                Err(error) => {
                    self.stop_unreadable(&tenant_id, &schedule, &error).await?;
                    continue;
                }
            };
            let live = self.store.live_fires(&schedule.id).await?;
            let waiting = self.waiting(&tenant_id, &schedule.id).await?;
            let Some(plan) = plan(
                &tenant_id, &schedule, &timing, now_ms, &live, waiting, grace,
            ) else {
                continue;
            };
            if self.store.apply_fire_plan(&plan).await? {
                decided += 1;
                self.engine.changed(&tenant_id);
            }
        }
        if decided > 0 {
            self.engine.wake();
        }
        Ok(decided)
    }

    /// A stored schedule whose timing no longer reads (a zone gone from the database):
    /// it stops firing and says why.
    async fn stop_unreadable(
        &self,
        tenant_id: &str,
        schedule: &Schedule,
        error: &ApiError,
    ) -> Result<(), ApiError> {
        let mut stopped = schedule.clone();
        stopped.next_fire_ms = None;
        stopped.updated_at_ms = stamp_after(schedule.updated_at_ms);
        self.store
            .replace_schedule(tenant_id, &stopped, schedule.updated_at_ms)
            .await?;
        self.store
            .set_schedule_error(tenant_id, &schedule.id, Some(&error.to_string()))
            .await?;
        Ok(())
    }
}

#[async_trait::async_trait]
impl Source for Schedules {
    async fn tick(&self, now_ms: i64) {
        if let Err(error) = self.fire_due(now_ms).await {
            tracing::warn!(%error, "due schedules could not be fired");
        }
    }

    async fn next_due(&self) -> Option<i64> {
        self.store.next_schedule_due().await.ok().flatten()
    }
}
