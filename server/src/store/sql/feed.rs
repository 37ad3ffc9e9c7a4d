//! The tenant's feed in SQL (its rows come from triggers; see migrations 0011, 0013 and
//! 0023).

use app::protocol::status::RunStatus;
use sqlx::Row;

use super::SqlStore;
use super::rows::*;
use crate::store::feed::{FeedEntry, FeedStore, FeedSubject};
use crate::store::{RunRecord, StoreError};

#[async_trait::async_trait]
impl FeedStore for SqlStore {
    async fn feed_after(
        &self,
        tenant_id: &str,
        after: u64,
        limit: u32,
    ) -> Result<Vec<FeedEntry>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, subject, key FROM tenant_feed WHERE tenant_id = $1 AND id > $2 \
             ORDER BY id LIMIT $3",
        )
        .bind(tenant_id)
        .bind(to_i64(after))
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let subject = match row.try_get::<String, _>("subject")?.as_str() {
                    "ask" => FeedSubject::Ask,
                    "run" => FeedSubject::Run,
                    "thread" => FeedSubject::Thread,
                    "project" => FeedSubject::Project,
                    "job" => FeedSubject::Job,
                    "schedule" => FeedSubject::Schedule,
                    "board" => FeedSubject::Board,
                    other => {
                        return Err(StoreError::Corrupt(format!(
                            "feed row about {other:?}: not an ask, run, thread, project, \
                             job, schedule or board"
                        )));
                    }
                };
                Ok(FeedEntry {
                    id: to_u64(row.try_get("id")?, "feed id")?,
                    subject,
                    key: row.try_get("key")?,
                })
            })
            .collect()
    }

    async fn feed_head(&self, tenant_id: &str) -> Result<u64, StoreError> {
        let row = sqlx::query(
            "SELECT COALESCE(MAX(id), 0) AS head FROM tenant_feed WHERE tenant_id = $1",
        )
        .bind(tenant_id)
        .fetch_one(&self.pool)
        .await?;
        to_u64(row.try_get("head")?, "feed head")
    }

    async fn runs_in_progress(&self, tenant_id: &str) -> Result<Vec<RunRecord>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE tenant_id = $1 AND status = $2 \
             ORDER BY created_at_ms, id"
        ))
        .bind(tenant_id)
        .bind(RunStatus::Running.label())
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(run_row).collect()
    }
}
