//! Load generator: concurrent runs streaming from a fast AG-UI agent through a real
//! `agent-os serve` into SQLite or PostgreSQL, each watched by four SSE subscribers.
//! Prints stored events/s and the delay from upstream send to SSE delivery (p50/p99),
//! next to the same subscribers reading the agent directly (raw loopback pass-through).
//!
//! cargo build --release -p server && \
//!   cargo run --release -p server --example load -- [--db postgres://…] [--events N] [--rate R]

// A measuring tool talking to its own processes: a failed request ends the measurement.
#![allow(clippy::unwrap_used)]

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::routing::post;
use futures_util::StreamExt;
use serde_json::{Value, json};

#[derive(Clone, Copy)]
struct Agent {
    events: usize,
    /// Events per second per run; 0 streams as fast as the socket takes them.
    rate: u64,
}

fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// A fast AG-UI agent: one message of `events` deltas, each carrying its send time.
async fn firehose(State(agent): State<Agent>, body: Bytes) -> axum::response::Response {
    let input: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let run_id = input
        .get("runId")
        .and_then(Value::as_str)
        .unwrap_or("raw")
        .to_owned();
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Bytes>(256);
    tokio::spawn(async move {
        // Subscribers connect right after the run starts: give them a moment.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let frame = |event: Value| Bytes::from(format!("data: {event}\n\n"));
        let _ = tx
            .send(frame(
                json!({"type": "RUN_STARTED", "threadId": "t", "runId": run_id}),
            ))
            .await;
        let _ = tx
            .send(frame(
                json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
            ))
            .await;
        let pause = 1_000_000_000u64
            .checked_div(agent.rate)
            .map(Duration::from_nanos);
        let mut next = tokio::time::Instant::now();
        for _ in 0..agent.events {
            if let Some(pause) = pause {
                next += pause;
                tokio::time::sleep_until(next).await;
            }
            let delta = format!("<{}>", now_ns());
            if tx
                .send(frame(
                    json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": delta}),
                ))
                .await
                .is_err()
            {
                return;
            }
        }
        let _ = tx
            .send(frame(json!({"type": "TEXT_MESSAGE_END", "messageId": "m"})))
            .await;
        let _ = tx
            .send(frame(
                json!({"type": "RUN_FINISHED", "threadId": "t", "runId": run_id}),
            ))
            .await;
    });
    let body = futures_util::stream::poll_fn(move |cx| {
        rx.poll_recv(cx)
            .map(|next| next.map(Ok::<_, std::convert::Infallible>))
    });
    (
        [("content-type", "text/event-stream")],
        Body::from_stream(body),
    )
        .into_response()
}

use axum::response::IntoResponse;

/// Reads an SSE response, returning the delay of every timestamped delta in ms.
async fn measure(response: reqwest::Response) -> Vec<f64> {
    let mut delays = Vec::new();
    let mut body = response.bytes_stream();
    let mut buffer = String::new();
    while let Some(Ok(chunk)) = body.next().await {
        let arrived = now_ns();
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(start) = buffer.find('<') {
            let Some(end) = buffer[start..].find('>') else {
                break;
            };
            if let Ok(sent) = buffer[start + 1..start + end].parse::<u128>() {
                delays.push((arrived.saturating_sub(sent)) as f64 / 1e6);
            }
            buffer.drain(..start + end + 1);
        }
        if buffer.len() > 1 << 20 {
            buffer.clear();
        }
    }
    delays
}

async fn start_server(agent_url: &str, db: &str, dir: &std::path::Path) -> common::Server {
    // One user follows every run four times over: the caps on live streams (32 a user by
    // default) are the server's to keep, not this load's to meet.
    let agent = format!("fire={agent_url}");
    common::start_server(
        db,
        dir,
        &[
            "--no-demo",
            "--agent",
            &agent,
            "--max-streams-per-user",
            "2000",
            "--max-streams-per-tenant",
            "2000",
            "--max-streams",
            "2000",
            "--max-connections",
            "4096",
        ],
    )
    .await
}

struct Figures {
    /// Events the server stored (0 for the raw pass-through).
    events: usize,
    seconds: f64,
    delays: Vec<f64>,
}

async fn through_server(server: &common::Server, runs: usize) -> Figures {
    let client = server.client.clone();
    let mut run_ids = Vec::new();
    let started = Instant::now();
    for _ in 0..runs {
        let thread: Value = client
            .post(format!("{}/api/v1/threads", server.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let thread = thread["thread"]["id"].as_str().unwrap().to_owned();
        let run: Value = client
            .post(format!("{}/api/v1/threads/{thread}/messages", server.base))
            .json(&json!({"text": "go"}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        run_ids.push(run["run"]["id"].as_str().unwrap().to_owned());
    }
    let mut subscribers = Vec::new();
    for run in &run_ids {
        for _ in 0..4 {
            let client = client.clone();
            let url = format!("{}/api/v1/runs/{run}/events", server.base);
            subscribers.push(tokio::spawn(async move {
                measure(client.get(url).send().await.unwrap()).await
            }));
        }
    }
    let mut delays = Vec::new();
    for subscriber in subscribers {
        delays.extend(subscriber.await.unwrap());
    }
    let seconds = started.elapsed().as_secs_f64();
    let mut events = 0;
    for run in &run_ids {
        let body: Value = client
            .get(format!("{}/api/v1/runs/{run}", server.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        events += body["run"]["last_sequence"].as_u64().unwrap_or(0) as usize;
    }
    Figures {
        events,
        seconds,
        delays,
    }
}

async fn raw_pass_through(agent_url: &str, runs: usize) -> Figures {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(512)
        .build()
        .expect("client");
    let started = Instant::now();
    let mut subscribers = Vec::new();
    for run in 0..runs {
        for _ in 0..4 {
            let client = client.clone();
            let url = agent_url.to_owned();
            subscribers.push(tokio::spawn(async move {
                let response = client
                    .post(url)
                    .json(&json!({"threadId": "t", "runId": format!("raw-{run}"), "messages": []}))
                    .send()
                    .await
                    .unwrap();
                measure(response).await
            }));
        }
    }
    let mut delays = Vec::new();
    for subscriber in subscribers {
        delays.extend(subscriber.await.unwrap());
    }
    Figures {
        events: 0,
        seconds: started.elapsed().as_secs_f64(),
        delays,
    }
}

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

#[tokio::main]
async fn main() {
    let events: usize = arg("--events").and_then(|v| v.parse().ok()).unwrap_or(2000);
    let rate: u64 = arg("--rate").and_then(|v| v.parse().ok()).unwrap_or(200);
    let mut backends = vec!["sqlite".to_owned()];
    backends.extend(arg("--db"));
    let run_counts: Vec<usize> = arg("--runs")
        .map(|v| v.split(',').filter_map(|n| n.parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 16, 64]);

    let agent = Agent { events, rate };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr: SocketAddr = listener.local_addr().expect("addr");
    let app = Router::new()
        .route("/agent", post(firehose))
        .with_state(agent);
    tokio::spawn(async move { axum::serve(listener, app).await });
    let agent_url = format!("http://{addr}/agent");

    println!(
        "{events} text deltas per run at {} per run; 4 SSE subscribers per run",
        if rate == 0 {
            "full speed".to_owned()
        } else {
            format!("{rate}/s")
        }
    );
    println!(
        "| store | runs | events stored | events/s stored | p50 delay | p99 delay | raw p50 | raw p99 | added p99 |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for backend in &backends {
        for &runs in &run_counts {
            let dir = tempfile::tempdir().expect("temp dir");
            // A fresh PostgreSQL database per measurement, dropped afterwards.
            let fresh = match backend.as_str() {
                "sqlite" => None,
                admin => Some(common::FreshDatabase::create(admin).await),
            };
            let db = fresh
                .as_ref()
                .map_or_else(|| "sqlite".to_owned(), |fresh| fresh.url.clone());
            let server = start_server(&agent_url, &db, dir.path()).await;
            let bridged = through_server(&server, runs).await;
            drop(server);
            if let Some(fresh) = fresh {
                fresh.drop().await;
            }
            let raw = raw_pass_through(&agent_url, runs).await;
            let mut delays = bridged.delays;
            delays.sort_by(f64::total_cmp);
            let mut raw_delays = raw.delays;
            raw_delays.sort_by(f64::total_cmp);
            let label = if backend == "sqlite" {
                "SQLite"
            } else {
                "PostgreSQL"
            };
            println!(
                "| {label} | {runs} | {} | {:.0} | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms |",
                bridged.events,
                bridged.events as f64 / bridged.seconds,
                common::percentile(&delays, 0.5),
                common::percentile(&delays, 0.99),
                common::percentile(&raw_delays, 0.5),
                common::percentile(&raw_delays, 0.99),
                common::percentile(&delays, 0.99) - common::percentile(&raw_delays, 0.99),
            );
        }
    }
}
