//! What a kind of job does (`JobKind`), and what a running job may do while it works
//! (`Work`): say how far it got, write to its log, notice that it was cancelled.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use app::model::jobs::{Job, JobProgress};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::Engine;
use crate::clock::now_ms;
use crate::store::jobs::Lease;

/// The least time between two progress records of one attempt (the last one, when all
/// is done, is always recorded).
const PROGRESS_EVERY: Duration = Duration::from_millis(500);

/// Why an attempt did not complete.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// Worth trying again later (within the job's attempts).
    #[error("{0}")]
    Retry(String),
    /// Trying again would fail the same way.
    #[error("{0}")]
    Fatal(String),
    /// It stopped because it was cancelled.
    #[error("cancelled")]
    Cancelled,
}

impl JobError {
    /// Worth trying again: what went wrong, in words.
    pub fn retry(error: impl std::fmt::Display) -> Self {
        JobError::Retry(error.to_string())
    }
}

/// One kind of background work. The engine calls `run` once per attempt; an attempt may
/// be repeated after a crash, so `run` must find and continue what an earlier attempt of
/// the same job began (a run it started, a change it made) rather than begin again.
#[async_trait::async_trait]
pub trait JobKind: Send + Sync + 'static {
    /// The name stored in the job's `kind`.
    fn kind(&self) -> &'static str;
    async fn run(&self, tenant_id: &str, job: &Job, work: &Work) -> Result<Value, JobError>;
}

/// A running attempt's handle on its job.
pub struct Work {
    pub(super) engine: Arc<Engine>,
    pub(super) tenant_id: String,
    pub(super) job_id: String,
    pub(super) attempt: u32,
    pub(super) cancel: CancellationToken,
    /// When progress was last recorded.
    pub(super) progressed: Mutex<Option<Instant>>,
}

impl Work {
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// Tripped when an operator cancels the job (or the worker loses it): stop soon, then
    /// return [`JobError::Cancelled`].
    pub fn cancelled(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Records how far the job got (at most twice a second); the Curator page shows it
    /// live.
    pub async fn progress(&self, done: u64, total: Option<u64>, note: &str) {
        {
            let mut last = self
                .progressed
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let finished = total.is_some_and(|total| done >= total);
            if !finished && last.is_some_and(|last| last.elapsed() < PROGRESS_EVERY) {
                return;
            }
            *last = Some(Instant::now());
        }
        let progress = JobProgress {
            done,
            total,
            note: note.to_owned(),
        };
        let lease = Lease {
            job_id: &self.job_id,
            worker: self.engine.worker(),
            attempt: self.attempt,
        };
        match self
            .engine
            .store()
            .record_progress(lease, &progress, now_ms())
            .await
        {
            Ok(_) => self.engine.changed(&self.tenant_id),
            Err(error) => {
                tracing::warn!(%error, job = %self.job_id, "a job's progress was not recorded")
            }
        }
    }

    /// Appends a line to the job's log (`info`, `warn` or `error`).
    pub async fn log(&self, level: &str, message: &str) {
        if let Err(error) = self
            .engine
            .store()
            .log_job(&self.job_id, self.attempt, level, message, now_ms())
            .await
        {
            tracing::warn!(%error, job = %self.job_id, "a job's log line was not recorded");
        }
    }
}
