//! How many live streams one user, one tenant and the whole server hold open at once. A
//! stream is admitted with a permit it holds until the client goes; past a cap the
//! request is refused (429) rather than queued, since a stream never ends on its own.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The caps; each counts the streams open now, of every kind (run events and inbox).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamLimits {
    /// A user's streams: a few tabs, each with its inbox and its open runs.
    pub per_user: usize,
    pub per_tenant: usize,
    pub total: usize,
}

impl Default for StreamLimits {
    fn default() -> Self {
        Self {
            per_user: 32,
            per_tenant: 256,
            total: 768,
        }
    }
}

/// Which cap refused a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamRefusal {
    User(usize),
    Tenant(usize),
    Server(usize),
}

impl std::fmt::Display for StreamRefusal {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamRefusal::User(most) => write!(
                formatter,
                "you have {most} live streams open, the most one user may; close a tab or wait for a run to end"
            ),
            StreamRefusal::Tenant(most) => write!(
                formatter,
                "this tenant has {most} live streams open, the most one tenant may"
            ),
            StreamRefusal::Server(most) => write!(
                formatter,
                "the server has {most} live streams open, the most it serves at once"
            ),
        }
    }
}

#[derive(Default)]
struct Counts {
    users: HashMap<String, usize>,
    tenants: HashMap<String, usize>,
    total: usize,
}

/// The open streams, counted.
pub struct StreamGate {
    limits: StreamLimits,
    counts: Arc<Mutex<Counts>>,
}

impl StreamGate {
    pub fn new(limits: StreamLimits) -> Self {
        Self {
            limits,
            counts: Arc::default(),
        }
    }

    /// A permit for one more stream of `user` in `tenant`, when every cap allows it.
    pub fn admit(&self, user: &str, tenant: &str) -> Result<StreamPermit, StreamRefusal> {
        let mut counts = self
            .counts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let limits = self.limits;
        if counts.users.get(user).copied().unwrap_or(0) >= limits.per_user {
            return Err(StreamRefusal::User(limits.per_user));
        }
        if counts.tenants.get(tenant).copied().unwrap_or(0) >= limits.per_tenant {
            return Err(StreamRefusal::Tenant(limits.per_tenant));
        }
        if counts.total >= limits.total {
            return Err(StreamRefusal::Server(limits.total));
        }
        counts.total += 1;
        *counts.tenants.entry(tenant.to_owned()).or_default() += 1;
        *counts.users.entry(user.to_owned()).or_default() += 1;
        Ok(StreamPermit {
            counts: self.counts.clone(),
            user: user.to_owned(),
            tenant: tenant.to_owned(),
        })
    }

    /// Streams open now: of the server, of `tenant`, of `user`.
    pub fn open(&self, user: &str, tenant: &str) -> (usize, usize, usize) {
        let counts = self
            .counts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        (
            counts.total,
            counts.tenants.get(tenant).copied().unwrap_or(0),
            counts.users.get(user).copied().unwrap_or(0),
        )
    }
}

/// One admitted stream; dropping it (the client went, the stream ended) frees its place.
pub struct StreamPermit {
    counts: Arc<Mutex<Counts>>,
    user: String,
    tenant: String,
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        let mut counts = self
            .counts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        counts.total = counts.total.saturating_sub(1);
        let Counts { users, tenants, .. } = &mut *counts;
        for (map, key) in [(users, &self.user), (tenants, &self.tenant)] {
            if let Some(count) = map.get_mut(key) {
                *count -= 1;
                if *count == 0 {
                    map.remove(key);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cap_refuses_past_its_count_and_a_dropped_permit_frees_its_place() {
        let gate = StreamGate::new(StreamLimits {
            per_user: 2,
            per_tenant: 3,
            total: 4,
        });
        let first = gate.admit("ada", "a").unwrap();
        let _second = gate.admit("ada", "a").unwrap();
        assert_eq!(gate.admit("ada", "a").err(), Some(StreamRefusal::User(2)));
        let _third = gate.admit("bob", "a").unwrap();
        assert_eq!(gate.admit("cy", "a").err(), Some(StreamRefusal::Tenant(3)));
        let _fourth = gate.admit("cy", "b").unwrap();
        assert_eq!(gate.admit("dee", "c").err(), Some(StreamRefusal::Server(4)));
        drop(first);
        assert_eq!(gate.open("ada", "a"), (3, 2, 1));
        assert!(gate.admit("ada", "a").is_ok());
    }
}
