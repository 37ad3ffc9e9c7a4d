//! Schedules benchmark: N schedules (1,000) all due in the same minute, on a release
//! `agent-os serve` with SQLite and, with `--db`, PostgreSQL. Each fire is a real run in a
//! real thread against a fast AG-UI agent on loopback. Prints how late the fires were
//! decided and how late their jobs started (p50, p99, max, after the scheduled instant),
//! how long until every run had ended, and how many instants fired more than once (must
//! be 0). Figures in docs/figures.md.
//!
//! cargo build --release -p server --example schedules_due --bin agent-os && \
//!   target/release/examples/schedules_due [--schedules 1000] [--db postgres://…]

#![allow(clippy::unwrap_used)]

mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::routing::post;
use futures_util::StreamExt;
use serde_json::{Value, json};

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A fast AG-UI agent: one short message per run.
async fn quick(body: Bytes) -> axum::response::Response {
    let input: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let run = input["runId"].as_str().unwrap_or("run").to_owned();
    let thread = input["threadId"].as_str().unwrap_or("thread").to_owned();
    let frames = [
        json!({"type": "RUN_STARTED", "threadId": thread, "runId": run}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": format!("m-{run}"), "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": format!("m-{run}"), "delta": "done"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": format!("m-{run}")}),
        json!({"type": "RUN_FINISHED", "threadId": thread, "runId": run}),
    ];
    let body: String = frames
        .iter()
        .map(|frame| format!("data: {frame}\n\n"))
        .collect();
    axum::response::Response::builder()
        .header("content-type", "text/event-stream")
        .body(Body::from(body))
        .unwrap()
}

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

struct Figures {
    decided: Vec<f64>,
    started: Vec<f64>,
    settled_s: f64,
    twice: usize,
    fired: usize,
    failed: usize,
}

async fn measure(server: &common::Server, count: usize) -> Figures {
    let client = &server.client;
    // Due at the first minute boundary at least 40 s away: time to make every schedule.
    let minute = (now_ms() / 60_000 + 1) * 60_000;
    let slot = if minute - now_ms() < 40_000 {
        minute + 60_000
    } else {
        minute
    };
    let at = chrono::DateTime::from_timestamp_millis(slot).unwrap();
    let expression = at.format("%M %H * * *").to_string();
    let expression = expression.as_str();
    let ids: Vec<String> = futures_util::stream::iter(0..count)
        .map(|n| async move {
            let response = client
                .post(server.url("/api/v1/schedules"))
                .json(
                    &json!({"name": format!("due {n}"), "agent": "quick", "prompt": "go",
                              "when": {"kind": "cron", "expression": expression},
                              "timezone": "UTC", "overlap": "allow"}),
                )
                .send()
                .await
                .unwrap();
            assert_eq!(response.status().as_u16(), 201);
            response.json::<Value>().await.unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .buffer_unordered(16)
        .collect()
        .await;
    let wait = u64::try_from(slot - now_ms()).unwrap_or(0);
    println!(
        "  {count} schedules made; due in {:.1} s",
        wait as f64 / 1000.0
    );
    tokio::time::sleep(Duration::from_millis(wait)).await;
    let began = Instant::now();
    // Until every fire's job has ended.
    loop {
        let (_, counts) = jobs_page(server, "", 0, 1).await;
        let ended = counts["completed"].as_u64().unwrap_or(0)
            + counts["failed"].as_u64().unwrap_or(0)
            + counts["cancelled"].as_u64().unwrap_or(0);
        if ended as usize >= count {
            break;
        }
        assert!(
            began.elapsed() < Duration::from_secs(600),
            "the fires did not end: {counts}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let settled_s = began.elapsed().as_secs_f64();
    let mut jobs: Vec<Value> = Vec::new();
    let mut offset = 0;
    loop {
        let (page, _) = jobs_page(server, "schedule.fire", offset, 500).await;
        let page_jobs = page["jobs"].as_array().unwrap().clone();
        jobs.extend(page_jobs);
        match page["next_offset"].as_u64() {
            Some(next) => offset = next,
            None => break,
        }
    }
    // Each instant of each schedule: its jobs and the runs they started.
    let mut per_instant: HashMap<(String, i64), Vec<Option<String>>> = HashMap::new();
    for job in &jobs {
        let schedule = job["payload"]["schedule_id"].as_str().unwrap().to_owned();
        let instant = job["payload"]["slot_ms"].as_i64().unwrap();
        per_instant
            .entry((schedule, instant))
            .or_default()
            .push(job["result"]["run_id"].as_str().map(str::to_owned));
    }
    let twice = per_instant.values().filter(|runs| runs.len() > 1).count();
    let failed = jobs
        .iter()
        .filter(|job| job["state"] != "completed")
        .count();
    let details: Vec<Value> = futures_util::stream::iter(ids.iter())
        .map(|id| async move {
            client
                .get(server.url(&format!("/api/v1/schedules/{id}")))
                .send()
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap()
        })
        .buffer_unordered(16)
        .collect()
        .await;
    let mut decided = Vec::new();
    for detail in &details {
        for fire in detail["fires"].as_array().unwrap() {
            if let Some(fired) = fire["fired_at_ms"].as_i64() {
                decided.push((fired - fire["slot_ms"].as_i64().unwrap()) as f64);
            }
        }
    }
    let starts: Vec<Value> = futures_util::stream::iter(jobs.iter())
        .map(|job| async move {
            client
                .get(server.url(&format!("/api/v1/jobs/{}", job["id"].as_str().unwrap())))
                .send()
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap()
        })
        .buffer_unordered(16)
        .collect()
        .await;
    let mut started = Vec::new();
    for detail in &starts {
        if let Some(first) = detail["attempts"].as_array().and_then(|a| a.first()) {
            let slot = detail["job"]["payload"]["slot_ms"].as_i64().unwrap();
            started.push((first["started_at_ms"].as_i64().unwrap() - slot) as f64);
        }
    }
    decided.sort_by(f64::total_cmp);
    started.sort_by(f64::total_cmp);
    Figures {
        fired: per_instant.len(),
        decided,
        started,
        settled_s,
        twice,
        failed,
    }
}

/// A page of the tenant's jobs of `kind` ("" any), and the counts per state.
async fn jobs_page(server: &common::Server, kind: &str, offset: u64, limit: u32) -> (Value, Value) {
    let page: Value = server
        .client
        .get(server.url(&format!(
            "/api/v1/jobs?kind={kind}&offset={offset}&limit={limit}"
        )))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let counts = page["counts"].clone();
    (page, counts)
}

#[tokio::main]
async fn main() {
    let count: usize = arg("--schedules")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let mut backends = vec!["sqlite".to_owned()];
    backends.extend(arg("--db"));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new().route("/agent", post(quick));
    tokio::spawn(async move { axum::serve(listener, app).await });
    let agent = format!("quick=http://{addr}/agent");
    println!(
        "| store | schedules | fired | decided p50 | p99 | max | job started p50 | p99 | max | all runs ended | fired twice | not completed |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for backend in &backends {
        let dir = tempfile::tempdir().unwrap();
        let fresh = match backend.as_str() {
            "sqlite" => None,
            admin => Some(common::FreshDatabase::create(admin).await),
        };
        let db = fresh
            .as_ref()
            .map_or_else(|| "sqlite".to_owned(), |fresh| fresh.url.clone());
        let server = common::start_server(&db, dir.path(), &["--no-demo", "--agent", &agent]).await;
        let figures = measure(&server, count).await;
        drop(server);
        if let Some(fresh) = fresh {
            fresh.drop().await;
        }
        let label = if backend == "sqlite" {
            "SQLite"
        } else {
            "PostgreSQL"
        };
        let ms = |sorted: &[f64], p: f64| format!("{:.0} ms", common::percentile(sorted, p));
        println!(
            "| {label} | {count} | {} | {} | {} | {} | {} | {} | {} | {:.1} s | {} | {} |",
            figures.fired,
            ms(&figures.decided, 0.5),
            ms(&figures.decided, 0.99),
            ms(&figures.decided, 1.0),
            ms(&figures.started, 0.5),
            ms(&figures.started, 0.99),
            ms(&figures.started, 1.0),
            figures.settled_s,
            figures.twice,
            figures.failed,
        );
    }
}
