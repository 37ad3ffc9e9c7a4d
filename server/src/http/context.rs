//! The request context: who acts and for which tenant, worked out once per request from
//! its session or token by one middleware and read by every handler — REST, server
//! functions, live streams and page renders — from the request's extensions. The one
//! place identity enters a request, and where the operation list's access is enforced.

use app::error::ApiError;
use app::model::{Membership, RequestContext, Role};
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::credentials::identity;
use super::error::HttpError;
use super::operations::{Access, Called, Found, Operations, Verb};
use crate::auth::{Accounts, DemoKey, Identity};

impl From<Identity> for RequestContext {
    fn from(identity: Identity) -> Self {
        RequestContext {
            tenant: identity.tenant,
            role: identity.role,
            user_id: identity.user_id,
            actor: identity.user_name,
            token_id: identity.token_id,
            memberships: identity
                .memberships
                .into_iter()
                .map(|membership| Membership {
                    tenant: membership.tenant_id,
                    role: membership.role,
                })
                .collect(),
        }
    }
}

/// What [`attach`] checks credentials against: the accounts, and the demo agents' key
/// when they are served.
#[derive(Clone)]
pub struct Door {
    pub accounts: Accounts,
    pub demo: Option<DemoKey>,
    /// What is served: the request's operation is found here.
    pub operations: Operations,
}

/// Marks a request the demo key admitted: a peer's call, with a peer's body limit.
#[derive(Clone, Copy, Debug)]
pub struct DemoCall;

/// Middleware: finds the operation the request calls (none: 404, another method: 405),
/// lets a public one through, and the demo agents' with their key; otherwise puts the
/// context of the request's credentials into its extensions when their role may call it.
/// A signed-out browser asking for a page is sent to sign in; anything else answers 401,
/// and a role too small 403.
pub async fn attach(State(door): State<Door>, mut request: Request, next: Next) -> Response {
    let (method, path) = (request.method().clone(), request.uri().path().to_owned());
    let access = match door.operations.find(&method, &path) {
        Found::Operation(operation) => {
            request.extensions_mut().insert(Called(operation));
            operation.access
        }
        Found::OtherMethods(verbs) => return other_methods(&path, &verbs),
        // A page no route names still renders the app's not-found page, with the sidebar
        // of whoever is signed in.
        Found::Nothing if is_page(&method, &path) => Access::Needs(Role::Viewer),
        Found::Nothing => {
            return refusal(
                &path,
                ApiError::NotFound(format!(
                    "nothing is served at {method} {path}; see docs/api.md"
                )),
            );
        }
    };
    let needed = match access {
        Access::Public => return next.run(request).await,
        Access::Demo => {
            return match &door.demo {
                Some(key) if key.admits(request.headers()) => {
                    request.extensions_mut().insert(DemoCall);
                    next.run(request).await
                }
                Some(_) => refusal(
                    &path,
                    ApiError::Unauthorized("the demo agents answer only to the demo key".into()),
                ),
                None => refusal(
                    &path,
                    ApiError::NotFound("the demo agents are not served here (--no-demo)".into()),
                ),
            };
        }
        Access::Needs(role) => role,
    };
    let accounts = &door.accounts;
    let context = match identity(accounts, request.headers()).await {
        Ok(Some(identity)) => RequestContext::from(identity),
        Ok(None) if is_page(&method, &path) => return to_sign_in(request.uri()),
        Ok(None) => {
            return refusal(
                &path,
                ApiError::Unauthorized(
                    "sign in first: no valid session or token came with the request".into(),
                ),
            );
        }
        Err(error) => return refusal(&path, error.0),
    };
    if !context.role.allows(needed) {
        let error = ApiError::Forbidden(format!(
            "your role in {:?} is {}; this needs {needed}",
            context.tenant, context.role
        ));
        if is_page(&method, &path) {
            return not_allowed_page(&error);
        }
        return refusal(&path, error);
    }
    request.extensions_mut().insert(context);
    next.run(request).await
}

/// A refusal in the caller's own error form: a server function's client reads the bare
/// error (`{"kind", "message"}`, as the function itself would have answered), everyone
/// else the API's `{"error": …}`.
pub(super) fn refusal(path: &str, error: ApiError) -> Response {
    if path.starts_with("/fn/") {
        let status =
            StatusCode::from_u16(error.status_code()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, axum::Json(error)).into_response()
    } else {
        HttpError(error).into_response()
    }
}

/// 405: the path is served, for other methods, which `Allow` names.
fn other_methods(path: &str, verbs: &[Verb]) -> Response {
    let allowed: Vec<String> = verbs
        .iter()
        .map(|verb| verb.method().as_str().to_owned())
        .collect();
    let mut response = refusal(
        path,
        ApiError::MethodNotAllowed(format!("{path} takes {}", allowed.join(", "))),
    );
    if let Ok(value) = HeaderValue::from_str(&allowed.join(", ")) {
        response.headers_mut().insert(header::ALLOW, value);
    }
    response
}

/// Whether a request is for a page a browser shows (rather than data or an action): pages
/// send a signed-out browser to the sign-in page instead of answering 401.
pub fn is_page(method: &axum::http::Method, path: &str) -> bool {
    *method == axum::http::Method::GET && !path.starts_with("/api/") && !path.starts_with("/fn/")
}

/// A page the role may not open, said as a page with a way back.
fn not_allowed_page(error: &ApiError) -> Response {
    let message = error
        .to_string()
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;");
    let body = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Not allowed · Agent OS</title>\
         <link rel=\"icon\" href=\"/favicon.svg\"></head><body><main><h1>Not allowed</h1>\
         <p>{message}</p><p><a href=\"/\">Back to the workspace</a></p></main></body></html>"
    );
    (StatusCode::FORBIDDEN, axum::response::Html(body)).into_response()
}

/// 303 to the sign-in page, which brings the browser back to where it was going.
fn to_sign_in(uri: &axum::http::Uri) -> Response {
    let wanted = uri
        .path_and_query()
        .map_or("/", axum::http::uri::PathAndQuery::as_str);
    let location = format!("/login?next={}", encode_component(wanted));
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(value) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

/// Percent-encodes everything but unreserved characters (RFC 3986), for a query value.
pub(super) fn encode_component(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (byte as char).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// The extractor handlers take: the context [`attach`] put on the request.
pub struct Context(pub RequestContext);

impl<S: Send + Sync> FromRequestParts<S> for Context {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, HttpError> {
        parts
            .extensions
            .get::<RequestContext>()
            .cloned()
            .map(Context)
            .ok_or_else(|| {
                HttpError(ApiError::Internal(
                    "the request context was not attached".into(),
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_out_browser_is_sent_to_sign_in_and_back() {
        let uri: axum::http::Uri = "/threads/t1?view=arrivals&x=1".parse().unwrap_or_default();
        let response = to_sign_in(&uri);
        assert_eq!(response.status(), StatusCode::SEE_OTHER);
        assert_eq!(
            response
                .headers()
                .get(header::LOCATION)
                .and_then(|v| v.to_str().ok()),
            Some("/login?next=%2Fthreads%2Ft1%3Fview%3Darrivals%26x%3D1")
        );
    }
}
