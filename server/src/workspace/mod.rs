//! The workspace services: what server functions and the REST API call — threads and
//! runs, and each workspace object in a file of its own.

pub mod context;
pub mod memory;
pub mod notes;
pub mod passvault;
pub mod projects;
mod threads;
pub mod tools;

pub use threads::WorkspaceServiceImpl;
pub(crate) use threads::run_summary;
