//! How the console writes a moment: RFC 3339 for machines, a plain UTC line for people.
//! UTC on both sides of hydration, so the server's page and the browser's agree.

/// Epoch milliseconds as RFC 3339 in UTC with milliseconds, e.g. `2026-12-02T10:00:00.000Z`.
pub fn rfc3339(ms: i64) -> String {
    let nanos = i128::from(ms) * 1_000_000;
    time::OffsetDateTime::from_unix_timestamp_nanos(nanos)
        .ok()
        .and_then(|at| {
            at.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_else(|| ms.to_string())
}

/// An RFC 3339 UTC time as people read it: `2026-12-02 10:00:00 UTC`; anything else as
/// given.
pub fn readable(rfc3339: &str) -> String {
    match (rfc3339.get(..10), rfc3339.get(11..19)) {
        (Some(day), Some(clock)) if rfc3339.ends_with('Z') => format!("{day} {clock} UTC"),
        _ => rfc3339.to_owned(),
    }
}

/// "4 s", "1 min 5 s", "2 h 3 min": a short duration in whole seconds.
pub fn elapsed(ms: i64) -> String {
    let seconds = ms.max(0) / 1000;
    if seconds < 60 {
        format!("{seconds} s")
    } else if seconds < 3600 {
        format!("{} min {} s", seconds / 60, seconds % 60)
    } else {
        format!("{} h {} min", seconds / 3600, seconds % 3600 / 60)
    }
}

/// How long ago something happened, roughly: "just now", "5 min ago", "3 h ago", "2 d ago".
pub fn ago(ms: i64) -> String {
    let minutes = ms.max(0) / 60_000;
    match minutes {
        0 => "just now".to_owned(),
        1..=59 => format!("{minutes} min ago"),
        60..=2879 => format!("{} h ago", minutes / 60),
        _ => format!("{} d ago", minutes / 1440),
    }
}

/// How long is left before a deadline `ms` away: "expires in 4 min", or "expired".
pub fn time_left(ms: i64) -> String {
    if ms <= 0 {
        return "expired".to_owned();
    }
    let seconds = ms / 1000;
    match seconds {
        0..=59 => format!("expires in {seconds} s"),
        60..=3599 => format!("expires in {} min", seconds / 60),
        _ => format!("expires in {} h", seconds / 3600),
    }
}

/// The sidebar's age of a thread: "now", "5m", "3h", "2d", "6w"; never empty, so the
/// server's page and the hydrated one hold the same text node.
pub fn short_age(ms: i64) -> String {
    let minutes = ms.max(0) / 60_000;
    match minutes {
        0 => "now".to_owned(),
        1..=59 => format!("{minutes}m"),
        60..=1439 => format!("{}h", minutes / 60),
        1440..=20_159 => format!("{}d", minutes / 1440),
        _ => format!("{}w", minutes / 10_080),
    }
}

/// The day group a moment falls in, seen from `now_ms` by someone `offset_minutes` east
/// of UTC: whole calendar days in their own time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DayGroup {
    Today,
    Yesterday,
    ThisWeek,
    Earlier,
}

impl DayGroup {
    pub fn label(self) -> &'static str {
        match self {
            DayGroup::Today => "Today",
            DayGroup::Yesterday => "Yesterday",
            DayGroup::ThisWeek => "Previous 7 days",
            DayGroup::Earlier => "Earlier",
        }
    }
}

pub fn day_group(at_ms: i64, now_ms: i64, offset_minutes: i64) -> DayGroup {
    let day = |ms: i64| (ms + offset_minutes * 60_000).div_euclid(86_400_000);
    match day(now_ms) - day(at_ms) {
        ..=0 => DayGroup::Today,
        1 => DayGroup::Yesterday,
        2..=7 => DayGroup::ThisWeek,
        _ => DayGroup::Earlier,
    }
}

/// Epoch milliseconds by this side's clock: the browser's, or the server's.
pub fn now_ms() -> i64 {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        js_sys::Date::now() as i64
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| {
                i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moment_is_written_for_machines_and_for_people() {
        let at = rfc3339(1_764_669_600_123);
        assert_eq!(at, "2025-12-02T10:00:00.123Z");
        assert_eq!(readable(&at), "2025-12-02 10:00:00 UTC");
        assert_eq!(readable("yesterday"), "yesterday");
    }

    #[test]
    fn elapsed_time_reads_in_seconds_then_minutes() {
        assert_eq!(elapsed(-5), "0 s");
        assert_eq!(elapsed(4_900), "4 s");
        assert_eq!(elapsed(65_000), "1 min 5 s");
        assert_eq!(elapsed(7_380_000), "2 h 3 min");
    }

    #[test]
    fn ages_and_deadlines_read_roughly() {
        assert_eq!(ago(-10), "just now");
        assert_eq!(ago(59_999), "just now");
        assert_eq!(ago(300_000), "5 min ago");
        assert_eq!(ago(3 * 3_600_000), "3 h ago");
        assert_eq!(ago(3 * 86_400_000), "3 d ago");
        assert_eq!(time_left(0), "expired");
        assert_eq!(time_left(30_000), "expires in 30 s");
        assert_eq!(time_left(240_000), "expires in 4 min");
        assert_eq!(time_left(7_200_000), "expires in 2 h");
    }

    #[test]
    fn a_thread_age_is_short_and_never_empty() {
        assert_eq!(short_age(-1), "now");
        assert_eq!(short_age(59_999), "now");
        assert_eq!(short_age(5 * 60_000), "5m");
        assert_eq!(short_age(3 * 3_600_000), "3h");
        assert_eq!(short_age(2 * 86_400_000), "2d");
        assert_eq!(short_age(15 * 86_400_000), "2w");
    }

    #[test]
    fn day_groups_follow_the_calendar_in_local_time() {
        let noon = 1_764_676_800_000; // 2025-12-02 12:00 UTC
        let hour = 3_600_000;
        assert_eq!(day_group(noon - hour, noon, 0), DayGroup::Today);
        assert_eq!(day_group(noon - 13 * hour, noon, 0), DayGroup::Yesterday);
        // 23:00 UTC the day before is already today two hours east.
        assert_eq!(day_group(noon - 13 * hour, noon, 120), DayGroup::Today);
        assert_eq!(day_group(noon - 3 * 24 * hour, noon, 0), DayGroup::ThisWeek);
        assert_eq!(day_group(noon - 9 * 24 * hour, noon, 0), DayGroup::Earlier);
        assert_eq!(day_group(noon + hour, noon, 0), DayGroup::Today);
    }
}
