//! A real `agent-os serve` process on a free loopback port, for tests that talk HTTP to it.

#![allow(dead_code)]

pub mod agent;
pub mod api;
pub mod bridge;
pub mod curator;
pub mod events;
pub mod kanban;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_agent-os");

/// A loopback port free now and never handed out before in this test process: a server
/// restarted on its port leaves it free for a moment, and a test running beside it must
/// not start its own server there (it would fail to bind, and the test would talk to the
/// other one).
pub fn free_port() -> u16 {
    static HANDED_OUT: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    loop {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map(|addr| addr.port())
            .expect("a free loopback port");
        let mut handed_out = HANDED_OUT
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if !handed_out.contains(&port) {
            handed_out.push(port);
            return port;
        }
    }
}

/// `serve` flags with `{port}` replaced by the server's port.
fn serve_args(extra: &[&str], port: u16) -> Vec<String> {
    extra
        .iter()
        .map(|arg| arg.replace("{port}", &port.to_string()))
        .collect()
}

fn owned(env: &[(&str, &str)]) -> Vec<(String, String)> {
    env.iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
}

/// The key every test server's demo agents answer to (`AGENT_OS_DEMO_KEY`).
pub const DEMO_KEY: &str = "demo-key";

/// The owner every test server has, in tenant `default`.
pub const TEST_USER: &str = "tester";
pub const TEST_PASSWORD: &str = "tester-password-1";

pub struct TestServer {
    pub child: Child,
    pub base_url: String,
    pub data_dir: PathBuf,
    pub port: u16,
    pub args: Vec<String>,
    /// Extra environment of this process (not carried over by a restart).
    pub env: Vec<(String, String)>,
    /// An API token of [`TEST_USER`] in tenant `default`, as an owner.
    pub token: String,
}

/// `--data-dir DIR` and, when the server's arguments name one, `--db URL`: the store the
/// `user` and `token` commands work on.
fn store_args(data_dir: &Path, server_args: &[String]) -> Vec<String> {
    let mut args = vec!["--data-dir".to_owned(), data_dir.display().to_string()];
    if let Some(at) = server_args.iter().position(|arg| arg == "--db") {
        args.push("--db".to_owned());
        args.push(server_args[at + 1].clone());
    }
    args
}

/// Runs an `agent-os user …` or `token …` command on a server's store, with
/// [`TEST_PASSWORD`] as the password it may ask for.
pub fn accounts_command(data_dir: &Path, server_args: &[String], args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .args(store_args(data_dir, server_args))
        .env("AGENT_OS_PASSWORD", TEST_PASSWORD)
        .env("RUST_LOG", "error")
        .output()
        .expect("agent-os runs")
}

/// `agent-os user add NAME --tenant T --role R` on a store; a name that exists is left
/// as it is (a restarted server finds its users).
pub fn add_user(data_dir: &Path, server_args: &[String], name: &str, tenant: &str, role: &str) {
    let output = accounts_command(
        data_dir,
        server_args,
        &["user", "add", name, "--tenant", tenant, "--role", role],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() || stderr.contains("exists already"),
        "user add {name} failed: {stderr}"
    );
}

/// `agent-os user grant NAME --tenant T --role R` on a store.
pub fn grant(data_dir: &Path, server_args: &[String], name: &str, tenant: &str, role: &str) {
    let output = accounts_command(
        data_dir,
        server_args,
        &["user", "grant", name, "--tenant", tenant, "--role", role],
    );
    assert!(
        output.status.success(),
        "user grant {name} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A new API token of `user` in `tenant` (with `role`, if given), from `agent-os token create`.
pub fn new_token(
    data_dir: &Path,
    server_args: &[String],
    user: &str,
    tenant: &str,
    role: Option<&str>,
) -> String {
    let mut args = vec!["token", "create", "--user", user, "--tenant", tenant];
    if let Some(role) = role {
        args.extend(["--role", role]);
    }
    let output = accounts_command(data_dir, server_args, &args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "token create failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .split_whitespace()
        .find(|word| word.starts_with("aos_"))
        .unwrap_or_else(|| panic!("no token in {stdout:?}"))
        .to_owned()
}

/// A client that sends `token` on every request.
pub fn client_with(token: &str) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::AUTHORIZATION,
        format!("Bearer {token}").parse().expect("a header value"),
    );
    reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .expect("a client")
}

impl TestServer {
    /// Starts the server with its database under `data_dir` and waits until it answers.
    pub async fn start(data_dir: &Path) -> TestServer {
        Self::start_with(data_dir, &[]).await
    }

    /// Same, with extra `serve` arguments (`{port}` in one is replaced by the port).
    pub async fn start_with(data_dir: &Path, extra: &[&str]) -> TestServer {
        Self::start_on_free_port(data_dir, extra, &[], None).await
    }

    /// Same, with extra environment variables for this process only.
    pub async fn start_with_env(
        data_dir: &Path,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> TestServer {
        Self::start_on_free_port(data_dir, extra, env, None).await
    }

    /// Same, logging everything down to `debug` (unless `env` sets `RUST_LOG`) into
    /// `log`, for tests that read the log for what must not be in it.
    pub async fn start_logging(
        data_dir: &Path,
        extra: &[&str],
        env: &[(&str, &str)],
        log: &Path,
    ) -> TestServer {
        // Later variables win: the caller's RUST_LOG, if any, over this one.
        let mut all = vec![("RUST_LOG", "debug")];
        all.extend_from_slice(env);
        Self::start_on_free_port(data_dir, extra, &all, Some(log)).await
    }

    async fn start_on_free_port(
        data_dir: &Path,
        extra: &[&str],
        env: &[(&str, &str)],
        log: Option<&Path>,
    ) -> TestServer {
        let port = free_port();
        let args = serve_args(extra, port);
        add_user(data_dir, &args, TEST_USER, "default", "owner");
        let token = new_token(data_dir, &args, TEST_USER, "default", None);
        Self::launch(data_dir, port, args, owned(env), log, token).await
    }

    /// A server on a store with no users at all (what a first run finds).
    pub async fn start_without_users(data_dir: &Path, log: &Path) -> TestServer {
        Self::launch(
            data_dir,
            free_port(),
            Vec::new(),
            Vec::new(),
            Some(log),
            String::new(),
        )
        .await
    }

    async fn launch(
        data_dir: &Path,
        port: u16,
        args: Vec<String>,
        env: Vec<(String, String)>,
        log: Option<&Path>,
        token: String,
    ) -> TestServer {
        let stderr = match log {
            Some(path) => Stdio::from(std::fs::File::create(path).expect("log file")),
            None => Stdio::inherit(),
        };
        let child = Command::new(BIN)
            .args(["serve", "--addr", &format!("127.0.0.1:{port}")])
            .arg("--data-dir")
            .arg(data_dir)
            .args(&args)
            .env("RUST_LOG", "error")
            .env("AGENT_OS_DEMO_DELAY_MS", "0")
            .env("AGENT_OS_DEMO_KEY", DEMO_KEY)
            .envs(env.iter().map(|(name, value)| (name, value)))
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .expect("agent-os starts");
        let mut server = TestServer {
            child,
            base_url: format!("http://127.0.0.1:{port}"),
            data_dir: data_dir.to_owned(),
            port,
            args,
            env,
            token,
        };
        server.wait_until_ready().await;
        server
    }

    /// SIGKILL, no goodbye; then a new process on the same port, data and flags.
    pub async fn kill_and_restart(self) -> TestServer {
        self.relaunch(Vec::new()).await
    }

    /// SIGKILL; then a new process on the same port, data and flags, with `env`.
    async fn relaunch(mut self, env: Vec<(String, String)>) -> TestServer {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let (data_dir, port, args, token) = (
            self.data_dir.clone(),
            self.port,
            std::mem::take(&mut self.args),
            std::mem::take(&mut self.token),
        );
        drop(self);
        Self::launch(&data_dir, port, args, env, None, token).await
    }

    /// SIGKILL; then a new process on the same port and data with other `serve` flags
    /// (`{port}` in one is replaced by the port) and environment: the same server
    /// configured anew.
    pub async fn restart_with(mut self, extra: &[&str], env: &[(&str, &str)]) -> TestServer {
        self.args = serve_args(extra, self.port);
        self.relaunch(owned(env)).await
    }

    /// Waits for the process to exit by itself (at a crash point), then starts a new one
    /// on the same port, data and flags, without this one's extra environment.
    pub async fn restart_after_exit(mut self) -> TestServer {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.child.try_wait().expect("try_wait").is_none() {
            assert!(Instant::now() < deadline, "agent-os did not exit");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.kill_and_restart().await
    }

    async fn wait_until_ready(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        let client = reqwest::Client::new();
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                panic!(
                    "agent-os exited ({status}) before it answered on {}",
                    self.base_url
                );
            }
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

    /// A client acting as [`TEST_USER`], the owner of tenant `default`, by API token.
    pub fn client(&self) -> reqwest::Client {
        client_with(&self.token)
    }

    /// `GET path` as [`TEST_USER`].
    pub async fn get(&self, path: &str) -> reqwest::Result<reqwest::Response> {
        self.client().get(self.url(path)).send().await
    }

    /// A user with `role` in `tenant` (made if new) and a token of theirs there.
    pub fn user_with_token(&self, name: &str, tenant: &str, role: &str) -> String {
        add_user(&self.data_dir, &self.args, name, tenant, role);
        new_token(&self.data_dir, &self.args, name, tenant, None)
    }

    /// Sends SIGINT (what Ctrl-C sends).
    pub fn send_interrupt(&self) {
        let pid = self.child.id().to_string();
        let status = Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -INT {pid} failed");
    }

    /// Sends SIGINT (what Ctrl-C sends) and waits for the process to exit.
    pub fn interrupt(self) -> std::process::ExitStatus {
        self.send_interrupt();
        self.wait_for_exit()
    }

    /// Waits (up to 10 s) for the process to exit.
    pub fn wait_for_exit(mut self) -> std::process::ExitStatus {
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

/// The files (of the directory `place`, or the file `place` itself) in which `needle`
/// occurs, byte for byte: what a test that keeps a secret out of the store or a log
/// expects to be empty.
pub fn files_holding(place: &Path, needle: &str) -> Vec<String> {
    let files: Vec<PathBuf> = if place.is_dir() {
        std::fs::read_dir(place)
            .expect("readable directory")
            .map(|entry| entry.expect("directory entry").path())
            .collect()
    } else {
        vec![place.to_owned()]
    };
    files
        .into_iter()
        .filter(|path| {
            std::fs::read(path)
                .unwrap_or_default()
                .windows(needle.len())
                .any(|window| window == needle.as_bytes())
        })
        .map(|path| path.display().to_string())
        .collect()
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
    call_server_fn_as(&server.client(), server, name, form).await
}

/// [`call_server_fn`] with `client`'s credentials (a session of another user, say).
pub async fn call_server_fn_as(
    client: &reqwest::Client,
    server: &TestServer,
    name: &str,
    form: &[(&str, &str)],
) -> (reqwest::StatusCode, serde_json::Value) {
    let body: String = form
        .iter()
        .map(|(key, value)| format!("{key}={}", urlencode(value)))
        .collect::<Vec<_>>()
        .join("&");
    let response = client
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

/// Percent-encodes a form value.
pub fn urlencode(value: &str) -> String {
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

/// Signs `name` in (with [`TEST_PASSWORD`]) and returns their session cookie, `name=value`.
pub async fn session_cookie(server: &TestServer, name: &str) -> String {
    let response = reqwest::Client::new()
        .post(server.url("/api/v1/auth/login"))
        .json(&serde_json::json!({"username": name, "password": TEST_PASSWORD}))
        .send()
        .await
        .expect("the server answers");
    assert_eq!(response.status(), 200, "{name} could not sign in");
    let set = response.headers()["set-cookie"]
        .to_str()
        .expect("a cookie header")
        .to_owned();
    set.split(';').next().unwrap_or_default().to_owned()
}

/// A client signed in as `name` by a session of its own, as a browser is.
pub async fn session_client(server: &TestServer, name: &str) -> reqwest::Client {
    let cookie = session_cookie(server, name).await;
    reqwest::Client::builder()
        .default_headers(
            [(
                reqwest::header::COOKIE,
                cookie.parse().expect("a header value"),
            )]
            .into_iter()
            .collect(),
        )
        .build()
        .expect("a client")
}

/// POSTs a body over a raw socket and returns the response status. The server may answer
/// (413) and close before the body is all sent, so the response is read while writing.
pub fn raw_post_status(server: &TestServer, path: &str, body: &[u8]) -> u16 {
    let port = server.port;
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let mut reader = stream.try_clone().expect("clone socket");
    let reading = std::thread::spawn(move || {
        let mut response = Vec::new();
        let mut buffer = [0u8; 4096];
        while let Ok(read) = reader.read(&mut buffer) {
            if read == 0 {
                break;
            }
            response.extend_from_slice(&buffer[..read]);
            if response.windows(4).any(|w| w == b"\r\n\r\n") {
                break;
            }
        }
        response
    });
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        server.token,
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
    let response = reading.join().expect("reader");
    let text = String::from_utf8_lossy(&response);
    text.split_whitespace()
        .nth(1)
        .and_then(|status| status.parse().ok())
        .unwrap_or_else(|| panic!("no HTTP status in {text:?}"))
}

/// A pause point a test holds open (`AGENT_OS_PAUSE_AT` with `AGENT_OS_PAUSE_DIR`): the
/// server says when it reached the point, and waits there until released.
pub struct Pause {
    dir: tempfile::TempDir,
    name: &'static str,
}

impl Pause {
    pub fn at(name: &'static str) -> Pause {
        Pause {
            dir: tempfile::tempdir().expect("a directory for the pause"),
            name,
        }
    }

    /// The server's environment that sets the pause.
    pub fn env(&self) -> [(&'static str, String); 2] {
        [
            ("AGENT_OS_PAUSE_AT", self.name.to_owned()),
            ("AGENT_OS_PAUSE_DIR", self.dir.path().display().to_string()),
        ]
    }

    /// Waits until the server is held at the point (20 s at most).
    pub async fn reached(&self) {
        let marker = self.dir.path().join(format!("{}.reached", self.name));
        let deadline = Instant::now() + Duration::from_secs(20);
        while !marker.exists() {
            assert!(
                Instant::now() < deadline,
                "the server never reached pause point {}",
                self.name
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Lets the held request go on.
    pub fn release(&self) {
        std::fs::write(self.dir.path().join(format!("{}.release", self.name)), b"")
            .expect("the release is written");
    }
}

/// `agent-os demo-gateway --ws` on a free loopback port, once it listens: the port and
/// the process.
pub fn ws_demo_gateway() -> (u16, Child) {
    let port = free_port();
    let gateway = Command::new(BIN)
        .args(["demo-gateway", "--ws", "--port", &port.to_string()])
        .stdout(Stdio::null())
        .spawn()
        .expect("the demo gateway starts");
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "the WebSocket gateway did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    (port, gateway)
}
