//! Cache headers: the bundle under its content-hashed name never changes, so browsers keep
//! it for a year without asking; pages are always revalidated, so a new build is seen at
//! once.

use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;

use super::OUTPUT_NAME;

const FOREVER: &str = "public, max-age=31536000, immutable";
const REVALIDATE: &str = "no-cache";

/// Whether `path` names a content-hashed bundle file: `/pkg/agent_os.<hex>.<ext>`.
pub fn is_hashed_asset(path: &str) -> bool {
    let Some(name) = path.strip_prefix("/pkg/") else {
        return false;
    };
    let Some(rest) = name
        .strip_prefix(OUTPUT_NAME)
        .and_then(|rest| rest.strip_prefix('.'))
    else {
        return false;
    };
    let Some((hash, extension)) = rest.split_once('.') else {
        return false;
    };
    hash.len() >= 8
        && hash.bytes().all(|byte| byte.is_ascii_hexdigit())
        && matches!(extension, "js" | "wasm" | "css")
}

pub async fn cache_headers(request: Request, next: Next) -> Response {
    let hashed = is_hashed_asset(request.uri().path());
    let mut response = next.run(request).await;
    let html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/html"));
    let policy = if hashed && response.status().is_success() {
        Some(FOREVER)
    } else if html {
        Some(REVALIDATE)
    } else {
        None
    };
    if let Some(policy) = policy {
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static(policy));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bundle_files_under_a_content_hash_count_as_hashed() {
        assert!(is_hashed_asset("/pkg/agent_os.3f9a2c1b77d04e21.wasm"));
        assert!(is_hashed_asset("/pkg/agent_os.3f9a2c1b77d04e21.css"));
        for path in [
            "/pkg/agent_os.js",
            "/pkg/agent_os_bg.wasm",
            "/pkg/agent_os.notahash!.js",
            "/pkg/agent_os.3f9a2c1b.txt",
            "/agent_os.3f9a2c1b77d04e21.js",
            "/pkg/other.3f9a2c1b77d04e21.js",
        ] {
            assert!(!is_hashed_asset(path), "{path}");
        }
    }
}
