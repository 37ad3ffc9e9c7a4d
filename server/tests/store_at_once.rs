//! The store under writers at once, on SQLite and on PostgreSQL: writes that read first
//! wait their turn, an answer and a run's events never deadlock, replacements and changes
//! of one list or scope apply as wholes, new threads get their own numbers, the console's
//! stop lands only on a running run, and names held unique survive the migration.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;

use backends::{answered, paused_run, run_sql, text};

use app::memory::{Change, ScopeKind};
use app::protocol::channel::{EventBody, EventDraft, RunOutcome};
use app::protocol::status::RunStatus;
use serde_json::json;
use server::store::ask_key;
use server::store::memory::{ScopeRef, Writer};
use server::store::notes::{NoteContent, NoteWrite};
use server::store::pins::{Holder, Pinned};

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
                    ledger: None,
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
