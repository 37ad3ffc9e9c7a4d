//! What a browser on another site, or a name that only resolves here, cannot do against a
//! real server, and the headers every response carries so that the console's page runs
//! only its own scripts and is never framed.

#![allow(clippy::unwrap_used)]

mod common;

use common::api::Api;
use serde_json::{Value, json};

#[tokio::test]
async fn a_foreign_host_is_refused_everywhere() {
    let api = Api::start(&[]).await;
    for path in ["/", "/api/v1/threads", "/threads/x", "/healthz"] {
        let response = api
            .client
            .get(api.url(path))
            .header("host", "rebound.example")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403, "{path}");
        let body: Value = response.json().await.unwrap();
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("--allow-host"),
            "{body}"
        );
    }
    // The loopback names on the server's port are answered.
    let port = api.server.port;
    let response = api
        .client
        .get(api.url("/api/v1/threads"))
        .header("host", format!("localhost:{port}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn a_host_named_with_allow_host_is_answered() {
    let api = Api::start(&["--allow-host", "console.example"]).await;
    let port = api.server.port;
    let response = api
        .client
        .get(api.url("/api/v1/threads"))
        .header("host", format!("console.example:{port}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn a_page_on_another_site_cannot_answer_an_ask_or_start_a_run() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let run = api.say(&thread, "approve").await;
    api.settled(&run).await;
    let receipt = json!({"channel": "tool-result", "receipt": {
        "toolCallId": "approve-budget", "component": "approval_card", "action": "once",
        "data": {}, "ts": "2026-12-02T20:00:00Z"}});
    let url = api.url(&format!("/api/v1/asks/{run}:approve-budget/receipt"));
    // What a browser sends for a script on evil.example: its origin and fetch metadata.
    for headers in [
        vec![
            ("origin", "http://evil.example"),
            ("sec-fetch-site", "cross-site"),
        ],
        vec![("origin", "http://evil.example")],
        vec![("sec-fetch-site", "same-site")],
    ] {
        let mut request = api.client.post(&url).json(&receipt);
        for (name, value) in &headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 403, "{headers:?}");
    }
    // A plain form (text/plain, the one no-preflight body a page can send) is not JSON.
    let response = api
        .client
        .post(&url)
        .header("content-type", "text/plain")
        .body(receipt.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 415);
    assert_eq!(
        response.json::<Value>().await.unwrap()["error"]["kind"],
        "unsupported_media_type"
    );
    // A server function posted as a form from another site is refused too.
    let response = api
        .client
        .post(api.url("/fn/start_thread"))
        .header("origin", "http://evil.example")
        .header("content-type", "application/x-www-form-urlencoded")
        .body("text=hello")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    // Nothing happened: the ask still waits, and the same receipt from the console works.
    let (_, ask) = api.get(&format!("/api/v1/asks/{run}:approve-budget")).await;
    assert_eq!(ask["ask"]["ask"]["state"]["state"], "pending", "{ask}");
    let port = api.server.port;
    let response = api
        .client
        .post(&url)
        .header("origin", format!("http://127.0.0.1:{port}"))
        .header("sec-fetch-site", "same-origin")
        .json(&receipt)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn every_response_carries_a_script_policy_whose_nonce_the_page_scripts_bear() {
    let api = Api::start(&[]).await;
    let page = api.client.get(api.url("/")).send().await.unwrap();
    let headers = page.headers().clone();
    let policy = headers["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    for part in [
        "default-src 'self'",
        "frame-ancestors 'none'",
        "object-src 'none'",
        "base-uri 'none'",
        "'wasm-unsafe-eval'",
    ] {
        assert!(policy.contains(part), "{policy}");
    }
    let scripts_from = policy
        .split(';')
        .find(|directive| directive.trim().starts_with("script-src"))
        .unwrap();
    assert!(!scripts_from.contains("unsafe-inline"), "{policy}");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(headers["referrer-policy"], "same-origin");
    assert_eq!(headers["x-frame-options"], "DENY");
    let nonce = policy
        .split("'nonce-")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .unwrap()
        .to_owned();
    let html = page.text().await.unwrap();
    let scripts = html.matches("<script").count();
    assert!(scripts >= 2, "{html}");
    assert_eq!(
        html.matches(&format!("nonce=\"{nonce}\"")).count(),
        scripts,
        "every script of the page bears this response's nonce"
    );
    // Each response its own nonce; JSON responses carry the policy too.
    let again = api.client.get(api.url("/")).send().await.unwrap();
    assert_ne!(
        again.headers()["content-security-policy"].to_str().unwrap(),
        policy
    );
    let json = api
        .client
        .get(api.url("/api/v1/threads"))
        .send()
        .await
        .unwrap();
    assert!(json.headers().contains_key("content-security-policy"));
}
