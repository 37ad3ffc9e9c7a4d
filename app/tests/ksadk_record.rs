//! KsADK's session record (`ListSessionEvents`, `fixtures/peers/ksadk/4x`) read as runs:
//! one run per invocation, the answer kept in a later invocation closing the ask where it
//! was opened, an AG-UI thread's synthetic input read once, and every event citing the
//! `SeqId` of its row.

#![allow(clippy::unwrap_used)]

mod common;

use app::projection::{ItemBody, RunStatus, RunView, ToolStatus, ViewPolicy};
use app::protocol::ask::{AskOrigin, AskState};
use app::protocol::channel::{EventBody, Role, RunEvent, RunRef};
use app::protocol::ksadk_record::{RecordError, is_record, read_page, runs_of, seq_of};
use app::protocol::recorded::place_all;
use common::{repo_path, tool_calls};
use serde_json::{Value, json};

fn rows(name: &str) -> Vec<Value> {
    let bytes = std::fs::read(repo_path(&format!(
        "fixtures/peers/ksadk/{name}.response.json"
    )))
    .unwrap();
    assert!(is_record(&bytes), "{name} is not read as a session record");
    read_page(&bytes).unwrap().rows
}

fn runs(rows: &[Value]) -> Vec<(String, Vec<RunEvent>, RunView)> {
    runs_of(rows)
        .into_iter()
        .map(|run| {
            let events = place_all(RunRef::new("t", "ksadk", &run.invocation_id), run.drafts, 0);
            let view = RunView::from_events(ViewPolicy::default(), &events);
            (run.invocation_id, events, view)
        })
        .collect()
}

fn user_texts(view: &RunView) -> Vec<String> {
    view.items
        .iter()
        .filter_map(|item| match &item.body {
            ItemBody::Message {
                role: Role::User,
                text,
                ..
            } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

const DONE: &str =
    "Done. delete_file said: pretend-deleted /tmp/ksadk-accept/victim.txt (nothing was touched)";

#[test]
fn a_session_is_one_run_per_invocation_and_the_answer_closes_the_ask_where_it_was_opened() {
    let runs = runs(&rows("40_list_session_events"));
    assert_eq!(
        runs.len(),
        2,
        "{:?}",
        runs.iter().map(|r| &r.0).collect::<Vec<_>>()
    );
    let (first_id, _, first) = &runs[0];
    let (second_id, _, second) = &runs[1];
    assert!(first_id.starts_with("run_becde4c0"), "{first_id}");
    assert!(second_id.starts_with("run_3a6ce82e"), "{second_id}");

    assert_eq!(user_texts(first), ["delete it [[scenario:ks_approval]]"]);
    assert_eq!(first.status, RunStatus::Interrupted);
    assert_eq!(first.asks.len(), 1);
    let ask = &first.asks[0];
    assert_eq!(ask.id, "48fd13277ac62321f2cb999bab2898da");
    assert_eq!(ask.title, "Delete file “/tmp/ksadk-accept/victim.txt”?");
    match &ask.origin {
        AskOrigin::OpenAiApproval {
            ksadk: Some(interrupt),
            ..
        } => assert_eq!(
            interrupt.session_id.as_deref(),
            Some("sess-54cf248410f34cc4")
        ),
        other => panic!("not a KsADK interrupt: {other:?}"),
    }
    match &ask.state {
        AskState::Resolved { answer } => assert_eq!(answer.action, "once", "{answer:?}"),
        other => panic!("the answer kept in the next invocation did not close it: {other:?}"),
    }
    assert!(first.pending_asks().next().is_none());

    assert_eq!(second.status, RunStatus::Succeeded, "{:?}", second.failure);
    assert!(user_texts(second).is_empty());
    assert_eq!(
        tool_calls(second),
        [(
            "delete_file".to_owned(),
            ToolStatus::Done,
            Some(json!(
                "pretend-deleted /tmp/ksadk-accept/victim.txt (nothing was touched)"
            ))
        )]
    );
    assert_eq!(second.final_answer.as_ref().unwrap().text, DONE);
}

#[test]
fn every_event_cites_the_seq_id_of_its_row_and_the_rows_are_read_oldest_first() {
    let rows = rows("40_list_session_events");
    assert!(
        seq_of(&rows[0]) > seq_of(&rows[1]),
        "the record arrives newest first"
    );
    for (_, events, _) in runs(&rows) {
        let cited: Vec<u64> = events.iter().filter_map(|e| e.upstream).collect();
        assert!(!cited.is_empty());
        assert!(cited.windows(2).all(|pair| pair[0] <= pair[1]), "{cited:?}");
        assert!(cited.iter().all(|seq| (1..=28).contains(seq)), "{cited:?}");
    }
}

#[test]
fn an_agui_thread_keeps_its_user_text_from_the_input_event_and_starts_each_run_once() {
    let runs = runs(&rows("4i_list_session_events_agui"));
    assert_eq!(runs.len(), 2);
    let (_, events, first) = &runs[0];
    assert_eq!(user_texts(first), ["delete [[scenario:ks_approval]]"]);
    let starts = events
        .iter()
        .filter(|e| matches!(e.body, EventBody::RunStarted { .. }))
        .count();
    assert_eq!(starts, 1, "two run.started rows for one run are one start");
    assert_eq!(first.asks.len(), 1);
    assert!(!first.asks[0].state.is_pending());
    assert_eq!(runs[1].2.status, RunStatus::Succeeded);
    assert_eq!(runs[1].2.final_answer.as_ref().unwrap().text, DONE);
}

#[test]
fn a_window_the_runtime_cut_between_exclusive_cursors_reads_what_it_holds() {
    // `41_` asked for AfterSeqId 3, BeforeSeqId 13: the runtime sent SeqId 4..=12.
    let rows = rows("41_list_session_events_window");
    let seqs: Vec<u64> = rows.iter().filter_map(seq_of).collect();
    assert_eq!(seqs.iter().min(), Some(&4));
    assert_eq!(seqs.iter().max(), Some(&12));
    let runs = runs(&rows);
    assert_eq!(runs.len(), 1);
    let view = &runs[0].2;
    assert!(
        user_texts(view).is_empty(),
        "the user message is before the window"
    );
    assert_eq!(view.asks.len(), 1);
    assert!(
        view.asks[0].state.is_pending(),
        "its answer is after the window"
    );
    assert_eq!(view.status, RunStatus::Interrupted);
}

#[test]
fn a_window_that_begins_inside_a_message_shows_the_message_whole_from_its_snapshot() {
    let rows: Vec<Value> = rows("40_list_session_events")
        .into_iter()
        .filter(|row| seq_of(row).is_some_and(|seq| seq > 24))
        .collect();
    let runs = runs(&rows);
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].2.final_answer.as_ref().unwrap().text, DONE);
    assert_eq!(runs[0].2.status, RunStatus::Succeeded);
}

#[test]
fn a_rejection_kept_by_the_runtime_closes_the_ask_denied_with_its_reason() {
    let rows: Vec<Value> = rows("40_list_session_events")
        .into_iter()
        .map(|mut row| {
            if row["EventType"] == "approval_response" {
                row["Metadata"]["resume_input"]["value"] =
                    json!({"decisions": [{"type": "reject", "message": "not allowed"}]});
            }
            row
        })
        .collect();
    let runs = runs(&rows);
    match &runs[0].2.asks[0].state {
        AskState::Resolved { answer } => {
            assert_eq!(answer.action, "deny");
            assert_eq!(answer.data["reason"], "not allowed");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_same_row_given_twice_is_read_once() {
    let mut rows = rows("40_list_session_events");
    let again = rows.clone();
    rows.extend(again);
    let runs = runs(&rows);
    assert_eq!(runs[1].2.final_answer.as_ref().unwrap().text, DONE);
}

#[test]
fn a_refusal_or_a_body_that_is_no_record_is_an_error_in_words() {
    assert_eq!(
        read_page(br#"{"Code":404,"Message":"session not found","Data":null}"#).unwrap_err(),
        RecordError::Refused {
            code: 404,
            message: "session not found".into()
        }
    );
    assert!(matches!(
        read_page(b"Internal Server Error"),
        Err(RecordError::NotARecord(_))
    ));
    assert!(matches!(
        read_page(br#"{"Code":0,"Data":{}}"#),
        Err(RecordError::NotARecord(_))
    ));
    assert!(!is_record(b"data: {\"type\":\"RUN_STARTED\"}\n\n"));
}

#[test]
fn an_event_type_this_version_does_not_know_is_kept_in_order() {
    let rows = vec![json!({
        "SeqId": 1, "EventType": "plan.updated", "InvocationId": "run_x",
        "Content": {"runtime_event": {"schema_version": 2, "event_type": "plan.updated", "run_id": "run_x", "steps": [1]}}
    })];
    let runs = runs(&rows);
    assert!(matches!(
        &runs[0].1[0].body,
        EventBody::Unknown { upstream_type, .. } if upstream_type == "plan.updated"
    ));
}
