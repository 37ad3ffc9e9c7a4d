//! When a schedule fires: its cron expression, interval or one time read in its own IANA
//! zone. Cron times hold their wall-clock hour across daylight saving changes (a time in
//! the spring gap fires at the first minute after it; a time in the repeated autumn hour
//! fires once); intervals are elapsed time, which no clock change moves.

use std::str::FromStr;
use std::time::Duration;

use app::model::schedules::{FireTime, When};
use chrono::{DateTime, LocalResult, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Tz;
use croner::Cron;

/// Why a schedule's timing was refused: the field, and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct TimingError {
    pub field: &'static str,
    pub reason: String,
}

fn refused(field: &'static str, reason: impl Into<String>) -> TimingError {
    TimingError {
        field,
        reason: reason.into(),
    }
}

#[derive(Clone, Debug)]
enum Clock {
    Cron(Box<Cron>),
    /// Every `period` from `anchor_ms`.
    Every {
        period_ms: i64,
        anchor_ms: i64,
    },
    Once(i64),
}

/// A schedule's timing, read and checked.
#[derive(Clone, Debug)]
pub struct Timing {
    clock: Clock,
    zone: Tz,
}

/// Reads `when` in `timezone`. An interval counts from `anchor_ms` (the schedule's start)
/// and may be no shorter than `shortest`.
pub fn read(
    when: &When,
    timezone: &str,
    anchor_ms: i64,
    shortest: Duration,
) -> Result<Timing, TimingError> {
    let zone = Tz::from_str(timezone.trim()).map_err(|_| {
        refused(
            "timezone",
            format!("{timezone:?} is not an IANA time zone (such as Europe/Berlin or UTC)"),
        )
    })?;
    let clock = match when {
        When::Cron { expression } => Clock::Cron(Box::new(cron(expression)?)),
        When::Every { interval } => {
            let period = interval_of(interval)?;
            if period < shortest {
                return Err(refused(
                    "when.interval",
                    format!(
                        "fires at most every {}",
                        humantime::format_duration(shortest)
                    ),
                ));
            }
            Clock::Every {
                period_ms: i64::try_from(period.as_millis()).unwrap_or(i64::MAX),
                anchor_ms,
            }
        }
        When::Once { at } => Clock::Once(once(at, &zone)?),
    };
    let timing = Timing { clock, zone };
    if let Clock::Cron(_) = &timing.clock
        && timing.next_after(anchor_ms).is_none()
    {
        return Err(refused("when.expression", "never fires"));
    }
    Ok(timing)
}

fn cron(expression: &str) -> Result<Cron, TimingError> {
    let expression = expression.trim();
    let nickname = expression.starts_with('@');
    if !nickname && expression.split_whitespace().count() != 5 {
        return Err(refused(
            "when.expression",
            "takes five fields: minute, hour, day of month, month, day of week",
        ));
    }
    Cron::from_str(expression).map_err(|error| refused("when.expression", error.to_string()))
}

/// `every 2h`, `2h`, `every 1h 30m`.
fn interval_of(text: &str) -> Result<Duration, TimingError> {
    let words = text.trim();
    let words = words
        .strip_prefix("every ")
        .or_else(|| words.strip_prefix("Every "))
        .unwrap_or(words)
        .trim();
    humantime::parse_duration(words).map_err(|_| {
        refused(
            "when.interval",
            format!("{text:?} is not an interval (such as every 2h or every 90m)"),
        )
    })
}

/// A wall-clock time in `zone`: the first of two in a repeated hour, the first minute
/// after a time skipped by the clocks going forward.
fn once(at: &str, zone: &Tz) -> Result<i64, TimingError> {
    let naive = ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"]
        .iter()
        .find_map(|format| NaiveDateTime::parse_from_str(at.trim(), format).ok())
        .ok_or_else(|| {
            refused(
                "when.at",
                format!("{at:?} is not a date and time (such as 2026-12-24T09:00)"),
            )
        })?;
    let mut probe = naive;
    for _ in 0..=24 * 60 {
        match zone.from_local_datetime(&probe) {
            LocalResult::Single(at) | LocalResult::Ambiguous(at, _) => {
                return Ok(at.timestamp_millis());
            }
            LocalResult::None => probe += chrono::TimeDelta::minutes(1),
        }
    }
    Err(refused("when.at", "does not exist in the time zone"))
}

impl Timing {
    /// The first fire strictly after `after_ms`, if any is left.
    pub fn next_after(&self, after_ms: i64) -> Option<i64> {
        match &self.clock {
            Clock::Cron(cron) => {
                let start = self.zone.timestamp_millis_opt(after_ms).single()?;
                let next = cron.find_next_occurrence(&start, false).ok()?;
                Some(next.timestamp_millis())
            }
            Clock::Every {
                period_ms,
                anchor_ms,
            } => {
                if after_ms < *anchor_ms {
                    return Some(*anchor_ms);
                }
                let periods = (after_ms - anchor_ms) / period_ms + 1;
                Some(anchor_ms.saturating_add(periods.saturating_mul(*period_ms)))
            }
            Clock::Once(at) => (*at > after_ms).then_some(*at),
        }
    }

    /// The next `count` fires after `after_ms`, with their wall-clock time in the zone.
    pub fn upcoming(&self, after_ms: i64, count: usize) -> Vec<FireTime> {
        let mut times = Vec::with_capacity(count);
        let mut cursor = after_ms;
        while times.len() < count {
            let Some(next) = self.next_after(cursor) else {
                break;
            };
            times.push(FireTime {
                at_ms: next,
                local: self.local(next),
            });
            cursor = next;
        }
        times
    }

    /// `2026-03-29 09:00 CEST`
    pub fn local(&self, at_ms: i64) -> String {
        match DateTime::<Utc>::from_timestamp_millis(at_ms) {
            Some(at) => at
                .with_timezone(&self.zone)
                .format("%Y-%m-%d %H:%M %Z")
                .to_string(),
            None => String::new(),
        }
    }
}

#[cfg(test)]
mod tests;
