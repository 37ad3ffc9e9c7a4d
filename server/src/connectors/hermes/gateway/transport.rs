//! The two ways to reach a Hermes gateway: a child process spoken to over its stdio, or
//! a WebSocket; each hands its frames to the gateway as lines.

use std::sync::Arc;

use app::protocol::limits::MAX_EVENT_BYTES;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::Command;
use tokio::sync::mpsc;

use super::{HermesGateway, QUEUE};
use crate::connectors::hermes::lines::{Line, read_line_within};
use crate::recorder::Recorder;
use crate::store::Store;

/// What every spawned gateway sees of the server's environment: enough to find programs,
/// its home (where Hermes keeps its own configuration and keys), the locale and a temp dir.
pub const PASSED_ENV: [&str; 9] = [
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR",
];

/// The variable a gateway serving one tenant alone is told its tenant in.
pub const TENANT_ENV: &str = "AGENT_OS_TENANT";

impl HermesGateway {
    /// Connects to `target`: a `ws://` URL, or a command run by `sh -c` and spoken to
    /// over its stdio. A spawned gateway sees only [`PASSED_ENV`] and `passed_env` of the
    /// server's environment (never, say, the database URL), plus `AGENT_OS_TENANT` when it
    /// serves one tenant alone, and starts in the user's home directory rather than the
    /// server's working directory.
    pub async fn spawn(
        name: &str,
        target: &str,
        (passed_env, tenant): (&[String], Option<&str>),
        recorder: Recorder,
        store: Arc<dyn Store>,
    ) -> Result<Arc<Self>, String> {
        if target.starts_with("ws://") || target.starts_with("wss://") {
            return Self::connect(name, target, recorder, store).await;
        }
        let passed = PASSED_ENV
            .iter()
            .copied()
            .chain(passed_env.iter().map(String::as_str))
            .filter_map(|name| Some((name, std::env::var_os(name)?)));
        let home = std::env::var_os("HOME")
            .map(std::path::PathBuf::from)
            .filter(|home| home.is_dir())
            .unwrap_or_else(|| "/".into());
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(target)
            .env_clear()
            .envs(passed)
            .envs(tenant.map(|tenant| (TENANT_ENV, tenant)))
            .current_dir(home)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|error| {
                format!(
                    "cannot start the Hermes gateway {name:?} ({}): {error}",
                    crate::connectors::reach::program_of(target)
                )
            })?;
        let mut stdin = child.stdin.take().ok_or("the gateway has no stdin")?;
        let stdout = child.stdout.take().ok_or("the gateway has no stdout")?;
        let (out, mut outgoing) = mpsc::channel::<String>(QUEUE);
        tokio::spawn(async move {
            while let Some(frame) = outgoing.recv().await {
                if stdin
                    .write_all(format!("{frame}\n").as_bytes())
                    .await
                    .is_err()
                    || stdin.flush().await.is_err()
                {
                    break;
                }
            }
        });
        let (lines, incoming) = mpsc::channel::<String>(QUEUE);
        let gateway = name.to_owned();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout);
            loop {
                match read_line_within(&mut reader, MAX_EVENT_BYTES).await {
                    Ok(Line::Text(line)) => {
                        if lines.send(line).await.is_err() {
                            break;
                        }
                    }
                    Ok(Line::TooLong(bytes)) => tracing::warn!(
                        %gateway,
                        bytes,
                        limit = MAX_EVENT_BYTES,
                        "a line from the gateway is over the size limit and was skipped"
                    ),
                    Ok(Line::End) | Err(_) => break,
                }
            }
        });
        Ok(Self::start(
            name,
            out,
            incoming,
            Some(child),
            recorder,
            store,
        ))
    }

    /// A gateway reached over WebSocket (e.g. the Hermes dashboard's `/api/ws?token=…`).
    async fn connect(
        name: &str,
        url: &str,
        recorder: Recorder,
        store: Arc<dyn Store>,
    ) -> Result<Arc<Self>, String> {
        use futures_util::{SinkExt, StreamExt};
        use tokio_tungstenite::tungstenite::Message;
        let limits = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
            .max_message_size(Some(MAX_EVENT_BYTES))
            .max_frame_size(Some(MAX_EVENT_BYTES));
        let tls = if url.starts_with("wss://") {
            Some(tokio_tungstenite::Connector::Rustls(tls_client().map_err(
                |error| format!("cannot connect to the Hermes gateway {name:?}: {error}"),
            )?))
        } else {
            None
        };
        let (socket, _) =
            tokio_tungstenite::connect_async_tls_with_config(url, Some(limits), false, tls)
                .await
                .map_err(|error| {
                    format!(
                        "cannot connect to the Hermes gateway {name:?} at {}: {}",
                        crate::connectors::reach::url_without_credentials(url),
                        crate::connectors::reach::scrub_url(&error.to_string(), url)
                    )
                })?;
        let (mut sink, mut stream) = socket.split();
        let (out, mut outgoing) = mpsc::channel::<String>(QUEUE);
        tokio::spawn(async move {
            while let Some(frame) = outgoing.recv().await {
                if sink.send(Message::Text(frame.into())).await.is_err() {
                    break;
                }
            }
        });
        let (lines, incoming) = mpsc::channel::<String>(QUEUE);
        tokio::spawn(async move {
            while let Some(Ok(message)) = stream.next().await {
                let text = match message {
                    Message::Text(text) => text.to_string(),
                    Message::Binary(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                    Message::Close(_) => break,
                    _ => continue,
                };
                for line in text.lines() {
                    if lines.send(line.to_owned()).await.is_err() {
                        return;
                    }
                }
            }
        });
        Ok(Self::start(name, out, incoming, None, recorder, store))
    }
}

/// TLS for `wss://` gateways: the system's trusted certificates (or those `SSL_CERT_FILE`
/// / `SSL_CERT_DIR` name), the ring provider the rest of the server uses.
fn tls_client() -> Result<Arc<rustls::ClientConfig>, String> {
    let mut roots = rustls::RootCertStore::empty();
    let found = rustls_native_certs::load_native_certs();
    for certificate in found.certs {
        // A certificate the store cannot take is skipped, as a browser would skip it.
        let _ = roots.add(certificate);
    }
    if roots.is_empty() {
        return Err(format!(
            "no trusted certificates were found for wss:// ({} errors reading them)",
            found.errors.len()
        ));
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| error.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}
