//! What the measuring tools share: a release `agent-os serve` on a throwaway store with an
//! owner's API token, a fresh PostgreSQL database per measurement, percentiles.

// A measuring tool talking to its own processes: a failed request ends the measurement.
#![allow(clippy::unwrap_used, dead_code)]

use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The value at `p` (0..=1) of sorted figures.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(0)
}

pub struct Server {
    child: Child,
    pub base: String,
    /// A client acting as the store's owner, by an API token.
    pub client: reqwest::Client,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

fn bin() -> String {
    std::env::var("AGENT_OS_BIN").unwrap_or_else(|_| "target/release/agent-os".into())
}

/// `agent-os ARGS` on the measurement's store, printing what it says.
pub fn on_store(args: &[&str], db: &str, dir: &std::path::Path) -> String {
    let mut command = Command::new(bin());
    command
        .args(args)
        .arg("--data-dir")
        .arg(dir)
        .env("AGENT_OS_PASSWORD", "load-password-1")
        .env("RUST_LOG", "error");
    if db != "sqlite" {
        command.args(["--db", db]);
    }
    let output = command.output().expect("agent-os runs");
    assert!(
        output.status.success(),
        "agent-os {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// `agent-os serve` with `args` on store `db` ("sqlite" for one in `dir`), acted on as an
/// owner by API token, as a script would; once it answers.
pub async fn start_server(db: &str, dir: &std::path::Path, args: &[&str]) -> Server {
    let port = free_port();
    on_store(
        &[
            "user", "add", "load", "--tenant", "default", "--role", "owner",
        ],
        db,
        dir,
    );
    let issued = on_store(
        &["token", "create", "--user", "load", "--tenant", "default"],
        db,
        dir,
    );
    let token = issued
        .split_whitespace()
        .find(|word| word.starts_with("aos_"))
        .expect("a token")
        .to_owned();
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::AUTHORIZATION,
        format!("Bearer {token}").parse().expect("a header"),
    );
    let client = reqwest::Client::builder()
        .default_headers(headers)
        .pool_max_idle_per_host(512)
        .build()
        .expect("client");
    let mut command = Command::new(bin());
    command
        .args(["serve", "--addr", &format!("127.0.0.1:{port}")])
        .args(args)
        .arg("--data-dir")
        .arg(dir)
        .env("RUST_LOG", "error")
        .stdout(Stdio::null());
    if db != "sqlite" {
        command.args(["--db", db]);
    }
    let child = command
        .spawn()
        .expect("agent-os (build it with cargo build --release -p server)");
    let server = Server {
        child,
        base: format!("http://127.0.0.1:{port}"),
        client,
    };
    for _ in 0..200 {
        if server
            .client
            .get(server.url("/healthz"))
            .send()
            .await
            .is_ok()
        {
            return server;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("agent-os did not start");
}

/// A PostgreSQL database of its own for one measurement, dropped afterwards.
pub struct FreshDatabase {
    admin: String,
    name: String,
    pub url: String,
}

impl FreshDatabase {
    /// A new database on the server `admin` connects to.
    pub async fn create(admin: &str) -> FreshDatabase {
        let name = format!("agent_os_bench_{}", uuid::Uuid::new_v4().simple());
        let mut connection = <sqlx::PgConnection as sqlx::Connection>::connect(admin)
            .await
            .expect("postgres");
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut connection)
            .await
            .expect("create db");
        let server = admin.rsplit_once('/').map_or(admin, |(server, _)| server);
        FreshDatabase {
            url: format!("{server}/{name}"),
            admin: admin.to_owned(),
            name,
        }
    }

    pub async fn drop(self) {
        let mut connection = <sqlx::PgConnection as sqlx::Connection>::connect(&self.admin)
            .await
            .expect("postgres");
        let _ = sqlx::query(&format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            self.name
        ))
        .execute(&mut connection)
        .await;
    }
}
