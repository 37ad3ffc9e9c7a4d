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

impl ApiError {
    /// What the console tells its operator: what happened and what to do, in words. The
    /// wire message (with its ids, for API clients and logs) is kept only where it already
    /// says what to do, without the ids.
    pub fn say(&self) -> String {
        let fixed = match self {
            ApiError::Transport(_) => {
                "The console could not reach the server. Check the connection and try again; \
                 what you typed is still here."
            }
            ApiError::Unauthorized(_) => "Your session has ended. Sign in again to go on.",
            ApiError::Forbidden(message) if message.contains("role") => {
                "Your role in this tenant does not allow this. An owner can change your role."
            }
            ApiError::TooManyRequests(_) => {
                "Too many requests just now. Wait a moment and try again."
            }
            ApiError::RequestTimeout(_) => "The request took too long to arrive. Try again.",
            ApiError::PayloadTooLarge(_) => "That is too large to send. Shorten it and try again.",
            ApiError::UnsupportedMediaType(_) | ApiError::MethodNotAllowed(_) => {
                "The console sent a request the server does not take. Reload the page and try again."
            }
            ApiError::Storage(_) | ApiError::Internal(_) => {
                "Something went wrong on the server. Try again; if it keeps happening, the \
                 server's log says why."
            }
            ApiError::BadRequest(message)
            | ApiError::NotFound(message)
            | ApiError::Conflict(message)
            | ApiError::Forbidden(message) => return sentence(&without_ids(message)),
        };
        fixed.to_owned()
    }
}

/// `run "0b6e…" is waiting` → `this run is waiting`: an id means nothing to a person.
fn without_ids(message: &str) -> String {
    const NOUNS: [&str; 8] = [
        "run",
        "thread",
        "ask",
        "note",
        "project",
        "memory entry",
        "agent",
        "entry",
    ];
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    'scan: while !rest.is_empty() {
        for noun in NOUNS {
            if let Some(after) = rest.strip_prefix(noun).and_then(|r| r.strip_prefix(" \""))
                && let Some(end) = after.find('"')
                && looks_like_id(&after[..end])
                && (out.is_empty() || out.ends_with([' ', '(', ':']))
            {
                out.push_str("this ");
                out.push_str(noun);
                rest = &after[end + 1..];
                continue 'scan;
            }
        }
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        rest = chars.as_str();
    }
    out
}

/// Machine ids: long runs of hex and dashes, or words joined by dashes and digits.
fn looks_like_id(text: &str) -> bool {
    text.len() >= 8 && !text.contains(' ') && text.chars().filter(char::is_ascii_digit).count() >= 2
}

/// Capital first letter (unless the message opens with a name written as code, such as
/// the field `env_var`), full stop at the end.
fn sentence(text: &str) -> String {
    let text = text.trim();
    let first_word = text.split([' ', ':']).next().unwrap_or_default();
    let as_code = !first_word.chars().all(char::is_alphabetic);
    let mut chars = text.chars();
    let mut out: String = match chars.next() {
        Some(first) if !as_code => first.to_uppercase().chain(chars).collect(),
        _ => text.to_owned(),
    };
    if !out.is_empty() && !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    out
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

/// What an action's last outcome says went wrong, in the operator's words; none when it
/// worked or has not run.
pub fn refusal<T>(outcome: &Option<Result<T, ApiError>>) -> Option<String> {
    match outcome {
        Some(Err(error)) => Some(error.say()),
        _ => None,
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
    fn an_operator_is_told_what_happened_and_what_to_do_without_ids_or_transport_detail() {
        let lost = ApiError::Transport(
            "error reaching server to call server function: TypeError: Failed to fetch".into(),
        );
        assert!(
            lost.say()
                .starts_with("The console could not reach the server.")
        );
        assert!(!lost.say().contains("TypeError"));
        let waiting = ApiError::Conflict(
            "run \"0b6e2c1a-55f4-4c8e-9d1e-2f0c3a4b5c6d\" is waiting for answers: answer its \
             asks, or send a new message in their place"
                .into(),
        );
        assert_eq!(
            waiting.say(),
            "This run is waiting for answers: answer its asks, or send a new message in their place."
        );
        let viewer =
            ApiError::Forbidden("your role in \"acme\" is viewer; this needs operator".into());
        assert!(!viewer.say().contains("acme"));
        assert!(viewer.say().contains("An owner can change your role"));
        // A name a person chose is not an id: it stays.
        let named = ApiError::Conflict("name: there is a project named \"Q3 plan\" already".into());
        assert_eq!(
            named.say(),
            "Name: there is a project named \"Q3 plan\" already."
        );
        // A field named as code keeps its spelling.
        let field = ApiError::BadRequest("env_var: \"ACME-KEY\" is not a name".into());
        assert_eq!(field.say(), "env_var: \"ACME-KEY\" is not a name.");
        // Refused for another reason than the role: the reason, as said.
        let password = ApiError::Forbidden("that is not your password".into());
        assert_eq!(password.say(), "That is not your password.");
        let internal = ApiError::Storage("database is locked (code 5) at /var/lib/x".into());
        assert!(!internal.say().contains("/var/lib"));
    }

    #[test]
    fn each_error_kind_maps_to_its_http_status() {
        assert_eq!(ApiError::BadRequest(String::new()).status_code(), 400);
        assert_eq!(ApiError::NotFound(String::new()).status_code(), 404);
        assert_eq!(ApiError::Conflict(String::new()).status_code(), 409);
        assert_eq!(ApiError::Storage(String::new()).status_code(), 500);
    }
}
