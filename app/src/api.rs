//! Server functions: each one resolves the tenant, calls the workspace service and maps
//! its error to an HTTP status. No business logic lives here.

use leptos::prelude::*;

use crate::error::ApiError;
use crate::model::ThreadSummary;

/// The server-side half: the service trait the server implements and provides by context.
#[cfg(feature = "ssr")]
pub mod service {
    use std::sync::Arc;

    use leptos::prelude::*;

    use crate::error::ApiError;
    use crate::model::ThreadSummary;

    /// Everything the UI and the REST API may ask of the workspace.
    #[async_trait::async_trait]
    pub trait WorkspaceService: Send + Sync + 'static {
        async fn list_threads(&self, tenant_id: &str) -> Result<Vec<ThreadSummary>, ApiError>;
        async fn create_thread(&self, tenant_id: &str) -> Result<ThreadSummary, ApiError>;
        async fn get_thread(
            &self,
            tenant_id: &str,
            thread_id: &str,
        ) -> Result<ThreadSummary, ApiError>;
    }

    /// The handle placed in Leptos context for server functions.
    #[derive(Clone)]
    pub struct Workspace(pub Arc<dyn WorkspaceService>);

    pub fn workspace() -> Result<Arc<dyn WorkspaceService>, ApiError> {
        use_context::<Workspace>()
            .map(|w| w.0)
            .ok_or_else(|| ApiError::Internal("the workspace service is not provided".into()))
    }

    /// Sets the response status from the error, so clients see 404 rather than a bare 500.
    pub fn with_status<T>(result: Result<T, ApiError>) -> Result<T, ApiError> {
        if let Err(error) = &result {
            set_response_status(error);
        }
        result
    }

    pub fn set_response_status(error: &ApiError) {
        if let Some(response) = use_context::<leptos_axum::ResponseOptions>()
            && let Ok(status) = http::StatusCode::from_u16(error.status_code())
        {
            response.set_status(status);
        }
    }

    /// The tenant of the current request.
    pub fn tenant() -> &'static str {
        crate::model::DEFAULT_TENANT
    }
}

#[server(prefix = "/fn", endpoint = "list_threads")]
pub async fn list_threads() -> Result<Vec<ThreadSummary>, ApiError> {
    use service::*;
    with_status(workspace()?.list_threads(tenant()).await)
}

#[server(prefix = "/fn", endpoint = "create_thread")]
pub async fn create_thread() -> Result<ThreadSummary, ApiError> {
    use service::*;
    with_status(workspace()?.create_thread(tenant()).await)
}

#[server(prefix = "/fn", endpoint = "get_thread")]
pub async fn get_thread(thread_id: String) -> Result<ThreadSummary, ApiError> {
    use service::*;
    with_status(workspace()?.get_thread(tenant(), &thread_id).await)
}
