//! Schedules: prompts given to an agent on a clock, each fire a job of the engine and a
//! real run in a real thread (docs/jobs.md#schedules).

pub mod api;
pub mod context;
pub mod fire;
pub mod gateway;
pub mod plan;
pub mod service;
pub mod when;

pub use service::{ScheduleConfig, Schedules};
