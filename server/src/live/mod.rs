//! Live fan-out: stored events are published per run after their transaction commits;
//! [`sse`] serves them as Server-Sent Events that resume from any sequence without a gap
//! or a duplicate; [`tenant`] and [`inbox`] do the same for each tenant's inbox; [`caps`]
//! bounds how many streams are open at once.

mod caps;
pub mod inbox;
mod sse;
mod tenant;

pub use caps::{StreamGate, StreamLimits, StreamPermit, StreamRefusal};
pub use sse::event_stream;
pub use tenant::TenantSignal;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use app::protocol::channel::RunEvent;
use tokio::sync::{broadcast, watch};

/// How many events a slow subscriber may fall behind before it re-reads the store.
const CHANNEL_CAPACITY: usize = 1024;

/// Per-run broadcast channels, and the signal that ends every stream at shutdown.
#[derive(Clone)]
pub struct Live {
    runs: Arc<Mutex<HashMap<String, broadcast::Sender<Arc<RunEvent>>>>>,
    tenants: Arc<tenant::Tenants>,
    closing: Arc<watch::Sender<bool>>,
}

impl Default for Live {
    fn default() -> Live {
        Live {
            runs: Arc::default(),
            tenants: Arc::default(),
            closing: Arc::new(watch::channel(false).0),
        }
    }
}

impl Live {
    /// Ends every live stream, now and from now on. A server that stops listening must
    /// say so to the browsers it streams to, or they would read "Live" from a server
    /// that refuses their next request.
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    /// Resolves once the streams are to end.
    pub async fn closed(&self) {
        let mut closing = self.closing.subscribe();
        // An error means the sender is gone: nothing will ever close the streams then.
        if closing.wait_for(|closed| *closed).await.is_err() {
            std::future::pending::<()>().await;
        }
    }

    pub fn subscribe(&self, run_id: &str) -> broadcast::Receiver<Arc<RunEvent>> {
        let mut runs = self
            .runs
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        runs.entry(run_id.to_owned())
            .or_insert_with(|| broadcast::channel(CHANNEL_CAPACITY).0)
            .subscribe()
    }

    /// Forgets a run's channel once nobody listens to it (a subscriber calls this as it
    /// goes), so finished runs hold no memory here.
    pub fn release(&self, run_id: &str) {
        let mut runs = self
            .runs
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if runs
            .get(run_id)
            .is_some_and(|sender| sender.receiver_count() == 0)
        {
            runs.remove(run_id);
        }
    }

    /// How many runs have a channel open (for tests and diagnostics).
    pub fn channel_count(&self) -> usize {
        self.runs
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .len()
    }

    /// Follows the inbox changes of a tenant.
    pub fn subscribe_tenant(&self, tenant_id: &str) -> broadcast::Receiver<TenantSignal> {
        self.tenants.subscribe(tenant_id)
    }

    /// Forgets a tenant's channel once nobody follows it.
    pub fn release_tenant(&self, tenant_id: &str) {
        self.tenants.release(tenant_id);
    }

    /// How many tenants have a channel open (for tests and diagnostics).
    pub fn tenant_channel_count(&self) -> usize {
        self.tenants.channel_count()
    }

    /// Tells the tenant's inbox streams that the feed moved for a reason other than a
    /// run's events (a thread or project renamed).
    pub fn tenant_changed(&self, tenant_id: &str) {
        self.tenants.wake(tenant_id);
    }

    /// What a run in progress did last, in one line.
    pub fn activity(&self, run_id: &str) -> Option<app::model::inbox::Activity> {
        self.tenants.activity(run_id)
    }

    /// Hands committed events to every subscriber of their run, and tells their tenant.
    pub fn publish(&self, events: &[RunEvent]) {
        let Some(first) = events.first() else {
            return;
        };
        self.tenants.see(events);
        let mut runs = self
            .runs
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let run_id = first.run_id().to_string();
        if let Some(sender) = runs.get(&run_id) {
            for event in events {
                // No receiver is not an error: nobody is watching this run right now.
                let _ = sender.send(Arc::new(event.clone()));
            }
            if sender.receiver_count() == 0 {
                runs.remove(&run_id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_channel_is_freed_once_its_last_subscriber_goes() {
        let live = Live::default();
        let first = live.subscribe("run-1");
        let second = live.subscribe("run-1");
        assert_eq!(live.channel_count(), 1);
        drop(first);
        live.release("run-1");
        assert_eq!(live.channel_count(), 1, "one subscriber still listens");
        drop(second);
        live.release("run-1");
        assert_eq!(live.channel_count(), 0);
        // Publishing to a run nobody follows opens nothing.
        live.publish(&[]);
        assert_eq!(live.channel_count(), 0);
    }
}
