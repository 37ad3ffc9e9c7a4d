//! The protocol core, pure Rust (no Leptos, no async runtime): the channel contract,
//! the AG-UI and Hermes adapters, asks and receipts. The same code runs in the server,
//! the browser and the replay tool.

pub mod agui;
pub mod ask;
pub mod channel;
pub mod diff;
pub mod hermes;
pub mod idmap;
pub mod ksadk_record;
pub mod limits;
pub mod openai;
pub mod receipts;
pub mod recorded;
pub mod sse;
pub mod status;
