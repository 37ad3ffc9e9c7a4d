//! Login attempts counted per account and per client address: past a limit of failures
//! within a window, attempts are refused until the oldest failure leaves the window, so
//! passwords cannot be guessed at speed. Kept in memory; a restart forgets it.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// Failures an account may have within [`WINDOW_MS`].
pub const PER_ACCOUNT: usize = 5;
/// Failures one client address may have within [`WINDOW_MS`], across accounts.
pub const PER_ADDRESS: usize = 20;
pub const WINDOW_MS: i64 = 15 * 60 * 1000;
/// Keys tracked before old ones are swept, so a flood of names cannot grow memory.
const MOST_KEYS: usize = 10_000;

pub struct Throttle {
    failures: Mutex<HashMap<String, VecDeque<i64>>>,
    limit: usize,
    window_ms: i64,
}

impl Throttle {
    pub fn new(limit: usize, window_ms: i64) -> Self {
        Self {
            failures: Mutex::new(HashMap::new()),
            limit,
            window_ms,
        }
    }

    /// When `key` may try again, if it is over its limit at `now`.
    pub fn blocked_until(&self, key: &str, now: i64) -> Option<i64> {
        let mut failures = self
            .failures
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        let times = failures.get_mut(key)?;
        while times.front().is_some_and(|at| *at <= now - self.window_ms) {
            times.pop_front();
        }
        if times.len() >= self.limit {
            times.front().map(|oldest| oldest + self.window_ms)
        } else {
            None
        }
    }

    pub fn failed(&self, key: &str, now: i64) {
        let mut failures = self
            .failures
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        if failures.len() >= MOST_KEYS && !failures.contains_key(key) {
            let window = self.window_ms;
            failures.retain(|_, times| times.back().is_some_and(|at| *at > now - window));
        }
        let times = failures.entry(key.to_owned()).or_default();
        times.push_back(now);
        while times.len() > self.limit {
            times.pop_front();
        }
    }

    /// A success clears the key's failures.
    pub fn succeeded(&self, key: &str) {
        let mut failures = self
            .failures
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        failures.remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_limit_attempts_wait_until_the_oldest_failure_leaves_the_window() {
        let throttle = Throttle::new(3, 1_000);
        for at in [0, 10, 20] {
            assert_eq!(throttle.blocked_until("ada", at), None);
            throttle.failed("ada", at);
        }
        assert_eq!(throttle.blocked_until("ada", 30), Some(1_000));
        assert_eq!(throttle.blocked_until("bob", 30), None, "keys are apart");
        assert_eq!(throttle.blocked_until("ada", 1_000), None);
        throttle.failed("ada", 1_000);
        assert_eq!(throttle.blocked_until("ada", 1_001), Some(1_010));
        throttle.succeeded("ada");
        assert_eq!(throttle.blocked_until("ada", 1_001), None);
    }

    #[test]
    fn a_flood_of_names_does_not_grow_without_bound() {
        let throttle = Throttle::new(3, 1_000);
        for n in 0..MOST_KEYS {
            throttle.failed(&format!("name-{n}"), 0);
        }
        throttle.failed("late", 5_000);
        let kept = throttle.failures.lock().unwrap().len();
        assert_eq!(kept, 1);
    }
}
