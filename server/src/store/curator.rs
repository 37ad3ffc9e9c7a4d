//! What the store keeps for the knowledge curator: when each memory entry was last given
//! to a run, the passes with their reports, and the append-only ledger of the changes
//! made on its proposals — with the undo of one change, done in one transaction.

use app::model::curator::{CuratorChange, CuratorPass};
use app::model::memory::MemoryEntry;

use super::StoreError;

/// A memory entry as the curator reads it: with when a run was last given it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CuratedEntry {
    pub entry: MemoryEntry,
    pub used_at_ms: Option<i64>,
}

/// A note as the curator reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CuratedNote {
    pub id: String,
    pub title: String,
    pub body: String,
}

/// What became of an undo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Undo {
    /// Undone: the ledger row that records it.
    Done(Box<CuratorChange>),
    /// The tenant has no such change.
    Missing,
    /// Why it cannot be undone now, in words.
    Refused(String),
}

#[async_trait::async_trait]
pub trait CuratorStore: Send + Sync {
    /// The tenant's and its projects' memory entries (users' own are theirs alone), in
    /// each scope's order.
    async fn curated_memory(&self, tenant_id: &str) -> Result<Vec<CuratedEntry>, StoreError>;
    /// The tenant's notes, at most `most`, newest edit first.
    async fn curated_notes(
        &self,
        tenant_id: &str,
        most: u32,
    ) -> Result<Vec<CuratedNote>, StoreError>;
    /// Marks the entries as given to a run at `now_ms` (rows already marked within the
    /// hour are left alone, so a busy thread costs no write per run).
    async fn mark_memory_used(
        &self,
        tenant_id: &str,
        ids: &[String],
        now_ms: i64,
    ) -> Result<(), StoreError>;
    /// Whether a run of the tenant is running, or one started after `since_ms`.
    async fn tenant_active_since(&self, tenant_id: &str, since_ms: i64)
    -> Result<bool, StoreError>;
    /// Stores the pass (made, or its report replaced).
    async fn save_pass(&self, tenant_id: &str, pass: &CuratorPass) -> Result<(), StoreError>;
    async fn pass(&self, tenant_id: &str, id: &str) -> Result<Option<CuratorPass>, StoreError>;
    /// The latest passes, newest first.
    async fn passes(&self, tenant_id: &str, most: u32) -> Result<Vec<CuratorPass>, StoreError>;
    /// When the latest pass that was not a dry run started.
    async fn last_pass_at(&self, tenant_id: &str) -> Result<Option<i64>, StoreError>;
    /// The ledger, newest first, each change with its undo once undone.
    async fn ledger(&self, tenant_id: &str, most: u32) -> Result<Vec<CuratorChange>, StoreError>;
    /// Puts the entry back as it was before the change `change_id`, exactly (its id, text,
    /// author, times and place in its scope), and records the undo in the ledger — unless
    /// it was undone already, the entry changed since, or the scope has no room.
    async fn undo_change(
        &self,
        tenant_id: &str,
        change_id: &str,
        actor: &str,
        now_ms: i64,
    ) -> Result<Undo, StoreError>;
}
