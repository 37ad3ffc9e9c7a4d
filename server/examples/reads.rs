//! Read throughput: C concurrent clients GET one URL for D seconds against a running
//! server and print requests/s and the latency median and p99. Credentials come from the
//! environment, so the same tool measures a build with and without them.
//!
//! AGENT_OS_TOKEN=aos_… (or AGENT_OS_COOKIE='agent_os_session=…', or AGENT_OS_HEADER='name: value')
//! cargo run --release -p server --example reads -- URL [--clients C] [--seconds D]

// A measuring tool: a failed request ends the measurement.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    args.iter()
        .position(|arg| arg == name)
        .and_then(|at| args.get(at + 1))
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

fn client() -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Ok(token) = std::env::var("AGENT_OS_TOKEN") {
        headers.insert("authorization", format!("Bearer {token}").parse().unwrap());
    }
    if let Ok(cookie) = std::env::var("AGENT_OS_COOKIE") {
        headers.insert("cookie", cookie.parse().unwrap());
    }
    if let Ok(header) = std::env::var("AGENT_OS_HEADER")
        && let Some((name, value)) = header.split_once(':')
    {
        headers.insert(
            reqwest::header::HeaderName::from_bytes(name.trim().as_bytes()).unwrap(),
            value.trim().parse().unwrap(),
        );
    }
    reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .unwrap()
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let url = args
        .get(1)
        .filter(|url| url.starts_with("http"))
        .cloned()
        .expect("usage: reads URL [--clients C] [--seconds D]");
    let clients = arg(&args, "--clients", 8);
    let seconds = arg(&args, "--seconds", 10);
    let client = client();
    let first = client.get(&url).send().await.unwrap();
    assert!(first.status().is_success(), "{url}: {}", first.status());

    let until = Instant::now() + Duration::from_secs(seconds);
    let workers: Vec<_> = (0..clients)
        .map(|_| {
            let (client, url) = (client.clone(), url.clone());
            tokio::spawn(async move {
                let mut took = Vec::new();
                while Instant::now() < until {
                    let started = Instant::now();
                    let response = client.get(&url).send().await.unwrap();
                    assert!(response.status().is_success(), "{}", response.status());
                    response.bytes().await.unwrap();
                    took.push(started.elapsed());
                }
                took
            })
        })
        .collect();
    let mut took = Vec::new();
    for worker in workers {
        took.extend(worker.await.unwrap());
    }
    took.sort();
    let at = |q: f64| took[((took.len() as f64 - 1.0) * q) as usize].as_secs_f64() * 1000.0;
    println!(
        "{} requests in {seconds} s with {clients} clients: {:.0} req/s, median {:.2} ms, p99 {:.2} ms",
        took.len(),
        took.len() as f64 / seconds as f64,
        at(0.5),
        at(0.99)
    );
}
