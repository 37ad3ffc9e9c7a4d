//! The tenant side of the fan-out: which tenants' inboxes changed (an ask opened or
//! closed, a run started or stopped) and what each run in progress did last, for the one
//! live stream each browser tab keeps per tenant.

use std::collections::HashMap;
use std::sync::Mutex;

use app::model::inbox::Activity;
use app::projection::activity::ActivityTracker;
use app::protocol::channel::{EventBody, RunEvent};
use tokio::sync::broadcast;

/// How many signals a slow tenant stream may fall behind before it re-reads the feed.
const CAPACITY: usize = 256;

/// What a tenant's stream is told.
#[derive(Clone, Debug)]
pub enum TenantSignal {
    /// The tenant's feed has new rows.
    Changed,
    /// A run in progress did something.
    Activity { run_id: String, activity: Activity },
}

struct RunActivity {
    tracker: ActivityTracker,
    last: Option<Activity>,
}

#[derive(Default)]
pub(super) struct Tenants {
    channels: Mutex<HashMap<String, broadcast::Sender<TenantSignal>>>,
    runs: Mutex<HashMap<String, RunActivity>>,
}

/// Whether an event changes what the inbox or the running list shows: the feed has a
/// row for it (a run's first event is its operator's message, after the run was made).
fn changes_inbox(body: &EventBody) -> bool {
    matches!(
        body,
        EventBody::RunStarted { .. }
            | EventBody::RunFinished { .. }
            | EventBody::RunFailed { .. }
            | EventBody::AskOpened { .. }
            | EventBody::AskClosed { .. }
            | EventBody::UserMessage { .. }
            | EventBody::SurfaceAction { .. }
    )
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Tenants {
    pub(super) fn subscribe(&self, tenant_id: &str) -> broadcast::Receiver<TenantSignal> {
        lock(&self.channels)
            .entry(tenant_id.to_owned())
            .or_insert_with(|| broadcast::channel(CAPACITY).0)
            .subscribe()
    }

    pub(super) fn release(&self, tenant_id: &str) {
        let mut channels = lock(&self.channels);
        if channels
            .get(tenant_id)
            .is_some_and(|sender| sender.receiver_count() == 0)
        {
            channels.remove(tenant_id);
        }
    }

    pub(super) fn channel_count(&self) -> usize {
        lock(&self.channels).len()
    }

    /// Wakes the tenant's streams to read the feed (nobody listening is not an error).
    pub(super) fn wake(&self, tenant_id: &str) {
        if let Some(sender) = lock(&self.channels).get(tenant_id) {
            let _ = sender.send(TenantSignal::Changed);
        }
    }

    /// What the run did last, while it is in progress.
    pub(super) fn activity(&self, run_id: &str) -> Option<Activity> {
        lock(&self.runs)
            .get(run_id)
            .and_then(|run| run.last.clone())
    }

    /// Takes in one run's committed events.
    pub(super) fn see(&self, events: &[RunEvent]) {
        let Some(first) = events.first() else {
            return;
        };
        let run_id = first.run_id();
        let mut changed = false;
        let mut ended = false;
        let mut latest = None;
        {
            let mut runs = lock(&self.runs);
            // Answers and the console's notices arrive for runs that ended too (a paused
            // run's asks, an ask reopened after a restart): they follow a run already
            // followed, and start following none.
            let after_the_end = events.iter().all(|event| {
                matches!(
                    event.body,
                    EventBody::AskClosed { .. } | EventBody::Notice { .. }
                )
            });
            let mut run = if after_the_end {
                runs.get_mut(run_id)
            } else {
                Some(
                    runs.entry(run_id.to_owned())
                        .or_insert_with(|| RunActivity {
                            tracker: ActivityTracker::default(),
                            last: None,
                        }),
                )
            };
            for event in events {
                changed |= changes_inbox(&event.body);
                ended |= matches!(
                    event.body,
                    EventBody::RunFinished { .. } | EventBody::RunFailed { .. }
                );
                if let Some(line) = run.as_mut().and_then(|run| run.tracker.see(&event.body)) {
                    latest = Some(Activity {
                        line,
                        at_ms: event.ts,
                    });
                }
            }
            if let (Some(run), Some(activity)) = (run, &latest) {
                run.last = Some(activity.clone());
            }
            if ended {
                runs.remove(run_id);
            }
        }
        let channels = lock(&self.channels);
        let Some(sender) = channels.get(first.tenant_id()) else {
            return;
        };
        // No receiver is not an error: nobody has the inbox open right now.
        if let (Some(activity), false) = (latest, ended) {
            let _ = sender.send(TenantSignal::Activity {
                run_id: run_id.to_owned(),
                activity,
            });
        }
        if changed {
            let _ = sender.send(TenantSignal::Changed);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use app::protocol::ask::{AskKind, AskState};
    use app::protocol::channel::{Channel, EventBody, Level, RunEvent, RunOutcome, RunRef};

    use super::{Tenants, lock};

    fn event(run: &Arc<RunRef>, sequence: u64, body: EventBody) -> RunEvent {
        RunEvent {
            run: run.clone(),
            sequence,
            channel: Channel::System,
            body,
            ts: 1,
            upstream: None,
        }
    }

    #[test]
    fn a_run_is_followed_until_it_ends_and_an_answer_after_its_end_follows_nothing() {
        let tenants = Tenants::default();
        let run = Arc::new(RunRef::new("acme", "th", "r1"));
        let started = EventBody::RunStarted {
            protocol_version: None,
        };
        tenants.see(&[event(&run, 1, started)]);
        assert_eq!(lock(&tenants.runs).len(), 1);
        let paused = EventBody::RunFinished {
            outcome: RunOutcome::Interrupted {
                ask_ids: vec!["a".into()],
            },
        };
        tenants.see(&[event(&run, 2, paused)]);
        assert_eq!(lock(&tenants.runs).len(), 0);
        // The paused run's ask answered afterwards.
        let answered = EventBody::AskClosed {
            ask_id: "a".into(),
            ask_kind: AskKind::Approval,
            state: Box::new(AskState::Expired),
        };
        tenants.see(&[event(&run, 3, answered.clone())]);
        assert_eq!(lock(&tenants.runs).len(), 0, "nothing left behind");
        // An ask reopened after a restart, with the console's notice, or a notice alone.
        let reopened = EventBody::AskClosed {
            ask_id: "a".into(),
            ask_kind: AskKind::Approval,
            state: Box::new(AskState::Pending),
        };
        let notice = EventBody::Notice {
            level: Level::Warning,
            text: "must be entered again".into(),
            source: "console".into(),
        };
        tenants.see(&[event(&run, 4, reopened), event(&run, 5, notice.clone())]);
        tenants.see(&[event(&run, 6, notice)]);
        assert_eq!(lock(&tenants.runs).len(), 0, "still nothing left behind");
    }
}
