//! Tenants and threads: who owns what, a thread's title, its agent and its agent-side session.

use app::model::ThreadSummary;
use sqlx::Row;

use super::rows::*;
use super::search::tenant_text;
use super::{Dialect, SqlStore};
use crate::store::StoreError;

impl SqlStore {
    pub(super) async fn list_threads(
        &self,
        tenant_id: &str,
    ) -> Result<Vec<ThreadSummary>, StoreError> {
        // Each thread's latest run through the runs_by_thread index: one probe a thread.
        let rows = sqlx::query(&format!(
            "SELECT {THREAD_COLUMNS}, \
             (SELECT MAX(COALESCE(runs.finished_at_ms, runs.created_at_ms)) FROM runs \
              WHERE runs.tenant_id = threads.tenant_id AND runs.thread_id = threads.id) \
              AS active_at_ms \
             FROM threads WHERE tenant_id = $1 \
             ORDER BY created_at_ms DESC, seq DESC"
        ))
        .bind(tenant_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let mut thread = thread_row(row)?;
                thread.active_at_ms = row.try_get("active_at_ms")?;
                Ok(thread)
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(Into::into)
    }

    pub(super) async fn list_tenants(&self) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query("SELECT id FROM tenants ORDER BY id")
            .fetch_all(&self.pool)
            .await?;
        Ok(rows
            .iter()
            .map(|row| row.try_get::<String, _>("id"))
            .collect::<Result<_, _>>()?)
    }

    pub(super) async fn create_tenant(
        &self,
        tenant_id: &str,
        created_at_ms: i64,
    ) -> Result<bool, StoreError> {
        let result = sqlx::query(
            "INSERT INTO tenants (id, name, created_at_ms) VALUES ($1, $1, $2) \
             ON CONFLICT (id) DO NOTHING",
        )
        .bind(tenant_id)
        .bind(created_at_ms)
        .execute(&self.pool)
        .await?;
        Ok(result.rows_affected() == 1)
    }

    pub(super) async fn tenant_exists(&self, tenant_id: &str) -> Result<bool, StoreError> {
        let row = sqlx::query("SELECT 1 AS found FROM tenants WHERE id = $1")
            .bind(tenant_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.is_some())
    }

    pub(super) async fn create_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
        project_id: Option<&str>,
        created_at_ms: i64,
    ) -> Result<ThreadSummary, StoreError> {
        // Queued behind the tenant's other new threads, so each counts the one before it
        // and gets a title of its own.
        let mut transaction = self.begin_write_on(&format!("threads:{tenant_id}")).await?;
        let row = sqlx::query(&format!(
            "INSERT INTO threads (id, tenant_id, title, created_at_ms, project_id) \
             VALUES ($1, $2, 'Thread ' || (SELECT COUNT(*) + 1 FROM threads WHERE tenant_id = $2), $3, $4) \
             RETURNING {THREAD_COLUMNS}"
        ))
        .bind(thread_id)
        .bind(tenant_id)
        .bind(created_at_ms)
        .bind(project_id)
        .fetch_one(&mut *transaction)
        .await?;
        let thread = thread_row(&row)?;
        sqlx::query(
            "UPDATE threads SET search_title = $1, search_words = '' WHERE tenant_id = $2 AND id = $3",
        )
        .bind(tenant_text(tenant_id, &thread.title))
        .bind(tenant_id)
        .bind(thread_id)
        .execute(&mut *transaction)
        .await?;
        transaction.commit().await?;
        Ok(thread)
    }

    pub(super) async fn get_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Option<ThreadSummary>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {THREAD_COLUMNS} FROM threads WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant_id)
        .bind(thread_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(thread_row).transpose()?)
    }

    pub(super) async fn rename_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
        title: &str,
    ) -> Result<Option<ThreadSummary>, StoreError> {
        let row = sqlx::query(&format!(
            "UPDATE threads SET title = $1, titled = TRUE, search_title = $4 \
             WHERE tenant_id = $2 AND id = $3 RETURNING {THREAD_COLUMNS}"
        ))
        .bind(title)
        .bind(tenant_id)
        .bind(thread_id)
        .bind(tenant_text(tenant_id, title))
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(thread_row).transpose()?)
    }

    pub(super) async fn archive_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
        archived_at_ms: Option<i64>,
    ) -> Result<Option<ThreadSummary>, StoreError> {
        let row = sqlx::query(&format!(
            "UPDATE threads SET archived_at_ms = $1 WHERE tenant_id = $2 AND id = $3 \
             RETURNING {THREAD_COLUMNS}"
        ))
        .bind(archived_at_ms)
        .bind(tenant_id)
        .bind(thread_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(thread_row).transpose()?)
    }

    /// The tenant's threads whose title or messages hold every one of `terms`, newest
    /// first, at most `limit`.
    pub(super) async fn search_threads(
        &self,
        tenant_id: &str,
        terms: &[String],
        limit: u32,
    ) -> Result<Vec<ThreadSummary>, StoreError> {
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let (matches, query) = match self.dialect {
            Dialect::Sqlite => (
                "seq IN (SELECT rowid FROM threads_fts WHERE threads_fts MATCH $2)",
                super::search::fts5_match(tenant_id, terms),
            ),
            Dialect::Postgres => (
                "search @@ to_tsquery('english', $2)",
                super::search::tsquery(tenant_id, terms),
            ),
        };
        let rows = sqlx::query(&format!(
            "SELECT {THREAD_COLUMNS} FROM threads WHERE tenant_id = $1 AND {matches} \
             ORDER BY created_at_ms DESC, seq DESC LIMIT $3"
        ))
        .bind(tenant_id)
        .bind(query)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(thread_row).collect::<Result<_, _>>()?)
    }

    /// Adds what an operator said to what the thread is found by (up to 256 KB of it).
    pub(super) async fn add_thread_words(
        &self,
        tenant_id: &str,
        thread_id: &str,
        text: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE threads SET words = words || ' ' || $1, \
             search_words = COALESCE(search_words, '') || ' ' || $4 \
             WHERE tenant_id = $2 AND id = $3 AND length(words) < 262144",
        )
        .bind(text)
        .bind(tenant_id)
        .bind(thread_id)
        .bind(tenant_text(tenant_id, text))
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub(super) async fn title_from_first_message(
        &self,
        tenant_id: &str,
        thread_id: &str,
        title: &str,
    ) -> Result<Option<ThreadSummary>, StoreError> {
        let row = sqlx::query(&format!(
            "UPDATE threads SET title = $1, titled = TRUE, search_title = $4 \
             WHERE tenant_id = $2 AND id = $3 AND NOT titled RETURNING {THREAD_COLUMNS}"
        ))
        .bind(title)
        .bind(tenant_id)
        .bind(thread_id)
        .bind(tenant_text(tenant_id, title))
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(thread_row).transpose()?)
    }

    pub(super) async fn thread_agent(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT agent FROM threads WHERE tenant_id = $1 AND id = $2")
            .bind(tenant_id)
            .bind(thread_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(match row {
            Some(row) => row.try_get("agent")?,
            None => None,
        })
    }

    pub(super) async fn bind_thread_agent(
        &self,
        tenant_id: &str,
        thread_id: &str,
        agent: &str,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE threads SET agent = $1 WHERE tenant_id = $2 AND id = $3")
            .bind(agent)
            .bind(tenant_id)
            .bind(thread_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub(super) async fn thread_session(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT agent_session FROM threads WHERE tenant_id = $1 AND id = $2")
            .bind(tenant_id)
            .bind(thread_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(match row {
            Some(row) => row.try_get("agent_session")?,
            None => None,
        })
    }

    pub(super) async fn set_thread_session(
        &self,
        tenant_id: &str,
        thread_id: &str,
        session: &str,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE threads SET agent_session = $1 WHERE tenant_id = $2 AND id = $3")
            .bind(session)
            .bind(tenant_id)
            .bind(thread_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
