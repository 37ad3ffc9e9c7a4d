//! Agent OS shared core, compiled for the server (`ssr`), the browser (`hydrate`, `csr`)
//! and, with no features, as a pure library (no Leptos, no async runtime) for the replay
//! tool, benches and fuzz targets.
//!
//! The pure core:
//! - [`protocol`]: the channel contract, the AG-UI and Hermes adapters, asks, receipts.
//! - [`projection`]: a run's events folded into the view the console renders.
//! - [`model`]: workspace types both sides exchange (threads, runs, request context).
//! - [`error`]: the one error type that crosses the server-function boundary.
//! - [`console_tools`]: the tools the console runs itself when an agent calls them.
//! - [`workspace_tools`]: the workspace tools offered to agents and run on the server.
//! - [`tagged`]: the tagged JSON forms of the contract's enums.
//! - [`codec`]: the one way JSON is read (and, with `ui`, the resources' codec).
//! - [`markdown`]: Markdown parsed into a tree of safe nodes (no raw HTML, safe links),
//!   and cut into blocks that stream independently.
//! - [`ansi`]: terminal output's colour codes read into styled runs.
//! - [`highlight`]: code as token runs of a fixed set of classes (the highlighter runs on
//!   the server).
//! - [`search`]: full-text search words and the snippet around a match.
//! - [`memory`]: memory's operations with Hermes' semantics, planned against a scope.
//! - [`catalog`]: the tool-ui component payloads, checked against their schemas.
//! - [`a2ui`]: A2UI surfaces folded from their operations, data binding, actions.
//!
//! With the `ui` feature (implied by `ssr`, `hydrate` and `csr`):
//! - [`api`]: server functions — thin adapters over the [`api::service::WorkspaceService`]
//!   the server provides by context.
//! - [`live`]: the browser's side of a run's live stream.
//! - [`components`] and [`pages`]: the Leptos UI; [`app`] holds the router and the shell.

pub mod a2ui;
pub mod ansi;
#[cfg(feature = "ui")]
pub mod api;
#[cfg(feature = "ui")]
pub mod app;
pub mod catalog;
pub mod codec;
#[cfg(feature = "ui")]
pub mod components;
pub mod console_tools;
pub mod curator;
pub mod error;
pub mod highlight;
#[cfg(feature = "ui")]
pub mod interactive;
pub mod kanban;
#[cfg(feature = "ui")]
pub mod live;
pub mod markdown;
pub mod memory;
pub mod model;
pub mod output;
#[cfg(feature = "ui")]
pub mod pages;
pub mod plain_call;
pub mod projection;
pub mod protocol;
#[cfg(feature = "ui")]
pub mod routes;
pub mod search;
pub mod tagged;
pub mod thread_title;
pub mod when;
pub mod workspace_tools;

#[cfg(feature = "ui")]
pub use app::{App, shell};
