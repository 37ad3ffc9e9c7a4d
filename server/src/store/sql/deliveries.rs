//! Deliveries: accepted answers on their way to the agent, settled once.

use sqlx::Row;

use super::SqlStore;
use crate::store::{DeliveryOutcome, DeliveryRecord, StoreError};

impl SqlStore {
    pub(super) async fn pending_deliveries(&self) -> Result<Vec<DeliveryRecord>, StoreError> {
        let rows = sqlx::query(
            "SELECT ask_key, tenant_id, run_id, secret, created_at_ms FROM deliveries \
             WHERE state = 'pending' ORDER BY created_at_ms, ask_key",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(DeliveryRecord {
                    ask_key: row.try_get("ask_key")?,
                    tenant_id: row.try_get("tenant_id")?,
                    run_id: row.try_get("run_id")?,
                    secret: row.try_get::<i64, _>("secret")? != 0,
                    created_at_ms: row.try_get("created_at_ms")?,
                })
            })
            .collect()
    }

    pub(super) async fn settle_delivery(
        &self,
        tenant_id: &str,
        ask_key: &str,
        outcome: DeliveryOutcome,
        note: Option<&str>,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE deliveries SET state = $1, note = $2, settled_at_ms = $3 \
             WHERE tenant_id = $4 AND ask_key = $5 AND state = 'pending'",
        )
        .bind(outcome.label())
        .bind(note)
        .bind(now_ms)
        .bind(tenant_id)
        .bind(ask_key)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
