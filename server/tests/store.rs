//! The store contract, run on SQLite and on PostgreSQL: dense sequences under concurrent
//! writers, exclusive cursors, asks closed exactly once, tenant isolation.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;

use backends::{answered, paused_run, text};
use std::sync::Arc;

use app::protocol::ask::AskState;
use app::protocol::channel::{EventBody, EventDraft, RunOutcome};
use app::protocol::recorded::normalize_recorded;
use app::protocol::status::RunStatus;
use serde_json::json;
use server::store::{DeliveryOutcome, Resolution, Store, UpstreamEvent, ask_key};

#[tokio::test]
async fn concurrent_writers_get_dense_sequences_and_cursors_are_exclusive() {
    for backend in backends::all().await {
        let store = backend.store.clone();
        backends::new_run(&*store, "default", "run-dense").await;
        let mut writers = Vec::new();
        for writer in 0..8 {
            let store = store.clone();
            writers.push(tokio::spawn(async move {
                for batch in 0..10 {
                    let drafts = (0..3)
                        .map(|n| text(&format!("{writer}.{batch}.{n}")))
                        .collect();
                    store
                        .append("default", "run-dense", &[], drafts, 5)
                        .await
                        .unwrap();
                }
            }));
        }
        for writer in writers {
            writer.await.unwrap();
        }
        let events = store.events("default", "run-dense", 0, None).await.unwrap();
        let sequences: Vec<u64> = events.iter().map(|e| e.sequence).collect();
        assert_eq!(sequences, (1..=240).collect::<Vec<_>>(), "{}", backend.name);
        let window = store
            .events("default", "run-dense", 10, Some(14))
            .await
            .unwrap();
        assert_eq!(
            window.iter().map(|e| e.sequence).collect::<Vec<_>>(),
            [11, 12, 13],
            "{}",
            backend.name
        );
        let run = store
            .get_run("default", "run-dense")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(run.last_sequence, 240);
    }
}

#[tokio::test]
async fn raw_upstream_events_are_kept_in_order_beside_the_normalized_ones() {
    for backend in backends::all().await {
        let store = &backend.store;
        backends::new_run(&**store, "default", "run-raw").await;
        let body = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/peers/agui/pydantic-ai-thinking.sse"
        ))
        .unwrap();
        let raw: Vec<UpstreamEvent> = String::from_utf8_lossy(&body)
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .enumerate()
            .map(|(position, data)| UpstreamEvent {
                position: position as u64,
                body: data.to_owned(),
            })
            .collect();
        let drafts = normalize_recorded(&body, Default::default());
        let stored = store
            .append("default", "run-raw", &raw, drafts, 7)
            .await
            .unwrap();
        assert_eq!(
            store
                .upstream_events("default", "run-raw", None)
                .await
                .unwrap(),
            raw
        );
        assert_eq!(
            store
                .upstream_events("default", "run-raw", Some(2))
                .await
                .unwrap(),
            raw[..2],
            "{}",
            backend.name
        );
        let read = store.events("default", "run-raw", 0, None).await.unwrap();
        assert_eq!(read, stored, "{}", backend.name);
        assert!(read.iter().all(|e| e.upstream.is_some()));
        let run = store.get_run("default", "run-raw").await.unwrap().unwrap();
        assert_eq!(run.status, RunStatus::Succeeded);
        assert_eq!(run.upstream_count, raw.len() as u64);
    }
}

#[tokio::test]
async fn fifty_concurrent_receipts_close_an_ask_exactly_once() {
    for backend in backends::all().await {
        let store = backend.store.clone();
        paused_run(&*store, "run-ask").await;
        let pending = store.list_asks("default", Some("pending")).await.unwrap();
        assert_eq!(pending.len(), 2, "{}", backend.name);
        let key = ask_key("run-ask", "approve-budget");
        assert_eq!(pending[0].key, key);
        let run = store.get_run("default", "run-ask").await.unwrap().unwrap();
        assert_eq!(run.status, RunStatus::Interrupted);

        let mut attempts = Vec::new();
        for n in 0..50 {
            let store = store.clone();
            let key = key.clone();
            attempts.push(tokio::spawn(async move {
                let action = if n % 2 == 0 { "once" } else { "deny" };
                store
                    .close_ask(
                        "default",
                        &key,
                        &format!("tab-{n}"),
                        answered(action),
                        &json!({"n": n}),
                        false,
                        10,
                    )
                    .await
                    .unwrap()
            }));
        }
        let mut won = Vec::new();
        let mut lost = 0;
        for attempt in attempts {
            match attempt.await.unwrap() {
                Resolution::Won(event) => won.push(*event),
                Resolution::AlreadyClosed(record) => {
                    assert_eq!(record.ask.state.label(), "resolved");
                    lost += 1;
                }
            }
        }
        assert_eq!((won.len(), lost), (1, 49), "{}", backend.name);
        let record = store.get_ask("default", &key).await.unwrap().unwrap();
        let AskState::Resolved { answer } = &record.ask.state else {
            panic!("{:?}", record.ask.state)
        };
        let EventBody::AskClosed { state, .. } = &won[0].body else {
            panic!()
        };
        assert_eq!(
            **state, record.ask.state,
            "the winner's answer is the recorded one"
        );
        assert!(record.answered_by.is_some());
        assert!(answer.action == "once" || answer.action == "deny");
        // The closing event continues the run's numbering.
        let events = store.events("default", "run-ask", 0, None).await.unwrap();
        assert_eq!(events.last().unwrap().sequence, won[0].sequence);
        assert_eq!(
            events.iter().map(|e| e.sequence).collect::<Vec<_>>(),
            (1..=won[0].sequence).collect::<Vec<_>>()
        );
        assert_eq!(
            store
                .list_asks("default", Some("pending"))
                .await
                .unwrap()
                .len(),
            1
        );
    }
}

#[tokio::test]
async fn no_query_reads_across_tenants() {
    for backend in backends::all().await {
        let store = &backend.store;
        backends::new_run(&**store, "default", "run-tenant").await;
        store
            .append("default", "run-tenant", &[], vec![text("secret plans")], 1)
            .await
            .unwrap();
        assert!(
            store
                .get_run("other", "run-tenant")
                .await
                .unwrap()
                .is_none()
        );
        assert!(
            store
                .events("other", "run-tenant", 0, None)
                .await
                .unwrap()
                .is_empty()
        );
        assert!(store.list_threads("other").await.unwrap().is_empty());
        let error = store
            .append("other", "run-tenant", &[], vec![text("x")], 1)
            .await;
        assert!(
            error.is_err(),
            "{}: a foreign tenant must not append",
            backend.name
        );
    }
}

#[tokio::test]
async fn a_run_status_follows_its_terminal_event() {
    for backend in backends::all().await {
        let store: Arc<dyn Store> = backend.store.clone();
        backends::new_run(&*store, "default", "run-status").await;
        let finished = EventDraft::new(
            EventBody::RunFinished {
                outcome: RunOutcome::Cancelled,
            },
            None,
            None,
        );
        store
            .append("default", "run-status", &[], vec![finished], 3)
            .await
            .unwrap();
        let run = store
            .get_run("default", "run-status")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (run.status.label(), run.finished_at_ms),
            ("cancelled", Some(3))
        );
        assert!(
            store
                .running_runs()
                .await
                .unwrap()
                .iter()
                .all(|r| r.id != "run-status")
        );
    }
}

#[tokio::test]
async fn a_group_commit_keeps_each_runs_order_and_refuses_a_foreign_run() {
    use server::store::AppendRequest;
    for backend in backends::all().await {
        let store = &backend.store;
        backends::new_run(&**store, "default", "batch-a").await;
        backends::new_run(&**store, "default", "batch-b").await;
        store
            .append("default", "batch-a", &[], vec![text("a0")], 1)
            .await
            .unwrap();
        let request = |run: &str, deltas: &[&str], raw: u64| AppendRequest {
            tenant_id: "default".into(),
            run_id: run.into(),
            upstream: vec![UpstreamEvent {
                position: raw,
                body: format!("raw {raw} of {run}"),
            }],
            drafts: deltas.iter().map(|d| text(d)).collect(),
        };
        let stored = store
            .append_batch(
                vec![
                    request("batch-a", &["a1", "a2"], 0),
                    request("batch-b", &["b1"], 0),
                    request("batch-a", &["a3"], 1),
                ],
                2,
            )
            .await
            .unwrap();
        let sequences: Vec<Vec<u64>> = stored
            .iter()
            .map(|events| events.iter().map(|e| e.sequence).collect())
            .collect();
        assert_eq!(
            sequences,
            [vec![2, 3], vec![1], vec![4]],
            "{}",
            backend.name
        );
        let a = store.events("default", "batch-a", 0, None).await.unwrap();
        let deltas: Vec<String> = a
            .iter()
            .map(|e| match &e.body {
                EventBody::TextDelta { delta, .. } => delta.clone(),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(deltas, ["a0", "a1", "a2", "a3"]);
        assert_eq!(
            store
                .upstream_events("default", "batch-a", None)
                .await
                .unwrap()
                .len(),
            2
        );
        let foreign = AppendRequest {
            tenant_id: "other".into(),
            ..request("batch-b", &["x"], 5)
        };
        assert!(
            store.append_batch(vec![foreign], 3).await.is_err(),
            "{}",
            backend.name
        );
        assert!(
            store
                .append_batch(vec![request("nope", &["x"], 0)], 3)
                .await
                .is_err()
        );
        assert_eq!(
            store
                .events("default", "batch-b", 0, None)
                .await
                .unwrap()
                .len(),
            1,
            "nothing half-written"
        );
    }
}

#[tokio::test]
async fn a_claimed_resume_is_stored_and_read_back_as_the_resumed_status() {
    for backend in backends::all().await {
        let store = &backend.store;
        paused_run(&**store, "run-claim").await;
        assert!(store.claim_resume("default", "run-claim").await.unwrap());
        assert!(!store.claim_resume("default", "run-claim").await.unwrap());
        let run = store
            .get_run("default", "run-claim")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(run.status, RunStatus::Resumed, "{}", backend.name);
    }
}

#[tokio::test]
async fn closing_an_ask_records_its_delivery_which_is_settled_once() {
    for backend in backends::all().await {
        let store = &backend.store;
        paused_run(&**store, "run-outbox").await;
        let key = ask_key("run-outbox", "approve-budget");
        store
            .close_ask(
                "default",
                &key,
                "ops",
                answered("once"),
                &json!({}),
                true,
                10,
            )
            .await
            .unwrap();
        let pending = store.pending_deliveries().await.unwrap();
        let mine: Vec<_> = pending
            .iter()
            .filter(|d| d.run_id == "run-outbox")
            .collect();
        assert_eq!(mine.len(), 1, "{}", backend.name);
        assert_eq!(
            (mine[0].ask_key.as_str(), mine[0].secret),
            (key.as_str(), true)
        );
        store
            .settle_delivery("default", &key, DeliveryOutcome::Delivered, None, 11)
            .await
            .unwrap();
        // Settling again changes nothing; nothing is pending any more.
        store
            .settle_delivery(
                "default",
                &key,
                DeliveryOutcome::Abandoned,
                Some("late"),
                12,
            )
            .await
            .unwrap();
        assert!(
            !store
                .pending_deliveries()
                .await
                .unwrap()
                .iter()
                .any(|d| d.run_id == "run-outbox"),
            "{}",
            backend.name
        );
    }
}

#[tokio::test]
async fn a_thread_is_titled_by_its_first_message_once_and_never_over_a_rename() {
    for backend in backends::all().await {
        let name = backend.name;
        let store = &backend.store;
        store
            .create_thread("default", "th-title", None, 1)
            .await
            .unwrap();
        let titled = store
            .title_from_first_message("default", "th-title", "Plan the release")
            .await
            .unwrap();
        assert_eq!(titled.unwrap().title, "Plan the release", "{name}");
        let again = store
            .title_from_first_message("default", "th-title", "Something later")
            .await
            .unwrap();
        assert!(again.is_none(), "{name}: a later message does not retitle");
        store
            .create_thread("default", "th-renamed", None, 2)
            .await
            .unwrap();
        store
            .rename_thread("default", "th-renamed", "Chosen by me")
            .await
            .unwrap();
        let kept = store
            .title_from_first_message("default", "th-renamed", "First words")
            .await
            .unwrap();
        assert!(kept.is_none(), "{name}: a renamed thread keeps its title");
        let thread = store
            .get_thread("default", "th-renamed")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(thread.title, "Chosen by me", "{name}");
        let other_tenant = store
            .title_from_first_message("elsewhere", "th-title", "Not mine")
            .await
            .unwrap();
        assert!(other_tenant.is_none(), "{name}");
    }
}

#[tokio::test]
async fn threads_are_found_by_title_and_words_within_their_tenant() {
    for backend in backends::all().await {
        let name = backend.name;
        let store = &backend.store;
        store.create_tenant("other", 1).await.unwrap();
        store
            .create_thread("default", "th-find", None, 1)
            .await
            .unwrap();
        store
            .title_from_first_message("default", "th-find", "Quarterly planning")
            .await
            .unwrap();
        store
            .add_thread_words("default", "th-find", "check the deployments of the gateway")
            .await
            .unwrap();
        store
            .create_thread("other", "th-theirs", None, 2)
            .await
            .unwrap();
        store
            .add_thread_words("other", "th-theirs", "gateway deployments elsewhere")
            .await
            .unwrap();
        let search = |words: &[&str]| {
            let terms: Vec<String> = words.iter().map(|word| (*word).to_owned()).collect();
            async move {
                store
                    .search_threads("default", &terms, 50)
                    .await
                    .unwrap()
                    .into_iter()
                    .map(|thread| thread.id)
                    .collect::<Vec<_>>()
            }
        };
        assert_eq!(
            search(&["quarter"]).await,
            ["th-find"],
            "{name}: a title prefix"
        );
        assert_eq!(
            search(&["gate"]).await,
            ["th-find"],
            "{name}: a word's start"
        );
        assert_eq!(
            search(&["gateway", "planning"]).await,
            ["th-find"],
            "{name}"
        );
        assert!(
            search(&["gateway", "lunch"]).await.is_empty(),
            "{name}: every word"
        );
        assert!(search(&[]).await.is_empty(), "{name}");
    }
}

#[tokio::test]
async fn a_thread_listed_says_when_its_latest_run_moved() {
    for backend in backends::all().await {
        let store = &backend.store;
        let quiet = store
            .create_thread("default", "th-quiet", None, 5)
            .await
            .unwrap();
        backends::new_run(&**store, "default", "run-moved").await;
        let listed = store.list_threads("default").await.unwrap();
        let quiet = listed.iter().find(|thread| thread.id == quiet.id).unwrap();
        assert_eq!(quiet.active_at_ms, None, "{}", backend.name);
        let busy = listed
            .iter()
            .find(|thread| thread.id == "th-run-moved")
            .unwrap();
        assert_eq!(busy.active_at_ms, Some(1), "{}", backend.name);
        assert_eq!(busy.last_moved_ms(), 1, "{}", backend.name);
    }
}
