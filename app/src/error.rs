//! The error type every server function and REST handler returns.

use serde::{Deserialize, Serialize};

use crate::tagged::adjacently_tagged;

/// What went wrong, worded for the person who sent the request.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case")]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    /// No credentials, or credentials that open nothing: sign in.
    #[error("{0}")]
    Unauthorized(String),
    /// Signed in, but the role held does not allow this.
    #[error("{0}")]
    Forbidden(String),
    /// Too many attempts; try again later.
    #[error("{0}")]
    TooManyRequests(String),
    /// The body is not of the type the endpoint reads (JSON endpoints read only JSON).
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// The body is larger than the endpoint takes.
    #[error("{0}")]
    PayloadTooLarge(String),
    /// The client took too long to send its request.
    #[error("{0}")]
    RequestTimeout(String),
    /// The path is served, not for this method.
    #[error("{0}")]
    MethodNotAllowed(String),
    #[error("storage failed: {0}")]
    Storage(String),
    #[error("internal error: {0}")]
    Internal(String),
    /// The call never reached the service or its answer was lost: network or encoding.
    #[error("{0}")]
    Transport(String),
}

adjacently_tagged!(ApiError, "kind", "message");

impl ApiError {
    /// The HTTP status this error is reported with.
    pub fn status_code(&self) -> u16 {
        match self {
            ApiError::BadRequest(_) => 400,
            ApiError::NotFound(_) => 404,
            ApiError::Conflict(_) => 409,
            ApiError::Unauthorized(_) => 401,
            ApiError::Forbidden(_) => 403,
            ApiError::TooManyRequests(_) => 429,
            ApiError::UnsupportedMediaType(_) => 415,
            ApiError::PayloadTooLarge(_) => 413,
            ApiError::RequestTimeout(_) => 408,
            ApiError::MethodNotAllowed(_) => 405,
            ApiError::Storage(_) | ApiError::Internal(_) | ApiError::Transport(_) => 500,
        }
    }
}

#[cfg(feature = "ui")]
impl leptos::server_fn::error::FromServerFnError for ApiError {
    type Encoder = leptos::server_fn::codec::JsonEncoding;

    fn from_server_fn_error(value: leptos::server_fn::error::ServerFnErrorErr) -> Self {
        use leptos::server_fn::error::ServerFnErrorErr;
        let error = match value {
            ServerFnErrorErr::Args(_) | ServerFnErrorErr::MissingArg(_) => {
                ApiError::BadRequest(value.to_string())
            }
            other => ApiError::Transport(other.to_string()),
        };
        // Argument errors are decided before the service runs; the status must follow.
        #[cfg(feature = "ssr")]
        error.set_response_status();
        error
    }
}

#[cfg(feature = "ssr")]
impl ApiError {
    /// Sets the current server-function response's status from this error, so clients
    /// see 404 rather than a bare 500.
    pub fn set_response_status(&self) {
        use leptos::prelude::use_context;
        if let Some(response) = use_context::<leptos_axum::ResponseOptions>()
            && let Ok(status) = http::StatusCode::from_u16(self.status_code())
        {
            response.set_status(status);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_round_trip_through_their_wire_form() {
        let error = ApiError::NotFound("thread \"t-9\" does not exist".into());
        let wire = serde_json::to_string(&error).unwrap();
        assert_eq!(
            wire,
            r#"{"kind":"not_found","message":"thread \"t-9\" does not exist"}"#
        );
        assert_eq!(serde_json::from_str::<ApiError>(&wire).unwrap(), error);
    }

    #[test]
    fn each_error_kind_maps_to_its_http_status() {
        assert_eq!(ApiError::BadRequest(String::new()).status_code(), 400);
        assert_eq!(ApiError::NotFound(String::new()).status_code(), 404);
        assert_eq!(ApiError::Conflict(String::new()).status_code(), 409);
        assert_eq!(ApiError::Storage(String::new()).status_code(), 500);
    }
}
