//! Durable storage: the `Store` trait the services use, and its SQLite implementation.

pub mod sqlite;

use app::model::ThreadSummary;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    #[error("migration failed: {0}")]
    Migration(#[from] sqlx::migrate::MigrateError),
}

/// Every method takes the tenant: no query reads across tenants.
#[async_trait::async_trait]
pub trait Store: Send + Sync + 'static {
    /// Threads of the tenant, newest first.
    async fn list_threads(&self, tenant_id: &str) -> Result<Vec<ThreadSummary>, StoreError>;
    /// Creates a thread titled after its position ("Thread 3").
    async fn create_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
        created_at_ms: i64,
    ) -> Result<ThreadSummary, StoreError>;
    async fn get_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Option<ThreadSummary>, StoreError>;
}
