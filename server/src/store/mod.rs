//! Durable storage: the `Store` trait the services use, implemented once in SQL (`sql/`)
//! that runs on both SQLite and PostgreSQL.
//!
//! Events are the one source of truth. Sequences are assigned here, inside the
//! transaction that stores the events, so every writer of a run (the upstream stream and
//! the receipts) shares one dense, gap-free numbering.

pub mod accounts;
pub mod audit;
pub mod curator;
pub mod feed;
pub mod gateway_jobs;
pub mod invitations;
pub mod jobs;
pub mod kanban;
pub mod memory;
pub mod notes;
pub mod passvault;
pub mod pins;
pub mod projects;
pub mod retention;
pub mod schedules;
mod sql;

use std::sync::Arc;

use app::model::ThreadSummary;
use app::protocol::ask::{Ask, AskState};
use app::protocol::channel::{EventDraft, RunEvent};
use app::protocol::status::RunStatus;
use serde_json::Value;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    #[error("migration failed: {0}")]
    Migration(#[from] sqlx::migrate::MigrateError),
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    #[error("run {0:?} does not exist")]
    UnknownRun(String),
    #[error("unsupported database URL {0:?}: use sqlite:PATH or postgres://…")]
    UnsupportedUrl(String),
}

/// `stored` with a unique key's refusal (a name another row of the tenant holds, taken by
/// a write that committed first) told as `taken`, and any other failure as a store failure.
pub fn refused_if_taken<T>(
    stored: Result<T, StoreError>,
    taken: impl FnOnce() -> app::error::ApiError,
) -> Result<T, app::error::ApiError> {
    match stored {
        Err(StoreError::Database(sqlx::Error::Database(error))) if error.is_unique_violation() => {
            Err(taken())
        }
        other => Ok(other?),
    }
}

/// What a client is told of a store failure: that it happened and where the log has
/// it; the failure itself (which may name tables, values or the database host) is logged.
impl From<StoreError> for app::error::ApiError {
    fn from(error: StoreError) -> Self {
        let incident = crate::incident::new_id();
        tracing::error!(%error, %incident, "store operation failed");
        app::error::ApiError::Storage(format!(
            "the store could not complete the request (incident {incident} in the server log)"
        ))
    }
}

/// A run as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct RunRecord {
    pub id: String,
    pub tenant_id: String,
    pub thread_id: String,
    pub agent: String,
    pub status: RunStatus,
    /// What was sent upstream (RunAgentInput or the Hermes prompt).
    pub input: Value,
    pub last_sequence: u64,
    pub upstream_count: u64,
    pub created_at_ms: i64,
    pub finished_at_ms: Option<i64>,
}

/// A new run to record.
#[derive(Clone, Debug)]
pub struct NewRun {
    pub id: String,
    pub tenant_id: String,
    pub thread_id: String,
    pub agent: String,
    pub input: Value,
    pub created_at_ms: i64,
}

/// An ask as stored, with its current state inside `ask.state`.
#[derive(Clone, Debug, PartialEq)]
pub struct AskRecord {
    /// `{run_id}:{ask_id}` — the id the REST API uses.
    pub key: String,
    pub tenant_id: String,
    pub thread_id: String,
    pub run_id: String,
    pub ask: Ask,
    pub answered_by: Option<String>,
    pub opened_sequence: u64,
    pub created_at_ms: i64,
    pub closed_at_ms: Option<i64>,
}

/// The key of an ask: unique across runs, since agents reuse ask ids between runs.
pub fn ask_key(run_id: &str, ask_id: &str) -> String {
    format!("{run_id}:{ask_id}")
}

/// What happened to a receipt's attempt to close an ask.
#[derive(Clone, Debug)]
pub enum Resolution {
    /// This receipt closed the ask; the stored `AskClosed` event is returned.
    Won(Box<RunEvent>),
    /// The ask was already closed; its record says how.
    AlreadyClosed(Box<AskRecord>),
}

/// An accepted answer on its way to the agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeliveryRecord {
    pub ask_key: String,
    pub tenant_id: String,
    pub run_id: String,
    /// The answer held a value the store does not keep; after a restart it is gone.
    pub secret: bool,
    pub created_at_ms: i64,
}

/// How a delivery ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeliveryOutcome {
    Delivered,
    Abandoned,
}

impl DeliveryOutcome {
    pub fn label(self) -> &'static str {
        match self {
            DeliveryOutcome::Delivered => "delivered",
            DeliveryOutcome::Abandoned => "abandoned",
        }
    }
}

/// One raw upstream event to keep, at its position in the run's raw log.
#[derive(Clone, Debug, PartialEq)]
pub struct UpstreamEvent {
    pub position: u64,
    pub body: String,
}

/// One run's share of a group commit.
#[derive(Clone, Debug)]
pub struct AppendRequest {
    pub tenant_id: String,
    pub run_id: String,
    pub upstream: Vec<UpstreamEvent>,
    pub drafts: Vec<EventDraft>,
}

/// Every method takes the tenant: no query reads across tenants. Accounts span tenants
/// (a user may belong to several), so they are a trait of their own; so are the audit
/// trail and each workspace object.
#[async_trait::async_trait]
pub trait Store:
    accounts::AccountStore
    + audit::AuditStore
    + curator::CuratorStore
    + feed::FeedStore
    + gateway_jobs::GatewayJobStore
    + invitations::InvitationStore
    + jobs::JobStore
    + kanban::KanbanStore
    + memory::MemoryStore
    + notes::NoteStore
    + passvault::PassvaultStore
    + pins::PinStore
    + projects::ProjectStore
    + retention::RetentionStore
    + schedules::ScheduleStore
    + Send
    + Sync
    + 'static
{
    /// Threads of the tenant, newest first.
    async fn list_threads(&self, tenant_id: &str) -> Result<Vec<ThreadSummary>, StoreError>;
    /// Every tenant, by id.
    async fn list_tenants(&self) -> Result<Vec<String>, StoreError>;
    /// Creates tenant `tenant_id` unless it exists; true when it was created.
    async fn create_tenant(&self, tenant_id: &str, created_at_ms: i64) -> Result<bool, StoreError>;
    async fn tenant_exists(&self, tenant_id: &str) -> Result<bool, StoreError>;
    /// Creates a thread titled after its position ("Thread 3"), in a project when given.
    async fn create_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
        project_id: Option<&str>,
        created_at_ms: i64,
    ) -> Result<ThreadSummary, StoreError>;
    async fn get_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Option<ThreadSummary>, StoreError>;
    async fn rename_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
        title: &str,
    ) -> Result<Option<ThreadSummary>, StoreError>;
    /// Archives a thread (at the time given) or restores it (none); the thread as it now
    /// is, none if it is not the tenant's.
    async fn archive_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
        archived_at_ms: Option<i64>,
    ) -> Result<Option<ThreadSummary>, StoreError>;
    /// The tenant's threads whose title or messages hold every one of `terms` (see
    /// `app::search::search_terms`), newest first, at most `limit`.
    async fn search_threads(
        &self,
        tenant_id: &str,
        terms: &[String],
        limit: u32,
    ) -> Result<Vec<ThreadSummary>, StoreError>;
    /// Adds what an operator said in a thread to what it is found by.
    async fn add_thread_words(
        &self,
        tenant_id: &str,
        thread_id: &str,
        text: &str,
    ) -> Result<(), StoreError>;
    /// Titles a thread from its first message, unless it has a title already (renamed,
    /// or titled by an earlier message); the thread as it now is.
    async fn title_from_first_message(
        &self,
        tenant_id: &str,
        thread_id: &str,
        title: &str,
    ) -> Result<Option<ThreadSummary>, StoreError>;
    /// The agent a thread is bound to, if any.
    async fn thread_agent(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Option<String>, StoreError>;
    async fn bind_thread_agent(
        &self,
        tenant_id: &str,
        thread_id: &str,
        agent: &str,
    ) -> Result<(), StoreError>;

    /// The agent-side session a thread continues (a Hermes stored session id).
    async fn thread_session(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Option<String>, StoreError>;
    async fn set_thread_session(
        &self,
        tenant_id: &str,
        thread_id: &str,
        session: &str,
    ) -> Result<(), StoreError>;

    async fn create_run(&self, run: &NewRun) -> Result<RunRecord, StoreError>;
    async fn get_run(&self, tenant_id: &str, run_id: &str)
    -> Result<Option<RunRecord>, StoreError>;
    /// Runs of a thread, oldest first.
    async fn list_runs(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Vec<RunRecord>, StoreError>;
    /// Runs still marked running (for recovery after a restart).
    async fn running_runs(&self) -> Result<Vec<RunRecord>, StoreError>;
    /// Paused or claimed runs of `agents` whose asks are all closed, one at or after
    /// `closed_since_ms`, and whose follow-up was never started (its start failed, or its
    /// claimant is gone, and nothing tried again), oldest first, at most `limit`.
    async fn stalled_resumes(
        &self,
        agents: &[String],
        closed_since_ms: i64,
        limit: u32,
    ) -> Result<Vec<RunRecord>, StoreError>;

    /// Stores raw upstream events and the events normalized from them in one
    /// transaction, assigning the next sequences; keeps the ask table and the run status
    /// in step with the events. Returns the stored events, in order.
    async fn append(
        &self,
        tenant_id: &str,
        run_id: &str,
        upstream: &[UpstreamEvent],
        drafts: Vec<EventDraft>,
        now_ms: i64,
    ) -> Result<Vec<RunEvent>, StoreError>;

    /// Appends `drafts` (the console's own ending of a run) only while the run is still
    /// running, in one transaction with the check; `None` when it had ended meanwhile.
    async fn append_while_running(
        &self,
        tenant_id: &str,
        run_id: &str,
        drafts: Vec<EventDraft>,
        now_ms: i64,
    ) -> Result<Option<Vec<RunEvent>>, StoreError>;

    /// Several runs' appends in one transaction (group commit under load). All or
    /// nothing: on an error the caller retries them one by one.
    async fn append_batch(
        &self,
        batch: Vec<AppendRequest>,
        now_ms: i64,
    ) -> Result<Vec<Vec<RunEvent>>, StoreError>;

    /// Events of a run with `after < sequence < before`, in order.
    async fn events(
        &self,
        tenant_id: &str,
        run_id: &str,
        after: u64,
        before: Option<u64>,
    ) -> Result<Vec<RunEvent>, StoreError>;
    /// The run's raw upstream log, in order: all of it, or its first `first` frames.
    async fn upstream_events(
        &self,
        tenant_id: &str,
        run_id: &str,
        first: Option<u32>,
    ) -> Result<Vec<UpstreamEvent>, StoreError>;

    /// Asks of the tenant, oldest first, optionally only those in `state`.
    async fn list_asks(
        &self,
        tenant_id: &str,
        state: Option<&str>,
    ) -> Result<Vec<AskRecord>, StoreError>;
    /// Pending asks of every tenant whose deadline is at or before `now_ms`, the most
    /// overdue first, at most `limit`.
    async fn asks_past_deadline(
        &self,
        now_ms: i64,
        limit: u32,
    ) -> Result<Vec<AskRecord>, StoreError>;
    /// How many of the tenant's asks are in `state`.
    async fn count_asks(&self, tenant_id: &str, state: &str) -> Result<u64, StoreError>;
    async fn get_ask(&self, tenant_id: &str, key: &str) -> Result<Option<AskRecord>, StoreError>;
    /// Every ask a run opened, oldest first.
    async fn run_asks(&self, tenant_id: &str, run_id: &str) -> Result<Vec<AskRecord>, StoreError>;
    /// Marks a paused run as resumed, if and only if it is still paused: exactly one
    /// caller gets `true` and starts the follow-up run.
    async fn claim_resume(&self, tenant_id: &str, run_id: &str) -> Result<bool, StoreError>;
    /// Puts a resumed run back to interrupted (its follow-up run could not be started).
    async fn unclaim_resume(&self, tenant_id: &str, run_id: &str) -> Result<bool, StoreError>;
    /// Fails a claimed paused run whose answers can never be carried (its claimant gives
    /// it up): appends `drafts` (the failure saying why) and moves the run to failed in
    /// one transaction, so its log and its status never disagree; `None` when the run
    /// was not claimed.
    async fn give_up_resume(
        &self,
        tenant_id: &str,
        run_id: &str,
        drafts: Vec<EventDraft>,
        now_ms: i64,
    ) -> Result<Option<Vec<RunEvent>>, StoreError>;
    /// Closes a pending ask if, and only if, it is still pending: the first caller wins,
    /// appends the `AskClosed` event, records the receipt and the answer's pending
    /// delivery (`secret`: the answer holds a value the store does not keep), all in one
    /// transaction; every later caller gets the record as it stands.
    #[allow(clippy::too_many_arguments)]
    async fn close_ask(
        &self,
        tenant_id: &str,
        key: &str,
        actor: &str,
        state: AskState,
        receipt: &Value,
        secret: bool,
        now_ms: i64,
    ) -> Result<Resolution, StoreError>;
    /// Answers accepted but not yet delivered or abandoned, of every tenant, oldest first.
    async fn pending_deliveries(&self) -> Result<Vec<DeliveryRecord>, StoreError>;
    /// Marks an answer's delivery as done (`Delivered`) or given up (`Abandoned`, with
    /// why); only a pending delivery changes.
    async fn settle_delivery(
        &self,
        tenant_id: &str,
        ask_key: &str,
        outcome: DeliveryOutcome,
        note: Option<&str>,
        now_ms: i64,
    ) -> Result<(), StoreError>;
    /// Records a receipt that was refused (invalid, or too late), for the audit trail.
    async fn record_refused_receipt(
        &self,
        tenant_id: &str,
        key: &str,
        actor: &str,
        outcome: &str,
        receipt: &Value,
        now_ms: i64,
    ) -> Result<(), StoreError>;
}

/// The database a command opens: `db` when given, else the SQLite file in `data_dir`.
pub fn database_url(db: Option<&str>, data_dir: &std::path::Path) -> String {
    match db {
        Some(url) => url.to_owned(),
        None => format!("sqlite:{}", data_dir.join("agent-os.sqlite3").display()),
    }
}

/// Opens the store a URL names: `sqlite:PATH` (or a bare path) or `postgres://…`.
pub async fn open(url: &str) -> Result<Arc<dyn Store>, StoreError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Arc::new(sql::SqlStore::open_postgres(url).await?))
    } else if let Some(path) = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
    {
        Ok(Arc::new(
            sql::SqlStore::open_sqlite(std::path::Path::new(path)).await?,
        ))
    } else if url.contains("://") {
        Err(StoreError::UnsupportedUrl(url.to_owned()))
    } else {
        Ok(Arc::new(
            sql::SqlStore::open_sqlite(std::path::Path::new(url)).await?,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_failure_reaches_a_client_without_its_detail() {
        let error = StoreError::Corrupt("row 7 of table asks in /srv/secret.sqlite3".into());
        let app::error::ApiError::Storage(message) = app::error::ApiError::from(error) else {
            panic!("not a storage error")
        };
        assert!(
            !message.contains("asks") && !message.contains("secret"),
            "{message}"
        );
        assert!(message.contains("incident "), "{message}");
    }
}
