//! The Agent OS server, by role: `connectors` (one per kind of agent, behind one trait),
//! `runs` (start, receipts, resume, cancel, recovery), `recorder` (durable first, then
//! live), `store` (SQLite and PostgreSQL), `live` (fan-out and SSE), `http` (router, the
//! request context, the JSON API), `workspace` (the service behind server functions),
//! `demo` (the built-in demo agent and gateway), `auth` (accounts, roles, tokens, members),
//! `vault` (the passvault's key, and sealing and opening its entries), `connections`
//! (accepting connections within bounds), `incident` (failures told by id). `main.rs` is the `agent-os` command line over
//! this library; `config` and `serve` put the pieces together.

pub mod auth;
pub mod clock;
pub mod config;
pub mod connections;
pub mod connectors;
pub mod curator;
pub mod demo;
pub mod fault;
pub mod fields;
pub mod http;
pub mod incident;
pub mod jobs;
pub mod kanban;
pub mod live;
pub mod recorder;
pub mod replay;
pub mod runs;
pub mod schedules;
pub mod serve;
pub mod store;
pub mod vault;
pub mod workspace;
