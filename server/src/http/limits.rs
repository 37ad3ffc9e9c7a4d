//! The bounds a request meets at the HTTP layer: its body is read whole, within a size and
//! a time, before any handler or server function sees it (413 or 408 in the caller's
//! error form otherwise); a live stream is opened under the stream caps (429).

use std::time::Duration;

use app::error::ApiError;
use app::model::RequestContext;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::context::{DemoCall, refusal};
use super::error::HttpError;
use crate::live::{StreamGate, StreamPermit, StreamRefusal};

/// Request bodies larger than this are refused with 413.
pub const BODY_LIMIT: usize = 1024 * 1024;

/// Bodies of requests anyone may send (signing in, the first owner's setup): a name and a
/// password fit many times over.
pub const PUBLIC_BODY_LIMIT: usize = 16 * 1024;

/// Bodies the demo agents take from the console: a long thread's whole conversation.
pub const DEMO_BODY_LIMIT: usize = 16 * 1024 * 1024;

/// Time a client has to send a whole request body once its headers are in.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// Middleware: reads the body whole, up to `limit` bytes (the declared length is checked
/// first, so an oversized upload is refused before a byte of it is read), within
/// [`BODY_TIMEOUT`]. Runs after the request's credentials are checked, so only a caller
/// who may call the route can make the server hold a full-size body.
pub async fn bound_body(request: Request, next: Next) -> Response {
    let path = request.uri().path().to_owned();
    let limit = if request.extensions().get::<RequestContext>().is_some() {
        BODY_LIMIT
    } else if request.extensions().get::<DemoCall>().is_some() {
        DEMO_BODY_LIMIT
    } else {
        PUBLIC_BODY_LIMIT
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        return too_large(&path, limit);
    }
    if declared == Some(0) || !has_body(&request) {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, limit)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(error)) if is_length_limit(&error) => return too_large(&path, limit),
        Ok(Err(_)) => {
            return refusal(
                &path,
                ApiError::BadRequest("the request body could not be read".into()),
            );
        }
        Err(_) => {
            return refusal(
                &path,
                ApiError::RequestTimeout(format!(
                    "the request body did not arrive within {} s",
                    BODY_TIMEOUT.as_secs()
                )),
            );
        }
    };
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// Whether a request may carry a body: it declares a length or a transfer encoding.
fn has_body(request: &Request) -> bool {
    request.headers().contains_key(header::CONTENT_LENGTH)
        || request.headers().contains_key(header::TRANSFER_ENCODING)
}

fn is_length_limit(error: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = source {
        if current.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = current.source();
    }
    false
}

fn too_large(path: &str, limit: usize) -> Response {
    refusal(
        path,
        ApiError::PayloadTooLarge(format!(
            "the request body is larger than the {} KiB this endpoint takes",
            limit / 1024
        )),
    )
}

/// A permit for one more live stream of the caller, or why not.
fn admit_stream(
    gate: &StreamGate,
    context: &RequestContext,
) -> Result<StreamPermit, StreamRefused> {
    gate.admit(&context.user_id, &context.tenant)
        .map_err(|refused| {
            tracing::warn!(user = %context.actor, tenant = %context.tenant, %refused, "a live stream was refused");
            StreamRefused(refused)
        })
}

/// A live stream past a cap: 429 saying which, with `Retry-After`.
pub struct StreamRefused(StreamRefusal);

impl IntoResponse for StreamRefused {
    fn into_response(self) -> Response {
        let mut response = HttpError(ApiError::TooManyRequests(self.0.to_string())).into_response();
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("10"));
        response
    }
}

/// What opening a live stream takes, read once for every stream: the caller's tenant,
/// where it resumes (`Last-Event-ID`, else `?after=`), a place under the stream caps, and
/// the moment the caller's access ends (signed out, revoked, removed).
pub struct StreamOpening {
    pub tenant: String,
    pub after: u64,
    pub permit: StreamPermit,
    pub access_ends: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
}

impl axum::extract::FromRequestParts<super::state::AppState> for StreamOpening {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &super::state::AppState,
    ) -> Result<Self, Response> {
        let super::context::Context(context) =
            super::context::Context::from_request_parts(parts, state)
                .await
                .map_err(IntoResponse::into_response)?;
        let super::body::Query(query) =
            super::body::Query::<super::body::EventsQuery>::from_request_parts(parts, state)
                .await
                .map_err(IntoResponse::into_response)?;
        let after = super::body::resume_point(&parts.headers, query.after)
            .map_err(IntoResponse::into_response)?;
        let permit = admit_stream(&state.streams, &context).map_err(IntoResponse::into_response)?;
        let access_ends = Box::pin(super::credentials::access_ends(
            state.accounts.clone(),
            parts.headers.clone(),
            context.tenant.clone(),
        ));
        Ok(Self {
            tenant: context.tenant,
            after,
            permit,
            access_ends,
        })
    }
}
