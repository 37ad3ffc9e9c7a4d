//! Wall-clock time in epoch milliseconds, the unit every stored time is in.

use std::time::{SystemTime, UNIX_EPOCH};

/// How many times an edit is made again on a fresh read when the row changed under it.
pub const EDIT_TRIES: usize = 5;

/// The time to stamp an edit of a row last stamped `before` with: now, and always later
/// than `before`, so the stamp tells every edit apart (an edit is conditional on it).
pub fn stamp_after(before: i64) -> i64 {
    now_ms().max(before.saturating_add(1))
}

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
