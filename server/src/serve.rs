//! `agent-os serve`: open the store, bind the port, serve until Ctrl-C or SIGTERM.

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::response::IntoResponse;
use tokio::net::TcpListener;

use crate::auth::DemoKey;
use crate::config::ServeConfig;
use crate::connectors::Host;
use crate::demo::{self, DemoAgent};
use crate::http::{AppState, Background, DoorSettings, router};
use crate::jobs::api::JobsServiceImpl;
use crate::jobs::{Engine, listen_postgres};
use crate::live::Live;
use crate::runs::Runs;
use crate::schedules::Schedules;
use crate::schedules::api::SchedulesServiceImpl;
use crate::schedules::fire::FireKind;
use crate::store::{self, StoreError};
use crate::vault::Vault;
use crate::workspace::WorkspaceServiceImpl;
use crate::workspace::tools::WorkspaceToolsImpl;

/// Why the server could not start; each names the path or address at fault.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("data directory {path:?} is not usable: {source}")]
    DataDir { path: PathBuf, source: io::Error },
    #[error("cannot open the database {url}: {source}")]
    Database { url: String, source: StoreError },
    #[error("cannot listen on {addr}: {source}")]
    Listen { addr: SocketAddr, source: io::Error },
    #[error("server stopped with an error: {0}")]
    Serve(io::Error),
    #[error("{0}")]
    Agents(String),
    #[error("the passvault key cannot be used: {0}")]
    Vault(String),
}

pub async fn run(config: ServeConfig) -> Result<(), StartupError> {
    if config.uses_data_dir() {
        ensure_writable_dir(&config.data_dir).map_err(|source| StartupError::DataDir {
            path: config.data_dir.clone(),
            source,
        })?;
    }
    let database = config.database_url();
    let store = store::open(&database)
        .await
        .map_err(|source| StartupError::Database {
            url: redact_password(&database),
            source,
        })?;
    let listener = TcpListener::bind(config.addr)
        .await
        .map_err(|source| StartupError::Listen {
            addr: config.addr,
            source,
        })?;
    let addr = listener.local_addr().map_err(StartupError::Serve)?;
    warn_if_bundle_missing(&config.site_root);

    let demo_key = config.demo.then(DemoKey::from_env);
    let agents = config
        .agents(addr, demo_key.as_ref())
        .map_err(StartupError::Agents)?;
    let live = Live::default();
    let host = Host::new(store.clone(), live.clone(), config.timeouts);
    let vault = Vault::new(
        store.clone(),
        std::env::var(crate::vault::KEY_ENV).ok(),
        config.data_dir.clone(),
    )
    .map_err(|error| StartupError::Vault(error.to_string()))?;
    let runs = Runs::new(host, agents, Arc::new(vault));
    let tools = Arc::new(WorkspaceToolsImpl::new(store.clone()));
    runs.set_tool_runner(tools.clone());
    match runs.recover().await {
        Ok(0) => {}
        Ok(count) => tracing::warn!(
            count,
            "marked runs interrupted by the last shutdown as failed"
        ),
        Err(error) => tracing::error!(%error, "could not recover runs left running"),
    }
    match runs.sweep_deliveries().await {
        Ok(0) => {}
        Ok(count) => tracing::warn!(count, "settled answers the last shutdown left undelivered"),
        Err(error) => tracing::error!(%error, "could not settle undelivered answers"),
    }
    runs.expire_asks_on_time();
    runs.retry_stalled_resumes_in_time();
    let accounts = crate::auth::Accounts::new(store.clone());
    let first_run = accounts
        .setup_token()
        .await
        .map_err(|source| StartupError::Database {
            url: redact_password(&database),
            source,
        })?;
    let workspace = Arc::new(WorkspaceServiceImpl::new(store.clone(), runs.clone()));
    let (engine, background) = start_jobs(
        &config,
        &database,
        store,
        (workspace.clone(), tools),
        runs.clone(),
    );
    let state = AppState::new(
        addr,
        &config.site_root,
        workspace,
        background,
        runs,
        accounts,
        DoorSettings {
            extra_hosts: config.allow_hosts.clone(),
            streams: config.limits.streams,
            demo_key,
        },
    );
    tracing::info!(database = %redact_password(&database), "store ready");
    let demo = config
        .demo
        .then(|| demo::router(DemoAgent::new(demo::default_delay())));
    if demo.is_some() {
        tracing::info!("demo agents at http://{addr}/demo/ (they answer to the demo key)");
    }
    let app = router(state, demo);
    println!("Agent OS is serving at http://{addr}/");
    if let Some(token) = first_run {
        // The link goes to the terminal only, never to the log: it makes an owner.
        eprintln!(
            "No one can sign in yet. Open this link once to create the first owner:\n\n    http://{addr}/setup?token={token}\n"
        );
    }
    let signalled = shutdown_signal();
    let stopping = async move {
        signalled.await;
        engine.shutdown();
        live.close();
    };
    // Requests in flight get a moment to finish; a stream that never ends (an agent's
    // response still arriving) does not hold the shutdown.
    crate::connections::serve(
        listener,
        app,
        config.limits.connections,
        stopping,
        SHUTDOWN_GRACE,
    )
    .await;
    tracing::info!("shut down cleanly");
    Ok(())
}

/// How often the dispatcher looks at every board when nothing woke it.
const DISPATCH_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// How long after start the curator first looks for tenants due a weekly pass.
const CURATOR_FIRST_LOOK: std::time::Duration = std::time::Duration::from_secs(3600);

/// The job engine of this process, with every kind of job it runs and the schedules it
/// fires, started; on PostgreSQL woken by any process's new jobs.
fn start_jobs(
    config: &ServeConfig,
    database: &str,
    store: Arc<dyn crate::store::Store>,
    (workspace, tools): (Arc<WorkspaceServiceImpl>, Arc<WorkspaceToolsImpl>),
    runs: Arc<Runs>,
) -> (Arc<Engine>, Background) {
    let dispatcher = crate::kanban::Dispatcher::new(DISPATCH_EVERY);
    let kinds: Vec<Arc<dyn crate::jobs::JobKind>> = vec![
        Arc::new(FireKind::new(
            store.clone(),
            workspace.clone(),
            runs.clone(),
        )),
        Arc::new(crate::jobs::retention::RetentionKind::new(store.clone())),
        Arc::new(crate::curator::CuratorPassKind::new(store.clone())),
        Arc::new(crate::kanban::CardWorkKind::new(
            store.clone(),
            workspace,
            runs.clone(),
            dispatcher.clone(),
        )),
    ];
    let engine = Arc::new(Engine::new(
        store.clone(),
        kinds,
        config.pacing.engine.clone(),
    ));
    let live = runs.live().clone();
    engine.observe(Arc::new(move |tenant_id: &str| {
        live.tenant_changed(tenant_id)
    }));
    let schedules = Schedules::new(store, engine.clone(), config.pacing.schedules.clone());
    tools.use_schedules(schedules.clone());
    crate::jobs::retention::RetentionDaily::new(engine.clone());
    crate::curator::CuratorWeekly::new(engine.clone(), CURATOR_FIRST_LOOK);
    dispatcher.attach(engine.clone());
    engine.start();
    if database.starts_with("postgres") {
        listen_postgres(engine.clone(), database.to_owned());
    }
    tracing::info!(worker = %engine.worker(), "job engine started");
    let background = Background {
        schedules: Arc::new(SchedulesServiceImpl::new(schedules, runs.clone())),
        jobs: Arc::new(JobsServiceImpl::new(engine.clone())),
        gateway_jobs: Arc::new(crate::schedules::gateway::GatewayJobsServiceImpl::new(
            runs.clone(),
        )),
        curator: Arc::new(crate::curator::CuratorServiceImpl::new(engine.clone())),
        kanban: Arc::new(crate::kanban::KanbanServiceImpl::new(
            engine.store().clone(),
            runs.clone(),
            dispatcher,
        )),
    };
    (engine, background)
}

/// How long requests in flight may take to finish once the server is told to stop.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// `agent-os demo-agent`: only the demo agents, on loopback, answering to the demo key
/// (`AGENT_OS_DEMO_KEY`, or one made now and printed).
pub async fn demo_agent(port: u16) -> Result<(), StartupError> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| StartupError::Listen { addr, source })?;
    let addr = listener.local_addr().map_err(StartupError::Serve)?;
    let key = DemoKey::from_env();
    println!("Demo agent at http://{addr}/agent");
    if std::env::var(crate::auth::demo_key::ENV).is_err() {
        // To the terminal only: whoever started it gives the key to the console.
        eprintln!("Its key (send it as a bearer): {}", key.expose());
    }
    let app = demo::router(DemoAgent::new(demo::default_delay())).layer(axum::middleware::from_fn(
        move |request: axum::extract::Request, next: axum::middleware::Next| {
            let admitted = key.admits(request.headers());
            async move {
                if admitted {
                    next.run(request).await
                } else {
                    axum::http::StatusCode::UNAUTHORIZED.into_response()
                }
            }
        },
    ));
    crate::connections::serve(
        listener,
        app,
        crate::connections::ConnectionLimits::default(),
        shutdown_signal(),
        SHUTDOWN_GRACE,
    )
    .await;
    Ok(())
}

/// Creates the directory and proves a file can be written there, so a read-only or
/// misnamed data directory is reported at start rather than on the first write.
fn ensure_writable_dir(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let probe = dir.join(".agent-os-write-probe");
    std::fs::write(&probe, b"")?;
    std::fs::remove_file(&probe)
}

/// A database URL fit for a log line: any password replaced.
fn redact_password(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &url[scheme + 3..at];
            match credentials.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

fn warn_if_bundle_missing(site_root: &Path) {
    let hashes = site_root.join(crate::http::HASH_FILE);
    let plain = site_root
        .join("pkg")
        .join(format!("{}.js", crate::http::OUTPUT_NAME));
    if !hashes.is_file() && !plain.is_file() {
        tracing::warn!(
            site_root = %site_root.display(),
            "the browser bundle is missing: pages render but will not hydrate (build it with `make run`)"
        );
    }
}

/// Listens for Ctrl-C and SIGTERM from the moment it is called — before the first
/// connection is taken, so a signal that comes as the server starts stops it cleanly
/// rather than killing it — and completes when one arrives.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let signals = {
        use tokio::signal::unix::{SignalKind, signal};
        [SignalKind::interrupt(), SignalKind::terminate()].map(|kind| match signal(kind) {
            Ok(listening) => Some(listening),
            Err(error) => {
                tracing::error!(%error, "cannot listen for a signal to stop");
                None
            }
        })
    };
    async move {
        #[cfg(unix)]
        {
            let [interrupt, terminate] = signals;
            tokio::select! {
                () = received(interrupt) => {},
                () = received(terminate) => {},
            }
        }
        #[cfg(not(unix))]
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::error!(%error, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
        tracing::info!("shutting down: finishing open requests");
    }
}

/// Completes when the signal arrives; never when it could not be listened for.
#[cfg(unix)]
async fn received(signal: Option<tokio::signal::unix::Signal>) {
    match signal {
        Some(mut signal) => {
            signal.recv().await;
        }
        None => std::future::pending::<()>().await,
    }
}
