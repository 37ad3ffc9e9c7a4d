//! How long a tenant keeps what it no longer needs: the raw frames of ended runs (their
//! normalized events stay) and finished background jobs with their logs.

use serde::{Deserialize, Serialize};

/// The longest anything may be kept, in days (ten years).
pub const DAYS_MOST: u32 = 3650;

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetentionSettings {
    /// Days the raw frames of a run are kept after they arrived.
    pub raw_events_days: u32,
    /// Days a finished job, its attempts and its log are kept after it ended.
    pub jobs_days: u32,
}

impl Default for RetentionSettings {
    fn default() -> Self {
        Self {
            raw_events_days: 30,
            jobs_days: 30,
        }
    }
}

impl RetentionSettings {
    /// The settings, or the refusal naming the field out of bounds.
    pub fn checked(self) -> Result<Self, String> {
        for (field, days) in [
            ("raw_events_days", self.raw_events_days),
            ("jobs_days", self.jobs_days),
        ] {
            if !(1..=DAYS_MOST).contains(&days) {
                return Err(format!("{field}: from 1 to {DAYS_MOST} days"));
            }
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_out_of_bounds_are_refused_naming_the_field() {
        assert!(RetentionSettings::default().checked().is_ok());
        let none = RetentionSettings {
            raw_events_days: 0,
            ..RetentionSettings::default()
        };
        assert!(none.checked().unwrap_err().starts_with("raw_events_days:"));
        let forever = RetentionSettings {
            jobs_days: DAYS_MOST + 1,
            ..RetentionSettings::default()
        };
        assert!(forever.checked().unwrap_err().starts_with("jobs_days:"));
    }
}
