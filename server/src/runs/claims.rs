//! Claims held in this process on work that must not run twice at once: a workspace
//! tool for an ask, the start of a run in a thread. A second claimant is refused, not
//! queued; the claim ends when its guard is dropped.

use std::collections::HashSet;
use std::sync::Mutex;

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
