//! The workspace service: what server functions and the REST API call, over the store.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use app::api::service::WorkspaceService;
use app::error::ApiError;
use app::model::ThreadSummary;

use crate::store::{Store, StoreError};

pub struct WorkspaceServiceImpl {
    store: Arc<dyn Store>,
}

impl WorkspaceServiceImpl {
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self { store }
    }
}

#[async_trait::async_trait]
impl WorkspaceService for WorkspaceServiceImpl {
    async fn list_threads(&self, tenant_id: &str) -> Result<Vec<ThreadSummary>, ApiError> {
        Ok(self.store.list_threads(tenant_id).await?)
    }

    async fn create_thread(&self, tenant_id: &str) -> Result<ThreadSummary, ApiError> {
        let id = uuid::Uuid::new_v4().to_string();
        Ok(self.store.create_thread(tenant_id, &id, now_ms()).await?)
    }

    async fn get_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<ThreadSummary, ApiError> {
        self.store
            .get_thread(tenant_id, thread_id)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("thread {thread_id:?} does not exist")))
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        tracing::error!(%error, "store operation failed");
        ApiError::Storage(error.to_string())
    }
}

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
