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
mod curator;
pub mod error;
mod forms;
mod gateway_jobs;
pub mod guard;
pub mod headers;
mod inbox;
mod jobs;
mod kanban;
mod limits;
mod memory;
mod notes;
pub mod operations;
mod passvault;
mod projects;
mod runs;
mod schedules;
mod state;
mod threads;
mod tools;

use std::sync::Arc;

use app::api::service::{
    ContextService, Contexts, Jobs, JobsService, Members, MembersService, MemoryService, Notes,
    NotesService, Passvault, PassvaultService, Projects, ProjectsService, Schedules,
    SchedulesService, Tools, ToolsService, Workspace, WorkspaceService,
};
use app::components::remote_media::service::{MediaHosts, MediaHostsService};
use app::{App, shell};
use axum::Router;
use leptos::prelude::provide_context;
use leptos_axum::{LeptosRoutes, generate_route_list};
use tower_http::CompressionLevel;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::trace::TraceLayer;

pub use app::model::TENANT_HEADER;
pub use state::{AppState, Background, DoorSettings, HASH_FILE, OUTPUT_NAME, OpenApiText};

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
    schedules: Arc<dyn SchedulesService>,
    jobs: Arc<dyn JobsService>,
    gateway_jobs: Arc<dyn app::api::service::GatewayJobsService>,
    curator: Arc<dyn app::api::service::CuratorService>,
    kanban: Arc<dyn app::api::service::KanbanService>,
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
        provide_context(Schedules(self.schedules.clone()));
        provide_context(Jobs(self.jobs.clone()));
        provide_context(app::api::service::GatewayJobsOf(self.gateway_jobs.clone()));
        provide_context(app::api::service::CuratorOf(self.curator.clone()));
        provide_context(app::api::service::KanbanOf(self.kanban.clone()));
        provide_context(MediaHosts(self.media_hosts.clone()));
    }
}

/// The console's router; `demo`, when given, is served under `/demo` inside the same
/// pipeline (hosts, origins, credentials, body limits, headers) as everything else.
/// Every operation the server serves, gathered from the resources that declare them.
pub fn operations() -> operations::Operations {
    operations::Operations::of(&[
        auth::OPERATIONS,
        threads::OPERATIONS,
        runs::OPERATIONS,
        asks::OPERATIONS,
        inbox::OPERATIONS,
        notes::OPERATIONS,
        projects::OPERATIONS,
        context_pins::OPERATIONS,
        memory::OPERATIONS,
        passvault::OPERATIONS,
        tools::OPERATIONS,
        audit::OPERATIONS,
        schedules::OPERATIONS,
        jobs::OPERATIONS,
        gateway_jobs::OPERATIONS,
        curator::OPERATIONS,
        kanban::OPERATIONS,
        operations::openapi::OPERATIONS,
        forms::OPERATIONS,
        operations::functions::OPERATIONS,
        operations::pages::OPERATIONS,
    ])
}

pub fn router(mut state: AppState, demo: Option<Router>) -> Router {
    let operations = operations();
    state.openapi = OpenApiText(Arc::from(operations.description().to_string()));
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
        schedules: state.schedules.clone(),
        jobs: state.jobs.clone(),
        gateway_jobs: state.gateway_jobs.clone(),
        curator: state.curator.clone(),
        kanban: state.kanban.clone(),
        media_hosts: Arc::new(state.accounts.clone()),
    };
    let fallback_services = services.clone();
    let options = state.leptos_options.clone();
    let hosts = state.allowed_hosts.clone();
    let door = context::Door {
        accounts: state.accounts.clone(),
        demo: state.demo_key.clone().filter(|_| demo.is_some()),
        operations: operations.clone(),
    };
    let mut console = Router::new();
    if let Some(demo) = demo {
        console = console.nest_service("/demo", demo);
    }
    console
        .merge(operations.routes())
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
