//! Agents over TLS: an `https://` agent URL and a `wss://` Hermes gateway work when their
//! certificate is trusted (here a test certificate authority given by SSL_CERT_FILE), and
//! are refused when it is not.

#![allow(clippy::unwrap_used)]

mod common;

use std::sync::Arc;

use common::TestServer;
use common::api::{Api, texts};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// An AG-UI agent on loopback behind TLS for `localhost`, answering every run with a short
/// streamed reply. Returns its URL and the certificate to trust, as PEM.
async fn tls_agent() -> (String, String) {
    let (acceptor, pem) = localhost_tls();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "https://localhost:{}/agent",
        listener.local_addr().unwrap().port()
    );
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut stream) = acceptor.accept(socket).await else {
                    return;
                };
                let mut request = vec![0u8; 256 * 1024];
                let _ = stream.read(&mut request).await;
                let events = [
                    r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
                    r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#,
                    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"over TLS"}"#,
                    r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
                    r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
                ];
                let body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\
                     connection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    (url, pem)
}

async fn console(agent_url: &str, ca_file: Option<&std::path::Path>) -> Api {
    let dir = tempfile::tempdir().unwrap();
    let agent = format!("tls={agent_url}");
    let env: Vec<(&str, &str)> = ca_file
        .map(|path| vec![("SSL_CERT_FILE", path.to_str().unwrap())])
        .unwrap_or_default();
    let server = TestServer::start_with_env(
        &dir.path().join("data"),
        &["--agent", &agent, "--no-demo"],
        &env,
    )
    .await;
    Api {
        client: server.client(),
        server,
        _dir: Some(dir),
    }
}

#[tokio::test]
async fn an_https_agent_with_a_trusted_certificate_streams_its_run() {
    let (url, pem) = tls_agent().await;
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, pem).unwrap();
    let api = console(&url, Some(&ca)).await;
    let thread = api.thread(Some("tls")).await;
    let run = api.say(&thread, "hello").await;
    let settled = api.settled(&run).await;
    assert_eq!(settled["run"]["status"], "succeeded", "{settled}");
    assert!(texts(&settled["view"]).contains(&"over TLS".to_owned()));
}

#[tokio::test]
async fn an_https_agent_whose_certificate_is_not_trusted_is_refused() {
    let (url, _) = tls_agent().await;
    let api = console(&url, None).await;
    let thread = api.thread(Some("tls")).await;
    let run = api.say(&thread, "hello").await;
    let settled = api.settled(&run).await;
    assert_eq!(settled["run"]["status"], "failed", "{settled}");
    assert!(
        settled.to_string().contains("unreachable"),
        "the failure names the agent: {settled}"
    );
}

/// A test certificate for `localhost`: the TLS acceptor, and the certificate as PEM.
fn localhost_tls() -> (tokio_rustls::TlsAcceptor, String) {
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let pem = certified.cert.pem();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(certified.signing_key.serialize_der().into());
    let config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(vec![certified.cert.der().clone()], key)
        .unwrap();
    (tokio_rustls::TlsAcceptor::from(Arc::new(config)), pem)
}

/// The demo gateway over WebSocket behind TLS for `localhost`: its `wss://` URL, the
/// certificate to trust, and the gateway process.
async fn wss_gateway() -> (String, String, std::process::Child) {
    let port = common::free_port();
    let gateway = std::process::Command::new(common::BIN)
        .args(["demo-gateway", "--ws", "--port", &port.to_string()])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "the gateway did not start"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let (acceptor, pem) = localhost_tls();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "wss://localhost:{}/api/ws",
        listener.local_addr().unwrap().port()
    );
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut outside) = acceptor.accept(socket).await else {
                    return;
                };
                let Ok(mut inside) = tokio::net::TcpStream::connect(("127.0.0.1", port)).await
                else {
                    return;
                };
                let _ = tokio::io::copy_bidirectional(&mut outside, &mut inside).await;
            });
        }
    });
    (url, pem, gateway)
}

#[tokio::test]
async fn a_wss_gateway_with_a_trusted_certificate_is_driven_like_any_other() {
    let (url, pem, mut gateway) = wss_gateway().await;
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, pem).unwrap();
    let server = TestServer::start_with_env(
        &dir.path().join("data"),
        &["--hermes", &format!("secure={url}"), "--no-demo"],
        &[("SSL_CERT_FILE", ca.to_str().unwrap())],
    )
    .await;
    let api = Api {
        client: server.client(),
        server,
        _dir: Some(dir),
    };
    let thread = api.thread(Some("secure")).await;
    let run = api.say(&thread, "hello").await;
    let settled = api.settled(&run).await;
    assert_eq!(settled["run"]["status"], "succeeded", "{settled}");
    assert!(
        texts(&settled["view"]).contains(&"Hello from the demo gateway.".to_owned()),
        "{settled}"
    );
    let _ = gateway.kill();
    let _ = gateway.wait();
}

#[tokio::test]
async fn a_wss_gateway_whose_certificate_is_not_trusted_is_refused_in_words() {
    let (url, _, mut gateway) = wss_gateway().await;
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with_env(
        &dir.path().join("data"),
        &["--hermes", &format!("secure={url}"), "--no-demo"],
        &[],
    )
    .await;
    let api = Api {
        client: server.client(),
        server,
        _dir: Some(dir),
    };
    let thread = api.thread(Some("secure")).await;
    let run = api.say(&thread, "hello").await;
    let settled = api.settled(&run).await;
    assert_eq!(settled["run"]["status"], "failed", "{settled}");
    assert!(
        settled
            .to_string()
            .contains("cannot connect to the Hermes gateway"),
        "{settled}"
    );
    let _ = gateway.kill();
    let _ = gateway.wait();
}
