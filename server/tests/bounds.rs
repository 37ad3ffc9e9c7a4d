//! What agents and clients cannot make the server do: wait forever on a silent agent,
//! answer an unknown API path with the HTML page, or hand a client database detail.

#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::api::{Api, errors};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// An HTTP "agent" on loopback that reads each request and then does `behaviour`.
#[derive(Clone, Copy)]
enum Silent {
    /// Accepts the connection and never answers.
    BeforeAnswering,
    /// Answers 200 with one SSE event, then says nothing more and keeps the connection.
    AfterTheFirstEvent,
}

async fn silent_agent(behaviour: Silent) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/agent", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut request = vec![0u8; 64 * 1024];
            let _ = socket.read(&mut request).await;
            if let Silent::AfterTheFirstEvent = behaviour {
                let event = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#;
                let body = format!("data: {event}\n\n");
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                            transfer-encoding: chunked\r\n\r\n";
                let chunk = format!("{:x}\r\n{body}\r\n", body.len());
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(chunk.as_bytes()).await;
            }
            held.push(socket);
        }
    });
    url
}

async fn run_against(agent_url: &str, flags: &[&str]) -> (Api, Value) {
    let agent = format!("silent={agent_url}");
    let mut args = vec!["--agent", agent.as_str(), "--no-demo"];
    args.extend_from_slice(flags);
    let api = Api::start(&args).await;
    let thread = api.thread(Some("silent")).await;
    let run = api.say(&thread, "hello").await;
    let settled = api.settled(&run).await;
    (api, settled)
}

#[tokio::test]
async fn an_agent_that_never_answers_fails_its_run_after_the_first_byte_timeout() {
    let url = silent_agent(Silent::BeforeAnswering).await;
    let started = std::time::Instant::now();
    let (_api, settled) = run_against(&url, &["--agent-first-byte-timeout", "1"]).await;
    assert_eq!(settled["run"]["status"], "failed", "{settled}");
    let failure = errors(&settled["view"]).join("\n");
    assert!(failure.contains("did not answer within 1 s"), "{failure}");
    assert!(started.elapsed() < Duration::from_secs(15));
}

#[tokio::test]
async fn an_agent_that_goes_silent_mid_stream_fails_its_run_after_the_idle_timeout() {
    let url = silent_agent(Silent::AfterTheFirstEvent).await;
    let (_api, settled) = run_against(&url, &["--agent-idle-timeout", "1"]).await;
    assert_eq!(settled["run"]["status"], "failed", "{settled}");
    let notices = settled["view"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|item| item["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(notices.contains("sent nothing for 1 s"), "{settled}");
}

#[tokio::test]
async fn a_timeout_that_is_not_a_positive_number_of_seconds_stops_the_start() {
    let output = common::run_to_end(&[
        "serve",
        "--agent-idle-timeout",
        "0",
        "--addr",
        "127.0.0.1:0",
    ]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--agent-idle-timeout 0"), "{stderr}");
}

#[tokio::test]
async fn an_unknown_api_path_answers_a_json_404_not_the_page() {
    let api = Api::start(&[]).await;
    for path in ["/api/v1/nothing", "/api/v1/threads/x/nothing", "/api/v1"] {
        let response = api.client.get(api.url(path)).send().await.unwrap();
        assert_eq!(response.status(), 404, "{path}");
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("application/json"),
            "{path}"
        );
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["kind"], "not_found", "{path}: {body}");
        assert!(
            body["error"]["message"].as_str().unwrap().contains(path),
            "{body}"
        );
    }
}

#[tokio::test]
async fn a_tenant_header_that_is_not_a_tenant_name_is_refused_everywhere() {
    let api = Api::start(&[]).await;
    for path in ["/api/v1/threads", "/", "/threads"] {
        let response = api
            .client
            .get(api.url(path))
            .header("x-agent-os-tenant", "../other")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{path}");
        let body: Value = response.json().await.unwrap();
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("x-agent-os-tenant"),
            "{body}"
        );
    }
}

#[tokio::test]
async fn pages_and_json_are_compressed_for_clients_that_accept_it_and_event_streams_are_not() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let run = api.say(&thread, "chunks").await;
    api.settled(&run).await;
    for (path, gzip) in [
        (format!("/threads/{thread}"), true),
        (format!("/api/v1/runs/{run}"), true),
        (format!("/api/v1/runs/{run}/events"), false),
    ] {
        let response = api
            .client
            .get(api.url(&path))
            .header("accept-encoding", "gzip, br")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let encoding = response
            .headers()
            .get("content-encoding")
            .map(|value| value.to_str().unwrap().to_owned());
        // Read to the end: a page is rendered as it streams.
        let compressed = response.bytes().await.unwrap();
        if gzip {
            assert!(
                matches!(encoding.as_deref(), Some("gzip" | "br")),
                "{path}: {encoding:?}"
            );
        } else {
            assert_eq!(encoding, None, "{path}");
        }
        // Without Accept-Encoding, nothing is compressed.
        let plain = api.client.get(api.url(&path)).send().await.unwrap();
        assert!(plain.headers().get("content-encoding").is_none(), "{path}");
        let plain = plain.bytes().await.unwrap();
        if gzip {
            assert!(compressed.len() < plain.len(), "{path}");
        }
    }
}

#[tokio::test]
async fn a_long_run_streams_from_any_point_in_order_across_the_stores_pages() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let run = api.say(&thread, "long 1500 0").await;
    let settled = api.settled(&run).await;
    assert_eq!(settled["run"]["status"], "succeeded", "{settled}");
    let last = settled["run"]["last_sequence"].as_u64().unwrap();
    assert!(
        last > 2500,
        "the run must span several pages: {last} events"
    );
    for after in [0, 999, 1000, 1001, 1777, last - 1] {
        let body = api
            .client
            .get(api.url(&format!("/api/v1/runs/{run}/events?after={after}")))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let ids: Vec<u64> = body
            .lines()
            .filter_map(|line| line.strip_prefix("id: "))
            .map(|id| id.parse().unwrap())
            .collect();
        assert_eq!(ids, (after + 1..=last).collect::<Vec<_>>(), "after {after}");
    }
}
