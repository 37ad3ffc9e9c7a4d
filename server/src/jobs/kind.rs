//! What a kind of job does (`JobKind`), and what a running job may do while it works
//! (`Work`): say how far it got, write to its log, notice that it was cancelled.

use std::sync::Arc;

use app::model::jobs::{Job, JobProgress};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::clock::now_ms;
use crate::store::Store;
use crate::store::jobs::Lease;

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
    pub(super) store: Arc<dyn Store>,
    pub(super) job_id: String,
    pub(super) worker: String,
    pub(super) attempt: u32,
    pub(super) cancel: CancellationToken,
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

    /// Records how far the job got; the Curator page shows it live.
    pub async fn progress(&self, done: u64, total: Option<u64>, note: &str) {
        let progress = JobProgress {
            done,
            total,
            note: note.to_owned(),
        };
        let lease = Lease {
            job_id: &self.job_id,
            worker: &self.worker,
            attempt: self.attempt,
        };
        if let Err(error) = self.store.record_progress(lease, &progress, now_ms()).await {
            tracing::warn!(%error, job = %self.job_id, "a job's progress was not recorded");
        }
    }

    /// Appends a line to the job's log (`info`, `warn` or `error`).
    pub async fn log(&self, level: &str, message: &str) {
        if let Err(error) = self
            .store
            .log_job(&self.job_id, self.attempt, level, message, now_ms())
            .await
        {
            tracing::warn!(%error, job = %self.job_id, "a job's log line was not recorded");
        }
    }
}
