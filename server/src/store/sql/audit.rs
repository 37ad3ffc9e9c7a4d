//! The audit trail in SQL.

use app::model::AuditEntry;
use sqlx::Row;

use super::SqlStore;
use crate::store::StoreError;
use crate::store::audit::AuditStore;

#[async_trait::async_trait]
impl AuditStore for SqlStore {
    async fn record_audit(
        &self,
        tenant_id: &str,
        user_id: &str,
        entry: &AuditEntry,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO audit (tenant_id, at_ms, user_id, user_name, token_id, action, target) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(tenant_id)
        .bind(entry.at_ms)
        .bind(user_id)
        .bind(&entry.user)
        .bind(entry.token.as_deref())
        .bind(&entry.action)
        .bind(&entry.target)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn audit(&self, tenant_id: &str, limit: u32) -> Result<Vec<AuditEntry>, StoreError> {
        let rows = sqlx::query(
            "SELECT at_ms, user_name, token_id, action, target FROM audit \
             WHERE tenant_id = $1 ORDER BY id DESC LIMIT $2",
        )
        .bind(tenant_id)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(AuditEntry {
                    at_ms: row.try_get("at_ms")?,
                    user: row.try_get("user_name")?,
                    token: row.try_get("token_id")?,
                    action: row.try_get("action")?,
                    target: row.try_get("target")?,
                })
            })
            .collect()
    }
}
