//! HTTP: the axum router over Leptos pages and server functions, the JSON API under
//! `/api/v1`, the console's sign-in forms, live event streams, static assets and a health
//! check — every one an operation of [`operations`], the one list the router, the access
//! policy and the OpenAPI description are made from. Every request passes
//! [`context::attach`] first, so each handler knows who acts and for which tenant, and
//! nobody reaches an operation their role may not call, or one the list does not name.

mod asks;
mod audit;
pub mod auth;
mod body;
mod caching;
pub mod context;
mod context_pins;
mod credentials;
pub mod error;
mod forms;
pub mod guard;
pub mod headers;
mod inbox;
mod limits;
mod memory;
mod notes;
pub mod operations;
mod passvault;
mod projects;
mod runs;
mod threads;
mod tools;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use app::api::service::{
    ContextService, Contexts, Members, MembersService, MemoryService, Notes, NotesService,
    Passvault, PassvaultService, Projects, ProjectsService, Tools, ToolsService, Workspace,
    WorkspaceService,
};
use app::components::remote_media::service::{MediaHosts, MediaHostsService};
use app::{App, shell};
use axum::Router;
use axum::extract::FromRef;
use leptos::config::LeptosOptions;
use leptos::prelude::provide_context;
use leptos_axum::{LeptosRoutes, generate_route_list};
use tower_http::CompressionLevel;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::trace::TraceLayer;

use crate::auth::{Accounts, DemoKey};
use crate::live::{StreamGate, StreamLimits};
use crate::runs::Runs;

pub use app::model::TENANT_HEADER;

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
    pub runs: Arc<Runs>,
    pub accounts: Accounts,
    pub login_throttle: Arc<crate::auth::throttle::LoginThrottle>,
    pub allowed_hosts: guard::AllowedHosts,
    pub streams: Arc<StreamGate>,
    /// The demo agents' key, when they are served.
    pub demo_key: Option<DemoKey>,
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
            runs,
            accounts,
            login_throttle: Arc::default(),
            allowed_hosts: guard::AllowedHosts::new(addr, &door.extra_hosts),
            streams: Arc::new(StreamGate::new(door.streams)),
            demo_key: door.demo_key,
        }
    }
}

/// What pages and server functions reach through Leptos context.
#[derive(Clone)]
struct Services {
    workspace: Arc<dyn WorkspaceService>,
    members: Arc<dyn MembersService>,
    notes: Arc<dyn NotesService>,
    projects: Arc<dyn ProjectsService>,
    contexts: Arc<dyn ContextService>,
    memory: Arc<dyn MemoryService>,
    passvault: Arc<dyn PassvaultService>,
    tools: Arc<dyn ToolsService>,
    media_hosts: Arc<dyn MediaHostsService>,
}

impl Services {
    fn provide(&self) {
        provide_context(Workspace(self.workspace.clone()));
        provide_context(Members(self.members.clone()));
        provide_context(Notes(self.notes.clone()));
        provide_context(Projects(self.projects.clone()));
        provide_context(Contexts(self.contexts.clone()));
        provide_context(app::api::service::Memory(self.memory.clone()));
        provide_context(Passvault(self.passvault.clone()));
        provide_context(Tools(self.tools.clone()));
        provide_context(MediaHosts(self.media_hosts.clone()));
    }
}

/// The console's router; `demo`, when given, is served under `/demo` inside the same
/// pipeline (hosts, origins, credentials, body limits, headers) as everything else.
pub fn router(state: AppState, demo: Option<Router>) -> Router {
    let routes = generate_route_list(App);
    let services = Services {
        workspace: state.workspace.clone(),
        members: Arc::new(state.accounts.clone()),
        notes: state.notes.clone(),
        projects: state.projects.clone(),
        contexts: state.contexts.clone(),
        memory: state.memory.clone(),
        passvault: state.passvault.clone(),
        tools: state.tools.clone(),
        media_hosts: Arc::new(state.accounts.clone()),
    };
    let fallback_services = services.clone();
    let options = state.leptos_options.clone();
    let hosts = state.allowed_hosts.clone();
    let door = context::Door {
        accounts: state.accounts.clone(),
        demo: state.demo_key.clone().filter(|_| demo.is_some()),
    };
    let mut console = Router::new();
    if let Some(demo) = demo {
        console = console.nest_service("/demo", demo);
    }
    console
        .merge(operations::routes())
        .leptos_routes_with_context(
            &state,
            routes,
            move || services.provide(),
            move || shell(options.clone()),
        )
        // A path no route names still renders the app (its not-found page with the
        // sidebar), so it needs the same context as every page.
        .fallback(leptos_axum::file_and_error_handler_with_context::<
            AppState,
            _,
        >(move || fallback_services.provide(), shell))
        // Inside the context: a change is recorded with who made it.
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            audit::record,
        ))
        // Inside the context: only a caller who may call the route sends a full body.
        .layer(axum::middleware::from_fn(limits::bound_body))
        .layer(axum::middleware::from_fn_with_state(door, context::attach))
        .layer(axum::middleware::from_fn(caching::cache_headers))
        .layer(axum::middleware::from_fn_with_state(hosts, guard::guard))
        .layer(axum::middleware::from_fn(headers::secure))
        // Pages and JSON go compressed to clients that accept it; event streams never
        // (the layer leaves `text/event-stream` alone, so events are not held back). The
        // fastest level: a 10,000-item page (3 MB) shrinks twentyfold either way, and a
        // slower level costs more time than it saves on the wire.
        .layer(CompressionLayer::new().quality(CompressionLevel::Fastest))
        // A handler that panics answers 500 like any failure, never a dropped connection.
        .layer(CatchPanicLayer::custom(error::panicked))
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// A header map of `(name, value)` pairs, for the tests of what handlers read from them.
/// A repeated name keeps every value.
#[cfg(test)]
pub(crate) fn header_map(pairs: &[(&'static str, &str)]) -> axum::http::HeaderMap {
    let mut map = axum::http::HeaderMap::new();
    for (name, value) in pairs {
        map.append(*name, value.parse().unwrap_or_else(|_| panic!("{value}")));
    }
    map
}
