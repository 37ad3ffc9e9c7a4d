//! The tenant's feed: which asks and runs changed, and which threads and projects were
//! renamed, in commit order, for the inbox's live stream. Rows are written by the
//! database itself (triggers on `asks`, `runs`, `threads` and `projects`), so no writer
//! can forget one.

use super::{RunRecord, StoreError};

/// What a feed row is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeedSubject {
    Ask,
    Run,
    Thread,
    Project,
    Job,
    Schedule,
    Board,
}

/// One change: `key` is the ask's key, or the run's, thread's, project's, job's,
/// schedule's or board's id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeedEntry {
    pub id: u64,
    pub subject: FeedSubject,
    pub key: String,
}

#[async_trait::async_trait]
pub trait FeedStore: Send + Sync {
    /// The tenant's changes after `after`, oldest first, at most `limit`.
    async fn feed_after(
        &self,
        tenant_id: &str,
        after: u64,
        limit: u32,
    ) -> Result<Vec<FeedEntry>, StoreError>;
    /// The id of the tenant's latest change (0 before the first).
    async fn feed_head(&self, tenant_id: &str) -> Result<u64, StoreError>;
    /// The tenant's runs in progress, oldest first.
    async fn runs_in_progress(&self, tenant_id: &str) -> Result<Vec<RunRecord>, StoreError>;
}
