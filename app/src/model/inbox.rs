//! The operator's home, as records: every pending ask of the tenant with where it comes
//! from, the runs in progress with what each did last, and the changes the tenant's live
//! stream carries to keep both current.

use serde::{Deserialize, Serialize};

use crate::protocol::ask::{Ask, AskKind};
use crate::tagged::internally_tagged;

/// A pending ask with the thread, agent and project it belongs to.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InboxAsk {
    /// `{run_id}:{ask_id}`, the key the REST API names it by.
    pub key: String,
    pub run_id: String,
    pub thread_id: String,
    pub thread_title: String,
    pub agent: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_name: Option<String>,
    pub opened_at_ms: i64,
    pub ask: Ask,
}

impl InboxAsk {
    pub fn kind(&self) -> AskKind {
        self.ask.kind
    }
}

/// What a run in progress did last, in one line.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Activity {
    pub line: String,
    pub at_ms: i64,
}

/// A run in progress.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActiveRun {
    pub run_id: String,
    pub thread_id: String,
    pub thread_title: String,
    pub agent: String,
    pub started_at_ms: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activity: Option<Activity>,
}

/// The inbox and the runs in progress as they stand at `cursor`: the live stream
/// (`GET /api/v1/inbox/events?after=cursor`) carries every change after it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Inbox {
    pub cursor: u64,
    /// The server's clock when this was read, so ages agree with the server's.
    pub now_ms: i64,
    /// Newest first.
    pub asks: Vec<InboxAsk>,
    /// How many asks are pending in all (`asks` holds at most [`INBOX_LIMIT`]).
    pub pending: u64,
    /// Oldest first.
    pub running: Vec<ActiveRun>,
}

/// The most asks the inbox lists at once.
pub const INBOX_LIMIT: usize = 500;

/// One change on the tenant's live stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case")]
pub enum InboxChange {
    /// The ask as it now is: `ask` when it waits, none once it left the inbox
    /// (answered, expired or cancelled); and how many asks of the tenant are pending
    /// now, counting those past the listed [`INBOX_LIMIT`].
    Ask {
        key: String,
        #[serde(default)]
        ask: Option<Box<InboxAsk>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pending: Option<u64>,
    },
    /// The run as it now is: `run` while in progress, none once it stopped.
    Run {
        run_id: String,
        #[serde(default)]
        run: Option<ActiveRun>,
    },
    /// What a run in progress did last (sent at most about once a second per run).
    Activity { run_id: String, activity: Activity },
    /// A thread renamed or moved to another project: every row of it says so.
    Thread {
        thread_id: String,
        title: String,
        #[serde(default)]
        project_id: Option<String>,
        #[serde(default)]
        project_name: Option<String>,
    },
    /// A project renamed: every ask of its threads says so.
    Project { project_id: String, name: String },
    /// A job made, moved on, further along or asked to stop: the pages showing background
    /// work read it again.
    Job { job_id: String },
    /// A schedule made, changed, deleted or fired.
    Schedule { schedule_id: String },
    /// A board or one of its cards made, changed or removed.
    Board { board_id: String },
}

internally_tagged!(InboxChange, "change");

impl Inbox {
    /// Applies one change; asks stay newest first, runs oldest first.
    pub fn apply(&mut self, change: InboxChange) {
        match change {
            InboxChange::Ask { key, ask, pending } => {
                let had = self.asks.iter().any(|known| known.key == key);
                self.asks.retain(|known| known.key != key);
                match ask {
                    Some(ask) => {
                        if !had {
                            self.pending += 1;
                        }
                        let at = self
                            .asks
                            .iter()
                            .position(|known| known.opened_at_ms < ask.opened_at_ms)
                            .unwrap_or(self.asks.len());
                        self.asks.insert(at, *ask);
                        self.asks.truncate(INBOX_LIMIT);
                    }
                    None if had => self.pending = self.pending.saturating_sub(1),
                    None => {}
                }
                // The server's count holds the asks past the list too.
                if let Some(pending) = pending {
                    self.pending = pending;
                }
            }
            InboxChange::Run { run_id, run } => {
                let kept = self
                    .running
                    .iter()
                    .find(|known| known.run_id == run_id)
                    .and_then(|known| known.activity.clone());
                self.running.retain(|known| known.run_id != run_id);
                if let Some(mut run) = run {
                    if run.activity.is_none() {
                        run.activity = kept;
                    }
                    let at = self
                        .running
                        .iter()
                        .position(|known| known.started_at_ms > run.started_at_ms)
                        .unwrap_or(self.running.len());
                    self.running.insert(at, run);
                }
            }
            InboxChange::Activity { run_id, activity } => {
                if let Some(run) = self.running.iter_mut().find(|run| run.run_id == run_id) {
                    run.activity = Some(activity);
                }
            }
            InboxChange::Thread {
                thread_id,
                title,
                project_id,
                project_name,
            } => {
                for ask in self
                    .asks
                    .iter_mut()
                    .filter(|ask| ask.thread_id == thread_id)
                {
                    ask.thread_title.clone_from(&title);
                    ask.project_id.clone_from(&project_id);
                    ask.project_name.clone_from(&project_name);
                }
                for run in self
                    .running
                    .iter_mut()
                    .filter(|run| run.thread_id == thread_id)
                {
                    run.thread_title.clone_from(&title);
                }
            }
            InboxChange::Project { project_id, name } => {
                for ask in self
                    .asks
                    .iter_mut()
                    .filter(|ask| ask.project_id.as_deref() == Some(project_id.as_str()))
                {
                    ask.project_name = Some(name.clone());
                }
            }
            // Not the inbox's: the Schedules and Curator pages follow these.
            InboxChange::Job { .. } | InboxChange::Schedule { .. } | InboxChange::Board { .. } => {}
        }
    }

    /// Removes an ask answered here, before the stream says so.
    pub fn remove_ask(&mut self, key: &str) {
        self.apply(InboxChange::Ask {
            key: key.to_owned(),
            ask: None,
            pending: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ask::{AskOrigin, Component};

    fn ask(key: &str, at: i64) -> InboxAsk {
        InboxAsk {
            key: key.into(),
            run_id: "r".into(),
            thread_id: "t".into(),
            thread_title: "T".into(),
            agent: "demo".into(),
            project_id: None,
            project_name: None,
            opened_at_ms: at,
            ask: Ask::new(
                key.into(),
                AskKind::Approval,
                Component::ApprovalCard,
                "Go?".into(),
                vec!["once".into(), "deny".into()],
                AskOrigin::AgUiCustomInterrupt,
            ),
        }
    }

    fn run(id: &str, at: i64) -> ActiveRun {
        ActiveRun {
            run_id: id.into(),
            thread_id: "t".into(),
            thread_title: "T".into(),
            agent: "demo".into(),
            started_at_ms: at,
            activity: None,
        }
    }

    #[test]
    fn asks_arrive_newest_first_and_leave_once_however_often_the_stream_repeats_them() {
        let mut inbox = Inbox::default();
        for (key, at) in [("a", 1), ("c", 3), ("b", 2)] {
            inbox.apply(InboxChange::Ask {
                key: key.into(),
                ask: Some(Box::new(ask(key, at))),
                pending: None,
            });
        }
        // The same ask again (a resumed stream repeats what the page already holds).
        inbox.apply(InboxChange::Ask {
            key: "b".into(),
            ask: Some(Box::new(ask("b", 2))),
            pending: None,
        });
        let keys: Vec<&str> = inbox.asks.iter().map(|ask| ask.key.as_str()).collect();
        assert_eq!(keys, ["c", "b", "a"]);
        assert_eq!(inbox.pending, 3);
        inbox.remove_ask("b");
        inbox.apply(InboxChange::Ask {
            key: "b".into(),
            ask: None,
            pending: None,
        });
        assert_eq!(inbox.pending, 2);
        assert_eq!(inbox.asks.len(), 2);
    }

    #[test]
    fn the_count_is_the_servers_and_the_list_stops_at_the_limit() {
        let mut inbox = Inbox {
            pending: 600,
            asks: (0..INBOX_LIMIT as i64)
                .map(|at| ask(&format!("k{at}"), 1_000 - at))
                .collect(),
            ..Inbox::default()
        };
        // An ask past the list closes: only the server knows it was pending.
        inbox.apply(InboxChange::Ask {
            key: "unlisted".into(),
            ask: None,
            pending: Some(599),
        });
        assert_eq!(inbox.pending, 599);
        inbox.apply(InboxChange::Ask {
            key: "new".into(),
            ask: Some(Box::new(ask("new", 5_000))),
            pending: Some(600),
        });
        assert_eq!(inbox.pending, 600);
        assert_eq!(inbox.asks.len(), INBOX_LIMIT);
        assert_eq!(inbox.asks[0].key, "new");
        assert_eq!(
            inbox.asks[INBOX_LIMIT - 1].key,
            format!("k{}", INBOX_LIMIT - 2)
        );
    }

    #[test]
    fn a_run_keeps_its_last_activity_until_it_stops() {
        let mut inbox = Inbox::default();
        inbox.apply(InboxChange::Run {
            run_id: "r2".into(),
            run: Some(run("r2", 20)),
        });
        inbox.apply(InboxChange::Run {
            run_id: "r1".into(),
            run: Some(run("r1", 10)),
        });
        inbox.apply(InboxChange::Activity {
            run_id: "r1".into(),
            activity: Activity {
                line: "Calling search".into(),
                at_ms: 11,
            },
        });
        // Activity of a run the page does not list is dropped, not invented.
        inbox.apply(InboxChange::Activity {
            run_id: "r9".into(),
            activity: Activity {
                line: "?".into(),
                at_ms: 1,
            },
        });
        inbox.apply(InboxChange::Run {
            run_id: "r1".into(),
            run: Some(run("r1", 10)),
        });
        assert_eq!(inbox.running[0].run_id, "r1");
        assert_eq!(
            inbox.running[0].activity.as_ref().map(|a| a.line.as_str()),
            Some("Calling search")
        );
        inbox.apply(InboxChange::Run {
            run_id: "r1".into(),
            run: None,
        });
        assert_eq!(inbox.running.len(), 1);
    }

    #[test]
    fn a_renamed_thread_or_project_renames_every_row_of_it_and_no_other() {
        let mut inbox = Inbox::default();
        let mut elsewhere = ask("b", 2);
        elsewhere.thread_id = "other".into();
        elsewhere.project_id = Some("p".into());
        elsewhere.project_name = Some("Ops".into());
        inbox.apply(InboxChange::Ask {
            key: "a".into(),
            ask: Some(Box::new(ask("a", 1))),
            pending: None,
        });
        inbox.apply(InboxChange::Ask {
            key: "b".into(),
            ask: Some(Box::new(elsewhere)),
            pending: None,
        });
        inbox.apply(InboxChange::Run {
            run_id: "r1".into(),
            run: Some(run("r1", 1)),
        });
        inbox.apply(InboxChange::Thread {
            thread_id: "t".into(),
            title: "Incident 42".into(),
            project_id: Some("p".into()),
            project_name: Some("Ops".into()),
        });
        let a = inbox.asks.iter().find(|ask| ask.key == "a").unwrap();
        assert_eq!(a.thread_title, "Incident 42");
        assert_eq!(a.project_name.as_deref(), Some("Ops"));
        assert_eq!(inbox.running[0].thread_title, "Incident 42");
        let b = inbox.asks.iter().find(|ask| ask.key == "b").unwrap();
        assert_eq!(b.thread_title, "T", "another thread keeps its title");

        inbox.apply(InboxChange::Project {
            project_id: "p".into(),
            name: "Operations".into(),
        });
        assert!(
            inbox
                .asks
                .iter()
                .all(|ask| ask.project_name.as_deref() == Some("Operations"))
        );
        assert_eq!(inbox.pending, 2, "renaming adds and removes nothing");
    }
}
