//! What the JSON handlers share: reading a body as its type, naming what is wrong with it,
//! and where a live stream resumes.

use app::error::ApiError;
use axum::body::Bytes;
use axum::http::HeaderMap;
use serde::Deserialize;

use super::error::HttpError;

/// Parses a JSON body, naming what is wrong with it.
pub fn parse_body<T: serde::de::DeserializeOwned>(body: &Bytes) -> Result<T, HttpError> {
    serde_json::from_slice(body).map_err(|error| {
        HttpError(ApiError::BadRequest(format!(
            "request body is not valid: {error}"
        )))
    })
}

/// `?after=N`: the sequence a live stream resumes after.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct EventsQuery {
    /// The last sequence the client has; the stream sends what follows it.
    pub after: Option<u64>,
}

/// Where a live stream resumes: after the `Last-Event-ID` the browser sends on
/// reconnecting, else after `?after=`, else from the start.
pub fn resume_point(headers: &HeaderMap, after: Option<u64>) -> Result<u64, HttpError> {
    let last_event_id = match headers.get("last-event-id") {
        Some(value) => Some(
            value
                .to_str()
                .ok()
                .and_then(|text| text.trim().parse::<u64>().ok())
                .ok_or_else(|| {
                    HttpError(ApiError::BadRequest(
                        "Last-Event-ID must be a sequence number".into(),
                    ))
                })?,
        ),
        None => None,
    };
    Ok(last_event_id.or(after).unwrap_or(0))
}

/// A query string read as `T`; one that does not read answers 400 in the API's error
/// form (axum's own rejection is plain text).
pub struct Query<T>(pub T);

impl<T, S> axum::extract::FromRequestParts<S> for Query<T>
where
    T: serde::de::DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = HttpError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, HttpError> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Query(query)| Query(query))
            .map_err(|rejection| {
                HttpError(ApiError::BadRequest(format!(
                    "the query is not valid: {}",
                    rejection.body_text()
                )))
            })
    }
}

/// The path's parameters read as `T`, answering 400 in the API's error form when they do
/// not read (a version that is not a number, say).
pub struct UrlPath<T>(pub T);

impl<T, S> axum::extract::FromRequestParts<S> for UrlPath<T>
where
    T: serde::de::DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = HttpError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, HttpError> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Path(path)| UrlPath(path))
            .map_err(|rejection| {
                HttpError(ApiError::BadRequest(format!(
                    "the path is not valid: {}",
                    rejection.body_text()
                )))
            })
    }
}
