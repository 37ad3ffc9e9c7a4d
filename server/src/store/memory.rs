//! What the store keeps of memory: each scope's entries in order, the proposals agents
//! make for review, and the tenant's memory settings. A scope is its kind and an id: ""
//! for the tenant, the project's id, or the user's id.

use app::memory::{Change, Current, ScopeKind};
use app::model::memory::{MemoryEntry, MemoryProposal};

use super::StoreError;

/// A scope of one tenant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeRef {
    pub kind: ScopeKind,
    /// "" for the tenant, else the project's or the user's id.
    pub id: String,
}

/// Who made a change, as entries keep it.
#[derive(Clone, Debug)]
pub struct Writer {
    /// `operator` or `agent`.
    pub source: &'static str,
    pub author: String,
    /// The curator's proposal the change is made on: then each change goes into the
    /// curator's ledger, in the same transaction.
    pub ledger: Option<LedgerMark>,
}

/// The curator's pass and proposal a change is made on.
#[derive(Clone, Debug)]
pub struct LedgerMark {
    pub pass_id: String,
    pub proposal_id: String,
}

#[async_trait::async_trait]
pub trait MemoryStore: Send + Sync {
    /// The scope's entries, oldest first.
    async fn memory_entries(
        &self,
        tenant_id: &str,
        scope: &ScopeRef,
    ) -> Result<Vec<MemoryEntry>, StoreError>;
    /// An entry and the id of its scope.
    async fn memory_entry(
        &self,
        tenant_id: &str,
        id: &str,
    ) -> Result<Option<(MemoryEntry, ScopeRef)>, StoreError>;
    /// Applies `changes`, made against `expected`, in one transaction — unless the scope's
    /// entries are no longer `expected` (another change came first): then nothing is
    /// written and the answer is false.
    async fn apply_memory(
        &self,
        tenant_id: &str,
        scope: &ScopeRef,
        expected: &[Current],
        changes: &[Change],
        writer: &Writer,
        now_ms: i64,
    ) -> Result<bool, StoreError>;
    async fn add_proposal(
        &self,
        tenant_id: &str,
        scope: &ScopeRef,
        proposal: &MemoryProposal,
    ) -> Result<(), StoreError>;
    /// Proposals `reader` may see, newest first: those for the tenant's and projects'
    /// memory, and for the reader's own (another user's memory is theirs alone); only
    /// those in `state` when given.
    async fn proposals(
        &self,
        tenant_id: &str,
        reader: &str,
        state: Option<&str>,
    ) -> Result<Vec<MemoryProposal>, StoreError>;
    async fn proposal(
        &self,
        tenant_id: &str,
        id: &str,
    ) -> Result<Option<(MemoryProposal, ScopeRef)>, StoreError>;
    /// Moves a proposal from state `from` to `to`; false when it was not in `from` (so of
    /// two reviewers, the first wins).
    async fn decide_proposal(
        &self,
        tenant_id: &str,
        id: &str,
        from: &str,
        to: &str,
        reviewed_by: &str,
        outcome: Option<&str>,
    ) -> Result<bool, StoreError>;
    async fn tenant_setting(
        &self,
        tenant_id: &str,
        name: &str,
    ) -> Result<Option<String>, StoreError>;
    async fn set_tenant_setting(
        &self,
        tenant_id: &str,
        name: &str,
        value: &str,
    ) -> Result<(), StoreError>;
}
