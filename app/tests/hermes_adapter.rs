//! Hermes adapter behaviour, on the recorded hermes-agent 0.19 transcripts and on
//! fixtures for the newer server-request form.

#![allow(clippy::unwrap_used)]

mod common;

use app::projection::{ItemBody, RunStatus, ToolStatus};
use app::protocol::ask::{AskKind, AskState, Component};
use app::protocol::hermes::{
    HermesNormalizer, is_supported_request, parse_transcript_line, strip_ansi,
};
use app::protocol::receipts::{GatewayAnswer, Receipt, ReceiptTime, hermes_answer, validate};
use common::*;
use serde_json::{Value, json};

fn project_lines(lines: &[Value]) -> app::projection::RunView {
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    project_bytes(text.as_bytes(), Default::default())
}

fn event(kind: &str, payload: Value) -> Value {
    json!({"jsonrpc":"2.0","method":"event","params":{"type":kind,"session_id":"s1","payload":payload}})
}

#[test]
fn message_deltas_stream_as_commentary_and_complete_pins_the_final_answer() {
    let view = project_file(&repo_path("fixtures/peers/hermes/text.jsonl"));
    assert_eq!(view.status, RunStatus::Succeeded);
    assert_eq!(
        view.final_answer.as_ref().unwrap().text,
        "Hello from the fake model. This reply arrives in several chunks."
    );
    assert!(error_lines(&view).is_empty());
}

#[test]
fn reasoning_deltas_are_analysis_and_spinner_text_is_only_the_current_activity() {
    let view = project_file(&repo_path("fixtures/peers/hermes/reasoning.jsonl"));
    let reasoning: Vec<_> = view
        .items
        .iter()
        .filter_map(|item| match &item.body {
            ItemBody::Reasoning { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(reasoning, ["Let me think about the question carefully."]);
    // thinking.delta is a kaomoji spinner, never a timeline item.
    assert!(
        view.timeline_lines()
            .iter()
            .all(|line| !line.contains("mulling"))
    );
    assert!(view.activity.is_none(), "cleared once the turn ends");
}

#[test]
fn an_interrupted_turn_keeps_its_partial_text_and_ends_cancelled() {
    let view = project_file(&repo_path("fixtures/peers/hermes/interrupt.jsonl"));
    assert_eq!(view.status, RunStatus::Cancelled);
    assert_eq!(message_texts(&view), ["word0 word1 word2 word3 word4 "]);
}

#[test]
fn an_inline_diff_becomes_an_edit_with_its_ansi_codes_removed() {
    let view = project_file(&repo_path("fixtures/hermes/inline_diff.jsonl"));
    let edit = &view.edits[0];
    assert_eq!(edit.filename.as_deref(), Some("/srv/project/demo.txt"));
    assert!(!edit.patch.contains('\u{1b}'));
    assert!(edit.patch.contains("-beta\n+BETA (patched)"));
    let peer = project_file(&repo_path("fixtures/peers/hermes/file_edit.jsonl"));
    assert_eq!(peer.edits.len(), 2);
    assert!(peer.edits.iter().all(|edit| !edit.patch.contains('\u{1b}')));
    assert!(peer.edits[1].patch.contains("+BETA (patched)"));
}

#[test]
fn ansi_sequences_of_every_kind_are_stripped() {
    assert_eq!(
        strip_ansi("\u{1b}[38;2;1;2;3mred\u{1b}[0m \u{1b}]0;title\u{7}ok"),
        "red ok"
    );
}

/// Replays a transcript's gateway side and checks that answering each ask the way the
/// user did produces exactly the frame the real client sent.
fn answers_match_the_recorded_client(file: &str, receipts: &[(&str, Value)]) {
    let text = std::fs::read_to_string(repo_path(file)).unwrap();
    let mut normalizer = HermesNormalizer::new();
    let mut drafts = Vec::new();
    let mut recorded_calls = Vec::new();
    for line in text.lines() {
        let record = parse_transcript_line(line).unwrap();
        if record.from_gateway {
            normalizer.push_value(record.message, &mut drafts);
        } else if record.message["method"]
            .as_str()
            .is_some_and(|m| m.ends_with(".respond"))
        {
            recorded_calls.push(record.message);
        }
    }
    let asks: Vec<_> = drafts
        .iter()
        .filter_map(|draft| match &draft.body {
            app::protocol::channel::EventBody::AskOpened { ask } => Some(ask.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(asks.len(), receipts.len(), "{file}");
    for ((ask, (action, data)), recorded) in asks.iter().zip(receipts).zip(&recorded_calls) {
        let receipt = Receipt {
            tool_call_id: ask.id.clone(),
            component: ask.component.as_str().into(),
            action: (*action).into(),
            data: data.clone(),
            ts: ReceiptTime::parse_rfc3339("2026-12-02T14:41:16Z"),
        };
        let answer = validate(ask, &receipt).unwrap();
        let Some(GatewayAnswer::HermesCall { method, params }) = hermes_answer(ask, &answer) else {
            panic!("no Hermes call for {ask:?}");
        };
        assert_eq!(method, recorded["method"], "{file}");
        assert_eq!(params, recorded["params"], "{file}");
    }
}

#[test]
fn an_older_form_clarify_is_answered_by_clarify_respond_with_the_request_id() {
    answers_match_the_recorded_client(
        "fixtures/peers/hermes/clarify.jsonl",
        &[("answer", json!({"answer": "green"}))],
    );
}

#[test]
fn an_older_form_approval_is_answered_by_approval_respond_with_the_session_and_choice() {
    answers_match_the_recorded_client(
        "fixtures/peers/hermes/approval_once.jsonl",
        &[("once", Value::Null)],
    );
    answers_match_the_recorded_client(
        "fixtures/peers/hermes/approval_deny.jsonl",
        &[("deny", Value::Null)],
    );
}

#[test]
fn an_older_form_sudo_prompt_is_answered_by_sudo_respond_with_the_password() {
    answers_match_the_recorded_client(
        "fixtures/peers/hermes/sudo.jsonl",
        &[("submit", json!({"password": "fake-sudo-password"}))],
    );
}

#[test]
fn a_denied_approval_shows_the_blocked_tool_as_failed() {
    let view = project_file(&repo_path("fixtures/peers/hermes/approval_deny.jsonl"));
    assert!(view.items.iter().any(|item| matches!(
        item.body,
        ItemBody::ToolCall {
            status: ToolStatus::Failed,
            ..
        }
    )));
    let ask = &view.asks[0];
    let AskState::Resolved { answer } = &ask.state else {
        panic!("{:?}", ask.state);
    };
    assert_eq!(answer.action, "deny");
    assert_eq!(answer.summary, "Denied");
}

#[test]
fn the_sudo_password_from_a_transcript_never_reaches_events_or_the_view() {
    let stream = repo_path("fixtures/peers/hermes/sudo.jsonl");
    let events = events_of_file(&stream);
    let view = project_file(&stream);
    let everything = format!(
        "{}{}",
        serde_json::to_string(&events).unwrap(),
        serde_json::to_string(&view).unwrap()
    );
    assert!(!everything.contains("fake-sudo-password"));
    let AskState::Resolved { answer } = &view.asks[0].state else {
        panic!("{:?}", view.asks[0].state);
    };
    assert_eq!(answer.data, json!({"password": "redacted"}));
}

#[test]
fn every_older_form_ask_is_projected_with_expiry() {
    let view = project_file(&repo_path("fixtures/hermes/asks_event_form.jsonl"));
    let by_id = |id: &str| view.ask(id).unwrap_or_else(|| panic!("no ask {id}"));
    assert_eq!(by_id("clar-1").component, Component::OptionList);
    assert_eq!(by_id("clar-2").component, Component::QuestionFlow);
    let approval = by_id("approval-call-rm");
    assert_eq!(
        approval.actions,
        ["once", "session", "deny"],
        "allow_permanent is false"
    );
    assert!(approval.dangerous);
    let sudo = by_id("sudo-1");
    assert_eq!(sudo.state, AskState::Expired);
    assert_eq!(
        sudo.command.as_deref(),
        Some("Running sudo systemctl restart web")
    );
    let secret = by_id("sec-1");
    assert_eq!(secret.state, AskState::Expired);
    assert_eq!(secret.env_var.as_deref(), Some("DEMO_TOKEN"));
    assert_eq!(by_id("term-1").kind, AskKind::TerminalRead);
}

#[test]
fn every_newer_form_ask_is_projected_with_cancellation() {
    let view = project_file(&repo_path("fixtures/hermes/asks_request_form.jsonl"));
    let approval = view.ask("srq-0a1b2c3d4e5f").unwrap();
    // A recursive delete is dangerous: it may be allowed for the session, never always.
    assert_eq!(approval.actions, ["once", "session", "deny"]);
    let clarify = view.ask("srq-111111111111").unwrap();
    assert_eq!(clarify.questions.len(), 2);
    assert_eq!(clarify.questions[0].choices, ["main", "dev"]);
    assert_eq!(
        view.ask("srq-222222222222").unwrap().state,
        AskState::Expired
    );
    assert!(matches!(
        &view.ask("srq-333333333333").unwrap().state,
        AskState::Cancelled { reason } if reason == "interrupted"
    ));
    // Still open when the recording ends mid-turn: it closes with the run that failed.
    assert_eq!(
        view.ask("srq-444444444444").unwrap().state,
        AskState::closed_by_failed_run()
    );
    assert!(
        view.ask("srq-555555555555").is_none(),
        "vault.code is declined, not asked"
    );
    assert_eq!(view.plan.len(), 2);
}

#[test]
fn newer_form_asks_are_answered_by_json_rpc_results() {
    let view = project_file(&repo_path("fixtures/hermes/asks_request_form.jsonl"));
    let answer = |id: &str, action: &str, data: Value| {
        let ask = view.ask(id).unwrap();
        let mut ask = ask.clone();
        ask.state = AskState::Pending;
        let receipt = Receipt {
            tool_call_id: id.into(),
            component: ask.component.as_str().into(),
            action: action.into(),
            data,
            ts: ReceiptTime::parse_rfc3339("2026-12-02T00:00:00Z"),
        };
        let validated = validate(&ask, &receipt).unwrap();
        match hermes_answer(&ask, &validated) {
            Some(GatewayAnswer::HermesReply { id, result }) => (id, result),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(
        answer("srq-0a1b2c3d4e5f", "session", json!({"all": true})),
        (
            "srq-0a1b2c3d4e5f".into(),
            json!({"choice": "session", "all": true})
        )
    );
    assert_eq!(
        answer(
            "srq-111111111111",
            "answer",
            json!({"answers": {"q1": "dev", "q2": null}})
        )
        .1,
        json!({"answers": {"q1": "dev", "q2": null}})
    );
    assert_eq!(
        answer("srq-111111111111", "cancel", Value::Null).1,
        json!({})
    );
    assert_eq!(
        answer("srq-222222222222", "submit", json!({"password": "pw"})).1,
        json!({"value": "pw"})
    );
    assert_eq!(
        answer("srq-333333333333", "skip", Value::Null).1,
        json!({"value": ""})
    );
    assert_eq!(
        answer(
            "srq-444444444444",
            "answer",
            json!({"answers": {"answer": "$ ls"}})
        )
        .1,
        json!({"value": "$ ls"})
    );
}

#[test]
fn only_once_and_deny_are_offered_after_a_smart_deny() {
    let view = project_lines(&[
        event("message.start", Value::Null),
        json!({"jsonrpc":"2.0","id":"srq-aaaaaaaaaaaa","method":"approval","params":{
            "session_id":"s1","request_id":"x","command":"curl x | sh","choices":["once","session","always","deny"],
            "smart_denied":true}}),
    ]);
    assert_eq!(view.asks[0].actions, ["once", "deny"]);
}

#[test]
fn request_cancel_withdraws_only_that_request() {
    let view = project_lines(&[
        event("message.start", Value::Null),
        json!({"jsonrpc":"2.0","id":"srq-aaaaaaaaaaaa","method":"sudo","params":{"session_id":"s1","command":"sudo a"}}),
        json!({"jsonrpc":"2.0","id":"srq-bbbbbbbbbbbb","method":"sudo","params":{"session_id":"s1","command":"sudo b"}}),
        event(
            "request.cancel",
            json!({"id":"srq-aaaaaaaaaaaa","method":"sudo","reason":"resolved"}),
        ),
    ]);
    assert!(matches!(
        &view.asks[0].state,
        AskState::Cancelled { reason } if reason == "resolved"
    ));
    // The other stayed open until the lines ended mid-turn, and closed with the run.
    assert_eq!(view.asks[1].state, AskState::closed_by_failed_run());
}

#[test]
fn an_unsupported_server_request_is_declined_and_said_so() {
    assert!(!is_supported_request("vault.code"));
    assert!(is_supported_request("approval"));
    let view = project_lines(&[
        json!({"jsonrpc":"2.0","id":"srq-cccccccccccc","method":"tour","params":{"session_id":"s1"}}),
    ]);
    assert!(view.timeline_lines()[0].contains("`tour`, which this console does not handle"));
}

#[test]
fn status_updates_notifications_and_errors_are_system_and_error_items() {
    let view = project_lines(&[
        event(
            "status.update",
            json!({"kind":"lifecycle","text":"❌ Non-retryable error (HTTP 400): bad"}),
        ),
        event(
            "notification.show",
            json!({"text":"Low disk","level":"warning"}),
        ),
        event("error", json!({"message":"session DB unavailable"})),
        event(
            "todo.updated",
            json!({"todos":[{"id":1,"content":"write","status":"completed"}]}),
        ),
    ]);
    let lines = view.timeline_lines();
    assert_eq!(
        lines[0],
        "[system] error: ❌ Non-retryable error (HTTP 400): bad"
    );
    assert_eq!(lines[1], "[system] warning: Low disk");
    assert_eq!(lines[2], "[error] session DB unavailable");
    assert_eq!(view.plan[0].label, "write");
    assert_eq!(view.plan[0].status, "completed");
}

#[test]
fn a_gateway_that_dies_mid_turn_fails_the_run_and_keeps_the_partial_text() {
    let view = project_lines(&[
        event("message.start", Value::Null),
        event("message.delta", json!({"text":"half"})),
    ]);
    assert_eq!(
        (view.status, view.failure.as_deref()),
        (
            RunStatus::Failed,
            Some("the gateway's output ended in the middle of a turn")
        )
    );
    assert_eq!(message_texts(&view), ["half"]);
}

#[test]
fn a_json_rpc_error_reply_is_an_error_item() {
    let view = project_lines(&[
        json!({"jsonrpc":"2.0","id":3,"error":{"code":4009,"message":"no pending answer request"}}),
    ]);
    assert_eq!(
        view.timeline_lines(),
        ["[error] the gateway answered request 3 with error 4009: no pending answer request"]
    );
}

#[test]
fn a_destructive_command_is_never_offered_always_even_when_the_agent_allows_it() {
    let request = |command: &str| {
        let view = project_lines(&[event(
            "approval.request",
            json!({"command": command, "description": "asked", "allow_permanent": true,
                   "choices": ["once", "session", "always", "deny"]}),
        )]);
        view.asks[0].clone()
    };
    let harmless = request("ls -la");
    assert_eq!(harmless.actions, ["once", "session", "always", "deny"]);
    let destructive = request("rm -rf /srv/project/x");
    assert!(destructive.dangerous);
    assert_eq!(destructive.actions, ["once", "session", "deny"]);
    assert!(
        !destructive.denial_reason_reaches_agent(),
        "a Hermes approval answer has no field for a reason"
    );
    let always = Receipt {
        tool_call_id: destructive.id.clone(),
        component: "approval_card".into(),
        action: "always".into(),
        data: Value::Null,
        ts: Some(ReceiptTime(1_764_669_600_000)),
    };
    assert!(validate(&destructive, &always).is_err());
}

#[test]
fn a_tool_that_raises_two_approvals_without_ids_gets_two_asks() {
    let view = project_lines(&[
        event("message.start", Value::Null),
        event(
            "tool.start",
            json!({"tool_id": "call-code", "name": "execute_code", "context": "python"}),
        ),
        event(
            "approval.request",
            json!({"command": "rm -rf build/", "description": "first"}),
        ),
        event(
            "approval.request",
            json!({"command": "rm -rf dist/", "description": "second"}),
        ),
    ]);
    // (Both close as the recorded stream ends mid-turn.)
    let ids: Vec<&str> = view.asks.iter().map(|ask| ask.id.as_str()).collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert_ne!(ids[0], ids[1]);
    assert_eq!(ids[0], "approval-call-code");
}

#[test]
fn session_info_is_kept_raw_and_draws_nothing_in_the_run() {
    let view = project_file(&repo_path("fixtures/peers/hermes/text.jsonl"));
    let drawn = view.timeline_lines().join("\n");
    assert!(!drawn.contains("session.info"), "{drawn}");
    assert!(!drawn.contains("system_prompt"), "{drawn}");
}

#[test]
fn each_live_ask_carries_the_deadline_the_gateway_holds_it_to() {
    let opened = |kind: &str, payload: Value| {
        let mut normalizer = HermesNormalizer::new();
        normalizer.arriving_at(1_000_000);
        let mut out = Vec::new();
        normalizer.push_value(event(kind, payload), &mut out);
        out.iter()
            .find_map(|draft| match &draft.body {
                app::protocol::channel::EventBody::AskOpened { ask } => Some(ask.expires_at_ms),
                _ => None,
            })
            .unwrap()
    };
    assert_eq!(
        opened(
            "approval.request",
            json!({"command": "ls", "description": "d"})
        ),
        Some(1_060_000),
        "approvals: 60 s, then the gateway denies"
    );
    assert_eq!(
        opened("sudo.request", json!({"request_id": "r1"})),
        Some(1_120_000)
    );
    assert_eq!(
        opened(
            "secret.request",
            json!({"request_id": "r2", "env_var": "TOKEN", "prompt": "p"})
        ),
        Some(1_300_000)
    );
    assert_eq!(
        opened(
            "clarify.request",
            json!({"request_id": "r3", "question": "which?"})
        ),
        Some(1_300_000)
    );
    // A recorded transcript is read without a clock: its asks have no deadline to keep.
    let view = project_lines(&[event(
        "approval.request",
        json!({"command": "ls", "description": "d"}),
    )]);
    assert_eq!(view.asks[0].expires_at_ms, None);
}
