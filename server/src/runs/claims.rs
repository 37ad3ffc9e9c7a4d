//! Claims held in this process on work that must not run twice at once: the start of a
//! run in a thread (a second claimant is refused, not queued); and turns, taken one after
//! another (the answers to one run's asks, a workspace tool's run among them). Each ends
//! when its guard is dropped.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use tokio::sync::{Mutex as TurnLock, OwnedMutexGuard};

#[derive(Default)]
pub(super) struct Claims(Mutex<HashSet<String>>);

/// Holds a claim until dropped.
pub(super) struct Claim<'a> {
    claims: &'a Claims,
    key: String,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        if let Ok(mut held) = self.claims.0.lock() {
            held.remove(&self.key);
        }
    }
}

impl Claims {
    /// The claim on `key`, unless someone holds it.
    pub(super) fn claim(&self, key: &str) -> Option<Claim<'_>> {
        let mut held = self.0.lock().ok()?;
        held.insert(key.to_owned()).then(|| Claim {
            claims: self,
            key: key.to_owned(),
        })
    }
}

/// Turns by key: one holder at a time, the others wait in order.
#[derive(Default)]
pub(super) struct Turns(Mutex<HashMap<String, Arc<TurnLock<()>>>>);

/// Holds a turn until dropped.
pub(super) type Turn = OwnedMutexGuard<()>;

impl Turns {
    /// The turn on `key`, once those before it are done.
    pub(super) async fn take(&self, key: &str) -> Turn {
        let lock = {
            let mut turns = self
                .0
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            // A lock only the map holds has no holder and nobody waiting: it goes.
            turns.retain(|_, lock| Arc::strong_count(lock) > 1);
            turns.entry(key.to_owned()).or_default().clone()
        };
        lock.lock_owned().await
    }
}
