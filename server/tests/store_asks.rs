//! The store's asks, on SQLite and on PostgreSQL: closed by the upstream, by a failed run,
//! reopened by the console, and kept as answered when an agent sends them again.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;

use backends::{answered, paused_run};

use app::protocol::ask::AskState;
use app::protocol::channel::{EventBody, EventDraft};
use app::protocol::recorded::normalize_recorded;
use app::protocol::status::RunStatus;
use serde_json::json;
use server::store::ask_key;

#[tokio::test]
async fn an_ask_open_when_its_run_fails_closes_with_it_and_leaves_the_inbox() {
    for backend in backends::all().await {
        let store = &backend.store;
        let paused = paused_run(&**store, "run-paused-then-failed").await;
        // The same asks, opened while the run is still going; then the run fails.
        backends::new_run(&**store, "default", "run-failed").await;
        let drafts: Vec<EventDraft> = paused
            .iter()
            .filter(|event| !matches!(event.body, EventBody::RunFinished { .. }))
            .map(|event| EventDraft::new(event.body.clone(), None, None))
            .collect();
        store
            .append("default", "run-failed", &[], drafts, 9)
            .await
            .unwrap();
        let failed = || {
            vec![EventDraft::new(
                EventBody::RunFailed {
                    message: "the agent's process died".into(),
                    code: None,
                },
                None,
                None,
            )]
        };
        store
            .append("default", "run-failed", &[], failed(), 10)
            .await
            .unwrap();
        let asks = store.run_asks("default", "run-failed").await.unwrap();
        assert_eq!(asks.len(), 2, "{}", backend.name);
        for record in &asks {
            assert_eq!(
                record.ask.state,
                AskState::closed_by_failed_run(),
                "{}",
                backend.name
            );
        }
        // A failure reported after the run paused moves nothing: its asks still wait.
        store
            .append("default", "run-paused-then-failed", &[], failed(), 11)
            .await
            .unwrap();
        let run = store
            .get_run("default", "run-paused-then-failed")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(run.status, RunStatus::Interrupted, "{}", backend.name);
        let waiting = store
            .run_asks("default", "run-paused-then-failed")
            .await
            .unwrap();
        assert!(
            waiting.iter().all(|record| record.ask.state.is_pending()),
            "{}",
            backend.name
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
