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

/// "4 s", "1 min 5 s": a short duration in whole seconds.
pub fn elapsed(ms: i64) -> String {
    let seconds = ms.max(0) / 1000;
    if seconds < 60 {
        format!("{seconds} s")
    } else {
        format!("{} min {} s", seconds / 60, seconds % 60)
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
    }
}
