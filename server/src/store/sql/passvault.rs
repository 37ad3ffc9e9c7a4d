//! Passvault entries in SQL: one row each, the value only as the vault sealed it.

use app::model::passvault::{VaultEntry, VaultList};
use sqlx::Row;
use sqlx::any::AnyRow;

use super::SqlStore;
use crate::store::StoreError;
use crate::store::passvault::PassvaultStore;

const ENTRY_COLUMNS: &str = "id, name, env_var, description, metadata, created_by, \
     created_at_ms, updated_at_ms, last_used_at_ms, last_used_by, use_policy";

fn entry_row(row: &AnyRow) -> Result<VaultEntry, StoreError> {
    let metadata: String = row.try_get("metadata")?;
    Ok(VaultEntry {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        env_var: row.try_get("env_var")?,
        description: row.try_get("description")?,
        metadata: serde_json::from_str(&metadata)
            .map_err(|error| StoreError::Corrupt(format!("passvault metadata: {error}")))?,
        created_by: row.try_get("created_by")?,
        created_at_ms: row.try_get("created_at_ms")?,
        updated_at_ms: row.try_get("updated_at_ms")?,
        last_used_at_ms: row.try_get("last_used_at_ms")?,
        last_used_by: row.try_get("last_used_by")?,
        use_policy: serde_json::from_str(&row.try_get::<String, _>("use_policy")?)
            .map_err(|error| StoreError::Corrupt(format!("passvault use policy: {error}")))?,
    })
}

fn use_text(entry: &VaultEntry) -> String {
    serde_json::to_string(&entry.use_policy).unwrap_or_else(|_| "{}".to_owned())
}

fn metadata_text(entry: &VaultEntry) -> String {
    serde_json::to_string(&entry.metadata).unwrap_or_else(|_| "{}".to_owned())
}

#[async_trait::async_trait]
impl PassvaultStore for SqlStore {
    async fn create_vault_entry(
        &self,
        tenant_id: &str,
        entry: &VaultEntry,
        sealed: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO passvault (tenant_id, id, name, env_var, description, metadata, sealed, \
             created_by, created_at_ms, updated_at_ms, use_policy) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        )
        .bind(tenant_id)
        .bind(&entry.id)
        .bind(&entry.name)
        .bind(&entry.env_var)
        .bind(&entry.description)
        .bind(metadata_text(entry))
        .bind(sealed)
        .bind(&entry.created_by)
        .bind(entry.created_at_ms)
        .bind(entry.updated_at_ms)
        .bind(use_text(entry))
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn vault_entry(
        &self,
        tenant_id: &str,
        id: &str,
    ) -> Result<Option<VaultEntry>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {ENTRY_COLUMNS} FROM passvault WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant_id)
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(entry_row).transpose()
    }

    async fn vault_entry_named(
        &self,
        tenant_id: &str,
        name: &str,
    ) -> Result<Option<VaultEntry>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {ENTRY_COLUMNS} FROM passvault WHERE tenant_id = $1 AND name = $2"
        ))
        .bind(tenant_id)
        .bind(name)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(entry_row).transpose()
    }

    async fn sealed_vault_entry(
        &self,
        tenant_id: &str,
        id: &str,
    ) -> Result<Option<(VaultEntry, String)>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {ENTRY_COLUMNS}, sealed FROM passvault WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant_id)
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        match row {
            Some(row) => Ok(Some((entry_row(&row)?, row.try_get("sealed")?))),
            None => Ok(None),
        }
    }

    async fn list_vault_entries(
        &self,
        tenant_id: &str,
        env_var: Option<&str>,
        q: Option<&str>,
        offset: u32,
        limit: u32,
    ) -> Result<VaultList, StoreError> {
        let mut only = String::new();
        let mut next = 2;
        if env_var.is_some() {
            only.push_str(&format!(" AND env_var = ${next}"));
            next += 1;
        }
        if q.is_some() {
            only.push_str(&format!(
                " AND (LOWER(name) LIKE ${next} ESCAPE '\\' OR LOWER(env_var) LIKE ${next} ESCAPE '\\' \
                 OR LOWER(description) LIKE ${next} ESCAPE '\\')"
            ));
        }
        let sql = format!(
            "SELECT {ENTRY_COLUMNS} FROM passvault WHERE tenant_id = $1{only} \
             ORDER BY name, seq LIMIT {} OFFSET {offset}",
            limit + 1
        );
        let mut query = sqlx::query(&sql).bind(tenant_id);
        if let Some(env_var) = env_var {
            query = query.bind(env_var);
        }
        if let Some(q) = q {
            query = query.bind(super::rows::contains_pattern(q));
        }
        let rows = query.fetch_all(&self.pool).await?;
        let more = rows.len() > limit as usize;
        Ok(VaultList {
            entries: rows
                .iter()
                .take(limit as usize)
                .map(entry_row)
                .collect::<Result<_, _>>()?,
            next_offset: more.then_some(offset + limit),
        })
    }

    async fn update_vault_entry(
        &self,
        tenant_id: &str,
        entry: &VaultEntry,
        sealed: Option<&str>,
        read_at: i64,
    ) -> Result<bool, StoreError> {
        let updated = sqlx::query(
            "UPDATE passvault SET name = $1, env_var = $2, description = $3, metadata = $4, \
             updated_at_ms = $5, sealed = COALESCE($6, sealed), use_policy = $10 \
             WHERE tenant_id = $7 AND id = $8 AND updated_at_ms = $9",
        )
        .bind(&entry.name)
        .bind(&entry.env_var)
        .bind(&entry.description)
        .bind(metadata_text(entry))
        .bind(entry.updated_at_ms)
        .bind(sealed)
        .bind(tenant_id)
        .bind(&entry.id)
        .bind(read_at)
        .bind(use_text(entry))
        .execute(&self.pool)
        .await?;
        Ok(updated.rows_affected() == 1)
    }

    async fn delete_vault_entry(&self, tenant_id: &str, id: &str) -> Result<bool, StoreError> {
        let deleted = sqlx::query("DELETE FROM passvault WHERE tenant_id = $1 AND id = $2")
            .bind(tenant_id)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(deleted.rows_affected() == 1)
    }

    async fn mark_vault_entry_used(
        &self,
        tenant_id: &str,
        id: &str,
        by: &str,
        at_ms: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE passvault SET last_used_at_ms = $1, last_used_by = $2 \
             WHERE tenant_id = $3 AND id = $4",
        )
        .bind(at_ms)
        .bind(by)
        .bind(tenant_id)
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
