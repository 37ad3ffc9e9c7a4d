//! Background work as the console shows it: a job (what, for whom, where it stands), its
//! attempts and its log.

use serde::{Deserialize, Serialize};

/// Where a job stands. A job waits (`scheduled` until its time, then `available`; after a
/// failed attempt that may be tried again, `retryable`), runs, then ends in one of the last
/// three.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    Scheduled,
    Available,
    Running,
    Retryable,
    Completed,
    Failed,
    Cancelled,
}

impl JobState {
    pub const ALL: [JobState; 7] = [
        JobState::Scheduled,
        JobState::Available,
        JobState::Running,
        JobState::Retryable,
        JobState::Completed,
        JobState::Failed,
        JobState::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Scheduled => "scheduled",
            JobState::Available => "available",
            JobState::Running => "running",
            JobState::Retryable => "retryable",
            JobState::Completed => "completed",
            JobState::Failed => "failed",
            JobState::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|state| state.as_str() == text)
    }
}

/// How far a running job has got, as its handler last said.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobProgress {
    pub done: u64,
    /// Unknown while the handler cannot tell.
    pub total: Option<u64>,
    #[serde(default)]
    pub note: String,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub id: String,
    pub kind: String,
    pub payload: serde_json::Value,
    pub state: JobState,
    /// When it is due (or, once retryable, when it is tried again).
    pub run_at_ms: i64,
    pub attempts: u32,
    pub max_attempts: u32,
    /// The worker holding it while it runs, and until when.
    pub lease_owner: Option<String>,
    pub lease_until_ms: Option<i64>,
    pub heartbeat_at_ms: Option<i64>,
    pub progress: Option<JobProgress>,
    pub result: Option<serde_json::Value>,
    pub error: Option<String>,
    pub idempotency_key: Option<String>,
    /// Who or what made it: `user:NAME`, `schedule:ID`, `system`.
    pub created_by: String,
    /// Set once someone asked a running job to stop.
    pub cancel_requested_at_ms: Option<i64>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    pub finished_at_ms: Option<i64>,
    /// The agent it works with, and the project it works for, when it has them.
    pub agent: Option<String>,
    pub project_id: Option<String>,
}

/// One attempt at a job.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobAttempt {
    pub attempt: u32,
    pub worker: String,
    pub started_at_ms: i64,
    pub finished_at_ms: Option<i64>,
    /// `completed`, `failed`, `retrying`, `cancelled` or `lease_lost`; none while it runs.
    pub outcome: Option<String>,
    pub error: Option<String>,
}

/// One line of a job's log.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobLogLine {
    pub id: i64,
    pub attempt: u32,
    pub at_ms: i64,
    pub level: String,
    pub message: String,
}

/// A job with its attempts and its log.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobDetail {
    pub job: Job,
    pub attempts: Vec<JobAttempt>,
    pub log: Vec<JobLogLine>,
}

/// Which jobs: every field given narrows the list.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobFilter {
    #[serde(default)]
    pub state: Option<JobState>,
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub agent: Option<String>,
    #[serde(default)]
    pub project_id: Option<String>,
    /// Words the kind, the creator, the error or the payload hold.
    #[serde(default)]
    pub text: Option<String>,
}

/// How many of the tenant's jobs are in each state.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobCounts {
    pub scheduled: u64,
    pub available: u64,
    pub running: u64,
    pub retryable: u64,
    pub completed: u64,
    pub failed: u64,
    pub cancelled: u64,
}

impl JobCounts {
    pub fn add(&mut self, state: JobState, count: u64) {
        let slot = match state {
            JobState::Scheduled => &mut self.scheduled,
            JobState::Available => &mut self.available,
            JobState::Running => &mut self.running,
            JobState::Retryable => &mut self.retryable,
            JobState::Completed => &mut self.completed,
            JobState::Failed => &mut self.failed,
            JobState::Cancelled => &mut self.cancelled,
        };
        *slot += count;
    }
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobList {
    pub jobs: Vec<Job>,
    pub counts: JobCounts,
    pub next_offset: Option<u32>,
}

/// How many jobs a bulk action reached.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobsTouched {
    pub count: u64,
}
