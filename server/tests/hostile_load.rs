//! What a hostile client cannot make the server do: hold its connections with headers
//! that never end, guess passwords in parallel past the throttle, make it hash passwords
//! for a setup link it does not have, open live streams without end, or bring it down with
//! an oversized body or a handler that panics.

#![allow(clippy::unwrap_used)]

mod common;

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use common::api::Api;
use common::{TEST_PASSWORD, TEST_USER, call_server_fn, client_with};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Connects and sends the start of a request whose headers never end.
async fn half_request(port: u16) -> TcpStream {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    stream
        .write_all(
            format!("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ").as_bytes(),
        )
        .await
        .unwrap();
    stream
}

/// Whether the server closes `stream` within `within`.
async fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    let mut buffer = [0u8; 1024];
    loop {
        match tokio::time::timeout(within, stream.read(&mut buffer)).await {
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => {}
            Err(_) => return false,
        }
    }
}

fn open_descriptors(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count()
}

#[tokio::test]
async fn a_client_that_never_finishes_its_headers_is_cut_off_after_the_header_timeout() {
    let api = Api::start(&["--header-timeout", "1"]).await;
    let mut slow = half_request(api.server.port).await;
    assert!(
        closed_within(&mut slow, Duration::from_secs(10)).await,
        "a connection whose headers never ended was still open after 10 s"
    );
}

#[tokio::test]
async fn a_connection_that_carries_nothing_is_closed_after_the_idle_timeout() {
    let api = Api::start(&["--idle-timeout", "1", "--header-timeout", "30"]).await;
    let mut idle = TcpStream::connect(("127.0.0.1", api.server.port))
        .await
        .unwrap();
    assert!(
        closed_within(&mut idle, Duration::from_secs(10)).await,
        "a silent connection was still open after 10 s"
    );
}

#[tokio::test]
async fn slow_clients_past_the_connection_cap_hold_no_descriptors_and_health_checks_still_answer() {
    let api = Api::start(&[
        "--max-connections",
        "20",
        "--max-streams",
        "10",
        "--header-timeout",
        "2",
    ])
    .await;
    let pid = api.server.child.id();
    let before = open_descriptors(pid);
    let mut slow = Vec::new();
    for _ in 0..200 {
        slow.push(half_request(api.server.port).await);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let during = open_descriptors(pid);
    assert!(
        during <= before + 24,
        "200 slow clients took {} descriptors (cap 20)",
        during - before
    );
    // The slow ones are cut after 2 s, each freeing a place; a health check gets one.
    let health = tokio::time::timeout(Duration::from_secs(20), reqwest::get(api.url("/healthz")))
        .await
        .expect("the health check waited more than 20 s")
        .unwrap();
    assert_eq!(health.status(), 200);
    drop(slow);
}

/// The statuses of `count` POSTs of `body(n)` to `url`, all sent at once.
async fn statuses_at_once(
    client: &reqwest::Client,
    url: String,
    count: usize,
    body: impl Fn(usize) -> Value,
) -> Vec<u16> {
    let sent: Vec<_> = (0..count)
        .map(|n| {
            let request = client.post(&url).json(&body(n));
            tokio::spawn(async move { request.send().await.unwrap().status().as_u16() })
        })
        .collect();
    let mut statuses = Vec::new();
    for each in sent {
        statuses.push(each.await.unwrap());
    }
    statuses
}

/// A client whose requests come from `address` (any of 127/8 reaches the server).
fn client_from(address: [u8; 4]) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(IpAddr::V4(Ipv4Addr::from(address)))
        .build()
        .unwrap()
}

async fn sign_in(client: &reqwest::Client, api: &Api, password: &str) -> u16 {
    client
        .post(api.url("/api/v1/auth/login"))
        .json(&json!({"username": TEST_USER, "password": password}))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test]
async fn thirty_wrong_passwords_at_once_for_one_account_are_counted_before_any_is_checked() {
    let api = Api::start(&[]).await;
    let client = client_from([127, 0, 0, 3]);
    let statuses = statuses_at_once(
        &client,
        api.url("/api/v1/auth/login"),
        30,
        |n| json!({"username": TEST_USER, "password": format!("guess-{n}")}),
    )
    .await;
    let checked = statuses.iter().filter(|status| **status == 401).count();
    let throttled = statuses.iter().filter(|status| **status == 429).count();
    assert_eq!((checked, throttled), (5, 25), "{statuses:?}");
}

#[tokio::test]
async fn five_wrong_passwords_from_one_address_do_not_lock_the_right_password_out_from_another() {
    let api = Api::start(&[]).await;
    let guesser = client_from([127, 0, 0, 4]);
    for n in 0..5 {
        assert_eq!(sign_in(&guesser, &api, &format!("guess-{n}")).await, 401);
    }
    assert_eq!(sign_in(&guesser, &api, TEST_PASSWORD).await, 429);
    let owner = client_from([127, 0, 0, 5]);
    assert_eq!(sign_in(&owner, &api, TEST_PASSWORD).await, 200);
}

#[tokio::test]
async fn wrong_passwords_sent_at_once_to_reveal_a_secret_are_counted_before_any_is_checked() {
    let api = Api::start(&[]).await;
    let (status, entry) = api
        .post(
            "/api/v1/passvault",
            json!({"name": "deploy key", "env_var": "DEPLOY_KEY", "value": "s3cret-value"}),
        )
        .await;
    assert_eq!(status, 201, "{entry}");
    let id = entry["id"].as_str().unwrap().to_owned();
    let statuses = statuses_at_once(
        &api.client,
        api.url(&format!("/api/v1/passvault/{id}/reveal")),
        20,
        |n| json!({"password": format!("guess-{n}")}),
    )
    .await;
    let checked = statuses.iter().filter(|status| **status == 403).count();
    let throttled = statuses.iter().filter(|status| **status == 429).count();
    assert_eq!((checked, throttled), (5, 15), "{statuses:?}");
}

#[tokio::test]
async fn a_setup_with_a_wrong_token_is_refused_before_its_password_is_looked_at() {
    let api = Api::start(&[]).await;
    // A password no hash would be made of (too long), behind a token that is wrong: the
    // token is what is refused, so nothing about the password was read first.
    let response = reqwest::Client::new()
        .post(api.url("/api/v1/auth/setup"))
        .json(&json!({"token": "0".repeat(64), "username": "mallory", "password": "x".repeat(2000), "tenant": "evil"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    // And a flood of them is answered without a hash: none is told the server is busy.
    let floods: Vec<_> = (0..80)
        .map(|n| {
            let url = api.url("/api/v1/auth/setup");
            tokio::spawn(async move {
                reqwest::Client::new()
                    .post(url)
                    .json(&json!({"token": format!("{n:064}"), "username": "mallory",
                                  "password": "a long enough password", "tenant": "evil"}))
                    .send()
                    .await
                    .unwrap()
                    .status()
                    .as_u16()
            })
        })
        .collect();
    for flood in floods {
        assert_eq!(flood.await.unwrap(), 403);
    }
}

/// Opens the inbox stream with `client` and returns its response (kept open while held).
async fn inbox_stream(client: &reqwest::Client, api: &Api) -> reqwest::Response {
    client
        .get(api.url("/api/v1/inbox/events"))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_user_past_the_stream_cap_is_refused_with_429_and_a_closed_stream_frees_its_place() {
    let api = Api::start(&["--max-streams-per-user", "3"]).await;
    let mut open = Vec::new();
    for _ in 0..3 {
        let stream = inbox_stream(&api.client, &api).await;
        assert_eq!(stream.status(), 200);
        open.push(stream);
    }
    let refused = inbox_stream(&api.client, &api).await;
    assert_eq!(refused.status(), 429);
    assert!(refused.headers().contains_key("retry-after"));
    let said: Value = refused.json().await.unwrap();
    assert!(
        said["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the most one user may"),
        "{said}"
    );
    // Another user of the tenant has places of their own.
    let other = client_with(&api.server.user_with_token("vic", "default", "viewer"));
    assert_eq!(inbox_stream(&other, &api).await.status(), 200);
    drop(open.pop());
    let mut freed = false;
    for _ in 0..50 {
        let again = inbox_stream(&api.client, &api).await;
        if again.status() == 200 {
            freed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(freed, "a closed stream never freed its place");
}

/// Uploads `size` bytes of form to `path` over a raw socket, declared by length or sent
/// in chunks, and returns the response's head and body as far as read. The server may
/// answer and close before the upload is done, so the answer is read while writing.
async fn upload(api: &Api, path: &str, size: usize, chunked: bool) -> String {
    let port = api.server.port;
    let stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let framing = if chunked {
        "Transfer-Encoding: chunked".to_owned()
    } else {
        format!("Content-Length: {size}")
    };
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nAccept: application/json\r\n\
         Connection: close\r\n{framing}\r\n\r\n",
        api.server.token
    );
    let (mut reader, mut writer) = stream.into_split();
    let sending = tokio::spawn(async move {
        if writer.write_all(head.as_bytes()).await.is_err() {
            return;
        }
        let chunk = vec![b'a'; 64 * 1024];
        for _ in 0..size.div_ceil(chunk.len()) {
            let framed = if chunked {
                [
                    format!("{:x}\r\n", chunk.len()).into_bytes(),
                    chunk.clone(),
                    b"\r\n".to_vec(),
                ]
                .concat()
            } else {
                chunk.clone()
            };
            if writer.write_all(&framed).await.is_err() {
                return;
            }
        }
        if chunked {
            let _ = writer.write_all(b"0\r\n\r\n").await;
        }
    });
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match reader.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(read) => answer.extend_from_slice(&buffer[..read]),
        }
    }
    sending.abort();
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn a_two_megabyte_server_function_body_answers_413_not_500() {
    let api = Api::start(&[]).await;
    for (function, chunked) in [
        ("search_threads", false),
        ("create_note", false),
        ("search_threads", true),
    ] {
        let answer = upload(&api, &format!("/fn/{function}"), 2 * 1024 * 1024, chunked).await;
        assert!(answer.starts_with("HTTP/1.1 413"), "{function}: {answer}");
        assert!(answer.contains("payload_too_large"), "{function}: {answer}");
    }
}

#[tokio::test]
async fn a_handler_that_panics_answers_500_and_the_server_goes_on() {
    let api = Api::start_with_env(&[], &[("AGENT_OS_PANIC_AT", "notes.list")]).await;
    let (status, said) = api.get("/api/v1/notes").await;
    assert_eq!(status, 500, "{said}");
    assert!(
        said["error"]["message"]
            .as_str()
            .unwrap()
            .contains("incident"),
        "{said}"
    );
    let (status, said) = call_server_fn(
        &api.server,
        "notes",
        &[("q", ""), ("tag", ""), ("offset", "0")],
    )
    .await;
    assert_eq!(status, 500, "{said}");
    let (status, _) = api.get("/api/v1/threads").await;
    assert_eq!(status, 200, "the server went on");
}

#[tokio::test]
async fn a_search_over_a_note_mixing_dotted_capitals_and_euros_finds_it() {
    let api = Api::start(&[]).await;
    let body = format!("{} İ€ rollout €İ {}", "İ€ ".repeat(100), "€İ ".repeat(100));
    let (status, _) = api
        .post("/api/v1/notes", json!({"title": "Release", "body": body}))
        .await;
    assert_eq!(status, 201);
    let (status, found) = api.get("/api/v1/notes?q=rollout").await;
    assert_eq!(status, 200, "{found}");
    let snippet = found["notes"][0]["snippet"].as_str().unwrap();
    assert!(snippet.contains("rollout"), "{snippet}");
}

#[tokio::test]
async fn a_new_sign_in_ends_the_session_the_browser_presented() {
    let api = Api::start(&[]).await;
    let first = common::session_cookie(&api.server, TEST_USER).await;
    let second = reqwest::Client::new()
        .post(api.url("/api/v1/auth/login"))
        .header("cookie", &first)
        .json(&json!({"username": TEST_USER, "password": TEST_PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(second.status(), 200);
    let with_first = reqwest::Client::new()
        .get(api.url("/api/v1/me"))
        .header("cookie", &first)
        .send()
        .await
        .unwrap();
    assert_eq!(
        with_first.status(),
        401,
        "the replaced session still worked"
    );
}

#[tokio::test]
async fn a_new_password_revokes_every_token_of_its_user() {
    let api = Api::start(&[]).await;
    let (status, _) = api.get("/api/v1/me").await;
    assert_eq!(status, 200);
    let output = common::accounts_command(
        &api.server.data_dir,
        &api.server.args,
        &["user", "passwd", TEST_USER],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let (status, _) = api.get("/api/v1/me").await;
    assert_eq!(status, 401, "a token outlived its user's password");
}

#[tokio::test]
async fn a_pin_list_longer_than_the_limit_is_refused_before_any_id_is_looked_up() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let ids: Vec<String> = (0..5_000).map(|n| format!("no-such-note-{n}")).collect();
    let response = api
        .client
        .put(api.url(&format!("/api/v1/threads/{thread}/context")))
        .json(&json!({"notes": ids, "memory": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let said: Value = response.json().await.unwrap();
    let message = said["error"]["message"].as_str().unwrap();
    // The count, not the first id that is not the tenant's.
    assert!(message.contains("at most"), "{message}");
}
