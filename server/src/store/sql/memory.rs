//! Memory in SQL: entries per scope, proposals and tenant settings.

use app::memory::{Change, Current, ScopeKind};
use app::model::memory::{MemoryEntry, MemoryProposal};
use sqlx::Row;
use sqlx::any::AnyRow;

use super::SqlStore;
use super::ledger::{Held, Recorded, entry_pins, write_ledger};
use super::memory_rows::{ENTRY_COLUMNS, entry_row, project_of, scope_of};
use super::rows::{parse_json, to_json};
use crate::store::StoreError;
use crate::store::memory::{MemoryStore, ScopeRef, Writer};

const PROPOSAL_COLUMNS: &str = "id, scope, scope_id, operations, proposed_by, run_id, \
     created_at_ms, state, reviewed_by, outcome, pass_id, reason";

fn proposal_row(row: &AnyRow) -> Result<(MemoryProposal, ScopeRef), StoreError> {
    let scope = scope_of(row)?;
    Ok((
        MemoryProposal {
            id: row.try_get("id")?,
            scope: scope.kind,
            project_id: project_of(&scope),
            operations: parse_json(&row.try_get::<String, _>("operations")?, "operations")?,
            proposed_by: row.try_get("proposed_by")?,
            run_id: row.try_get("run_id")?,
            created_at_ms: row.try_get("created_at_ms")?,
            state: row.try_get("state")?,
            reviewed_by: row.try_get("reviewed_by")?,
            outcome: row.try_get("outcome")?,
            pass_id: row.try_get("pass_id")?,
            reason: row.try_get("reason")?,
        },
        scope,
    ))
}

#[async_trait::async_trait]
impl MemoryStore for SqlStore {
    async fn memory_entries(
        &self,
        tenant_id: &str,
        scope: &ScopeRef,
    ) -> Result<Vec<MemoryEntry>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {ENTRY_COLUMNS} FROM memory WHERE tenant_id = $1 AND scope = $2 \
             AND scope_id = $3 ORDER BY seq"
        ))
        .bind(tenant_id)
        .bind(scope.kind.label())
        .bind(&scope.id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| entry_row(row).map(|(entry, _)| entry))
            .collect()
    }

    async fn memory_entry(
        &self,
        tenant_id: &str,
        id: &str,
    ) -> Result<Option<(MemoryEntry, ScopeRef)>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {ENTRY_COLUMNS} FROM memory WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant_id)
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(entry_row).transpose()
    }

    async fn apply_memory(
        &self,
        tenant_id: &str,
        scope: &ScopeRef,
        expected: &[Current],
        changes: &[Change],
        writer: &Writer,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        // Queued behind other changes to the scope (not only its rows: another change could
        // add one), so the comparison below holds until the commit.
        let mut transaction = self
            .begin_write_on(&format!(
                "memory:{tenant_id}:{}:{}",
                scope.kind.label(),
                scope.id
            ))
            .await?;
        let rows = sqlx::query(&format!(
            "SELECT seq, used_at_ms, {ENTRY_COLUMNS} FROM memory WHERE tenant_id = $1 \
             AND scope = $2 AND scope_id = $3 ORDER BY seq"
        ))
        .bind(tenant_id)
        .bind(scope.kind.label())
        .bind(&scope.id)
        .fetch_all(&mut *transaction)
        .await?;
        let mut held = Vec::new();
        for row in &rows {
            held.push(Held {
                seq: row.try_get("seq")?,
                used_at_ms: row.try_get("used_at_ms")?,
                entry: entry_row(row)?.0,
            });
        }
        let now: Vec<Current> = held
            .iter()
            .map(|held| Current {
                id: held.entry.id.clone(),
                text: held.entry.text.clone(),
            })
            .collect();
        if now != expected {
            return Ok(false);
        }
        let before = |id: &str| held.iter().find(|held| held.entry.id == id);
        for change in changes {
            let record = match change {
                Change::Add { text, .. } => {
                    let id = uuid::Uuid::new_v4().to_string();
                    sqlx::query(
                        "INSERT INTO memory (tenant_id, id, scope, scope_id, text, source, author, \
                         created_at_ms, updated_at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)",
                    )
                    .bind(tenant_id)
                    .bind(&id)
                    .bind(scope.kind.label())
                    .bind(&scope.id)
                    .bind(text)
                    .bind(writer.source)
                    .bind(&writer.author)
                    .bind(now_ms)
                    .execute(&mut *transaction)
                    .await?;
                    let made = MemoryEntry {
                        id,
                        scope: scope.kind,
                        project_id: project_of(scope),
                        text: text.clone(),
                        source: writer.source.to_owned(),
                        author: writer.author.clone(),
                        created_at_ms: now_ms,
                        updated_at_ms: now_ms,
                    };
                    Recorded::new(None, Some(made))
                }
                Change::Replace { id, text } => {
                    sqlx::query(
                        "UPDATE memory SET text = $1, source = $2, author = $3, updated_at_ms = $4 \
                         WHERE tenant_id = $5 AND id = $6",
                    )
                    .bind(text)
                    .bind(writer.source)
                    .bind(&writer.author)
                    .bind(now_ms)
                    .bind(tenant_id)
                    .bind(id)
                    .execute(&mut *transaction)
                    .await?;
                    let was = before(id);
                    let after = was.map(|was| MemoryEntry {
                        text: text.clone(),
                        source: writer.source.to_owned(),
                        author: writer.author.clone(),
                        updated_at_ms: now_ms,
                        ..was.entry.clone()
                    });
                    Recorded::new(was.cloned(), after)
                }
                Change::Remove { id } => {
                    let was = before(id).cloned();
                    let pins = match (&writer.ledger, &was) {
                        (Some(_), Some(_)) => {
                            Some(entry_pins(&mut transaction, tenant_id, id).await?)
                        }
                        _ => None,
                    };
                    for sql in [
                        "DELETE FROM memory WHERE tenant_id = $1 AND id = $2",
                        "DELETE FROM pins WHERE tenant_id = $1 AND kind = 'memory' AND object_id = $2",
                    ] {
                        sqlx::query(sql)
                            .bind(tenant_id)
                            .bind(id)
                            .execute(&mut *transaction)
                            .await?;
                    }
                    Recorded {
                        pins,
                        ..Recorded::new(was, None)
                    }
                }
            };
            if let Some(mark) = &writer.ledger {
                write_ledger(
                    &mut transaction,
                    tenant_id,
                    scope,
                    mark,
                    &record,
                    &writer.author,
                    now_ms,
                )
                .await?;
            }
        }
        transaction.commit().await?;
        Ok(true)
    }

    async fn add_proposal(
        &self,
        tenant_id: &str,
        scope: &ScopeRef,
        proposal: &MemoryProposal,
    ) -> Result<(), StoreError> {
        let operations = to_json(&proposal.operations)?;
        sqlx::query(
            "INSERT INTO memory_proposals (tenant_id, id, scope, scope_id, operations, proposed_by, \
             run_id, created_at_ms, state, pass_id, reason) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        )
        .bind(tenant_id)
        .bind(&proposal.id)
        .bind(scope.kind.label())
        .bind(&scope.id)
        .bind(operations)
        .bind(&proposal.proposed_by)
        .bind(proposal.run_id.as_deref())
        .bind(proposal.created_at_ms)
        .bind(&proposal.state)
        .bind(proposal.pass_id.as_deref())
        .bind(proposal.reason.as_deref())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn proposals(
        &self,
        tenant_id: &str,
        reader: &str,
        state: Option<&str>,
    ) -> Result<Vec<MemoryProposal>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {PROPOSAL_COLUMNS} FROM memory_proposals WHERE tenant_id = $1 \
             AND ($2 = '' OR state = $2) AND (scope <> $3 OR scope_id = $4) \
             ORDER BY seq DESC LIMIT 500"
        ))
        .bind(tenant_id)
        .bind(state.unwrap_or_default())
        .bind(ScopeKind::User.label())
        .bind(reader)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| proposal_row(row).map(|(proposal, _)| proposal))
            .collect()
    }

    async fn proposal(
        &self,
        tenant_id: &str,
        id: &str,
    ) -> Result<Option<(MemoryProposal, ScopeRef)>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {PROPOSAL_COLUMNS} FROM memory_proposals WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant_id)
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(proposal_row).transpose()
    }

    async fn decide_proposal(
        &self,
        tenant_id: &str,
        id: &str,
        from: &str,
        to: &str,
        reviewed_by: &str,
        outcome: Option<&str>,
    ) -> Result<bool, StoreError> {
        let updated = sqlx::query(
            "UPDATE memory_proposals SET state = $1, reviewed_by = $2, outcome = $3 \
             WHERE tenant_id = $4 AND id = $5 AND state = $6",
        )
        .bind(to)
        .bind(reviewed_by)
        .bind(outcome)
        .bind(tenant_id)
        .bind(id)
        .bind(from)
        .execute(&self.pool)
        .await?;
        Ok(updated.rows_affected() == 1)
    }

    async fn tenant_setting(
        &self,
        tenant_id: &str,
        name: &str,
    ) -> Result<Option<String>, StoreError> {
        let row =
            sqlx::query("SELECT value FROM tenant_settings WHERE tenant_id = $1 AND name = $2")
                .bind(tenant_id)
                .bind(name)
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.map(|row| row.try_get("value")).transpose()?)
    }

    async fn set_tenant_setting(
        &self,
        tenant_id: &str,
        name: &str,
        value: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO tenant_settings (tenant_id, name, value) VALUES ($1, $2, $3) \
             ON CONFLICT (tenant_id, name) DO UPDATE SET value = excluded.value",
        )
        .bind(tenant_id)
        .bind(name)
        .bind(value)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
