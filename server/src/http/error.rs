//! The one error type HTTP handlers answer with: JSON `{"error": {"kind", "message"}}` and
//! the status its kind names. A store failure is logged in full and answered generically,
//! so no database detail reaches a client.

use app::error::ApiError;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::store::StoreError;

pub struct HttpError(pub ApiError);

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        let status =
            StatusCode::from_u16(self.0.status_code()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, axum::Json(json!({ "error": self.0 }))).into_response()
    }
}

impl From<ApiError> for HttpError {
    fn from(error: ApiError) -> Self {
        HttpError(error)
    }
}

impl From<StoreError> for HttpError {
    fn from(error: StoreError) -> Self {
        HttpError(error.into())
    }
}

/// The answer to a request whose handler panicked: a 500 with an incident id, the panic
/// itself only in the log. The connection and the server go on.
pub fn panicked(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let incident = crate::incident::new_id();
    tracing::error!(panic = crate::incident::panic_text(&*panic), %incident, "a request handler panicked");
    HttpError(ApiError::Internal(format!(
        "the server failed on this request (incident {incident} in the server log)"
    )))
    .into_response()
}

/// An answer for paths under `/api/v1` that name nothing: JSON, not the HTML page.
pub async fn api_not_found(uri: axum::http::Uri) -> HttpError {
    HttpError(ApiError::NotFound(format!(
        "no API route {}; see docs/api.md",
        uri.path()
    )))
}
