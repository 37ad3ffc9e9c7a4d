//! Agent OS shared core, compiled for the server (`ssr`), the browser (`hydrate`, `csr`)
//! and plain native tests alike.
//!
//! - [`model`]: workspace types both sides exchange (threads, …).
//! - [`error`]: the one error type that crosses the server-function boundary.
//! - [`codec`]: how the browser reads the server's JSON.
//! - [`api`]: server functions — thin adapters over the [`api::service::WorkspaceService`]
//!   the server provides by context.
//! - [`console_tools`]: the tools the console runs itself when an agent calls them.
//! - [`components`] and [`pages`]: the Leptos UI; [`app`] holds the router and the shell.

pub mod api;
pub mod app;
pub mod codec;
pub mod components;
pub mod console_tools;
pub mod error;
pub mod live;
pub mod model;
pub mod pages;
pub mod projection;
pub mod protocol;
pub mod tagged;

pub use app::{App, shell};
