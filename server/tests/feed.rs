//! The tenant feed, on SQLite and on PostgreSQL: every run created or moved and every ask
//! opened or closed leaves a row, in commit order — a reader that follows it while many
//! writers commit never finds a row behind its cursor — and no tenant sees another's.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use app::protocol::ask::{AskState, RecordedAnswer};
use app::protocol::channel::{EventBody, EventDraft, RunOutcome};
use app::protocol::recorded::normalize_recorded;
use serde_json::json;
use server::store::feed::FeedSubject;
use server::store::{Store, ask_key};

fn draft(body: EventBody) -> EventDraft {
    EventDraft::new(body, None, None)
}

async fn subjects_after(store: &dyn Store, tenant: &str, after: u64) -> Vec<(FeedSubject, String)> {
    store
        .feed_after(tenant, after, 1000)
        .await
        .unwrap()
        .into_iter()
        .map(|entry| (entry.subject, entry.key))
        .collect()
}

#[tokio::test]
async fn runs_and_asks_leave_a_row_each_time_they_change_and_only_for_their_tenant() {
    for backend in backends::all().await {
        let store = &*backend.store;
        let name = backend.name;
        assert_eq!(store.feed_head("default").await.unwrap(), 0, "{name}");
        backends::new_run(store, "default", "run-1").await;
        let head = store.feed_head("default").await.unwrap();
        assert_eq!(
            subjects_after(store, "default", 0).await,
            [(FeedSubject::Run, "run-1".to_owned())],
            "{name}"
        );
        let running = store.runs_in_progress("default").await.unwrap();
        assert_eq!(running.len(), 1, "{name}");

        // The recorded pause opens two asks and interrupts the run.
        let drafts = normalize_recorded(
            &std::fs::read(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../fixtures/agui/pause_on_two_decisions.sse"
            ))
            .unwrap(),
            Default::default(),
        );
        store
            .append("default", "run-1", &[], drafts, 2)
            .await
            .unwrap();
        let changes = subjects_after(store, "default", head).await;
        let budget = ask_key("run-1", "approve-budget");
        assert!(
            changes.contains(&(FeedSubject::Ask, budget.clone())),
            "{name}: {changes:?}"
        );
        assert!(
            changes.contains(&(FeedSubject::Run, "run-1".to_owned())),
            "{name}: {changes:?}"
        );
        assert!(
            store.runs_in_progress("default").await.unwrap().is_empty(),
            "{name}"
        );

        let head = store.feed_head("default").await.unwrap();
        let answer = AskState::Resolved {
            answer: RecordedAnswer {
                action: "once".into(),
                data: serde_json::Value::Null,
                summary: "approved".into(),
                actor: Some("ada".into()),
                at: None,
            },
        };
        store
            .close_ask("default", &budget, "ada", answer, &json!({}), false, 3)
            .await
            .unwrap();
        assert_eq!(
            subjects_after(store, "default", head).await,
            [(FeedSubject::Ask, budget.clone())],
            "{name}"
        );

        // Another tenant's feed holds none of it, and its runs are its own.
        assert!(subjects_after(store, "other", 0).await.is_empty(), "{name}");
        assert_eq!(store.feed_head("other").await.unwrap(), 0, "{name}");
        store.create_tenant("other", 1).await.unwrap();
        backends::new_run(store, "other", "run-other").await;
        assert!(
            store.runs_in_progress("default").await.unwrap().is_empty(),
            "{name}"
        );
        assert_eq!(
            subjects_after(store, "other", 0).await,
            [(FeedSubject::Run, "run-other".to_owned())],
            "{name}"
        );
    }
}

#[tokio::test]
async fn a_reader_following_the_feed_under_concurrent_writers_never_finds_a_row_behind_it() {
    for backend in backends::all().await {
        let store: Arc<dyn Store> = backend.store.clone();
        let name = backend.name;
        let done = Arc::new(AtomicBool::new(false));
        let reader = {
            let store = store.clone();
            let done = done.clone();
            tokio::spawn(async move {
                let mut seen = BTreeSet::new();
                let mut cursor = 0;
                loop {
                    let finished = done.load(Ordering::SeqCst);
                    for entry in store.feed_after("default", cursor, 1000).await.unwrap() {
                        cursor = entry.id;
                        seen.insert(entry.id);
                    }
                    if finished {
                        return seen;
                    }
                    tokio::task::yield_now().await;
                }
            })
        };
        let mut writers = Vec::new();
        for n in 0..24 {
            let store = store.clone();
            writers.push(tokio::spawn(async move {
                let run = format!("run-{n}");
                backends::new_run(&*store, "default", &run).await;
                store
                    .append(
                        "default",
                        &run,
                        &[],
                        vec![draft(EventBody::RunStarted {
                            protocol_version: None,
                        })],
                        2,
                    )
                    .await
                    .unwrap();
                store
                    .append(
                        "default",
                        &run,
                        &[],
                        vec![draft(EventBody::RunFinished {
                            outcome: RunOutcome::Success,
                        })],
                        3,
                    )
                    .await
                    .unwrap();
            }));
        }
        for writer in writers {
            writer.await.unwrap();
        }
        done.store(true, Ordering::SeqCst);
        let seen = reader.await.unwrap();
        let all: BTreeSet<u64> = store
            .feed_after("default", 0, 10_000)
            .await
            .unwrap()
            .into_iter()
            .map(|entry| entry.id)
            .collect();
        // Created, then succeeded: two rows a run (starting leaves the status as it was).
        assert_eq!(all.len(), 48, "{name}");
        assert_eq!(
            seen, all,
            "{name}: the follower missed rows committed behind its cursor"
        );
    }
}
