//! Password attempts counted so they cannot be guessed at speed. An attempt takes its
//! place in the count *before* the password is checked (a reservation that stands as a
//! failure unless the attempt succeeds), so a hundred attempts sent at once are counted
//! as a hundred, not as none. Kept in memory; a restart forgets it.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// Failures one account may have from one client address within [`WINDOW_MS`].
pub const PER_ACCOUNT_AND_ADDRESS: usize = 5;
/// Failures one client address may have within [`WINDOW_MS`], across accounts.
pub const PER_ADDRESS: usize = 20;
/// Failures one account may have within [`WINDOW_MS`] from addresses it never signed in
/// from: what a guesser spread over many addresses gets, while the account's owner,
/// signing in from where they did before, is not held back by it.
pub const PER_ACCOUNT: usize = 50;
/// Wrong passwords a signed-in user may give when a password is asked again (revealing a
/// secret) within [`WINDOW_MS`].
pub const PER_USER_RECHECK: usize = 5;
pub const WINDOW_MS: i64 = 15 * 60 * 1000;
/// How long an address an account signed in from stays known to it.
pub const KNOWN_MS: i64 = 30 * 24 * 60 * 60 * 1000;
/// Keys tracked before old ones are swept, so a flood of names cannot grow memory.
const MOST_KEYS: usize = 10_000;

/// Attempts per key within a sliding window.
pub struct Throttle {
    attempts: Mutex<HashMap<String, VecDeque<i64>>>,
    limit: usize,
    window_ms: i64,
}

impl Throttle {
    pub fn new(limit: usize, window_ms: i64) -> Self {
        Self {
            attempts: Mutex::new(HashMap::new()),
            limit,
            window_ms,
        }
    }

    /// Counts an attempt for `key` at `now`, if it is under its limit; otherwise when it
    /// may try again. The attempt stands as a failure until [`Throttle::succeeded`]
    /// clears the key or [`Throttle::cancel`] takes it back.
    pub fn reserve(&self, key: &str, now: i64) -> Result<(), i64> {
        let mut attempts = self
            .attempts
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        if attempts.len() >= MOST_KEYS && !attempts.contains_key(key) {
            let window = self.window_ms;
            attempts.retain(|_, times| times.back().is_some_and(|at| *at > now - window));
        }
        let times = attempts.entry(key.to_owned()).or_default();
        while times.front().is_some_and(|at| *at <= now - self.window_ms) {
            times.pop_front();
        }
        if times.len() >= self.limit {
            return Err(times.front().map_or(now, |oldest| oldest + self.window_ms));
        }
        times.push_back(now);
        Ok(())
    }

    /// Takes back the attempt reserved at `at`: it was never made (another limit refused
    /// it, or the check could not run).
    pub fn cancel(&self, key: &str, at: i64) {
        let mut attempts = self
            .attempts
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        if let Some(times) = attempts.get_mut(key)
            && let Some(position) = times.iter().rposition(|time| *time == at)
        {
            times.remove(position);
        }
    }

    /// A success clears the key's failures.
    pub fn succeeded(&self, key: &str) {
        let mut attempts = self
            .attempts
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        attempts.remove(key);
    }
}

/// Sign-in attempts: per account and address, per address, and per account from
/// addresses it has not signed in from before.
pub struct LoginThrottle {
    pairs: Throttle,
    addresses: Throttle,
    accounts: Throttle,
    /// `account address` → when the account last signed in from there.
    known: Mutex<HashMap<String, i64>>,
}

impl Default for LoginThrottle {
    fn default() -> Self {
        Self {
            pairs: Throttle::new(PER_ACCOUNT_AND_ADDRESS, WINDOW_MS),
            addresses: Throttle::new(PER_ADDRESS, WINDOW_MS),
            accounts: Throttle::new(PER_ACCOUNT, WINDOW_MS),
            known: Mutex::default(),
        }
    }
}

/// One sign-in attempt's places in the counts, to be settled once the password is checked.
pub struct Attempt {
    account: String,
    address: String,
    at: i64,
    counted_for_account: bool,
}

impl LoginThrottle {
    /// Counts a sign-in of `account` from `address` at `now`, or says until when it must
    /// wait.
    pub fn reserve(&self, account: &str, address: &str, now: i64) -> Result<Attempt, i64> {
        let pair = pair_key(account, address);
        self.pairs.reserve(&pair, now)?;
        if let Err(until) = self.addresses.reserve(address, now) {
            self.pairs.cancel(&pair, now);
            return Err(until);
        }
        let known = self.is_known(&pair, now);
        if !known && let Err(until) = self.accounts.reserve(account, now) {
            self.pairs.cancel(&pair, now);
            self.addresses.cancel(address, now);
            return Err(until);
        }
        Ok(Attempt {
            account: account.to_owned(),
            address: address.to_owned(),
            at: now,
            counted_for_account: !known,
        })
    }

    /// The password was right: the pair's failures are cleared and the address becomes
    /// known to the account. The address's other failures stand (it may be guessing
    /// other accounts).
    pub fn succeeded(&self, attempt: Attempt) {
        let pair = pair_key(&attempt.account, &attempt.address);
        self.pairs.succeeded(&pair);
        self.addresses.cancel(&attempt.address, attempt.at);
        if attempt.counted_for_account {
            self.accounts.cancel(&attempt.account, attempt.at);
        }
        let mut known = self
            .known
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        if known.len() >= MOST_KEYS && !known.contains_key(&pair) {
            known.retain(|_, at| *at > attempt.at - KNOWN_MS);
        }
        known.insert(pair, attempt.at);
    }

    /// The password could not be checked (the server was busy, the store failed): the
    /// attempt is not counted.
    pub fn cancel(&self, attempt: Attempt) {
        self.pairs
            .cancel(&pair_key(&attempt.account, &attempt.address), attempt.at);
        self.addresses.cancel(&attempt.address, attempt.at);
        if attempt.counted_for_account {
            self.accounts.cancel(&attempt.account, attempt.at);
        }
    }

    fn is_known(&self, pair: &str, now: i64) -> bool {
        self.known
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .get(pair)
            .is_some_and(|at| *at > now - KNOWN_MS)
    }
}

fn pair_key(account: &str, address: &str) -> String {
    format!("{account} {address}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_limit_attempts_wait_until_the_oldest_leaves_the_window() {
        let throttle = Throttle::new(3, 1_000);
        for at in [0, 10, 20] {
            assert_eq!(throttle.reserve("ada", at), Ok(()));
        }
        assert_eq!(throttle.reserve("ada", 30), Err(1_000));
        assert_eq!(throttle.reserve("bob", 30), Ok(()), "keys are apart");
        assert_eq!(throttle.reserve("ada", 1_000), Ok(()));
        assert_eq!(throttle.reserve("ada", 1_001), Err(1_010));
        throttle.succeeded("ada");
        assert_eq!(throttle.reserve("ada", 1_001), Ok(()));
        throttle.cancel("ada", 1_001);
        assert_eq!(throttle.reserve("ada", 1_002), Ok(()));
    }

    #[test]
    fn a_flood_of_names_does_not_grow_without_bound() {
        let throttle = Throttle::new(3, 1_000);
        for n in 0..MOST_KEYS {
            throttle.reserve(&format!("name-{n}"), 0).unwrap();
        }
        throttle.reserve("late", 5_000).unwrap();
        let kept = throttle.attempts.lock().unwrap().len();
        assert_eq!(kept, 1);
    }

    #[test]
    fn five_wrong_passwords_from_one_address_leave_the_account_open_from_another() {
        let throttle = LoginThrottle::default();
        for _ in 0..PER_ACCOUNT_AND_ADDRESS {
            throttle.reserve("ada", "203.0.113.9", 0).unwrap();
        }
        assert!(throttle.reserve("ada", "203.0.113.9", 1).is_err());
        let attempt = throttle.reserve("ada", "198.51.100.7", 2).unwrap();
        throttle.succeeded(attempt);
    }

    #[test]
    fn guesses_spread_over_many_addresses_stop_at_the_account_limit_but_not_for_a_known_address() {
        let throttle = LoginThrottle::default();
        let home = throttle.reserve("ada", "192.0.2.1", 0).unwrap();
        throttle.succeeded(home);
        for n in 0..PER_ACCOUNT {
            throttle
                .reserve("ada", &format!("10.0.{}.{}", n / 200, n % 200), 10)
                .unwrap();
        }
        assert!(throttle.reserve("ada", "10.9.9.9", 11).is_err());
        assert!(throttle.reserve("ada", "192.0.2.1", 12).is_ok());
    }

    #[test]
    fn an_attempt_refused_by_one_count_is_not_left_in_the_others() {
        let throttle = LoginThrottle::default();
        for n in 0..PER_ADDRESS {
            throttle
                .reserve(&format!("user{n}"), "10.0.0.1", 0)
                .unwrap();
        }
        assert!(throttle.reserve("ada", "10.0.0.1", 1).is_err());
        let pairs = throttle.pairs.attempts.lock().unwrap();
        assert!(pairs.get("ada 10.0.0.1").is_none_or(VecDeque::is_empty));
    }
}
