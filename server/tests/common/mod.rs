//! A real `agent-os serve` process on a free loopback port, for tests that talk HTTP to it.

#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_agent-os");

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("a free loopback port")
}

pub struct TestServer {
    pub child: Child,
    pub base_url: String,
    pub data_dir: PathBuf,
}

impl TestServer {
    /// Starts the server with its database under `data_dir` and waits until it answers.
    pub async fn start(data_dir: &Path) -> TestServer {
        let port = free_port();
        let child = Command::new(BIN)
            .args(["serve", "--addr", &format!("127.0.0.1:{port}")])
            .arg("--data-dir")
            .arg(data_dir)
            .env("RUST_LOG", "error")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("agent-os starts");
        let server = TestServer {
            child,
            base_url: format!("http://127.0.0.1:{port}"),
            data_dir: data_dir.to_owned(),
        };
        server.wait_until_ready().await;
        server
    }

    async fn wait_until_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        let client = reqwest::Client::new();
        while Instant::now() < deadline {
            if let Ok(response) = client.get(self.url("/healthz")).send().await
                && response.status().is_success()
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("agent-os did not answer /healthz at {}", self.base_url);
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// Sends SIGINT (what Ctrl-C sends) and waits for the process to exit.
    pub fn interrupt(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let status = Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -INT {pid} failed");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(Instant::now() < deadline, "agent-os ignored SIGINT");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `agent-os` to completion with the given arguments.
pub fn run_to_end(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("RUST_LOG", "error")
        .output()
        .expect("agent-os runs")
}

/// Calls a server function the way the browser does: form-encoded POST, JSON back.
pub async fn call_server_fn(
    server: &TestServer,
    name: &str,
    form: &[(&str, &str)],
) -> (reqwest::StatusCode, serde_json::Value) {
    let body: String = form
        .iter()
        .map(|(key, value)| format!("{key}={}", urlencode(value)))
        .collect::<Vec<_>>()
        .join("&");
    let response = reqwest::Client::new()
        .post(server.url(&format!("/fn/{name}")))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept", "application/json")
        .body(body)
        .send()
        .await
        .expect("server function answers");
    let status = response.status();
    let text = response.text().await.expect("body");
    let json = serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{name} returned non-JSON ({error}): {text}"));
    (status, json)
}

fn urlencode(value: &str) -> String {
    value
        .bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (byte as char).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}
