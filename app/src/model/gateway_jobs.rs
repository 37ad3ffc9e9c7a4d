//! A Hermes gateway's own scheduled jobs as the Schedules page shows them beside the
//! console's: what the gateway answered, and the paused ones it no longer lists.

use serde::{Deserialize, Serialize};

/// One job of a gateway's scheduler.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GatewayJob {
    pub id: String,
    pub name: String,
    /// As the gateway keeps it: `0 9 * * 1-5`, `every 120m`.
    pub schedule: String,
    pub prompt_preview: String,
    /// `forever`, or how many runs are left.
    pub repeat: String,
    /// Where its output goes (`local`: kept by the gateway, sent nowhere).
    pub deliver: String,
    /// ISO 8601 with an offset, as the gateway writes them.
    pub next_run_at: Option<String>,
    pub last_run_at: Option<String>,
    pub last_status: Option<String>,
    pub last_delivery_error: Option<String>,
    pub enabled: bool,
    /// `scheduled`, `paused`, …
    pub state: String,
    pub paused_at: Option<String>,
    pub paused_reason: Option<String>,
}

/// One gateway's jobs, or why they could not be read.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GatewayJobs {
    /// The agent (the gateway) they belong to.
    pub agent: String,
    /// One gateway serves every tenant: its jobs are every tenant's, so only owners see
    /// and change them.
    pub shared: bool,
    pub jobs: Vec<GatewayJob>,
    /// The gateway could not be asked (it is down, or refused).
    pub problem: Option<String>,
}

/// A job to add to a gateway.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGatewayJob {
    pub name: String,
    /// A 5-field cron expression or an interval (`every 2h`), as the gateway reads it.
    pub schedule: String,
    pub prompt: String,
}
