//! What a browser on another site, or a name that merely resolves here, cannot make the
//! server do: a request must name an allowed host name, any port (against DNS
//! rebinding); a request that changes state must not come from another site (by
//! `Sec-Fetch-Site`, else `Origin`); and the JSON API reads only bodies declared as JSON,
//! which no plain HTML form can send.

use std::sync::Arc;

use app::error::ApiError;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::HttpError;

/// The host names the server answers to, whatever the port: a rebinding attack names
/// its own domain, so the name is what matters.
#[derive(Clone, Debug)]
pub struct AllowedHosts(Arc<Vec<String>>);

/// The host of a `Host` header (`name:port`, `[::1]:port` or a bare name) as a browser
/// would read it in a URL: lowercased, percent-decoded, IPv4 forms and IDNs normalized.
/// `None` for anything that is not a host.
fn host_name(host: &str) -> Option<String> {
    let url = url::Url::parse(&format!("http://{}/", host.trim())).ok()?;
    if url.path() != "/" || !url.username().is_empty() || url.password().is_some() {
        return None;
    }
    Some(match url.host()? {
        url::Host::Domain(name) => name.to_owned(),
        url::Host::Ipv4(address) => address.to_string(),
        url::Host::Ipv6(address) => address.to_string(),
    })
}

impl AllowedHosts {
    /// The listen address, the loopback names, and `extra` names (a port given with one
    /// is ignored).
    pub fn new(addr: std::net::SocketAddr, extra: &[String]) -> Self {
        let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"]
            .into_iter()
            .map(str::to_owned)
            .chain([addr.ip().to_string()])
            .chain(extra.iter().filter_map(|name| host_name(name)))
            .collect();
        hosts.sort();
        hosts.dedup();
        Self(Arc::new(hosts))
    }

    pub fn allows(&self, host: &str) -> bool {
        host_name(host).is_some_and(|name| self.0.contains(&name))
    }
}

fn header_text<'a>(headers: &'a HeaderMap, name: &header::HeaderName) -> Option<&'a str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

/// Why a request is refused, if it is.
pub fn refusal(
    method: &Method,
    path: &str,
    headers: &HeaderMap,
    hosts: &AllowedHosts,
) -> Option<ApiError> {
    let Some(host) = header_text(headers, &header::HOST) else {
        return Some(ApiError::BadRequest("the request names no Host".into()));
    };
    if !hosts.allows(host) {
        return Some(ApiError::Forbidden(format!(
            "this server does not answer to the host {host:?}; start it with --allow-host for a name it should answer to"
        )));
    }
    if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
        return None;
    }
    if from_another_site(headers, host) {
        return Some(ApiError::Forbidden(
            "a request from another site cannot change anything here".into(),
        ));
    }
    if path.starts_with("/api/") && !declares_json_or_nothing(headers) {
        return Some(ApiError::UnsupportedMediaType(
            "the JSON API reads only bodies sent as Content-Type: application/json".into(),
        ));
    }
    None
}

/// Whether a browser says the request comes from another site: by fetch metadata when it
/// sends it, else by an `Origin` other than the host asked. Clients that are not browsers
/// send neither.
fn from_another_site(headers: &HeaderMap, host: &str) -> bool {
    match header_text(headers, &header::HeaderName::from_static("sec-fetch-site")) {
        Some(site) => !matches!(site, "same-origin" | "none"),
        None => header_text(headers, &header::ORIGIN).is_some_and(|origin| {
            // The page's origin, read as a URL, against the host (and port) it asked.
            let Ok(origin) = url::Url::parse(origin) else {
                return true;
            };
            let Ok(asked) = url::Url::parse(&format!("{}://{host}/", origin.scheme())) else {
                return true;
            };
            origin.origin() != asked.origin() || origin.path() != "/"
        }),
    }
}

/// Whether a write's body is declared as JSON, or there is no body to declare (sign out,
/// Stop, Retry).
fn declares_json_or_nothing(headers: &HeaderMap) -> bool {
    match header_text(headers, &header::CONTENT_TYPE) {
        Some(value) => value
            .split(';')
            .next()
            .is_some_and(|kind| kind.trim().eq_ignore_ascii_case("application/json")),
        None => {
            !headers.contains_key(header::TRANSFER_ENCODING)
                && header_text(headers, &header::CONTENT_LENGTH)
                    .is_none_or(|length| length.trim() == "0")
        }
    }
}

/// Middleware: answers a refused request with its JSON error; passes the rest on.
pub async fn guard(State(hosts): State<AllowedHosts>, request: Request, next: Next) -> Response {
    match refusal(
        request.method(),
        request.uri().path(),
        request.headers(),
        &hosts,
    ) {
        Some(error) => HttpError(error).into_response(),
        None => next.run(request).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::header_map as headers;

    fn hosts() -> AllowedHosts {
        AllowedHosts::new(
            "127.0.0.1:3000".parse().unwrap_or_else(|_| panic!("addr")),
            &["console.example".into(), "proxy.example:443".into()],
        )
    }

    #[test]
    fn only_the_listen_address_loopback_names_and_allowed_hosts_are_answered() {
        let status = |host: &str| {
            refusal(&Method::GET, "/", &headers(&[("host", host)]), &hosts())
                .map(|error| error.status_code())
        };
        for good in [
            "127.0.0.1:3000",
            "127.0.0.1",
            "localhost:3000",
            "LOCALHOST:8080",
            "[::1]:3000",
            "console.example",
            "console.example:3000",
            "proxy.example:443",
        ] {
            assert_eq!(status(good), None, "{good}");
        }
        for bad in [
            "evil.example",
            "evil.example:3000",
            "localhost.evil.example:3000",
            "127.0.0.2:3000",
            "[::2]:3000",
        ] {
            assert_eq!(status(bad), Some(403), "{bad}");
        }
        assert_eq!(
            refusal(&Method::GET, "/", &HeaderMap::new(), &hosts()).map(|e| e.status_code()),
            Some(400)
        );
    }

    #[test]
    fn a_state_change_from_another_site_is_refused() {
        let post = |pairs: &[(&'static str, &str)]| {
            let mut all = vec![
                ("host", "127.0.0.1:3000"),
                ("content-type", "application/json"),
            ];
            all.extend_from_slice(pairs);
            refusal(&Method::POST, "/api/v1/threads", &headers(&all), &hosts())
                .map(|e| e.status_code())
        };
        assert_eq!(post(&[]), None, "a client that is no browser");
        assert_eq!(post(&[("sec-fetch-site", "same-origin")]), None);
        assert_eq!(post(&[("sec-fetch-site", "none")]), None);
        assert_eq!(post(&[("sec-fetch-site", "cross-site")]), Some(403));
        assert_eq!(post(&[("sec-fetch-site", "same-site")]), Some(403));
        assert_eq!(post(&[("origin", "http://127.0.0.1:3000")]), None);
        assert_eq!(post(&[("origin", "http://evil.example")]), Some(403));
        assert_eq!(post(&[("origin", "null")]), Some(403));
        // Reading is not refused for its origin: nothing changes.
        let get = headers(&[("host", "127.0.0.1:3000"), ("sec-fetch-site", "cross-site")]);
        assert_eq!(
            refusal(&Method::GET, "/api/v1/threads", &get, &hosts()),
            None
        );
    }

    #[test]
    fn the_json_api_reads_only_json() {
        let post = |kind: Option<&str>| {
            let mut pairs = vec![("host", "127.0.0.1:3000")];
            if let Some(kind) = kind {
                pairs.push(("content-type", kind));
            }
            refusal(
                &Method::POST,
                "/api/v1/asks/r:a/receipt",
                &headers(&pairs),
                &hosts(),
            )
            .map(|e| e.status_code())
        };
        assert_eq!(post(Some("application/json")), None);
        assert_eq!(post(Some("application/json; charset=utf-8")), None);
        assert_eq!(post(None), None, "no body, nothing to declare");
        let undeclared = headers(&[("host", "127.0.0.1:3000"), ("content-length", "12")]);
        assert_eq!(
            refusal(
                &Method::POST,
                "/api/v1/asks/r:a/receipt",
                &undeclared,
                &hosts()
            )
            .map(|e| e.status_code()),
            Some(415)
        );
        for kind in [
            Some("text/plain"),
            Some("application/x-www-form-urlencoded"),
            Some("multipart/form-data; boundary=x"),
        ] {
            assert_eq!(post(kind), Some(415), "{kind:?}");
        }
        // Server functions read forms; the origin check guards them.
        let form = headers(&[
            ("host", "127.0.0.1:3000"),
            ("content-type", "application/x-www-form-urlencoded"),
        ]);
        assert_eq!(
            refusal(&Method::POST, "/fn/answer_ask", &form, &hosts()),
            None
        );
    }
}
