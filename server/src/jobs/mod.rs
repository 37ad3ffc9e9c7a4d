//! Background work: one engine per process claims jobs from the store, runs each kind's
//! handler in a bounded pool of workers, renews their leases and retries what failed
//! (docs/jobs.md).

pub mod api;
pub mod backoff;
pub mod engine;
pub mod kind;
pub mod retention;
mod wake;

pub use engine::{Engine, EngineConfig, Observer, Source};
pub use kind::{JobError, JobKind, Work};
pub use wake::listen_postgres;
