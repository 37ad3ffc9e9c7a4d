//! Accepting connections within bounds: at most so many open at once, a request's headers
//! within a deadline, no connection silent past the idle time, and a graceful stop.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::{Instant, Sleep};
use tower::ServiceExt;

/// How many connections, and for how long, one server keeps open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Connections open at once; past it the listener waits for one to close, so open
    /// descriptors stay bounded whatever clients do.
    pub most: usize,
    /// Time a client has to send a request's headers once it connects or, on a kept-alive
    /// connection, once the last response was sent.
    pub header_timeout: Duration,
    /// A connection on which nothing was read or written for this long is closed. Live
    /// streams send a heartbeat every 10 s, so they are never idle.
    pub idle_timeout: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            most: 1024,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
        }
    }
}

/// Serves `router` on `listener` until `stop` completes, then lets open requests finish
/// for at most `grace`. Each request carries its client's address as `ConnectInfo`.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    stop: impl Future<Output = ()>,
    grace: Duration,
) {
    let slots = Arc::new(Semaphore::new(limits.most.max(1)));
    let graceful = GracefulShutdown::new();
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(Some(limits.idle_timeout / 2))
        .keep_alive_timeout(limits.header_timeout);
    let builder = Arc::new(builder);
    tokio::pin!(stop);
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => break,
            },
            () = &mut stop => break,
        };
        let (stream, client) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of descriptors or a connection reset before it was taken: wait a
                    // moment rather than spin, and keep serving the others.
                    tracing::warn!(%error, "could not accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let _ = stream.set_nodelay(true);
        let router = router.clone();
        let service = tower::service_fn(move |mut request: axum::http::Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(client));
            router.clone().oneshot(request.map(axum::body::Body::new))
        });
        let io = TokioIo::new(IdleCutoff::new(stream, limits.idle_timeout));
        let connection = builder
            .serve_connection_with_upgrades(io, TowerToHyperService::new(service))
            .into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%client, error = %error, "a connection ended with an error");
            }
            drop(slot);
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(grace) => {
            tracing::warn!(?grace, "connections still open at shutdown were dropped");
        }
    }
}

/// A connection that fails with `TimedOut` once nothing has been read from or written to
/// it for the idle time: a client that neither sends nor reads what it is sent. No
/// handler is silent that long (live streams beat every 10 s), so the deadline never
/// cuts a request being answered.
struct IdleCutoff {
    stream: TcpStream,
    idle: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl IdleCutoff {
    fn new(stream: TcpStream, idle: Duration) -> Self {
        Self {
            stream,
            idle,
            deadline: Box::pin(tokio::time::sleep(idle)),
        }
    }

    fn active(&mut self) {
        self.deadline.as_mut().reset(Instant::now() + self.idle);
    }

    fn check(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        match self.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the connection was idle too long",
            )),
            Poll::Pending => Ok(()),
        }
    }
}

impl AsyncRead for IdleCutoff {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.stream).poll_read(cx, buf) {
            Poll::Ready(result) => {
                if buf.filled().len() > before {
                    this.active();
                }
                Poll::Ready(result)
            }
            Poll::Pending => {
                this.check(cx)?;
                Poll::Pending
            }
        }
    }
}

impl IdleCutoff {
    /// A write's outcome: progress pushes the deadline back; a write that cannot go on
    /// (the client reads nothing) is cut once the deadline passes.
    fn wrote(
        &mut self,
        cx: &mut Context<'_>,
        written: Poll<io::Result<usize>>,
    ) -> Poll<io::Result<usize>> {
        match written {
            Poll::Ready(written) => {
                self.active();
                Poll::Ready(written)
            }
            Poll::Pending => {
                self.check(cx)?;
                Poll::Pending
            }
        }
    }
}

impl AsyncWrite for IdleCutoff {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let written = Pin::new(&mut this.stream).poll_write(cx, data);
        this.wrote(cx, written)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let written = Pin::new(&mut this.stream).poll_write_vectored(cx, data);
        this.wrote(cx, written)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}
