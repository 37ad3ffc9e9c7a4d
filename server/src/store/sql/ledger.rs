//! The curator's ledger in SQL: one row per change made on a curator's proposal (written
//! inside the memory transaction that makes it) and per undo, read back with the undo that
//! answers each change.

use app::model::curator::CuratorChange;
use app::model::memory::MemoryEntry;
use serde::{Deserialize, Serialize};
use sqlx::Row;
use sqlx::any::AnyRow;

use super::Db;
use super::memory_rows::{project_of, scope_of};
use super::rows::{parse_json, to_json as json};
use crate::store::StoreError;
use crate::store::memory::{LedgerMark, ScopeRef};

pub(super) type Transaction = sqlx::Transaction<'static, Db>;

/// An entry as a memory transaction read it.
#[derive(Clone, Debug)]
pub(super) struct Held {
    pub seq: i64,
    pub used_at_ms: Option<i64>,
    pub entry: MemoryEntry,
}

/// Where a removed entry was pinned.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct PinRow {
    pub holder_kind: String,
    pub holder_id: String,
    pub position: i64,
}

/// One change as the ledger records it.
pub(super) struct Recorded {
    pub before: Option<Held>,
    pub after: Option<MemoryEntry>,
    pub pins: Option<Vec<PinRow>>,
}

impl Recorded {
    pub fn new(before: Option<Held>, after: Option<MemoryEntry>) -> Self {
        Self {
            before,
            after,
            pins: None,
        }
    }
}

/// Where the entry `id` is pinned.
pub(super) async fn entry_pins(
    transaction: &mut Transaction,
    tenant_id: &str,
    id: &str,
) -> Result<Vec<PinRow>, StoreError> {
    let rows = sqlx::query(
        "SELECT holder_kind, holder_id, position FROM pins WHERE tenant_id = $1 \
         AND kind = 'memory' AND object_id = $2",
    )
    .bind(tenant_id)
    .bind(id)
    .fetch_all(&mut **transaction)
    .await?;
    rows.iter()
        .map(|row| {
            Ok(PinRow {
                holder_kind: row.try_get("holder_kind")?,
                holder_id: row.try_get("holder_id")?,
                position: row.try_get("position")?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(StoreError::from)
}

/// Appends one change made on the curator's proposal `mark` to the ledger.
pub(super) async fn write_ledger(
    transaction: &mut Transaction,
    tenant_id: &str,
    scope: &ScopeRef,
    mark: &LedgerMark,
    record: &Recorded,
    actor: &str,
    now_ms: i64,
) -> Result<String, StoreError> {
    append(
        transaction,
        tenant_id,
        scope,
        mark,
        record,
        actor,
        now_ms,
        None,
    )
    .await
}

#[allow(clippy::too_many_arguments)]
pub(super) async fn append(
    transaction: &mut Transaction,
    tenant_id: &str,
    scope: &ScopeRef,
    mark: &LedgerMark,
    record: &Recorded,
    actor: &str,
    now_ms: i64,
    undoes: Option<&str>,
) -> Result<String, StoreError> {
    let id = format!("chg-{}", uuid::Uuid::new_v4().simple());
    let entry_id = record
        .before
        .as_ref()
        .map(|held| held.entry.id.clone())
        .or_else(|| record.after.as_ref().map(|entry| entry.id.clone()))
        .unwrap_or_default();
    let before = record
        .before
        .as_ref()
        .map(|held| json(&held.entry))
        .transpose()?;
    let after = record.after.as_ref().map(json).transpose()?;
    let pins = record.pins.as_ref().map(json).transpose()?;
    sqlx::query(
        "INSERT INTO curator_ledger (tenant_id, id, pass_id, proposal_id, entry_id, scope, \
         scope_id, entry_seq, entry_used_at_ms, entry_pins, before_entry, after_entry, actor, \
         at_ms, undoes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
    )
    .bind(tenant_id)
    .bind(&id)
    .bind(&mark.pass_id)
    .bind(&mark.proposal_id)
    .bind(entry_id)
    .bind(scope.kind.label())
    .bind(&scope.id)
    .bind(record.before.as_ref().map(|held| held.seq))
    .bind(record.before.as_ref().and_then(|held| held.used_at_ms))
    .bind(pins)
    .bind(before)
    .bind(after)
    .bind(actor)
    .bind(now_ms)
    .bind(undoes)
    .execute(&mut **transaction)
    .await?;
    Ok(id)
}

pub(super) const LEDGER_COLUMNS: &str = "l.id, l.pass_id, l.proposal_id, l.entry_id, l.scope, \
     l.scope_id, l.entry_seq, l.entry_used_at_ms, l.entry_pins, l.before_entry, \
     l.after_entry, l.actor, l.at_ms, l.undoes, u.id AS undone_by";

/// A ledger row, and what an undo needs of it besides.
pub(super) struct LedgerRow {
    pub change: CuratorChange,
    pub scope: ScopeRef,
    pub entry_seq: Option<i64>,
    pub entry_used_at_ms: Option<i64>,
    pub pins: Vec<PinRow>,
}

pub(super) fn ledger_row(row: &AnyRow) -> Result<LedgerRow, StoreError> {
    let scope = scope_of(row)?;
    let entry = |column: &str| -> Result<Option<MemoryEntry>, StoreError> {
        row.try_get::<Option<String>, _>(column)?
            .map(|text| parse_json(&text, column))
            .transpose()
    };
    let pins = match row.try_get::<Option<String>, _>("entry_pins")? {
        Some(text) => parse_json(&text, "entry_pins")?,
        None => Vec::new(),
    };
    Ok(LedgerRow {
        change: CuratorChange {
            id: row.try_get("id")?,
            pass_id: row.try_get("pass_id")?,
            proposal_id: row.try_get("proposal_id")?,
            entry_id: row.try_get("entry_id")?,
            scope: scope.kind,
            project_id: project_of(&scope),
            before: entry("before_entry")?,
            after: entry("after_entry")?,
            actor: row.try_get("actor")?,
            at_ms: row.try_get("at_ms")?,
            undoes: row.try_get("undoes")?,
            undone_by: row.try_get("undone_by")?,
        },
        scope,
        entry_seq: row.try_get("entry_seq")?,
        entry_used_at_ms: row.try_get("entry_used_at_ms")?,
        pins,
    })
}

/// The change `change_id` with its undo, if any.
pub(super) async fn read_change<'e, E>(
    executor: E,
    tenant_id: &str,
    change_id: &str,
) -> Result<Option<LedgerRow>, StoreError>
where
    E: sqlx::Executor<'e, Database = Db>,
{
    let row = sqlx::query(&format!(
        "SELECT {LEDGER_COLUMNS} FROM curator_ledger l LEFT JOIN curator_ledger u \
         ON u.tenant_id = l.tenant_id AND u.undoes = l.id \
         WHERE l.tenant_id = $1 AND l.id = $2"
    ))
    .bind(tenant_id)
    .bind(change_id)
    .fetch_optional(executor)
    .await?;
    row.as_ref().map(ledger_row).transpose()
}
