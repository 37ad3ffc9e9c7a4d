//! The Agent OS server: configuration, HTTP routes, the event store and the services
//! behind them. `main.rs` is the `agent-os` command line over this library.

pub mod agents;
pub mod config;
pub mod demo;
pub mod gateway;
pub mod http;
pub mod live;
pub mod recorder;
pub mod replay;
pub mod runs;
pub mod serve;
pub mod store;
pub mod workspace;
