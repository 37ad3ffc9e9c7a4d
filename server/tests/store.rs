//! The store contract, run on SQLite and on PostgreSQL: dense sequences under concurrent
//! writers, exclusive cursors, asks closed exactly once, tenant isolation.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;

use std::sync::Arc;

use app::memory::{Change, ScopeKind};
use app::protocol::ask::{AskState, RecordedAnswer};
use app::protocol::channel::{EventBody, EventDraft, RunOutcome};
use app::protocol::recorded::normalize_recorded;
use app::protocol::status::RunStatus;
use serde_json::json;
use server::store::memory::{ScopeRef, Writer};
use server::store::notes::{NoteContent, NoteWrite};
use server::store::pins::{Holder, Pinned};
use server::store::{DeliveryOutcome, Resolution, Store, UpstreamEvent, ask_key};

/// A run paused on the two asks of `pause_on_two_decisions.sse`; its stored events.
async fn paused_run(store: &dyn Store, run_id: &str) -> Vec<app::protocol::channel::RunEvent> {
    backends::new_run(store, "default", run_id).await;
    let drafts = normalize_recorded(
        &std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/agui/pause_on_two_decisions.sse"
        ))
        .unwrap(),
        Default::default(),
    );
    store
        .append("default", run_id, &[], drafts, 9)
        .await
        .unwrap()
}

fn text(delta: &str) -> EventDraft {
    EventDraft::new(
        EventBody::TextDelta {
            message_id: "m".into(),
            delta: delta.into(),
        },
        None,
        None,
    )
}

fn answered(action: &str) -> AskState {
    AskState::Resolved {
        answer: RecordedAnswer {
            action: action.into(),
            data: serde_json::Value::Null,
            summary: format!("answered {action}"),
            actor: Some("operator".into()),
            at: None,
        },
    }
}

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
            store.upstream_events("default", "run-raw").await.unwrap(),
            raw
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
async fn an_upstream_expiry_closes_the_stored_ask() {
    for backend in backends::all().await {
        let store = &backend.store;
        backends::new_run(&**store, "default", "run-expire").await;
        let drafts = normalize_recorded(
            &std::fs::read(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../fixtures/hermes/asks_event_form.jsonl"
            ))
            .unwrap(),
            Default::default(),
        );
        store
            .append("default", "run-expire", &[], drafts, 9)
            .await
            .unwrap();
        let sudo = store
            .get_ask("default", &ask_key("run-expire", "sudo-1"))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(sudo.ask.state, AskState::Expired, "{}", backend.name);
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
                .upstream_events("default", "batch-a")
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
async fn an_answered_ask_opened_again_keeps_its_answer_and_its_content() {
    for backend in backends::all().await {
        let store = &backend.store;
        let stored = paused_run(&**store, "run-reopen").await;
        let key = ask_key("run-reopen", "approve-budget");
        store
            .close_ask(
                "default",
                &key,
                "ops",
                answered("once"),
                &json!({}),
                false,
                10,
            )
            .await
            .unwrap();
        let mut again = stored
            .iter()
            .find_map(|event| match &event.body {
                EventBody::AskOpened { ask } if ask.id == "approve-budget" => Some(ask.clone()),
                _ => None,
            })
            .unwrap();
        let title = again.title.clone();
        again.title = "Something else entirely".into();
        store
            .append(
                "default",
                "run-reopen",
                &[],
                vec![EventDraft::new(
                    EventBody::AskOpened { ask: again },
                    None,
                    None,
                )],
                11,
            )
            .await
            .unwrap();
        let record = store.get_ask("default", &key).await.unwrap().unwrap();
        assert_eq!(record.ask.state.label(), "resolved", "{}", backend.name);
        assert_eq!(record.ask.title, title, "{}", backend.name);
        assert_eq!(record.answered_by.as_deref(), Some("ops"));
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
async fn the_console_reopens_a_closed_ask_whose_answer_was_lost() {
    for backend in backends::all().await {
        let store = &backend.store;
        paused_run(&**store, "run-lost").await;
        let key = ask_key("run-lost", "approve-budget");
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
        let record = store.get_ask("default", &key).await.unwrap().unwrap();
        store
            .append(
                "default",
                "run-lost",
                &[],
                vec![EventDraft::new(
                    EventBody::AskClosed {
                        ask_id: record.ask.id.clone(),
                        ask_kind: record.ask.kind,
                        state: Box::new(AskState::Pending),
                    },
                    None,
                    None,
                )],
                11,
            )
            .await
            .unwrap();
        let reopened = store.get_ask("default", &key).await.unwrap().unwrap();
        assert!(reopened.ask.state.is_pending(), "{}", backend.name);
        assert_eq!(reopened.answered_by, None);
    }
}

#[tokio::test]
async fn threads_created_at_once_are_numbered_apart() {
    for backend in backends::all().await {
        let name = backend.name;
        let created = (0..8).map(|i| {
            let store = backend.store.clone();
            async move {
                store
                    .create_thread("default", &format!("th-at-once-{i}"), None, 1)
                    .await
                    .unwrap()
                    .title
            }
        });
        let mut titles = futures_util::future::join_all(created).await;
        titles.sort_unstable();
        titles.dedup();
        assert_eq!(titles.len(), 8, "{name}: {titles:?}");
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
async fn concurrent_writes_that_read_first_wait_their_turn_instead_of_failing() {
    for backend in backends::all().await {
        let name = backend.name;
        let store = backend.store.clone();
        let content = |n: usize| NoteContent {
            title: format!("Edit {n}"),
            body: "body".into(),
            tags: Vec::new(),
            project_id: None,
        };
        store
            .create_note("default", "shared", &content(0), "ada", 1)
            .await
            .unwrap();
        // An edit reads the note's version and then writes; new notes are written
        // meanwhile by other connections, as an agent's tool and an operator would.
        let mut writers = Vec::new();
        for n in 1..=24 {
            let store = store.clone();
            writers.push(tokio::spawn(async move {
                let edit = store
                    .edit_note("default", "shared", &content(n), None, "ada", 2)
                    .await;
                let other = store
                    .create_note("default", &format!("other-{n}"), &content(n), "ada", 2)
                    .await;
                (
                    edit.map(|write| matches!(write, NoteWrite::Done(_))),
                    other.map(|_| ()),
                )
            }));
        }
        for writer in writers {
            let (edit, other) = writer.await.unwrap();
            assert!(matches!(edit, Ok(true)), "{name}: {edit:?}");
            assert!(other.is_ok(), "{name}: {other:?}");
        }
        let note = store.get_note("default", "shared").await.unwrap().unwrap();
        assert_eq!(note.version, 25, "{name}: every edit made a version");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_and_the_runs_own_events_committing_together_never_deadlock() {
    for backend in backends::all().await {
        let name = backend.name;
        let store = backend.store.clone();
        for n in 0..20 {
            let run_id = format!("run-both-{n}");
            paused_run(&*store, &run_id).await;
            let key = ask_key(&run_id, "approve-budget");
            // The run's stream moves it on (a status change, noted in the tenant's feed)
            // while an operator's answer closes one of its asks.
            let streamed = {
                let store = store.clone();
                let run_id = run_id.clone();
                tokio::spawn(async move {
                    let started = EventDraft::new(
                        EventBody::RunStarted {
                            protocol_version: None,
                        },
                        None,
                        None,
                    );
                    store
                        .append("default", &run_id, &[], vec![text("more"), started], 11)
                        .await
                        .map(|_| ())
                })
            };
            let answer = {
                let store = store.clone();
                tokio::spawn(async move {
                    store
                        .close_ask(
                            "default",
                            &key,
                            "ada",
                            answered("once"),
                            &json!({}),
                            false,
                            11,
                        )
                        .await
                        .map(|_| ())
                })
            };
            let (streamed, answer) = (streamed.await.unwrap(), answer.await.unwrap());
            assert!(streamed.is_ok(), "{name} #{n}: {streamed:?}");
            assert!(answer.is_ok(), "{name} #{n}: {answer:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_of_pins_replaced_at_once_end_as_one_of_them() {
    for backend in backends::all().await {
        let name = backend.name;
        let store = backend.store.clone();
        let lists: Vec<Vec<String>> = (0..8)
            .map(|n| (0..3).map(|k| format!("note-{}", (n + k) % 5)).collect())
            .collect();
        let mut replacing = Vec::new();
        for ids in lists.clone() {
            let store = store.clone();
            replacing.push(tokio::spawn(async move {
                store
                    .set_pins("default", Holder::Thread, "t-1", Pinned::Note, &ids)
                    .await
            }));
        }
        for replaced in replacing {
            let replaced = replaced.await.unwrap();
            assert!(replaced.is_ok(), "{name}: {replaced:?}");
        }
        let kept = store
            .pins("default", Holder::Thread, "t-1", Pinned::Note)
            .await
            .unwrap();
        assert!(
            lists.contains(&kept),
            "{name}: {kept:?} is no list that was set"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_to_one_memory_scope_made_against_the_same_entries_apply_once() {
    for backend in backends::all().await {
        let name = backend.name;
        let store = backend.store.clone();
        let scope = ScopeRef {
            kind: ScopeKind::Tenant,
            id: String::new(),
        };
        // Every change was planned against the empty scope: the first applies, the
        // others find the scope changed and write nothing.
        let mut changing = Vec::new();
        for n in 0..8 {
            let (store, scope) = (store.clone(), scope.clone());
            changing.push(tokio::spawn(async move {
                let add = Change::Add {
                    index: 0,
                    text: format!("fact {n}"),
                };
                let writer = Writer {
                    source: "operator",
                    author: "ada".into(),
                };
                store
                    .apply_memory("default", &scope, &[], &[add], &writer, 1)
                    .await
            }));
        }
        let mut applied = 0;
        for change in changing {
            if change.await.unwrap().unwrap() {
                applied += 1;
            }
        }
        assert_eq!(applied, 1, "{name}");
        let entries = store.memory_entries("default", &scope).await.unwrap();
        assert_eq!(entries.len(), 1, "{name}: {entries:?}");
    }
}

fn finished(outcome: RunOutcome) -> EventDraft {
    EventDraft::new(EventBody::RunFinished { outcome }, None, None)
}

#[tokio::test]
async fn the_consoles_stop_lands_only_on_a_running_run_and_an_ended_run_keeps_its_ending() {
    for backend in backends::all().await {
        let name = backend.name;
        let store = backend.store.clone();
        // A run that paused on its asks just before the stop: nothing is added.
        paused_run(&*store, "run-paused").await;
        let before = store
            .events("default", "run-paused", 0, None)
            .await
            .unwrap();
        let stop = || vec![text("stopped"), finished(RunOutcome::Cancelled)];
        let refused = store
            .append_while_running("default", "run-paused", stop(), 12)
            .await
            .unwrap();
        assert!(refused.is_none(), "{name}");
        let after = store
            .events("default", "run-paused", 0, None)
            .await
            .unwrap();
        assert_eq!(after.len(), before.len(), "{name}");
        let run = store
            .get_run("default", "run-paused")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(run.status, RunStatus::Interrupted, "{name}");

        // A running run is stopped; what its stream says afterwards moves nothing.
        backends::new_run(&*store, "default", "run-live").await;
        store
            .append("default", "run-live", &[], vec![text("working")], 11)
            .await
            .unwrap();
        let stopped = store
            .append_while_running("default", "run-live", stop(), 12)
            .await
            .unwrap()
            .expect("a running run is stopped");
        assert_eq!(stopped.len(), 2, "{name}");
        store
            .append(
                "default",
                "run-live",
                &[],
                vec![finished(RunOutcome::Success)],
                13,
            )
            .await
            .unwrap();
        let run = store.get_run("default", "run-live").await.unwrap().unwrap();
        assert_eq!(run.status, RunStatus::Cancelled, "{name}");
        let unknown = store
            .append_while_running("default", "no-such-run", stop(), 12)
            .await;
        assert!(unknown.is_err(), "{name}");
    }
}

/// Runs `statements` on the store at `url` over a connection of its own.
async fn run_sql(url: &str, statements: &[&str]) {
    use sqlx::Connection;
    if url.starts_with("sqlite:") {
        let mut db = sqlx::SqliteConnection::connect(url).await.unwrap();
        for statement in statements {
            sqlx::query(statement).execute(&mut db).await.unwrap();
        }
    } else {
        let mut db = sqlx::PgConnection::connect(url).await.unwrap();
        for statement in statements {
            sqlx::query(statement).execute(&mut db).await.unwrap();
        }
    }
}

#[tokio::test]
async fn projects_sharing_a_name_from_before_names_were_held_unique_keep_their_rows() {
    for backend in backends::all().await {
        let name = backend.name;
        // The store as it was before migration 14, holding one name twice.
        run_sql(
            &backend.url,
            &[
                "DROP INDEX projects_by_name",
                "DELETE FROM _sqlx_migrations WHERE version = 14",
                "INSERT INTO projects (tenant_id, id, name, description, created_at_ms, \
                 updated_at_ms) VALUES ('default', 'p1', 'Launch', '', 1, 1), \
                 ('default', 'p2', 'Launch', '', 2, 2), ('default', 'p3', 'Other', '', 3, 3)",
            ],
        )
        .await;
        let store = server::store::open(&backend.url).await.unwrap();
        let named = |id: &'static str| {
            let store = store.clone();
            async move {
                store
                    .get_project("default", id)
                    .await
                    .unwrap()
                    .unwrap()
                    .name
            }
        };
        assert_eq!(named("p1").await, "Launch", "{name}: the oldest keeps it");
        let renamed = named("p2").await;
        assert!(
            renamed.starts_with("Launch (") && renamed != "Launch",
            "{name}: {renamed}"
        );
        assert_eq!(named("p3").await, "Other", "{name}");
        // From now on the database refuses a second holder.
        let mut copy = store.get_project("default", "p3").await.unwrap().unwrap();
        copy.id = "p4".into();
        let refused = store.create_project("default", &copy).await;
        assert!(refused.is_err(), "{name}");
    }
}
