//! The curator's store in SQL: entries' last use, the tenant's and notes' text as a pass
//! reads them, passes with their reports, the ledger read back, and the undo of a change.

use app::model::curator::{CuratorChange, CuratorPass};
use sqlx::Row;
use sqlx::any::AnyRow;

use super::SqlStore;
use super::curator_undo::{apply_undo, held_entries, undo_plan};
use super::ledger::{LEDGER_COLUMNS, append, ledger_row, read_change};
use super::memory_rows::{ENTRY_COLUMNS, entry_row};
use super::rows::{parse_json, to_json as json};
use crate::store::StoreError;
use crate::store::curator::{CuratedEntry, CuratedNote, CuratorStore, Undo};
use crate::store::memory::LedgerMark;

/// Runs given an entry within this long of its last mark leave the mark as it is.
const USE_MARK_EVERY_MS: i64 = 3_600_000;

fn pass_row(row: &AnyRow) -> Result<CuratorPass, StoreError> {
    Ok(CuratorPass {
        id: row.try_get("id")?,
        trigger: row.try_get("trigger_kind")?,
        dry_run: row.try_get::<i64, _>("dry_run")? != 0,
        requested_by: row.try_get("requested_by")?,
        state: row.try_get("state")?,
        started_at_ms: row.try_get("started_at_ms")?,
        finished_at_ms: row.try_get("finished_at_ms")?,
        report: parse_json(&row.try_get::<String, _>("report")?, "report")?,
    })
}

const PASS_COLUMNS: &str =
    "id, trigger_kind, dry_run, requested_by, state, started_at_ms, finished_at_ms, report";

#[async_trait::async_trait]
impl CuratorStore for SqlStore {
    async fn curated_memory(&self, tenant_id: &str) -> Result<Vec<CuratedEntry>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT used_at_ms, {ENTRY_COLUMNS} FROM memory WHERE tenant_id = $1 \
             AND scope IN ('tenant', 'project') ORDER BY seq"
        ))
        .bind(tenant_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(CuratedEntry {
                    used_at_ms: row.try_get("used_at_ms")?,
                    entry: entry_row(row)?.0,
                })
            })
            .collect()
    }

    async fn curated_notes(
        &self,
        tenant_id: &str,
        most: u32,
    ) -> Result<Vec<CuratedNote>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, title, body FROM notes WHERE tenant_id = $1 \
             ORDER BY updated_at_ms DESC LIMIT $2",
        )
        .bind(tenant_id)
        .bind(i64::from(most))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(CuratedNote {
                    id: row.try_get("id")?,
                    title: row.try_get("title")?,
                    body: row.try_get("body")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }

    async fn mark_memory_used(
        &self,
        tenant_id: &str,
        ids: &[String],
        now_ms: i64,
    ) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let places: Vec<String> = (0..ids.len()).map(|at| format!("${}", at + 4)).collect();
        let sql = format!(
            "UPDATE memory SET used_at_ms = $1 WHERE tenant_id = $2 \
             AND (used_at_ms IS NULL OR used_at_ms < $3) AND id IN ({})",
            places.join(", ")
        );
        let mut query = sqlx::query(&sql)
            .bind(now_ms)
            .bind(tenant_id)
            .bind(now_ms - USE_MARK_EVERY_MS);
        for id in ids {
            query = query.bind(id);
        }
        query.execute(&self.pool).await?;
        Ok(())
    }

    async fn tenant_active_since(
        &self,
        tenant_id: &str,
        since_ms: i64,
    ) -> Result<bool, StoreError> {
        let row = sqlx::query(
            "SELECT 1 AS active FROM runs WHERE tenant_id = $1 \
             AND (status = 'running' OR created_at_ms > $2) LIMIT 1",
        )
        .bind(tenant_id)
        .bind(since_ms)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.is_some())
    }

    async fn save_pass(&self, tenant_id: &str, pass: &CuratorPass) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO curator_passes (tenant_id, id, trigger_kind, dry_run, requested_by, \
             state, started_at_ms, finished_at_ms, report) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
             ON CONFLICT (tenant_id, id) DO UPDATE SET state = excluded.state, \
             finished_at_ms = excluded.finished_at_ms, report = excluded.report",
        )
        .bind(tenant_id)
        .bind(&pass.id)
        .bind(&pass.trigger)
        .bind(i64::from(pass.dry_run))
        .bind(&pass.requested_by)
        .bind(&pass.state)
        .bind(pass.started_at_ms)
        .bind(pass.finished_at_ms)
        .bind(json(&pass.report)?)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn pass(&self, tenant_id: &str, id: &str) -> Result<Option<CuratorPass>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {PASS_COLUMNS} FROM curator_passes WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant_id)
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(pass_row).transpose()
    }

    async fn passes(&self, tenant_id: &str, most: u32) -> Result<Vec<CuratorPass>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {PASS_COLUMNS} FROM curator_passes WHERE tenant_id = $1 \
             ORDER BY started_at_ms DESC, seq DESC LIMIT $2"
        ))
        .bind(tenant_id)
        .bind(i64::from(most))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(pass_row).collect()
    }

    async fn last_pass_at(&self, tenant_id: &str) -> Result<Option<i64>, StoreError> {
        let row = sqlx::query(
            "SELECT started_at_ms FROM curator_passes WHERE tenant_id = $1 AND dry_run = 0 \
             ORDER BY started_at_ms DESC LIMIT 1",
        )
        .bind(tenant_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|row| row.try_get("started_at_ms")).transpose()?)
    }

    async fn ledger(&self, tenant_id: &str, most: u32) -> Result<Vec<CuratorChange>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {LEDGER_COLUMNS} FROM curator_ledger l LEFT JOIN curator_ledger u \
             ON u.tenant_id = l.tenant_id AND u.undoes = l.id \
             WHERE l.tenant_id = $1 ORDER BY l.seq DESC LIMIT $2"
        ))
        .bind(tenant_id)
        .bind(i64::from(most))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| ledger_row(row).map(|row| row.change))
            .collect()
    }

    async fn undo_change(
        &self,
        tenant_id: &str,
        change_id: &str,
        actor: &str,
        now_ms: i64,
    ) -> Result<Undo, StoreError> {
        let Some(row) = read_change(&self.pool, tenant_id, change_id).await? else {
            return Ok(Undo::Missing);
        };
        if row.change.undoes.is_some() {
            return Ok(Undo::Refused(
                "this is an undo; to change the entry again, edit it in memory".into(),
            ));
        }
        let mut transaction = self
            .begin_write_on(&format!(
                "memory:{tenant_id}:{}:{}",
                row.scope.kind.label(),
                row.scope.id
            ))
            .await?;
        // Read again under the scope's lock: of two undos, the second sees the first.
        let Some(row) = read_change(&mut *transaction, tenant_id, change_id).await? else {
            return Ok(Undo::Missing);
        };
        if let Some(undo) = &row.change.undone_by {
            return Ok(Undo::Refused(format!(
                "this change was undone already ({undo})"
            )));
        }
        let held = held_entries(&mut transaction, tenant_id, &row.scope).await?;
        let record = match undo_plan(&row, &held) {
            Ok(step) => step,
            Err(reason) => return Ok(Undo::Refused(reason)),
        };
        apply_undo(&mut transaction, tenant_id, &row, &record).await?;
        let mark = LedgerMark {
            pass_id: row.change.pass_id.clone(),
            proposal_id: row.change.proposal_id.clone(),
        };
        let id = append(
            &mut transaction,
            tenant_id,
            &row.scope,
            &mark,
            &record,
            actor,
            now_ms,
            Some(change_id),
        )
        .await?;
        let undo = read_change(&mut *transaction, tenant_id, &id)
            .await?
            .ok_or_else(|| StoreError::Corrupt("an undo was not recorded".into()))?;
        transaction.commit().await?;
        Ok(Undo::Done(Box::new(undo.change)))
    }
}
