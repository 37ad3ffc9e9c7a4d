//! The store's asks, on SQLite and on PostgreSQL: closed by the upstream, by a failed run,
//! reopened by the console, and kept as answered when an agent sends them again.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;

use backends::{answered, paused_run};

use app::protocol::ask::{Ask, AskKind, AskOrigin, AskState, Component};
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
async fn a_pause_given_up_says_why_and_fails_in_one_step_only_while_claimed() {
    for backend in backends::all().await {
        let store = &backend.store;
        let paused = paused_run(&**store, "run-given-up").await;
        let last = paused.last().unwrap().sequence;
        let failed = || {
            vec![EventDraft::new(
                EventBody::RunFailed {
                    message: "The answers could not be carried to the agent".into(),
                    code: Some("resume_failed".into()),
                },
                None,
                None,
            )]
        };
        // Not claimed: nothing is written, nothing moves.
        let unclaimed = store
            .give_up_resume("default", "run-given-up", failed(), 10)
            .await
            .unwrap();
        assert!(unclaimed.is_none(), "{}", backend.name);
        let events = store
            .events("default", "run-given-up", 0, None)
            .await
            .unwrap();
        assert_eq!(events.last().unwrap().sequence, last, "{}", backend.name);

        assert!(store.claim_resume("default", "run-given-up").await.unwrap());
        let given_up = store
            .give_up_resume("default", "run-given-up", failed(), 11)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(given_up.len(), 1, "{}", backend.name);
        assert_eq!(given_up[0].sequence, last + 1, "{}", backend.name);
        let run = store
            .get_run("default", "run-given-up")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(run.status, RunStatus::Failed, "{}", backend.name);
        assert_eq!(run.finished_at_ms, Some(11), "{}", backend.name);
        // Given up once: a second claimant finds nothing to give up.
        let again = store
            .give_up_resume("default", "run-given-up", failed(), 12)
            .await
            .unwrap();
        assert!(again.is_none(), "{}", backend.name);
    }
}

#[tokio::test]
async fn a_paused_run_is_stalled_once_every_ask_is_closed_until_its_follow_up_exists() {
    for backend in backends::all().await {
        let store = &backend.store;
        let stalled = |agent: &str, closed_since: i64| {
            let agents = vec![agent.to_owned()];
            async move {
                store
                    .stalled_resumes(&agents, closed_since, 10)
                    .await
                    .unwrap()
                    .into_iter()
                    .map(|run| run.id)
                    .collect::<Vec<_>>()
            }
        };
        paused_run(&**store, "run-stalled").await;
        assert!(
            stalled("demo", 0).await.is_empty(),
            "{}: asks wait",
            backend.name
        );
        let asks = store.run_asks("default", "run-stalled").await.unwrap();
        let closes: Vec<EventDraft> = asks
            .iter()
            .map(|record| {
                EventDraft::new(
                    EventBody::AskClosed {
                        ask_id: record.ask.id.clone(),
                        ask_kind: record.ask.kind,
                        state: Box::new(answered("once")),
                    },
                    None,
                    None,
                )
            })
            .collect();
        let (first, rest) = closes.split_at(1);
        store
            .append("default", "run-stalled", &[], first.to_vec(), 10)
            .await
            .unwrap();
        assert!(
            stalled("demo", 0).await.is_empty(),
            "{}: one ask waits",
            backend.name
        );
        store
            .append("default", "run-stalled", &[], rest.to_vec(), 11)
            .await
            .unwrap();
        assert_eq!(
            stalled("demo", 11).await,
            ["run-stalled"],
            "{}",
            backend.name
        );
        // Only for a while after the last answer, and only for the agents named.
        assert!(
            stalled("demo", 12).await.is_empty(),
            "{}: too old",
            backend.name
        );
        assert!(
            stalled("other", 0).await.is_empty(),
            "{}: its agent",
            backend.name
        );
        // Claimed with no follow-up yet, it is still stalled: its claimant may be gone
        // (the sweep takes the run's answering turn, so it waits for one that is not).
        assert!(store.claim_resume("default", "run-stalled").await.unwrap());
        assert_eq!(
            stalled("demo", 0).await,
            ["run-stalled"],
            "{}: claimed",
            backend.name
        );
        backends::new_run(&**store, "default", "run-stalled.resume").await;
        assert!(
            stalled("demo", 0).await.is_empty(),
            "{}: followed",
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

#[tokio::test]
async fn asks_past_their_deadline_are_found_across_tenants_until_they_close() {
    for backend in backends::all().await {
        let store = &backend.store;
        let opened = |id: &str, expires| opened_with_deadline(id, "Go?", expires);
        backends::new_run(&**store, "default", "run-deadlines").await;
        store.create_tenant("other", 1).await.unwrap();
        backends::new_run(&**store, "other", "run-deadlines-other").await;
        store
            .append(
                "default",
                "run-deadlines",
                &[],
                vec![
                    opened("due", Some(100)),
                    opened("later", Some(10_000)),
                    opened("never", None),
                ],
                9,
            )
            .await
            .unwrap();
        store
            .append(
                "other",
                "run-deadlines-other",
                &[],
                vec![opened("due-too", Some(50))],
                9,
            )
            .await
            .unwrap();
        let keys = |records: Vec<server::store::AskRecord>| -> Vec<String> {
            records.into_iter().map(|record| record.key).collect()
        };
        let due = store.asks_past_deadline(500, 10).await.unwrap();
        assert_eq!(
            keys(due),
            [
                ask_key("run-deadlines-other", "due-too"),
                ask_key("run-deadlines", "due")
            ],
            "{}",
            backend.name
        );
        store
            .close_ask(
                "default",
                &ask_key("run-deadlines", "due"),
                "operator",
                answered("once"),
                &json!({}),
                false,
                600,
            )
            .await
            .unwrap();
        let due = store.asks_past_deadline(500, 10).await.unwrap();
        assert_eq!(
            keys(due),
            [ask_key("run-deadlines-other", "due-too")],
            "{}",
            backend.name
        );
        assert_eq!(store.asks_past_deadline(20, 10).await.unwrap().len(), 0);
    }
}

#[tokio::test]
async fn a_deadline_kept_before_deadlines_had_a_column_is_found_after_the_migration() {
    for backend in backends::all().await {
        let name = backend.name;
        // An agent's words may hold a NUL, which serde writes as `\u0000`.
        let opened = |id: &str| opened_with_deadline(id, "Go?\u{0}", Some(100));
        backends::new_run(&*backend.store, "default", "run-old-deadline").await;
        backend
            .store
            .append(
                "default",
                "run-old-deadline",
                &[],
                vec![opened("due"), opened("answered")],
                9,
            )
            .await
            .unwrap();
        backend
            .store
            .close_ask(
                "default",
                &ask_key("run-old-deadline", "answered"),
                "operator",
                answered("once"),
                &json!({}),
                false,
                10,
            )
            .await
            .unwrap();
        // The store as it was before migration 15: the deadline only inside the ask.
        backends::run_sql(
            &backend.url,
            &[
                "DROP INDEX asks_by_deadline",
                "ALTER TABLE asks DROP COLUMN expires_at_ms",
                "DELETE FROM _sqlx_migrations WHERE version = 15",
            ],
        )
        .await;
        let store = server::store::open(&backend.url).await.unwrap();
        let due = store.asks_past_deadline(500, 10).await.unwrap();
        assert_eq!(due.len(), 1, "{name}");
        assert_eq!(due[0].key, ask_key("run-old-deadline", "due"), "{name}");
        // The answered one, opened again (its answer lost), keeps its deadline.
        let reopened = EventDraft::new(
            EventBody::AskClosed {
                ask_id: "answered".into(),
                ask_kind: AskKind::Approval,
                state: Box::new(AskState::Pending),
            },
            None,
            None,
        );
        store
            .append("default", "run-old-deadline", &[], vec![reopened], 20)
            .await
            .unwrap();
        let due = store.asks_past_deadline(500, 10).await.unwrap();
        assert_eq!(due.len(), 2, "{name}");
    }
}

/// The opening of an approval titled `title`, due at `expires`.
fn opened_with_deadline(id: &str, title: &str, expires: Option<i64>) -> EventDraft {
    let mut ask = Ask::new(
        id.into(),
        AskKind::Approval,
        Component::ApprovalCard,
        title.into(),
        vec!["once".into(), "deny".into()],
        AskOrigin::AgUiCustomInterrupt,
    );
    ask.expires_at_ms = expires;
    EventDraft::new(EventBody::AskOpened { ask: Box::new(ask) }, None, None)
}
