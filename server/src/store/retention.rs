//! What retention removes from the store: the raw frames of runs that ended (their
//! normalized events stay, so timelines and replays read as before) and background jobs
//! long finished, with their attempts and logs.

use super::StoreError;

#[async_trait::async_trait]
pub trait RetentionStore {
    /// Removes the tenant's raw frames received before `before_ms`, except a running
    /// run's; how many.
    async fn prune_raw_events(&self, tenant_id: &str, before_ms: i64) -> Result<u64, StoreError>;
    /// Removes the tenant's jobs that ended before `before_ms` (with their attempts and
    /// logs); how many.
    async fn prune_jobs(&self, tenant_id: &str, before_ms: i64) -> Result<u64, StoreError>;
}
