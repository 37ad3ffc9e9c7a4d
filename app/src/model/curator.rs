//! The knowledge curator as clients see it: its settings, each pass with its report, and
//! the ledger of the changes made on its proposals, each of which can be undone.

use serde::{Deserialize, Serialize};

use crate::curator::{CuratorRules, Finding};
use crate::memory::ScopeKind;
use crate::model::memory::MemoryEntry;

/// The longest an entry may go unused before a pass proposes it, in days (ten years).
pub const UNUSED_DAYS_MOST: u32 = 3650;
/// The longest the tenant must be idle before a weekly pass, in minutes (a day).
pub const IDLE_MINUTES_MOST: u32 = 1440;

/// When and how the curator looks at a tenant's knowledge.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CuratorSettings {
    /// A pass once a week, when the tenant is idle.
    pub weekly: bool,
    /// Idle means no run running and none started for this many minutes.
    pub idle_minutes: u32,
    /// Word overlap, in percent, from which two entries are near duplicates.
    pub near_percent: u8,
    /// An entry no run was given for this many days is proposed for removal.
    pub unused_days: u32,
}

impl Default for CuratorSettings {
    fn default() -> Self {
        let rules = CuratorRules::default();
        Self {
            weekly: true,
            idle_minutes: 30,
            near_percent: (rules.near * 100.0).round() as u8,
            unused_days: rules.unused_days,
        }
    }
}

impl CuratorSettings {
    /// The settings, or the refusal naming the field out of bounds.
    pub fn checked(self) -> Result<Self, String> {
        if !(50..=100).contains(&self.near_percent) {
            return Err("near_percent: from 50 to 100".into());
        }
        if !(1..=UNUSED_DAYS_MOST).contains(&self.unused_days) {
            return Err(format!("unused_days: from 1 to {UNUSED_DAYS_MOST} days"));
        }
        if !(1..=IDLE_MINUTES_MOST).contains(&self.idle_minutes) {
            return Err(format!(
                "idle_minutes: from 1 to {IDLE_MINUTES_MOST} minutes"
            ));
        }
        Ok(self)
    }

    pub fn rules(self) -> CuratorRules {
        CuratorRules {
            near: f64::from(self.near_percent) / 100.0,
            unused_days: self.unused_days,
        }
    }
}

/// Asking for a pass now (`POST /api/v1/curator/passes`).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartPass {
    /// Report what it finds, propose nothing.
    #[serde(default)]
    pub dry_run: bool,
}

/// A pass asked for: its id, which is also its job's.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PassStarted {
    pub pass_id: String,
}

/// One finding of a pass, with what it was about and what the pass did with it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PassFinding {
    #[serde(flatten)]
    pub finding: Finding,
    /// The memory entry's text, or the note's title.
    pub subject: String,
    /// The text of the entry it repeats, for duplicates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
    /// For a memory entry: its scope, and its project for a project's entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<ScopeKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    /// The proposal the pass made of it, in the memory review queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposal_id: Option<String>,
    /// Why nothing was proposed: a dry run, a proposal already waiting, a note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_proposed: Option<String>,
}

/// A pass and its report.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CuratorPass {
    /// The pass's id, which is its job's.
    pub id: String,
    /// `weekly` or `operator`.
    pub trigger: String,
    pub dry_run: bool,
    pub requested_by: String,
    /// `running`, `completed` or `failed`.
    pub state: String,
    pub started_at_ms: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at_ms: Option<i64>,
    pub report: PassReport,
}

/// What a pass read and found.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PassReport {
    pub entries_read: u64,
    pub notes_read: u64,
    pub findings: Vec<PassFinding>,
    /// How many proposals the pass made.
    pub proposed: u64,
    /// Why the pass failed, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The tenant's latest passes, newest first.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CuratorPasses {
    pub passes: Vec<CuratorPass>,
}

/// One change the curator's proposals made to memory, or the undo of one.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CuratorChange {
    pub id: String,
    pub pass_id: String,
    pub proposal_id: String,
    pub entry_id: String,
    pub scope: ScopeKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    /// The entry before the change; none when the change made it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<MemoryEntry>,
    /// The entry after the change; none when the change removed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<MemoryEntry>,
    /// Who made it: the reviewer who accepted the proposal, or who undid the change.
    pub actor: String,
    pub at_ms: i64,
    /// The change this one undoes, for an undo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<String>,
    /// The undo of this change, once undone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undone_by: Option<String>,
}

/// The ledger, newest change first.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CuratorLedger {
    pub changes: Vec<CuratorChange>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_out_of_bounds_are_refused_naming_the_field() {
        assert!(CuratorSettings::default().checked().is_ok());
        assert_eq!(CuratorSettings::default().near_percent, 80);
        for (settings, field) in [
            (
                CuratorSettings {
                    near_percent: 20,
                    ..CuratorSettings::default()
                },
                "near_percent:",
            ),
            (
                CuratorSettings {
                    unused_days: 0,
                    ..CuratorSettings::default()
                },
                "unused_days:",
            ),
            (
                CuratorSettings {
                    idle_minutes: IDLE_MINUTES_MOST + 1,
                    ..CuratorSettings::default()
                },
                "idle_minutes:",
            ),
        ] {
            assert!(settings.checked().unwrap_err().starts_with(field));
        }
    }
}
