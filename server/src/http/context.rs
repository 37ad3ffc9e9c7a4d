//! The request context: who acts and for which tenant, worked out once per request by one
//! middleware and read by every handler — REST, server functions, live streams and page
//! renders — from the request's extensions. The one place identity enters a request.

use app::error::ApiError;
use app::model::{DEFAULT_TENANT, RequestContext, TENANT_COOKIE, TENANT_HEADER, check_tenant_name};
use axum::extract::{FromRequestParts, Request};
use axum::http::HeaderMap;
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::HttpError;

/// The header a REST client names the acting person with.
pub const ACTOR_HEADER: &str = "x-agent-os-actor";

/// Who acts when a request names nobody.
pub const DEFAULT_ACTOR: &str = "operator";

/// Reads the context from a request's headers: the tenant from its header, else the
/// console's cookie, else the default; a named tenant must be a valid name.
pub fn context_of(headers: &HeaderMap) -> Result<RequestContext, ApiError> {
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    let tenant = match header(TENANT_HEADER).map(str::trim) {
        Some(named) if !named.is_empty() => {
            check_tenant_name(named)
                .map_err(|problem| ApiError::BadRequest(format!("{TENANT_HEADER}: {problem}")))?;
            named.to_owned()
        }
        _ => tenant_cookie(header(axum::http::header::COOKIE.as_str()))
            .unwrap_or(DEFAULT_TENANT)
            .to_owned(),
    };
    let actor = header(ACTOR_HEADER)
        .map(str::trim)
        .filter(|actor| !actor.is_empty() && actor.len() <= 128)
        .unwrap_or(DEFAULT_ACTOR)
        .to_owned();
    Ok(RequestContext { tenant, actor })
}

/// The tenant the console's switcher chose, when the cookie holds a valid name.
fn tenant_cookie(cookie_header: Option<&str>) -> Option<&str> {
    cookie_header?.split(';').find_map(|pair| {
        let (name, value) = pair.trim().split_once('=')?;
        (name == TENANT_COOKIE && check_tenant_name(value).is_ok()).then_some(value)
    })
}

/// Middleware: puts the request's context into its extensions, or answers 400.
pub async fn attach(mut request: Request, next: Next) -> Response {
    match context_of(request.headers()) {
        Ok(context) => {
            request.extensions_mut().insert(context);
            next.run(request).await
        }
        Err(error) => HttpError(error).into_response(),
    }
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
    use crate::http::header_map as headers;

    #[test]
    fn the_tenant_comes_from_the_header_then_the_cookie_then_the_default() {
        let of = |pairs: &[(&'static str, &str)]| context_of(&headers(pairs)).map(|c| c.tenant);
        assert_eq!(of(&[]), Ok("default".to_owned()));
        assert_eq!(
            of(&[("cookie", "a=b; agent_os_tenant=acme")]),
            Ok("acme".to_owned())
        );
        assert_eq!(
            of(&[(TENANT_HEADER, "ops"), ("cookie", "agent_os_tenant=acme")]),
            Ok("ops".to_owned())
        );
        // A cookie with a bad or empty name, or another cookie, is ignored; a header
        // with a bad name is refused.
        for cookie in [
            "agent_os_tenant=a/b",
            "agent_os_tenant=",
            "agent_os_tenantx=nope",
        ] {
            assert_eq!(
                of(&[("cookie", cookie)]),
                Ok("default".to_owned()),
                "{cookie}"
            );
        }
        assert_eq!(of(&[(TENANT_HEADER, "")]), Ok("default".to_owned()));
        assert!(matches!(
            of(&[(TENANT_HEADER, "../etc")]),
            Err(ApiError::BadRequest(message)) if message.contains(TENANT_HEADER)
        ));
    }

    #[test]
    fn the_actor_comes_from_its_header_or_is_the_operator() {
        let of = |pairs: &[(&'static str, &str)]| context_of(&headers(pairs)).map(|c| c.actor);
        assert_eq!(of(&[]), Ok(DEFAULT_ACTOR.to_owned()));
        assert_eq!(of(&[(ACTOR_HEADER, "ada")]), Ok("ada".to_owned()));
        assert_eq!(of(&[(ACTOR_HEADER, "  ")]), Ok(DEFAULT_ACTOR.to_owned()));
    }
}
