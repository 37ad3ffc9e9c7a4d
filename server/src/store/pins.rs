//! What threads and projects pin: the notes and memory entries their runs are given.

use super::StoreError;

/// Who pins: a thread or a project.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    Thread,
    Project,
}

impl Holder {
    pub fn label(self) -> &'static str {
        match self {
            Holder::Thread => "thread",
            Holder::Project => "project",
        }
    }
}

/// What is pinned: a note or a memory entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pinned {
    Note,
    Memory,
}

impl Pinned {
    pub fn label(self) -> &'static str {
        match self {
            Pinned::Note => "note",
            Pinned::Memory => "memory",
        }
    }
}

#[async_trait::async_trait]
pub trait PinStore: Send + Sync {
    /// The ids of what `holder_id` pins of `kind`, in the order pinned.
    async fn pins(
        &self,
        tenant_id: &str,
        holder: Holder,
        holder_id: &str,
        kind: Pinned,
    ) -> Result<Vec<String>, StoreError>;
    /// Replaces what `holder_id` pins of `kind` with `ids`, in one transaction.
    async fn set_pins(
        &self,
        tenant_id: &str,
        holder: Holder,
        holder_id: &str,
        kind: Pinned,
        ids: &[String],
    ) -> Result<(), StoreError>;
}
