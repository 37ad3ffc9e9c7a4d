//! What the store keeps of background work: jobs, their attempts and logs, and the
//! statements that claim, renew and finish them so that each job runs in one worker at a
//! time, whichever process that worker is in.

use app::model::jobs::{Job, JobDetail, JobFilter, JobList, JobProgress, JobState};
use serde_json::Value;

use super::StoreError;

/// A job to add.
#[derive(Clone, Debug, PartialEq)]
pub struct NewJob {
    pub id: String,
    pub tenant_id: String,
    pub kind: String,
    pub payload: Value,
    pub run_at_ms: i64,
    pub max_attempts: u32,
    /// A second job with the same key in the tenant is not added: the first is returned.
    pub idempotency_key: Option<String>,
    pub created_by: String,
    pub created_at_ms: i64,
    /// The agent it works with, and the project it works for, when it has them.
    pub agent: Option<String>,
    pub project_id: Option<String>,
}

/// What adding a job did.
#[derive(Clone, Debug, PartialEq)]
pub struct Enqueued {
    pub job: Job,
    /// False when a job with the same idempotency key was there already.
    pub created: bool,
}

/// A job a worker holds: the attempt is its fence (a worker whose lease ran out and was
/// taken over cannot finish the newer attempt).
#[derive(Clone, Debug, PartialEq)]
pub struct Claimed {
    pub tenant_id: String,
    pub job: Job,
}

/// A held job as a lease renewal found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Held {
    pub job_id: String,
    pub attempt: u32,
    pub cancel_requested: bool,
}

/// How an attempt ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Finish {
    Completed(Value),
    /// Failed; tried again at `retry_at_ms` if one is given and attempts are left, else
    /// failed for good.
    Failed {
        error: String,
        retry_at_ms: Option<i64>,
    },
    /// Stopped because someone cancelled it.
    Cancelled(String),
}

/// One worker's hold on one attempt.
#[derive(Clone, Copy, Debug)]
pub struct Lease<'a> {
    pub job_id: &'a str,
    pub worker: &'a str,
    pub attempt: u32,
}

#[async_trait::async_trait]
pub trait JobStore: Send + Sync {
    /// Adds a job, `scheduled` when its time is still to come and `available` when due;
    /// with an idempotency key the tenant already used, returns that job instead.
    async fn enqueue_job(&self, job: &NewJob, now_ms: i64) -> Result<Enqueued, StoreError>;

    /// Takes up to `limit` due jobs for `worker`, leased until `now_ms + lease_ms`: waiting
    /// ones whose time has come, and running ones whose lease ran out (their attempt is
    /// closed as `lease_lost`; one that has used every attempt fails instead). No job is
    /// taken by two claims, from any process.
    async fn claim_jobs(
        &self,
        worker: &str,
        now_ms: i64,
        lease_ms: i64,
        limit: u32,
    ) -> Result<Vec<Claimed>, StoreError>;

    /// Extends every lease `worker` holds; the jobs it still holds, and whether someone
    /// asked each to stop.
    async fn renew_leases(
        &self,
        worker: &str,
        now_ms: i64,
        lease_ms: i64,
    ) -> Result<Vec<Held>, StoreError>;

    /// Records a running job's progress; false when the lease is no longer held.
    async fn record_progress(
        &self,
        lease: Lease<'_>,
        progress: &JobProgress,
        now_ms: i64,
    ) -> Result<bool, StoreError>;

    /// Appends a line to a job's log.
    async fn log_job(
        &self,
        job_id: &str,
        attempt: u32,
        level: &str,
        message: &str,
        now_ms: i64,
    ) -> Result<(), StoreError>;

    /// Ends an attempt; false (and nothing changed) when the lease is no longer held.
    async fn finish_job(
        &self,
        lease: Lease<'_>,
        finish: &Finish,
        now_ms: i64,
    ) -> Result<bool, StoreError>;

    /// Cancels waiting jobs matching `filter` (or the one `id`) and asks running ones to
    /// stop; how many it reached.
    async fn cancel_jobs(
        &self,
        tenant_id: &str,
        selection: &Selection,
        now_ms: i64,
    ) -> Result<u64, StoreError>;

    /// Makes failed and cancelled jobs matching the selection available again now, with
    /// at least one more attempt; how many.
    async fn retry_jobs(
        &self,
        tenant_id: &str,
        selection: &Selection,
        now_ms: i64,
    ) -> Result<u64, StoreError>;

    /// The tenant's jobs matching `filter`, latest change first, with the count per state
    /// of those matching every part of the filter but the state.
    async fn list_jobs(
        &self,
        tenant_id: &str,
        filter: &JobFilter,
        offset: u32,
        limit: u32,
    ) -> Result<JobList, StoreError>;

    async fn job_detail(&self, tenant_id: &str, id: &str) -> Result<Option<JobDetail>, StoreError>;

    /// The earliest time a waiting job becomes due or a lease runs out, if any.
    async fn next_job_due(&self) -> Result<Option<i64>, StoreError>;
}

/// Which jobs a bulk action reaches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    One(String),
    Matching(JobFilter),
}

pub(crate) fn state_of(text: &str) -> Result<JobState, StoreError> {
    JobState::parse(text).ok_or_else(|| StoreError::Corrupt(format!("job state {text:?}")))
}

/// The PostgreSQL notification channel that says "jobs were added or made due".
pub const JOBS_CHANNEL: &str = "agent_os_jobs";
