//! Memory as clients see it: a scope's entries with what they use of its limit, batches of
//! operations, and the review queue of what agents propose.

use serde::{Deserialize, Serialize};

use crate::memory::{Operation, ScopeKind};

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryEntry {
    pub id: String,
    pub scope: ScopeKind,
    /// The project of a project entry; none for the tenant's and a user's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    pub text: String,
    /// `operator` or `agent`.
    pub source: String,
    /// Who wrote it: the operator, or the agent (with its run and who approved it).
    pub author: String,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

/// One scope's entries, in order, and how full it is.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryScope {
    pub scope: ScopeKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    pub entries: Vec<MemoryEntry>,
    /// Characters used, separators included, and the most the scope holds.
    pub used: usize,
    pub limit: usize,
}

impl MemoryScope {
    /// Only the entries whose text contains `q` (any case); how full the scope is stays
    /// what it is. Everything when `q` is blank.
    pub fn matching(mut self, q: &str) -> Self {
        let q = q.trim().to_lowercase();
        if !q.is_empty() {
            self.entries
                .retain(|entry| entry.text.to_lowercase().contains(&q));
        }
        self
    }
}

/// A batch of operations on one scope (`POST /api/v1/memory`).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryBatch {
    pub scope: ScopeKind,
    #[serde(default)]
    pub project_id: Option<String>,
    pub operations: Vec<Operation>,
}

/// A changed entry's text (`PATCH /api/v1/memory/{id}`).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryEdit {
    pub text: String,
}

/// What an agent proposed, waiting for an operator or decided.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryProposal {
    pub id: String,
    pub scope: ScopeKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    pub operations: Vec<Operation>,
    /// The agent and run that proposed it.
    pub proposed_by: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    pub created_at_ms: i64,
    /// `pending`, `accepted` or `rejected`.
    pub state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reviewed_by: Option<String>,
    /// Why an accepted proposal could not apply (memory changed meanwhile), if so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// The curator's pass that proposed it, if the curator did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_id: Option<String>,
    /// Why it was proposed, when the proposer said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A tenant's memory settings.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemorySettings {
    /// Apply what agents propose without review.
    #[serde(default)]
    pub auto_accept: bool,
}

/// What an agent proposes through the API (`POST /api/v1/memory/proposals`): queued for
/// review like a proposal made through the console's own tool.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewProposal {
    pub scope: ScopeKind,
    #[serde(default)]
    pub project_id: Option<String>,
    pub operations: Vec<Operation>,
    /// The agent, in a few words; recorded with who relayed it.
    pub proposed_by: String,
    #[serde(default)]
    pub run_id: Option<String>,
}

/// What became of a proposal: queued for review, or applied at once (the tenant accepts
/// agents' memory automatically).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum ProposalOutcome {
    Queued { proposal: MemoryProposal },
    Applied { memory: MemoryScope },
}
