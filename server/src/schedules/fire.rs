//! A fire, run as a job: the schedule's prompt sent to its agent as a real run in a real
//! thread (a new one, or the schedule's own), followed to its end — through any asks it
//! waits on — and recorded on the fire. A second attempt after a crash finds the run the
//! first started and follows it instead of starting another.

use std::sync::Arc;
use std::time::Duration;

use app::api::service::WorkspaceService;
use app::model::jobs::Job;
use app::model::schedules::{AskPolicy, Schedule, Target};
use app::protocol::status::RunStatus;
use serde_json::{Value, json};

use super::plan::{FIRE_KIND, fire_job};
use super::when::read;
use crate::clock::now_ms;
use crate::jobs::{JobError, JobKind, Work};
use crate::runs::Runs;
use crate::runs::follow::RunFollower;
use crate::store::Store;
use crate::store::schedules::FireUpdate;

pub struct FireKind {
    store: Arc<dyn Store>,
    threads: Arc<dyn WorkspaceService>,
    follower: RunFollower,
}

impl FireKind {
    pub fn new(store: Arc<dyn Store>, threads: Arc<dyn WorkspaceService>, runs: Arc<Runs>) -> Self {
        Self {
            follower: RunFollower::new(store.clone(), runs),
            store,
            threads,
        }
    }

    /// The thread this fire's run goes to: the schedule's own (made on its first fire) or a
    /// new one named after the schedule and the fire's time.
    async fn thread_for(
        &self,
        tenant_id: &str,
        schedule: &Schedule,
        slot_ms: i64,
    ) -> Result<String, JobError> {
        if schedule.target == Target::OneThread
            && let Some(thread) = &schedule.thread_id
            && self
                .store
                .get_thread(tenant_id, thread)
                .await
                .ok()
                .flatten()
                .is_some()
        {
            return Ok(thread.clone());
        }
        let thread = self
            .threads
            .create_thread(
                tenant_id,
                Some(&schedule.agent),
                schedule.project_id.as_deref(),
            )
            .await
            .map_err(|error| JobError::Fatal(format!("no thread could be made: {error}")))?;
        let when = read(
            &schedule.when,
            &schedule.timezone,
            schedule.created_at_ms,
            Duration::ZERO,
        )
        .map(|timing| timing.local(slot_ms))
        .unwrap_or_default();
        let title = match schedule.target {
            Target::OneThread => schedule.name.clone(),
            Target::NewThread => format!("{} · {when}", schedule.name),
        };
        if let Err(error) = self
            .threads
            .rename_thread(tenant_id, &thread.id, &title)
            .await
        {
            tracing::warn!(%error, "a scheduled thread kept its first title");
        }
        if schedule.target == Target::OneThread {
            self.store
                .set_schedule_thread(tenant_id, &schedule.id, &thread.id)
                .await
                .map_err(|error| JobError::Retry(error.to_string()))?;
        }
        Ok(thread.id)
    }
}

fn payload_of(job: &Job) -> Result<(String, i64), JobError> {
    let id = job.payload["schedule_id"].as_str();
    let slot = job.payload["slot_ms"].as_i64();
    match (id, slot) {
        (Some(id), Some(slot)) => Ok((id.to_owned(), slot)),
        _ => Err(JobError::Fatal(format!(
            "a fire's job names no schedule and time: {}",
            job.payload
        ))),
    }
}

#[async_trait::async_trait]
impl JobKind for FireKind {
    fn kind(&self) -> &'static str {
        FIRE_KIND
    }

    async fn run(&self, tenant_id: &str, job: &Job, work: &Work) -> Result<Value, JobError> {
        let (schedule_id, slot) = payload_of(job)?;
        let fired = self.fire(tenant_id, &schedule_id, slot, work).await;
        if let Err(error) = &fired {
            let last = !matches!(error, JobError::Retry(_)) || work.attempt() >= job.max_attempts;
            if last {
                let outcome = match error {
                    JobError::Cancelled => "cancelled",
                    _ => "failed",
                };
                self.settle(
                    tenant_id,
                    &schedule_id,
                    slot,
                    outcome,
                    Some(error.to_string()),
                )
                .await;
            }
        }
        fired
    }
}

impl FireKind {
    /// One attempt at the fire of `schedule_id` at `slot`.
    async fn fire(
        &self,
        tenant_id: &str,
        schedule_id: &str,
        slot: i64,
        work: &Work,
    ) -> Result<Value, JobError> {
        let schedule_id = schedule_id.to_owned();
        let Some(schedule) = self
            .store
            .get_schedule(tenant_id, &schedule_id)
            .await
            .map_err(JobError::retry)?
        else {
            return Err(JobError::Fatal("the schedule was deleted".into()));
        };
        let Some(fire) = self
            .store
            .get_fire(&schedule_id, slot)
            .await
            .map_err(JobError::retry)?
        else {
            return Err(JobError::Fatal(
                "the fire was deleted with its schedule".into(),
            ));
        };
        let (thread_id, run_id) = match (fire.thread_id, fire.run_id) {
            (Some(thread), Some(run)) => {
                work.log(
                    "info",
                    &format!("following run {run} started by an earlier attempt"),
                )
                .await;
                (thread, run)
            }
            _ => {
                let thread = self.thread_for(tenant_id, &schedule, slot).await?;
                self.store
                    .update_fire(
                        &schedule_id,
                        slot,
                        &FireUpdate {
                            thread_id: Some(thread.clone()),
                            ..FireUpdate::default()
                        },
                    )
                    .await
                    .map_err(JobError::retry)?;
                let run = self
                    .threads
                    .send_message(tenant_id, &thread, &schedule.prompt)
                    .await
                    .map_err(|error| JobError::Retry(format!("the run did not start: {error}")))?;
                self.store
                    .update_fire(
                        &schedule_id,
                        slot,
                        &FireUpdate {
                            outcome: Some("running"),
                            run_id: Some(run.id.clone()),
                            ..FireUpdate::default()
                        },
                    )
                    .await
                    .map_err(JobError::retry)?;
                work.log(
                    "info",
                    &format!("started run {} in thread {thread}", run.id),
                )
                .await;
                (thread, run.id)
            }
        };
        let refuse_as =
            (schedule.asks == AskPolicy::Deny).then(|| format!("schedule:{schedule_id}"));
        let status = self
            .follower
            .follow(tenant_id, &thread_id, &run_id, refuse_as.as_deref(), work)
            .await?;
        let outcome = match status {
            RunStatus::Succeeded => "completed",
            RunStatus::Cancelled => "cancelled",
            _ => "failed",
        };
        let error = (outcome == "failed").then(|| format!("the run ended {}", status.label()));
        self.settle(tenant_id, &schedule_id, slot, outcome, error)
            .await;
        Ok(json!({"thread_id": thread_id, "run_id": run_id, "outcome": outcome}))
    }
}

impl FireKind {
    /// Records how the fire ended and the schedule's last error, then starts the fire
    /// that waited for this one (overlap `queue`).
    async fn settle(
        &self,
        tenant_id: &str,
        schedule_id: &str,
        slot: i64,
        outcome: &'static str,
        error: Option<String>,
    ) {
        let update = FireUpdate {
            outcome: Some(outcome),
            error: error.clone(),
            ..FireUpdate::default()
        };
        let recorded = async {
            self.store.update_fire(schedule_id, slot, &update).await?;
            self.store
                .set_schedule_error(tenant_id, schedule_id, error.as_deref())
                .await?;
            let Some(schedule) = self.store.get_schedule(tenant_id, schedule_id).await? else {
                return Ok(());
            };
            let now = now_ms();
            let next = |slot| fire_job(tenant_id, &schedule, slot, now);
            self.store
                .start_waiting_fire(schedule_id, &next, now)
                .await?;
            Ok::<(), crate::store::StoreError>(())
        };
        if let Err(error) = recorded.await {
            tracing::warn!(%error, schedule = schedule_id, "a fire's end was not recorded");
        }
    }
}
