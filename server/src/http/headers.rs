//! Security headers on every response: a Content-Security-Policy that runs only the
//! app's own scripts (inline ones by a per-request nonce, which the page's scripts bear),
//! never lets another site frame the console, fetches nothing from elsewhere but the media
//! the operator chose to load, plus
//! `nosniff` and a same-origin referrer.

use std::sync::Arc;

use app::app::ScriptNonce;
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;

use crate::auth::secret::random_hex;

/// The policy for a response whose inline scripts bear `nonce`. Styles may be inline
/// (panes and windowed lists size themselves with `style`). Images and media may come
/// from web addresses, because the operator may choose to load an agent's; the console
/// creates such an element only after that choice (`components::remote_media`), and
/// nothing else here calls out.
pub fn content_security_policy(nonce: &str) -> String {
    format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self' 'unsafe-inline'; img-src 'self' data: blob: https: http:; \
         media-src 'self' https: http:; connect-src 'self'; \
         font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
         frame-ancestors 'none'"
    )
}

/// Middleware: a fresh nonce for the page to use, and the headers on the way out.
pub async fn secure(mut request: Request, next: Next) -> Response {
    let nonce: Arc<str> = Arc::from(random_hex(16));
    request.extensions_mut().insert(ScriptNonce(nonce.clone()));
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    if let Ok(policy) = HeaderValue::from_str(&content_security_policy(&nonce)) {
        headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}
