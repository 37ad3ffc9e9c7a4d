//! Agents over TLS: an `https://` agent URL and a `wss://` Hermes gateway work when their
//! certificate is trusted (here a test certificate authority given by SSL_CERT_FILE), and
//! are refused when it is not.

#![allow(clippy::unwrap_used)]

mod common;

use std::future::Future;
use std::sync::Arc;

use common::TestServer;
use common::api::{Api, texts};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::server::TlsStream;

/// A loopback listener behind TLS for `localhost` (a test certificate), each connection
/// handed to `serve`. Returns `https://localhost:PORT` (or `scheme`'s) and the certificate
/// to trust, as PEM.
async fn tls_on_localhost<F, Fut>(scheme: &str, serve: F) -> (String, String)
where
    F: Fn(TlsStream<TcpStream>) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = ()> + Send,
{
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let pem = certified.cert.pem();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(certified.signing_key.serialize_der().into());
    let config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(vec![certified.cert.der().clone()], key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!(
        "{scheme}://localhost:{}",
        listener.local_addr().unwrap().port()
    );
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let (acceptor, serve) = (acceptor.clone(), serve.clone());
            tokio::spawn(async move {
                if let Ok(stream) = acceptor.accept(socket).await {
                    serve(stream).await;
                }
            });
        }
    });
    (origin, pem)
}

/// An AG-UI agent answering every run with a short streamed reply: its URL and the
/// certificate to trust.
async fn tls_agent() -> (String, String) {
    let (origin, pem) = tls_on_localhost("https", |mut stream| async move {
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
    })
    .await;
    (format!("{origin}/agent"), pem)
}

/// The demo gateway over WebSocket behind TLS: its `wss://` URL, the certificate to trust,
/// and the gateway process.
async fn wss_gateway() -> (String, String, std::process::Child) {
    let (port, gateway) = common::ws_demo_gateway();
    let (origin, pem) = tls_on_localhost("wss", move |mut outside| async move {
        if let Ok(mut inside) = TcpStream::connect(("127.0.0.1", port)).await {
            let _ = tokio::io::copy_bidirectional(&mut outside, &mut inside).await;
        }
    })
    .await;
    (format!("{origin}/api/ws"), pem, gateway)
}

/// The console with `flags`, trusting the certificate in `pem` when one is given.
async fn console(flags: &[&str], pem: Option<&str>) -> Api {
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    let mut env = Vec::new();
    if let Some(pem) = pem {
        std::fs::write(&ca, pem).unwrap();
        env.push(("SSL_CERT_FILE", ca.to_str().unwrap()));
    }
    let mut args = flags.to_vec();
    args.push("--no-demo");
    let server = TestServer::start_with_env(&dir.path().join("data"), &args, &env).await;
    Api {
        client: server.client(),
        server,
        _dir: Some(dir),
    }
}

/// The run `hello` starts in a new thread of `agent`, once it settled.
async fn say_hello(api: &Api, agent: &str) -> serde_json::Value {
    let thread = api.thread(Some(agent)).await;
    let run = api.say(&thread, "hello").await;
    api.settled(&run).await
}

#[tokio::test]
async fn an_https_agent_with_a_trusted_certificate_streams_its_run() {
    let (url, pem) = tls_agent().await;
    let api = console(&["--agent", &format!("tls={url}")], Some(&pem)).await;
    let settled = say_hello(&api, "tls").await;
    assert_eq!(settled["run"]["status"], "succeeded", "{settled}");
    assert!(texts(&settled["view"]).contains(&"over TLS".to_owned()));
}

#[tokio::test]
async fn an_https_agent_whose_certificate_is_not_trusted_is_refused() {
    let (url, _) = tls_agent().await;
    let api = console(&["--agent", &format!("tls={url}")], None).await;
    let settled = say_hello(&api, "tls").await;
    assert_eq!(settled["run"]["status"], "failed", "{settled}");
    assert!(
        settled.to_string().contains("unreachable"),
        "the failure names the agent: {settled}"
    );
}

#[tokio::test]
async fn a_wss_gateway_with_a_trusted_certificate_is_driven_like_any_other() {
    let (url, pem, mut gateway) = wss_gateway().await;
    let api = console(&["--hermes", &format!("secure={url}")], Some(&pem)).await;
    let settled = say_hello(&api, "secure").await;
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
    let api = console(&["--hermes", &format!("secure={url}")], None).await;
    let settled = say_hello(&api, "secure").await;
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
