//! One module per route.

pub mod agent_jobs;
pub mod audit;
pub mod curator;
pub mod curator_job;
mod curator_knowledge;
pub mod gallery;
pub mod home;
mod job_calls;
pub mod members;
pub mod memory;
pub mod new_thread;
pub mod not_found;
pub mod note;
pub mod notes;
pub mod passvault;
pub mod project;
pub mod projects;
mod retention;
pub mod schedule;
mod schedule_calls;
pub mod schedules;
pub mod section;
pub mod sign_in;
pub mod thread;
mod thread_archive;
mod thread_runs;
