//! Pins in SQL.

use sqlx::Row;

use super::SqlStore;
use crate::store::StoreError;
use crate::store::pins::{Holder, PinStore, Pinned};

#[async_trait::async_trait]
impl PinStore for SqlStore {
    async fn pins(
        &self,
        tenant_id: &str,
        holder: Holder,
        holder_id: &str,
        kind: Pinned,
    ) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT object_id FROM pins WHERE tenant_id = $1 AND holder_kind = $2 \
             AND holder_id = $3 AND kind = $4 ORDER BY position",
        )
        .bind(tenant_id)
        .bind(holder.label())
        .bind(holder_id)
        .bind(kind.label())
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .iter()
            .map(|row| row.try_get("object_id"))
            .collect::<Result<_, _>>()?)
    }

    async fn set_pins(
        &self,
        tenant_id: &str,
        holder: Holder,
        holder_id: &str,
        kind: Pinned,
        ids: &[String],
    ) -> Result<(), StoreError> {
        // Two replacements of one list queue: a delete at READ COMMITTED does not see rows
        // another replacement is inserting.
        let mut transaction = self
            .begin_write_on(&format!(
                "pins:{tenant_id}:{}:{holder_id}:{}",
                holder.label(),
                kind.label()
            ))
            .await?;
        sqlx::query(
            "DELETE FROM pins WHERE tenant_id = $1 AND holder_kind = $2 AND holder_id = $3 \
             AND kind = $4",
        )
        .bind(tenant_id)
        .bind(holder.label())
        .bind(holder_id)
        .bind(kind.label())
        .execute(&mut *transaction)
        .await?;
        for (position, id) in ids.iter().enumerate() {
            sqlx::query(
                "INSERT INTO pins (tenant_id, holder_kind, holder_id, kind, object_id, position) \
                 VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(tenant_id)
            .bind(holder.label())
            .bind(holder_id)
            .bind(kind.label())
            .bind(id)
            .bind(i64::try_from(position).unwrap_or(i64::MAX))
            .execute(&mut *transaction)
            .await?;
        }
        transaction.commit().await?;
        Ok(())
    }
}
