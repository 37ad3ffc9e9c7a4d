//! What a thread's runs are given besides the conversation: the notes and memory entries
//! pinned to the thread and to its project.

use serde::{Deserialize, Serialize};

use crate::memory::ScopeKind;

/// The most notes, and the most memory entries, one thread or project pins.
pub const PINS_MOST: usize = 50;

/// What to pin, in order (`PUT /api/v1/threads/{id}/context`): ids of notes and memory
/// entries. The lists replace what was pinned.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pins {
    #[serde(default)]
    pub notes: Vec<String>,
    #[serde(default)]
    pub memory: Vec<String>,
}

/// A pinned note as it is now: the version the next run is given.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinnedNote {
    pub id: String,
    pub title: String,
    pub version: u32,
}

/// A pinned memory entry as it is now.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinnedMemory {
    pub id: String,
    pub text: String,
    /// The tenant's memory or a project's (a user's own entries are never pinned).
    pub scope: ScopeKind,
}

/// What a thread or a project pins.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pinned {
    pub notes: Vec<PinnedNote>,
    pub memory: Vec<PinnedMemory>,
}

/// What a thread's next run is given: its own pins and its project's.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadContext {
    pub thread_id: String,
    pub pinned: Pinned,
    /// The project the thread is in, by id and name, with what the project pins.
    pub project: Option<ProjectContext>,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectContext {
    pub id: String,
    pub name: String,
    pub pinned: Pinned,
}
