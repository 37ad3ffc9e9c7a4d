//! The store in SQL, one implementation for SQLite and PostgreSQL alike (through sqlx's
//! `Any` driver: `$N` placeholders, `RETURNING`, `ON CONFLICT`), its SQL kept per
//! aggregate: tenants and threads, runs, events, asks and receipts, deliveries, accounts,
//! notes, projects, pins, memory.

mod accounts;
mod asks;
mod audit;
mod curator;
mod curator_undo;
mod deliveries;
mod events;
mod feed;
mod gateway_jobs;
mod invitations;
mod job_rows;
mod jobs;
mod kanban;
mod kanban_attempts;
mod kanban_rows;
mod ledger;
mod memory;
mod memory_rows;
mod notes;
mod passvault;
mod pins;
mod projects;
mod retention;
mod rows;
mod runs;
mod schedules;
mod search;
mod statement;
mod threads;

use std::path::Path;
use std::time::Duration;

use app::model::ThreadSummary;
use app::protocol::ask::AskState;
use app::protocol::channel::{EventDraft, RunEvent};
use serde_json::Value;
use sqlx::any::AnyPoolOptions;
use sqlx::{Any, AnyPool, Executor};

use super::{
    AppendRequest, AskRecord, DeliveryOutcome, DeliveryRecord, NewRun, Resolution, RunRecord,
    Store, StoreError, UpstreamEvent,
};

type Db = Any;

/// Which database the pool speaks to; statements built at run time number their
/// placeholders its way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dialect {
    Sqlite,
    Postgres,
}

pub struct SqlStore {
    pool: AnyPool,
    dialect: Dialect,
}

impl SqlStore {
    /// A SQLite file (created if missing, WAL mode), migrated.
    pub async fn open_sqlite(path: &Path) -> Result<Self, StoreError> {
        sqlx::any::install_default_drivers();
        let url = format!("sqlite://{}?mode=rwc", percent_encode_path(path));
        let pool = AnyPoolOptions::new()
            .max_connections(8)
            .after_connect(|connection, _| {
                Box::pin(async move {
                    // WAL + FULL: a commit is on disk before it is answered, so a power cut
                    // loses nothing committed (an answer recorded, then lost, could be
                    // delivered twice). Group commit keeps the syncs few.
                    connection
                        .execute(
                            "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; \
                             PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 10000;",
                        )
                        .await?;
                    Ok(())
                })
            })
            .connect(&url)
            .await?;
        sqlx::migrate!("src/store/migrations/sqlite")
            .run(&pool)
            .await?;
        let store = Self {
            pool,
            dialect: Dialect::Sqlite,
        };
        store.index_by_tenant().await?;
        Ok(store)
    }

    /// A PostgreSQL database, migrated.
    pub async fn open_postgres(url: &str) -> Result<Self, StoreError> {
        sqlx::any::install_default_drivers();
        let pool = AnyPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(10))
            .connect(url)
            .await?;
        sqlx::migrate!("src/store/migrations/postgres")
            .run(&pool)
            .await?;
        let store = Self {
            pool,
            dialect: Dialect::Postgres,
        };
        store.index_by_tenant().await?;
        Ok(store)
    }
}

impl SqlStore {
    /// A transaction that writes. On SQLite it takes the write lock at `BEGIN IMMEDIATE`,
    /// where the busy timeout applies: a deferred transaction that read first fails at
    /// once (SQLITE_BUSY_SNAPSHOT) when another connection committed since its read.
    pub(super) async fn begin_write(&self) -> Result<sqlx::Transaction<'static, Db>, StoreError> {
        Ok(match self.dialect {
            Dialect::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await?,
            Dialect::Postgres => self.pool.begin().await?,
        })
    }

    /// A transaction that writes, queued behind every other one begun on `subject`: the
    /// write lock does it on SQLite, a lock on the subject's name on PostgreSQL (for
    /// checks that locking rows cannot hold, such as that no row exists yet).
    pub(super) async fn begin_write_on(
        &self,
        subject: &str,
    ) -> Result<sqlx::Transaction<'static, Db>, StoreError> {
        let mut transaction = self.begin_write().await?;
        if self.dialect == Dialect::Postgres {
            sqlx::query("SELECT pg_advisory_xact_lock(hashtext($1))")
                .bind(subject)
                .execute(&mut *transaction)
                .await?;
        }
        Ok(transaction)
    }
}

/// A file path as it may stand in a `sqlite://` URL: every byte that is not plainly safe
/// is percent-encoded, so spaces, `?` or `#` in a data directory cannot change its meaning.
fn percent_encode_path(path: &Path) -> String {
    let mut out = String::new();
    for byte in path.to_string_lossy().bytes() {
        if byte.is_ascii_alphanumeric() || b"/._-~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[async_trait::async_trait]
impl Store for SqlStore {
    async fn list_threads(&self, tenant_id: &str) -> Result<Vec<ThreadSummary>, StoreError> {
        SqlStore::list_threads(self, tenant_id).await
    }

    async fn list_tenants(&self) -> Result<Vec<String>, StoreError> {
        SqlStore::list_tenants(self).await
    }

    async fn create_tenant(&self, tenant_id: &str, created_at_ms: i64) -> Result<bool, StoreError> {
        SqlStore::create_tenant(self, tenant_id, created_at_ms).await
    }

    async fn tenant_exists(&self, tenant_id: &str) -> Result<bool, StoreError> {
        SqlStore::tenant_exists(self, tenant_id).await
    }

    async fn create_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
        project_id: Option<&str>,
        created_at_ms: i64,
    ) -> Result<ThreadSummary, StoreError> {
        SqlStore::create_thread(self, tenant_id, thread_id, project_id, created_at_ms).await
    }

    async fn get_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Option<ThreadSummary>, StoreError> {
        SqlStore::get_thread(self, tenant_id, thread_id).await
    }

    async fn rename_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
        title: &str,
    ) -> Result<Option<ThreadSummary>, StoreError> {
        SqlStore::rename_thread(self, tenant_id, thread_id, title).await
    }

    async fn archive_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
        archived_at_ms: Option<i64>,
    ) -> Result<Option<ThreadSummary>, StoreError> {
        SqlStore::archive_thread(self, tenant_id, thread_id, archived_at_ms).await
    }

    async fn search_threads(
        &self,
        tenant_id: &str,
        terms: &[String],
        limit: u32,
    ) -> Result<Vec<ThreadSummary>, StoreError> {
        SqlStore::search_threads(self, tenant_id, terms, limit).await
    }

    async fn add_thread_words(
        &self,
        tenant_id: &str,
        thread_id: &str,
        text: &str,
    ) -> Result<(), StoreError> {
        SqlStore::add_thread_words(self, tenant_id, thread_id, text).await
    }

    async fn title_from_first_message(
        &self,
        tenant_id: &str,
        thread_id: &str,
        title: &str,
    ) -> Result<Option<ThreadSummary>, StoreError> {
        SqlStore::title_from_first_message(self, tenant_id, thread_id, title).await
    }

    async fn thread_agent(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Option<String>, StoreError> {
        SqlStore::thread_agent(self, tenant_id, thread_id).await
    }

    async fn bind_thread_agent(
        &self,
        tenant_id: &str,
        thread_id: &str,
        agent: &str,
    ) -> Result<(), StoreError> {
        SqlStore::bind_thread_agent(self, tenant_id, thread_id, agent).await
    }

    async fn thread_session(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Option<String>, StoreError> {
        SqlStore::thread_session(self, tenant_id, thread_id).await
    }

    async fn set_thread_session(
        &self,
        tenant_id: &str,
        thread_id: &str,
        session: &str,
    ) -> Result<(), StoreError> {
        SqlStore::set_thread_session(self, tenant_id, thread_id, session).await
    }

    async fn create_run(&self, run: &NewRun) -> Result<RunRecord, StoreError> {
        SqlStore::create_run(self, run).await
    }

    async fn get_run(
        &self,
        tenant_id: &str,
        run_id: &str,
    ) -> Result<Option<RunRecord>, StoreError> {
        SqlStore::get_run(self, tenant_id, run_id).await
    }

    async fn list_runs(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Vec<RunRecord>, StoreError> {
        SqlStore::list_runs(self, tenant_id, thread_id).await
    }

    async fn running_runs(&self) -> Result<Vec<RunRecord>, StoreError> {
        SqlStore::running_runs(self).await
    }

    async fn stalled_resumes(
        &self,
        agents: &[String],
        closed_since_ms: i64,
        limit: u32,
    ) -> Result<Vec<RunRecord>, StoreError> {
        SqlStore::stalled_resumes(self, agents, closed_since_ms, limit).await
    }

    async fn claim_resume(&self, tenant_id: &str, run_id: &str) -> Result<bool, StoreError> {
        SqlStore::claim_resume(self, tenant_id, run_id).await
    }

    async fn unclaim_resume(&self, tenant_id: &str, run_id: &str) -> Result<bool, StoreError> {
        SqlStore::unclaim_resume(self, tenant_id, run_id).await
    }

    async fn give_up_resume(
        &self,
        tenant_id: &str,
        run_id: &str,
        drafts: Vec<EventDraft>,
        now_ms: i64,
    ) -> Result<Option<Vec<RunEvent>>, StoreError> {
        SqlStore::give_up_resume(self, tenant_id, run_id, drafts, now_ms).await
    }

    async fn append(
        &self,
        tenant_id: &str,
        run_id: &str,
        upstream: &[UpstreamEvent],
        drafts: Vec<EventDraft>,
        now_ms: i64,
    ) -> Result<Vec<RunEvent>, StoreError> {
        SqlStore::append(self, tenant_id, run_id, upstream, drafts, now_ms).await
    }

    async fn append_while_running(
        &self,
        tenant_id: &str,
        run_id: &str,
        drafts: Vec<EventDraft>,
        now_ms: i64,
    ) -> Result<Option<Vec<RunEvent>>, StoreError> {
        SqlStore::append_while_running(self, tenant_id, run_id, drafts, now_ms).await
    }

    async fn append_batch(
        &self,
        batch: Vec<AppendRequest>,
        now_ms: i64,
    ) -> Result<Vec<Vec<RunEvent>>, StoreError> {
        SqlStore::append_batch(self, batch, now_ms).await
    }

    async fn events(
        &self,
        tenant_id: &str,
        run_id: &str,
        after: u64,
        before: Option<u64>,
    ) -> Result<Vec<RunEvent>, StoreError> {
        SqlStore::events(self, tenant_id, run_id, after, before).await
    }

    async fn upstream_events(
        &self,
        tenant_id: &str,
        run_id: &str,
        first: Option<u32>,
    ) -> Result<Vec<UpstreamEvent>, StoreError> {
        SqlStore::upstream_events(self, tenant_id, run_id, first).await
    }

    async fn list_asks(
        &self,
        tenant_id: &str,
        state: Option<&str>,
    ) -> Result<Vec<AskRecord>, StoreError> {
        SqlStore::list_asks(self, tenant_id, state).await
    }

    async fn asks_past_deadline(
        &self,
        now_ms: i64,
        limit: u32,
    ) -> Result<Vec<AskRecord>, StoreError> {
        SqlStore::asks_past_deadline(self, now_ms, limit).await
    }

    async fn count_asks(&self, tenant_id: &str, state: &str) -> Result<u64, StoreError> {
        SqlStore::count_asks(self, tenant_id, state).await
    }

    async fn get_ask(&self, tenant_id: &str, key: &str) -> Result<Option<AskRecord>, StoreError> {
        SqlStore::get_ask(self, tenant_id, key).await
    }

    async fn run_asks(&self, tenant_id: &str, run_id: &str) -> Result<Vec<AskRecord>, StoreError> {
        SqlStore::run_asks(self, tenant_id, run_id).await
    }

    async fn close_ask(
        &self,
        tenant_id: &str,
        key: &str,
        actor: &str,
        state: AskState,
        receipt: &Value,
        secret: bool,
        now_ms: i64,
    ) -> Result<Resolution, StoreError> {
        SqlStore::close_ask(self, tenant_id, key, actor, state, receipt, secret, now_ms).await
    }

    async fn record_refused_receipt(
        &self,
        tenant_id: &str,
        key: &str,
        actor: &str,
        outcome: &str,
        receipt: &Value,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        SqlStore::record_refused_receipt(self, tenant_id, key, actor, outcome, receipt, now_ms)
            .await
    }

    async fn pending_deliveries(&self) -> Result<Vec<DeliveryRecord>, StoreError> {
        SqlStore::pending_deliveries(self).await
    }

    async fn settle_delivery(
        &self,
        tenant_id: &str,
        ask_key: &str,
        outcome: DeliveryOutcome,
        note: Option<&str>,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        SqlStore::settle_delivery(self, tenant_id, ask_key, outcome, note, now_ms).await
    }
}

#[cfg(test)]
mod tests {
    use sqlx::Row;

    use super::*;

    #[tokio::test]
    async fn every_sqlite_connection_runs_in_wal_mode_with_full_sync_and_foreign_keys() {
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let store = SqlStore::open_sqlite(&dir.path().join("a b?#.sqlite3"))
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        for (pragma, expected) in [
            ("journal_mode", "wal"),
            ("synchronous", "2"),
            ("foreign_keys", "1"),
            ("busy_timeout", "10000"),
        ] {
            let row = sqlx::query(&format!("PRAGMA {pragma}"))
                .fetch_one(&store.pool)
                .await
                .unwrap_or_else(|error| panic!("{error}"));
            let value = row
                .try_get::<String, _>(0)
                .or_else(|_| row.try_get::<i64, _>(0).map(|n| n.to_string()))
                .unwrap_or_else(|error| panic!("{error}"));
            assert_eq!(value, expected, "PRAGMA {pragma}");
        }
    }
}
