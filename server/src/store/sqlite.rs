//! SQLite store: one WAL-mode database file, migrated at open.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use app::model::ThreadSummary;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Row, SqlitePool};

use super::{Store, StoreError};

pub struct SqliteStore {
    pool: SqlitePool,
}

impl SqliteStore {
    pub async fn open(path: &Path) -> Result<Self, StoreError> {
        let options = SqliteConnectOptions::from_str("sqlite:")?
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(5));
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .connect_with(options)
            .await?;
        sqlx::migrate!("src/store/migrations/sqlite")
            .run(&pool)
            .await?;
        Ok(Self { pool })
    }
}

fn thread_from_row(row: &sqlx::sqlite::SqliteRow) -> Result<ThreadSummary, sqlx::Error> {
    Ok(ThreadSummary {
        id: row.try_get("id")?,
        tenant_id: row.try_get("tenant_id")?,
        title: row.try_get("title")?,
        created_at_ms: row.try_get("created_at_ms")?,
    })
}

#[async_trait::async_trait]
impl Store for SqliteStore {
    async fn list_threads(&self, tenant_id: &str) -> Result<Vec<ThreadSummary>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, tenant_id, title, created_at_ms FROM threads
             WHERE tenant_id = ? ORDER BY created_at_ms DESC, seq DESC",
        )
        .bind(tenant_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(thread_from_row).collect::<Result<_, _>>()?)
    }

    async fn create_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
        created_at_ms: i64,
    ) -> Result<ThreadSummary, StoreError> {
        let row = sqlx::query(
            "INSERT INTO threads (id, tenant_id, title, created_at_ms)
             VALUES (?1, ?2,
                     'Thread ' || (SELECT COUNT(*) + 1 FROM threads WHERE tenant_id = ?2),
                     ?3)
             RETURNING id, tenant_id, title, created_at_ms",
        )
        .bind(thread_id)
        .bind(tenant_id)
        .bind(created_at_ms)
        .fetch_one(&self.pool)
        .await?;
        Ok(thread_from_row(&row)?)
    }

    async fn get_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Option<ThreadSummary>, StoreError> {
        let row = sqlx::query(
            "SELECT id, tenant_id, title, created_at_ms FROM threads
             WHERE tenant_id = ? AND id = ?",
        )
        .bind(tenant_id)
        .bind(thread_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(thread_from_row).transpose()?)
    }
}
