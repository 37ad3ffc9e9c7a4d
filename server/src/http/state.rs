//! The state every handler may read: the services, the run engine, the accounts, and
//! what the door checks besides credentials (hosts, stream caps, the demo key), with the
//! API's description as the operation list made it.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use app::api::service::{
    ContextService, CuratorService, GatewayJobsService, JobsService, KanbanService, MemoryService,
    NotesService, PassvaultService, ProjectsService, SchedulesService, ToolsService,
    WorkspaceService,
};
use axum::extract::FromRef;
use leptos::config::LeptosOptions;

use super::guard;
use crate::auth::{Accounts, DemoKey};
use crate::live::{StreamGate, StreamLimits};
use crate::runs::Runs;

/// File stem of the browser bundle: `/pkg/agent_os.HASH.js`, `.HASH.wasm`, `.HASH.css`
/// (without hashes when the site was built without a hash file).
pub const OUTPUT_NAME: &str = "agent_os";

/// The build's list of content hashes, in the site root: `js: …`, `wasm: …`, `css: …`.
pub const HASH_FILE: &str = "hash.txt";

#[derive(Clone, FromRef)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub workspace: Arc<dyn WorkspaceService>,
    pub notes: Arc<dyn NotesService>,
    pub projects: Arc<dyn ProjectsService>,
    pub contexts: Arc<dyn ContextService>,
    pub memory: Arc<dyn MemoryService>,
    pub passvault: Arc<dyn PassvaultService>,
    pub tools: Arc<dyn ToolsService>,
    pub schedules: Arc<dyn SchedulesService>,
    pub jobs: Arc<dyn JobsService>,
    pub gateway_jobs: Arc<dyn GatewayJobsService>,
    pub curator: Arc<dyn CuratorService>,
    pub kanban: Arc<dyn KanbanService>,
    pub runs: Arc<Runs>,
    pub accounts: Accounts,
    pub login_throttle: Arc<crate::auth::throttle::LoginThrottle>,
    pub allowed_hosts: guard::AllowedHosts,
    pub streams: Arc<StreamGate>,
    /// The demo agents' key, when they are served.
    pub demo_key: Option<DemoKey>,
    /// The OpenAPI description, made from the operation list when the router is.
    pub openapi: OpenApiText,
}

/// The OpenAPI description as served.
#[derive(Clone, Default)]
pub struct OpenApiText(pub Arc<str>);

/// The services of durable work: schedules, the jobs behind them, the agents' own
/// schedulers, the knowledge curator and the boards.
pub struct Background {
    pub schedules: Arc<dyn SchedulesService>,
    pub jobs: Arc<dyn JobsService>,
    pub gateway_jobs: Arc<dyn GatewayJobsService>,
    pub curator: Arc<dyn CuratorService>,
    pub kanban: Arc<dyn KanbanService>,
}

/// What the door checks besides credentials: the host names answered besides the
/// listen address, the live streams' caps, and the demo agents' key when they are served.
pub struct DoorSettings {
    pub extra_hosts: Vec<String>,
    pub streams: StreamLimits,
    pub demo_key: Option<DemoKey>,
}

impl AppState {
    pub fn new(
        addr: SocketAddr,
        site_root: &Path,
        workspace: Arc<dyn WorkspaceService>,
        background: Background,
        runs: Arc<Runs>,
        accounts: Accounts,
        door: DoorSettings,
    ) -> Self {
        // The build names the bundle after its content and lists the hashes here; Leptos
        // joins this path to the executable's folder, so it must be absolute.
        let hash_file = std::path::absolute(site_root.join(HASH_FILE))
            .unwrap_or_else(|_| site_root.join(HASH_FILE));
        let leptos_options = LeptosOptions::builder()
            .output_name(OUTPUT_NAME)
            .site_root(site_root.to_string_lossy().into_owned())
            .site_pkg_dir("pkg")
            .site_addr(addr)
            .hash_files(hash_file.is_file())
            .hash_file(std::sync::Arc::from(hash_file.to_string_lossy().as_ref()))
            .build();
        Self {
            leptos_options,
            workspace,
            notes: Arc::new(crate::workspace::notes::NotesServiceImpl::new(
                runs.store().clone(),
            )),
            projects: Arc::new(crate::workspace::projects::ProjectsServiceImpl::new(
                runs.clone(),
            )),
            contexts: Arc::new(crate::workspace::context::ContextServiceImpl::new(
                runs.store().clone(),
            )),
            memory: Arc::new(crate::workspace::memory::MemoryServiceImpl::new(
                runs.store().clone(),
            )),
            passvault: Arc::new(crate::workspace::passvault::PassvaultServiceImpl::new(
                runs.store().clone(),
                runs.vault().clone(),
            )),
            tools: Arc::new(crate::workspace::tools::WorkspaceToolsImpl::new(
                runs.store().clone(),
            )),
            schedules: background.schedules,
            jobs: background.jobs,
            gateway_jobs: background.gateway_jobs,
            curator: background.curator,
            kanban: background.kanban,
            runs,
            accounts,
            login_throttle: Arc::default(),
            allowed_hosts: guard::AllowedHosts::new(addr, &door.extra_hosts),
            streams: Arc::new(StreamGate::new(door.streams)),
            demo_key: door.demo_key,
            openapi: OpenApiText::default(),
        }
    }
}
