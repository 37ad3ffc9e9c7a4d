//! Workspace records shared by the server, the browser and the REST API.

use serde::{Deserialize, Serialize};

/// Every request is scoped to a tenant; until sign-in exists everyone works in this one.
pub const DEFAULT_TENANT: &str = "default";

/// One conversation with an agent, as listed in the sidebar.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadSummary {
    pub id: String,
    pub tenant_id: String,
    pub title: String,
    /// Milliseconds since the Unix epoch.
    pub created_at_ms: i64,
}

/// A run as the thread page lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSummary {
    pub id: String,
    pub agent: String,
    /// running, succeeded, interrupted, resumed, cancelled or failed.
    pub status: String,
    pub created_at_ms: i64,
}

/// One run of a thread with its projection, as the server rendered it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunPage {
    pub run: RunSummary,
    pub view: crate::projection::RunView,
}

/// Everything the thread page shows, loaded in one request.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ThreadPage {
    pub thread: ThreadSummary,
    /// The agent the thread is bound to (none until its first message).
    pub agent: Option<String>,
    pub agents: Vec<String>,
    pub runs: Vec<RunPage>,
    /// Words the bound agent understands, suggested for a new thread.
    pub suggestions: Vec<String>,
}

/// What became of an answer the user gave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum AnswerOutcome {
    Accepted,
    /// Someone (another tab, another person) answered first, or the ask expired.
    AlreadyClosed {
        state: crate::protocol::ask::AskState,
        answered_by: Option<String>,
    },
}
