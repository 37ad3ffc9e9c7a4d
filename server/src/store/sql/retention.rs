//! Retention's deletions in SQL.

use app::protocol::status::RunStatus;

use super::SqlStore;
use crate::store::StoreError;
use crate::store::retention::RetentionStore;

#[async_trait::async_trait]
impl RetentionStore for SqlStore {
    async fn prune_raw_events(&self, tenant_id: &str, before_ms: i64) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "DELETE FROM upstream_events WHERE tenant_id = $1 AND received_at_ms < $2 \
             AND run_id NOT IN (SELECT id FROM runs WHERE tenant_id = $1 AND status = $3)",
        )
        .bind(tenant_id)
        .bind(before_ms)
        .bind(RunStatus::Running.label())
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }

    async fn prune_jobs(&self, tenant_id: &str, before_ms: i64) -> Result<u64, StoreError> {
        // Attempts and log lines go with their job (ON DELETE CASCADE on both stores).
        let done = sqlx::query(
            "DELETE FROM jobs WHERE tenant_id = $1 \
             AND state IN ('completed', 'failed', 'cancelled') AND finished_at_ms < $2",
        )
        .bind(tenant_id)
        .bind(before_ms)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }
}
