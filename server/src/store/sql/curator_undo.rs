//! Undoing one change of the curator's ledger: what it takes to put the entry back as it
//! was, refused in words when memory moved on since, and the writes that do it.

use app::memory::{ScopeKind, used};
use app::model::memory::MemoryEntry;
use sqlx::Row;

use super::ledger::{Held, LedgerRow, Recorded, Transaction};
use super::memory_rows::{ENTRY_COLUMNS, entry_row};
use crate::store::StoreError;
use crate::store::memory::ScopeRef;

/// The scope's entries as they are inside `transaction`.
pub(super) async fn held_entries(
    transaction: &mut Transaction,
    tenant_id: &str,
    scope: &ScopeRef,
) -> Result<Vec<Held>, StoreError> {
    let rows = sqlx::query(&format!(
        "SELECT seq, used_at_ms, {ENTRY_COLUMNS} FROM memory WHERE tenant_id = $1 \
         AND scope = $2 AND scope_id = $3 ORDER BY seq"
    ))
    .bind(tenant_id)
    .bind(scope.kind.label())
    .bind(&scope.id)
    .fetch_all(&mut **transaction)
    .await?;
    let mut held = Vec::new();
    for row in &rows {
        held.push(Held {
            seq: row.try_get("seq")?,
            used_at_ms: row.try_get("used_at_ms")?,
            entry: entry_row(row)?.0,
        });
    }
    Ok(held)
}

/// Refused when the scope's texts would not fit its limit.
fn room(texts: &[&str], kind: ScopeKind) -> Result<(), String> {
    let total = used(texts);
    if total > kind.limit() {
        return Err(format!(
            "memory would hold {total} of {} characters; remove an entry first",
            kind.limit()
        ));
    }
    Ok(())
}

/// What undoing `row` does to the scope as it is (`held`): the entry before and after the
/// undo, or why it cannot be undone.
pub(super) fn undo_plan(row: &LedgerRow, held: &[Held]) -> Result<Recorded, String> {
    let change = &row.change;
    let now = held.iter().find(|held| held.entry.id == change.entry_id);
    let texts = |replace: Option<(&str, &str)>, extra: Option<&str>| -> Vec<String> {
        held.iter()
            .map(|held| match replace {
                Some((id, text)) if held.entry.id == id => text.to_owned(),
                _ => held.entry.text.clone(),
            })
            .chain(extra.map(str::to_owned))
            .collect()
    };
    let fits = |texts: Vec<String>| {
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        room(&texts, change.scope)
    };
    let unchanged = |after: &MemoryEntry| match now {
        Some(now) if now.entry.text == after.text => Ok(now.clone()),
        Some(_) => Err("the entry was changed since; undoing would lose that change".to_owned()),
        None => Err("the entry was removed since".to_owned()),
    };
    match (&change.before, &change.after) {
        (Some(before), None) => {
            if now.is_some() {
                return Err("the entry is in memory again".into());
            }
            fits(texts(None, Some(&before.text)))?;
            Ok(Recorded::new(None, Some(before.clone())))
        }
        (Some(before), Some(after)) => {
            let now = unchanged(after)?;
            fits(texts(Some((&after.id, &before.text)), None))?;
            Ok(Recorded::new(Some(now), Some(before.clone())))
        }
        (None, Some(after)) => Ok(Recorded::new(Some(unchanged(after)?), None)),
        (None, None) => Err("the ledger holds no entry for this change".into()),
    }
    .map(|record| Recorded {
        pins: (!row.pins.is_empty()).then(|| row.pins.clone()),
        ..record
    })
}

/// Writes what `undo_plan` decided.
pub(super) async fn apply_undo(
    transaction: &mut Transaction,
    tenant_id: &str,
    row: &LedgerRow,
    record: &Recorded,
) -> Result<(), StoreError> {
    match (&record.before, &record.after) {
        // Put back where it was: its id, its place in the scope, its last use, its pins.
        (None, Some(entry)) => {
            sqlx::query(
                "INSERT INTO memory (seq, tenant_id, id, scope, scope_id, text, source, author, \
                 created_at_ms, updated_at_ms, used_at_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
            )
            .bind(row.entry_seq)
            .bind(tenant_id)
            .bind(&entry.id)
            .bind(row.scope.kind.label())
            .bind(&row.scope.id)
            .bind(&entry.text)
            .bind(&entry.source)
            .bind(&entry.author)
            .bind(entry.created_at_ms)
            .bind(entry.updated_at_ms)
            .bind(row.entry_used_at_ms)
            .execute(&mut **transaction)
            .await?;
            for pin in &row.pins {
                sqlx::query(
                    "INSERT INTO pins (tenant_id, holder_kind, holder_id, kind, object_id, position) \
                     VALUES ($1, $2, $3, 'memory', $4, $5) ON CONFLICT DO NOTHING",
                )
                .bind(tenant_id)
                .bind(&pin.holder_kind)
                .bind(&pin.holder_id)
                .bind(&entry.id)
                .bind(pin.position)
                .execute(&mut **transaction)
                .await?;
            }
        }
        (Some(_), Some(entry)) => {
            sqlx::query(
                "UPDATE memory SET text = $1, source = $2, author = $3, updated_at_ms = $4 \
                 WHERE tenant_id = $5 AND id = $6",
            )
            .bind(&entry.text)
            .bind(&entry.source)
            .bind(&entry.author)
            .bind(entry.updated_at_ms)
            .bind(tenant_id)
            .bind(&entry.id)
            .execute(&mut **transaction)
            .await?;
        }
        (Some(now), None) => {
            for sql in [
                "DELETE FROM memory WHERE tenant_id = $1 AND id = $2",
                "DELETE FROM pins WHERE tenant_id = $1 AND kind = 'memory' AND object_id = $2",
            ] {
                sqlx::query(sql)
                    .bind(tenant_id)
                    .bind(&now.entry.id)
                    .execute(&mut **transaction)
                    .await?;
            }
        }
        (None, None) => {}
    }
    Ok(())
}
