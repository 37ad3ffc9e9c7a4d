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
