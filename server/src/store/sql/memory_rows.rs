//! A memory entry and its scope as SQL rows hold them, for every module that reads them.

use app::memory::ScopeKind;
use app::model::memory::MemoryEntry;
use sqlx::Row;
use sqlx::any::AnyRow;

use crate::store::StoreError;
use crate::store::memory::ScopeRef;

pub(super) const ENTRY_COLUMNS: &str =
    "id, scope, scope_id, text, source, author, created_at_ms, updated_at_ms";
pub(super) fn scope_of(row: &AnyRow) -> Result<ScopeRef, StoreError> {
    let kind: String = row.try_get("scope")?;
    Ok(ScopeRef {
        kind: ScopeKind::parse(&kind).map_err(StoreError::Corrupt)?,
        id: row.try_get("scope_id")?,
    })
}

/// The project a scope names, as clients see it (users' ids stay on the server).
pub(super) fn project_of(scope: &ScopeRef) -> Option<String> {
    (scope.kind == ScopeKind::Project).then(|| scope.id.clone())
}

pub(super) fn entry_row(row: &AnyRow) -> Result<(MemoryEntry, ScopeRef), StoreError> {
    let scope = scope_of(row)?;
    Ok((
        MemoryEntry {
            id: row.try_get("id")?,
            scope: scope.kind,
            project_id: project_of(&scope),
            text: row.try_get("text")?,
            source: row.try_get("source")?,
            author: row.try_get("author")?,
            created_at_ms: row.try_get("created_at_ms")?,
            updated_at_ms: row.try_get("updated_at_ms")?,
        },
        scope,
    ))
}
