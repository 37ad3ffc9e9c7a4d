//! Schedules: an agent given a prompt on a clock — a cron expression, an interval or once
//! — in the schedule's own time zone, with what happens to missed and overlapping fires.

use serde::{Deserialize, Serialize};

/// The longest name a schedule may have, in characters.
pub const NAME_MOST: usize = 100;
/// The longest prompt, in characters.
pub const PROMPT_MOST: usize = 20_000;

/// When a schedule fires.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum When {
    /// A 5-field cron expression (`0 9 * * 1-5`), read in the schedule's zone.
    Cron { expression: String },
    /// Elapsed time between fires (`every 2h`, `every 90m`), counted from the first.
    Every { interval: String },
    /// Once, at a wall-clock time in the schedule's zone (`2026-12-24T09:00`).
    Once { at: String },
}

/// What a fire whose time passed while nothing could fire it does.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Missed {
    /// Counted as missed; the schedule goes on from the next time to come.
    #[default]
    Skip,
    /// The latest missed time fires once, if it is within the catch-up window.
    CatchUp,
}

/// What a fire does while the schedule's previous fire still runs.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Overlap {
    /// Not started; counted as skipped.
    #[default]
    Skip,
    /// Started once the running one ends (one waits at most; a third is skipped).
    Queue,
    /// Started beside it.
    Allow,
    /// The running one is stopped and this one started.
    Cancel,
}

/// Where a fire's run happens.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// A new thread for every fire.
    #[default]
    NewThread,
    /// One thread that every fire adds a run to.
    OneThread,
}

/// What an ask raised by a fire's run does while nobody is at the keyboard.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AskPolicy {
    /// It waits in the inbox, like any other, until answered or expired.
    #[default]
    Wait,
    /// It is denied at once, saying so.
    Deny,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedule {
    pub id: String,
    pub name: String,
    pub agent: String,
    /// Markdown: what the agent is told at each fire.
    pub prompt: String,
    pub project_id: Option<String>,
    pub target: Target,
    /// The thread every fire adds to, once the first fire made it (one-thread schedules).
    pub thread_id: Option<String>,
    pub when: When,
    /// The IANA zone the schedule's times are read in (`Europe/Berlin`).
    pub timezone: String,
    pub missed: Missed,
    /// How late a missed fire may still be caught up, in seconds.
    pub catch_up_window_s: u64,
    pub overlap: Overlap,
    pub asks: AskPolicy,
    /// Set while paused, with the reason given.
    pub paused_at_ms: Option<i64>,
    pub paused_reason: Option<String>,
    /// The next time it fires, unless paused; none once a one-time schedule fired.
    pub next_fire_ms: Option<i64>,
    pub missed_count: u64,
    pub skipped_count: u64,
    pub last_error: Option<String>,
    pub created_by: String,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

/// One scheduled time, and what came of it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fire {
    /// The instant it was scheduled for.
    pub slot_ms: i64,
    /// When it was taken (none for a fire skipped or missed without being taken).
    pub fired_at_ms: Option<i64>,
    /// `queued`, `running`, `completed`, `failed`, `cancelled`, `skipped` (overlap) or
    /// `missed`.
    pub outcome: String,
    /// A fire run at the operator's request, not at its time.
    pub manual: bool,
    /// A missed time fired late by the catch-up policy.
    pub catch_up: bool,
    pub job_id: Option<String>,
    pub thread_id: Option<String>,
    pub run_id: Option<String>,
    pub error: Option<String>,
}

/// A coming fire: the instant and the wall-clock time in the schedule's zone.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FireTime {
    pub at_ms: i64,
    /// `2026-03-29 09:00 CEST`
    pub local: String,
}

/// A schedule with its next 10 fire times and its last 10 fires.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduleDetail {
    pub schedule: Schedule,
    pub next: Vec<FireTime>,
    pub fires: Vec<Fire>,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduleList {
    pub schedules: Vec<Schedule>,
    pub next_offset: Option<u32>,
}

fn default_window() -> u64 {
    3600
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewSchedule {
    pub name: String,
    pub agent: String,
    pub prompt: String,
    #[serde(default)]
    pub project_id: Option<String>,
    #[serde(default)]
    pub target: Target,
    pub when: When,
    pub timezone: String,
    #[serde(default)]
    pub missed: Missed,
    #[serde(default = "default_window")]
    pub catch_up_window_s: u64,
    #[serde(default)]
    pub overlap: Overlap,
    #[serde(default)]
    pub asks: AskPolicy,
    /// Made paused, with this reason.
    #[serde(default)]
    pub paused_reason: Option<String>,
    /// A second create with the same key returns the first schedule.
    #[serde(default)]
    pub idempotency_key: Option<String>,
}

/// An edit: each field given replaces the schedule's.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleEdit {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub agent: Option<String>,
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub when: Option<When>,
    #[serde(default)]
    pub timezone: Option<String>,
    #[serde(default)]
    pub missed: Option<Missed>,
    #[serde(default)]
    pub catch_up_window_s: Option<u64>,
    #[serde(default)]
    pub overlap: Option<Overlap>,
    #[serde(default)]
    pub asks: Option<AskPolicy>,
    #[serde(default)]
    pub target: Option<Target>,
    /// The project its fires' threads belong to; `""` for none.
    #[serde(default)]
    pub project_id: Option<String>,
    /// `Some(reason)` pauses it; see `resume`.
    #[serde(default)]
    pub pause: Option<String>,
    #[serde(default)]
    pub resume: bool,
}

impl When {
    /// The kind as a form names it (`cron`, `every`, `once`) and what was typed for it.
    pub fn parts(&self) -> (&'static str, &str) {
        match self {
            When::Cron { expression } => ("cron", expression),
            When::Every { interval } => ("every", interval),
            When::Once { at } => ("once", at),
        }
    }

    /// From a form's kind and text; an interval may leave out its leading `every`.
    pub fn from_parts(kind: &str, text: &str) -> Result<When, String> {
        let text = text.trim();
        match kind.trim() {
            "cron" => Ok(When::Cron {
                expression: text.to_owned(),
            }),
            "every" => Ok(When::Every {
                interval: if text.starts_with("every") {
                    text.to_owned()
                } else {
                    format!("every {text}")
                },
            }),
            "once" => Ok(When::Once {
                at: text.to_owned(),
            }),
            other => Err(format!("when: {other:?} is not cron, every or once")),
        }
    }

    /// In words, as a list shows it: `cron 0 9 * * 1-5`, `every 2h`, `once at 2026-12-24T09:00`.
    pub fn describe(&self) -> String {
        match self {
            When::Cron { expression } => format!("cron {expression}"),
            When::Every { interval } => interval.clone(),
            When::Once { at } => format!("once at {at}"),
        }
    }
}

/// A choice a form sends as its serialized name (`catch_up`, `one_thread`, …), or the
/// refusal naming `field`.
pub fn choice<T: serde::de::DeserializeOwned>(field: &str, text: &str) -> Result<T, String> {
    serde_json::from_value(serde_json::Value::String(text.trim().to_owned()))
        .map_err(|_| format!("{field}: {:?} is not one of the choices", text.trim()))
}

/// The serialized name of a choice, as a form's option carries it.
pub fn choice_name<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        _ => String::new(),
    }
}

impl Missed {
    pub fn label(self) -> &'static str {
        match self {
            Missed::Skip => "Skip missed fires",
            Missed::CatchUp => "Catch up once, within the window",
        }
    }
}

impl Overlap {
    pub fn label(self) -> &'static str {
        match self {
            Overlap::Skip => "Skip while the last one runs",
            Overlap::Queue => "Queue one",
            Overlap::Allow => "Run beside it",
            Overlap::Cancel => "Stop the running one",
        }
    }
}

impl Target {
    pub fn label(self) -> &'static str {
        match self {
            Target::NewThread => "A new thread for every fire",
            Target::OneThread => "One thread for every fire",
        }
    }
}

impl AskPolicy {
    pub fn label(self) -> &'static str {
        match self {
            AskPolicy::Wait => "Wait in the inbox",
            AskPolicy::Deny => "Deny at once",
        }
    }
}

/// How late a fire may start before the page calls it late, in milliseconds.
pub const LATE_AFTER_MS: i64 = 5_000;

impl Fire {
    /// Started more than [`LATE_AFTER_MS`] after its time (a fire run on request or
    /// caught up is late by design, not by fault).
    pub fn late(&self) -> bool {
        !self.manual
            && !self.catch_up
            && self
                .fired_at_ms
                .is_some_and(|fired| fired - self.slot_ms > LATE_AFTER_MS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_names_when_and_an_interval_may_leave_out_every() {
        assert_eq!(
            When::from_parts("every", "2h"),
            Ok(When::Every {
                interval: "every 2h".into()
            })
        );
        assert_eq!(
            When::from_parts("cron", " 0 9 * * 1-5 ").map(|when| when.describe()),
            Ok("cron 0 9 * * 1-5".to_owned())
        );
        assert!(
            When::from_parts("sometimes", "x")
                .unwrap_err()
                .starts_with("when:")
        );
        let once = When::Once {
            at: "2026-12-24T09:00".into(),
        };
        assert_eq!(When::from_parts(once.parts().0, once.parts().1), Ok(once));
    }

    #[test]
    fn a_choice_round_trips_through_its_name_and_a_wrong_one_names_the_field() {
        for overlap in [
            Overlap::Skip,
            Overlap::Queue,
            Overlap::Allow,
            Overlap::Cancel,
        ] {
            assert_eq!(
                choice::<Overlap>("overlap", &choice_name(&overlap)),
                Ok(overlap)
            );
        }
        assert_eq!(choice::<Missed>("missed", "catch_up"), Ok(Missed::CatchUp));
        assert!(
            choice::<Target>("target", "elsewhere")
                .unwrap_err()
                .starts_with("target:")
        );
    }

    #[test]
    fn a_fire_is_late_only_when_it_started_late_at_its_own_time() {
        let mut fire = Fire {
            slot_ms: 1_000_000,
            fired_at_ms: Some(1_000_000 + LATE_AFTER_MS + 1),
            outcome: "completed".into(),
            manual: false,
            catch_up: false,
            job_id: None,
            thread_id: None,
            run_id: None,
            error: None,
        };
        assert!(fire.late());
        fire.catch_up = true;
        assert!(!fire.late());
        fire.catch_up = false;
        fire.fired_at_ms = Some(1_000_000 + 200);
        assert!(!fire.late());
        fire.fired_at_ms = None;
        assert!(!fire.late());
    }
}
