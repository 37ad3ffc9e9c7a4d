//! What the store keeps of projects: groups of threads and notes.

use super::StoreError;

#[async_trait::async_trait]
pub trait ProjectStore: Send + Sync {
    async fn project_exists(&self, tenant_id: &str, project_id: &str) -> Result<bool, StoreError>;
}
