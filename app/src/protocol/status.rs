//! Where a run stands: the one status the projection, the store and the API share.

use serde::{Deserialize, Serialize};

use super::channel::{EventBody, RunOutcome};

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// No event yet.
    #[default]
    Pending,
    Running,
    Succeeded,
    /// Paused on asks; a later run carries the answers.
    Interrupted,
    /// Was interrupted; its answers have been claimed and a follow-up run carries them.
    Resumed,
    Cancelled,
    Failed,
}

impl RunStatus {
    pub const ALL: [RunStatus; 7] = [
        RunStatus::Pending,
        RunStatus::Running,
        RunStatus::Succeeded,
        RunStatus::Interrupted,
        RunStatus::Resumed,
        RunStatus::Cancelled,
        RunStatus::Failed,
    ];

    /// Still running, or not yet started.
    pub fn is_terminal(self) -> bool {
        !matches!(self, RunStatus::Pending | RunStatus::Running)
    }

    /// The status's name, as stored and as the API and the page's `data-status` write it.
    pub fn label(self) -> &'static str {
        match self {
            RunStatus::Pending => "pending",
            RunStatus::Running => "running",
            RunStatus::Succeeded => "succeeded",
            RunStatus::Interrupted => "interrupted",
            RunStatus::Resumed => "resumed",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Failed => "failed",
        }
    }

    /// The status a name stands for.
    pub fn from_label(label: &str) -> Option<RunStatus> {
        RunStatus::ALL
            .into_iter()
            .find(|status| status.label() == label)
    }

    /// The status an event moves its run to, if it starts or ends it.
    pub fn after(body: &EventBody) -> Option<RunStatus> {
        match body {
            EventBody::RunStarted { .. } => Some(RunStatus::Running),
            EventBody::RunFinished { outcome } => Some(match outcome {
                RunOutcome::Success => RunStatus::Succeeded,
                RunOutcome::Interrupted { .. } => RunStatus::Interrupted,
                RunOutcome::Cancelled => RunStatus::Cancelled,
            }),
            EventBody::RunFailed { .. } => Some(RunStatus::Failed),
            _ => None,
        }
    }
}

impl std::fmt::Display for RunStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_reads_back_from_its_label_and_its_json() {
        for status in RunStatus::ALL {
            assert_eq!(RunStatus::from_label(status.label()), Some(status));
            let json = serde_json::to_string(&status).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", status.label()));
        }
        assert_eq!(RunStatus::from_label("paused"), None);
    }
}
