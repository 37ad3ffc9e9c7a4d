//! How long a failed job waits before its next attempt: doubling from a few seconds,
//! capped, each wait moved by up to a quarter either way so that jobs failing together
//! do not come back together.

use std::time::Duration;

const FIRST: Duration = Duration::from_secs(5);
const LONGEST: Duration = Duration::from_secs(30 * 60);

/// The wait after attempt `attempt` (1 for the first) failed; `spread` in `[0, 1)` picks
/// where in the ±25 % band it lands.
pub fn after(attempt: u32, spread: f64) -> Duration {
    let doubled = FIRST.saturating_mul(1_u32 << attempt.saturating_sub(1).min(20));
    let base = doubled.min(LONGEST);
    base.mul_f64(0.75 + spread.clamp(0.0, 1.0) * 0.5)
}

/// [`after`] with a random spread.
pub fn random_after(attempt: u32) -> Duration {
    after(attempt, fastrand::f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_from_five_seconds_and_stop_at_half_an_hour() {
        let middle: Vec<u64> = (1..=12).map(|n| after(n, 0.5).as_secs()).collect();
        assert_eq!(
            middle,
            [5, 10, 20, 40, 80, 160, 320, 640, 1280, 1800, 1800, 1800]
        );
        assert_eq!(after(u32::MAX, 0.5), LONGEST);
    }

    #[test]
    fn the_spread_moves_a_wait_by_at_most_a_quarter() {
        assert_eq!(after(3, 0.0), Duration::from_secs(15));
        assert_eq!(after(3, 0.999_999).as_secs(), 24);
        let random = random_after(3);
        assert!(random >= Duration::from_secs(15) && random < Duration::from_secs(25));
    }
}
