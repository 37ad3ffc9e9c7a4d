//! What the store keeps of schedules and their fires. A fire is decided in the schedules
//! service and written here in one transaction that moves the schedule's next fire time
//! only if it still holds the time the decision was made on: of two processes deciding
//! the same fire, one writes it and the other finds the time moved and does nothing.

use app::model::schedules::{Fire, Schedule, ScheduleList};

use super::StoreError;
use super::jobs::NewJob;

/// A fire to write: its slot, what came of it and, for one that runs, its job.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedFire {
    pub slot_ms: i64,
    pub fired_at_ms: Option<i64>,
    /// `waiting`, `queued`, `skipped` or `missed`.
    pub outcome: &'static str,
    pub manual: bool,
    pub catch_up: bool,
    pub job: Option<NewJob>,
    pub error: Option<String>,
}

/// What one decision about a schedule writes.
#[derive(Clone, Debug, PartialEq)]
pub struct FirePlan {
    pub tenant_id: String,
    pub schedule_id: String,
    /// The next fire time the decision was made on; `None` for a fire on request, which
    /// leaves the schedule's times alone.
    pub expected_next_fire_ms: Option<i64>,
    pub next_fire_ms: Option<i64>,
    pub missed: u64,
    pub skipped: u64,
    pub fires: Vec<PlannedFire>,
    /// A running fire's job to cancel (the overlap policy `cancel`).
    pub cancel_job: Option<String>,
    pub now_ms: i64,
}

/// A change to a fire as its job runs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FireUpdate {
    pub outcome: Option<&'static str>,
    pub fired_at_ms: Option<i64>,
    pub thread_id: Option<String>,
    pub run_id: Option<String>,
    pub error: Option<String>,
}

#[async_trait::async_trait]
pub trait ScheduleStore: Send + Sync {
    /// Adds `schedule` (its id, tenant and times filled in); with an idempotency key the
    /// tenant already used, returns that schedule instead (and false).
    async fn create_schedule(
        &self,
        tenant_id: &str,
        schedule: &Schedule,
        idempotency_key: Option<&str>,
    ) -> Result<(Schedule, bool), StoreError>;

    async fn get_schedule(&self, tenant_id: &str, id: &str)
    -> Result<Option<Schedule>, StoreError>;

    /// The tenant's schedules by name.
    async fn list_schedules(
        &self,
        tenant_id: &str,
        offset: u32,
        limit: u32,
    ) -> Result<ScheduleList, StoreError>;

    /// Writes `schedule` over the stored one if that one was last changed at
    /// `expected_updated_at_ms`; false when it changed since (or is gone).
    async fn replace_schedule(
        &self,
        tenant_id: &str,
        schedule: &Schedule,
        expected_updated_at_ms: i64,
    ) -> Result<bool, StoreError>;

    async fn delete_schedule(&self, tenant_id: &str, id: &str) -> Result<bool, StoreError>;

    /// Schedules of every tenant whose next fire is due at `now_ms`, unpaused, earliest
    /// first.
    async fn due_schedules(
        &self,
        now_ms: i64,
        limit: u32,
    ) -> Result<Vec<(String, Schedule)>, StoreError>;

    /// The earliest next fire of an unpaused schedule.
    async fn next_schedule_due(&self) -> Result<Option<i64>, StoreError>;

    /// Writes a decision; false (nothing written) when the schedule's next fire moved
    /// since it was made, or a slot it fires already has a fire.
    async fn apply_fire_plan(&self, plan: &FirePlan) -> Result<bool, StoreError>;

    /// The schedule's latest fires, newest first.
    async fn fires(
        &self,
        tenant_id: &str,
        schedule_id: &str,
        limit: u32,
    ) -> Result<Vec<Fire>, StoreError>;

    async fn get_fire(&self, schedule_id: &str, slot_ms: i64) -> Result<Option<Fire>, StoreError>;

    /// The fire whose run is being started in thread `thread_id` (its thread set, its
    /// run not yet): the schedule it belongs to, and the fire.
    async fn fire_starting_in(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Option<(Schedule, Fire)>, StoreError>;

    async fn update_fire(
        &self,
        schedule_id: &str,
        slot_ms: i64,
        update: &FireUpdate,
    ) -> Result<(), StoreError>;

    /// Fires of the schedule still queued or running: those whose job waits or runs (a
    /// fire whose job ended, or was removed by retention, is not, however its worker left
    /// it).
    async fn live_fires(&self, schedule_id: &str) -> Result<Vec<Fire>, StoreError>;

    /// Starts the schedule's oldest waiting fire (overlap `queue`): makes it queued and
    /// adds the job `job_for` makes for its slot, in one transaction; the slot, if one
    /// was waiting.
    async fn start_waiting_fire(
        &self,
        schedule_id: &str,
        job_for: &(dyn Fn(i64) -> NewJob + Send + Sync),
        now_ms: i64,
    ) -> Result<Option<i64>, StoreError>;

    /// Records the thread a one-thread schedule's fires add to.
    async fn set_schedule_thread(
        &self,
        tenant_id: &str,
        id: &str,
        thread_id: &str,
    ) -> Result<(), StoreError>;

    /// Records (or clears) the schedule's last error.
    async fn set_schedule_error(
        &self,
        tenant_id: &str,
        id: &str,
        error: Option<&str>,
    ) -> Result<(), StoreError>;
}
