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

/// An extractor that reads `T` with axum's own and answers a request it cannot read with
/// 400 in the API's error form (axum's rejections are plain text), naming `what`.
macro_rules! read_or_400 {
    ($name:ident, $inner:ident, $what:literal, $doc:literal) => {
        #[doc = $doc]
        pub struct $name<T>(pub T);

        impl<T, S> axum::extract::FromRequestParts<S> for $name<T>
        where
            T: serde::de::DeserializeOwned + Send,
            S: Send + Sync,
        {
            type Rejection = HttpError;

            async fn from_request_parts(
                parts: &mut axum::http::request::Parts,
                state: &S,
            ) -> Result<Self, HttpError> {
                axum::extract::$inner::<T>::from_request_parts(parts, state)
                    .await
                    .map(|axum::extract::$inner(read)| $name(read))
                    .map_err(|rejection| {
                        HttpError(ApiError::BadRequest(format!(
                            concat!("the ", $what, " is not valid: {}"),
                            rejection.body_text()
                        )))
                    })
            }
        }
    };
}

read_or_400!(Query, Query, "query", "The query string read as `T`.");
read_or_400!(
    UrlPath,
    Path,
    "path",
    "The path's parameters read as `T` (a version that is not a number is refused)."
);
