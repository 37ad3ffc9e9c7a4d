//! Receipts: parsing, validation against the ask, redaction, and the answer each
//! gateway receives.

#![allow(clippy::unwrap_used)]

mod common;

use std::collections::BTreeMap;

use app::protocol::agui::asks::{InterruptSource, ask_for_frontend_tool, ask_from_interrupt};
use app::protocol::ask::{Ask, AskState};
use app::protocol::receipts::{
    GatewayAnswer, Receipt, ReceiptEnvelope, ReceiptError, ReceiptTime, ResumeEntry,
    ValidatedAnswer, agui_resume, custom_interrupt_resume, hermes_answer, resolved_state, validate,
};
use common::*;
use serde_json::{Value, json};

fn receipt(ask: &Ask, action: &str, data: Value) -> Receipt {
    Receipt {
        tool_call_id: ask.id.clone(),
        component: ask.component.as_str().into(),
        action: action.into(),
        data,
        ts: ReceiptTime::parse_rfc3339("2026-12-02T10:00:00Z"),
    }
}

fn hermes_approval() -> Ask {
    project_file(&repo_path("fixtures/hermes/asks_event_form.jsonl"))
        .ask("approval-call-rm")
        .unwrap()
        .clone()
        .pending()
}

trait Reopen {
    fn pending(self) -> Self;
}

impl Reopen for Ask {
    fn pending(mut self) -> Self {
        self.state = AskState::Pending;
        self
    }
}

#[test]
fn the_envelope_is_parsed_exactly_as_specified() {
    let body = br#"{"channel":"tool-result","receipt":{"toolCallId":"a1","component":"approval_card","action":"once","data":{},"ts":"2026-12-02T10:00:00Z"}}"#;
    let envelope = ReceiptEnvelope::parse(body).unwrap();
    assert_eq!(envelope.receipt.tool_call_id, "a1");
    assert_eq!(envelope.receipt.action, "once");
}

#[test]
fn a_malformed_receipt_names_the_field_that_is_wrong() {
    let missing = ReceiptEnvelope::parse(br#"{"channel":"tool-result","receipt":{"toolCallId":"a","component":"c","data":{},"ts":1782487573184}}"#)
        .unwrap_err();
    assert!(
        missing.to_string().contains("missing field `action`"),
        "{missing}"
    );
    let wrong_type = ReceiptEnvelope::parse(br#"{"channel":"tool-result","receipt":{"toolCallId":5,"component":"c","action":"a","ts":1782487573184}}"#)
        .unwrap_err();
    assert!(
        wrong_type.to_string().contains("invalid type: integer `5`"),
        "{wrong_type}"
    );
    let channel = ReceiptEnvelope::parse(
        br#"{"channel":"chat","receipt":{"toolCallId":"a","component":"c","action":"a","ts":1782487573184}}"#,
    )
    .unwrap_err();
    assert_eq!(
        channel.to_string(),
        "channel `chat` is not allowed; expected `tool-result`"
    );
    let empty = ReceiptEnvelope::parse(br#"{"channel":"tool-result","receipt":{"toolCallId":"","component":"c","action":"a","ts":1782487573184}}"#)
        .unwrap_err();
    assert_eq!(empty.to_string(), "receipt.toolCallId must not be empty");
    let extra = ReceiptEnvelope::parse(br#"{"channel":"tool-result","receipt":{"toolCallId":"a","component":"c","action":"a","ts":1782487573184,"text":"hi"}}"#)
        .unwrap_err();
    assert!(
        extra.to_string().contains("unknown field `text`"),
        "{extra}"
    );
}

#[test]
fn an_action_the_ask_does_not_allow_is_refused_naming_the_allowed_ones() {
    let ask = hermes_approval();
    let error = validate(&ask, &receipt(&ask, "approve_forever", Value::Null)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "receipt.action `approve_forever` is not allowed here; allowed: once, session, deny"
    );
    let always = validate(&ask, &receipt(&ask, "always", Value::Null)).unwrap_err();
    assert!(matches!(always, ReceiptError::ActionNotAllowed { .. }));
}

#[test]
fn a_receipt_for_another_ask_or_component_is_refused() {
    let ask = hermes_approval();
    let mut other = receipt(&ask, "once", Value::Null);
    other.tool_call_id = "someone-else".into();
    assert!(matches!(
        validate(&ask, &other).unwrap_err(),
        ReceiptError::WrongAsk { .. }
    ));
    let mut component = receipt(&ask, "once", Value::Null);
    component.component = "option_list".into();
    assert_eq!(
        validate(&ask, &component).unwrap_err().to_string(),
        "receipt.component `option_list` does not match the ask; expected `approval_card`"
    );
}

#[test]
fn a_receipt_for_an_ask_already_answered_is_refused_with_its_state() {
    let mut ask = hermes_approval();
    let answer = validate(&ask, &receipt(&ask, "once", Value::Null)).unwrap();
    ask.state = resolved_state(&answer);
    assert_eq!(
        validate(&ask, &receipt(&ask, "deny", Value::Null))
            .unwrap_err()
            .to_string(),
        "the ask is already resolved"
    );
    let AskState::Resolved { answer } = &ask.state else {
        unreachable!()
    };
    assert_eq!(answer.summary, "Approved once");
}

#[test]
fn a_choice_outside_the_options_is_refused_and_the_options_are_named() {
    let view = project_file(&repo_path("fixtures/hermes/asks_event_form.jsonl"));
    let ask = view.ask("clar-1").unwrap().clone().pending();
    let error = validate(&ask, &receipt(&ask, "answer", json!({"answer": "purple"}))).unwrap_err();
    assert_eq!(
        error.to_string(),
        "receipt.data.answer: `purple` is not one of the choices: red, green, blue"
    );
    let error = validate(&ask, &receipt(&ask, "answer", json!({"answer": 3}))).unwrap_err();
    assert_eq!(
        error.to_string(),
        "receipt.data.answer: expected a string, got a number"
    );
}

#[test]
fn a_question_flow_needs_an_answer_for_every_question() {
    let view = project_file(&repo_path("fixtures/hermes/asks_request_form.jsonl"));
    let ask = view.ask("srq-111111111111").unwrap().clone().pending();
    let error = validate(
        &ask,
        &receipt(&ask, "answer", json!({"answers": {"q1": "main"}})),
    )
    .unwrap_err();
    assert_eq!(error.to_string(), "receipt.data.answers.q2: is missing");
    let error = validate(
        &ask,
        &receipt(
            &ask,
            "answer",
            json!({"answers": {"q1": "main", "q2": "x", "q9": "y"}}),
        ),
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "receipt.data.answers.q9: names no question of this ask"
    );
}

#[test]
fn secret_values_are_redacted_in_the_record_but_reach_the_gateway() {
    let view = project_file(&repo_path("fixtures/hermes/asks_event_form.jsonl"));
    let ask = view.ask("sec-1").unwrap().clone().pending();
    let answer = validate(&ask, &receipt(&ask, "save", json!({"value": "tok-123"}))).unwrap();
    let recorded = serde_json::to_string(&resolved_state(&answer)).unwrap();
    assert!(!recorded.contains("tok-123"), "{recorded}");
    assert!(recorded.contains("redacted"));
    assert!(!format!("{answer:?}").contains("tok-123"));
    let Some(GatewayAnswer::HermesCall { method, params }) = hermes_answer(&ask, &answer) else {
        panic!()
    };
    assert!(!format!("{:?}", hermes_answer(&ask, &answer)).contains("tok-123"));
    assert_eq!(method, "secret.respond");
    assert_eq!(params, json!({"request_id": "sec-1", "value": "tok-123"}));
    let empty = validate(&ask, &receipt(&ask, "save", json!({"value": ""}))).unwrap_err();
    assert_eq!(
        empty.to_string(),
        "receipt.data.value: is empty; use the `skip` action to skip"
    );
}

fn interrupt(id: &str, reason: &str, extra: Value) -> Ask {
    let mut value = json!({"id": id, "reason": reason, "message": format!("{id}?")});
    if let (Value::Object(target), Value::Object(extra)) = (&mut value, extra) {
        target.extend(extra);
    }
    ask_from_interrupt(&value, InterruptSource::Outcome).unwrap()
}

#[test]
fn ag_ui_interrupts_are_answered_by_one_resume_covering_every_open_interrupt() {
    let budget = interrupt(
        "approve-budget",
        "tool_approval",
        json!({"metadata":{"choices":["once","session","always","deny"]}}),
    );
    let date = interrupt("confirm-date", "tool_approval", json!({}));
    let mut answers = BTreeMap::new();
    answers.insert(
        budget.id.clone(),
        validate(&budget, &receipt(&budget, "session", Value::Null)).unwrap(),
    );
    answers.insert(
        date.id.clone(),
        validate(&date, &receipt(&date, "deny", Value::Null)).unwrap(),
    );
    let resume = agui_resume(&[&budget, &date], &answers).unwrap();
    assert_eq!(
        resume,
        [
            ResumeEntry {
                interrupt_id: "approve-budget".into(),
                status: "resolved".into(),
                payload: Some(json!({"approved": true, "choice": "session"})),
            },
            ResumeEntry {
                interrupt_id: "confirm-date".into(),
                status: "cancelled".into(),
                payload: None,
            },
        ]
    );
}

#[test]
fn a_denial_reason_goes_along_with_a_cancelled_interrupt() {
    let date = interrupt("confirm-date", "tool_approval", json!({}));
    assert!(date.denial_reason_reaches_agent());
    let mut answers = BTreeMap::new();
    answers.insert(
        date.id.clone(),
        validate(
            &date,
            &receipt(&date, "deny", json!({"reason": "book Friday instead"})),
        )
        .unwrap(),
    );
    let resume = agui_resume(&[&date], &answers).unwrap();
    assert_eq!(resume[0].status, "cancelled");
    assert_eq!(
        resume[0].payload,
        Some(json!({"reason": "book Friday instead"}))
    );
}

#[test]
fn an_approval_closed_without_an_answer_resumes_as_abandoned_never_approved() {
    let date = interrupt("confirm-date", "tool_approval", json!({}));
    let schema = project_file(&repo_path("fixtures/peers/agui/pydantic-ai-approval.sse"))
        .pending_asks()
        .next()
        .unwrap()
        .clone();
    let answers: BTreeMap<String, ValidatedAnswer> = [&date, &schema]
        .into_iter()
        .map(|ask| (ask.id.clone(), ValidatedAnswer::not_answered(ask)))
        .collect();
    let resume = agui_resume(&[&date, &schema], &answers).unwrap();
    assert_eq!(resume[0].status, "cancelled");
    assert_eq!(resume[0].payload, None);
    assert_eq!(resume[1].status, "resolved");
    assert_eq!(resume[1].payload, Some(json!({"approved": false})));
}

#[test]
fn a_refusal_is_resolved_with_approved_false_when_the_schema_asks_for_it() {
    let view = project_file(&repo_path("fixtures/peers/agui/pydantic-ai-approval.sse"));
    let ask = view.pending_asks().next().unwrap().clone();
    let mut answers = BTreeMap::new();
    answers.insert(
        ask.id.clone(),
        validate(&ask, &receipt(&ask, "deny", json!({"reason": "not today"}))).unwrap(),
    );
    let resume = agui_resume(&[&ask], &answers).unwrap();
    assert_eq!(resume[0].status, "resolved");
    assert_eq!(
        resume[0].payload,
        Some(json!({"approved": false, "choice": "deny", "reason": "not today"}))
    );
}

#[test]
fn the_recorded_pydantic_resume_is_what_an_approval_produces() {
    let view = project_file(&repo_path("fixtures/peers/agui/pydantic-ai-approval.sse"));
    let ask = view.pending_asks().next().unwrap().clone();
    let mut answers = BTreeMap::new();
    answers.insert(
        ask.id.clone(),
        validate(&ask, &receipt(&ask, "once", Value::Null)).unwrap(),
    );
    let resume = agui_resume(&[&ask], &answers).unwrap();
    let request: Value = serde_json::from_slice(
        &std::fs::read(repo_path(
            "fixtures/peers/agui/pydantic-ai-approval-resume.request.json",
        ))
        .unwrap(),
    )
    .unwrap();
    let recorded = &request["resume"][0];
    assert_eq!(resume[0].interrupt_id, recorded["interruptId"]);
    assert_eq!(resume[0].status, recorded["status"]);
    assert_eq!(
        resume[0].payload.as_ref().unwrap()["approved"],
        recorded["payload"]["approved"]
    );
}

#[test]
fn a_resume_that_leaves_an_interrupt_uncovered_is_refused() {
    let budget = interrupt("approve-budget", "tool_approval", json!({}));
    let date = interrupt("confirm-date", "tool_approval", json!({}));
    let mut answers = BTreeMap::new();
    answers.insert(
        budget.id.clone(),
        validate(&budget, &receipt(&budget, "once", Value::Null)).unwrap(),
    );
    assert_eq!(
        agui_resume(&[&budget, &date], &answers)
            .unwrap_err()
            .to_string(),
        "a resume must answer every open interrupt; unanswered: confirm-date"
    );
}

#[test]
fn an_approval_may_replace_the_arguments_with_edited_args() {
    let ask = interrupt(
        "int-1",
        "tool_call",
        json!({"toolCallId":"c1","responseSchema":{"properties":{"approved":{},"editedArgs":{}}}}),
    );
    let answer = validate(
        &ask,
        &receipt(&ask, "once", json!({"editedArgs": {"path": "/tmp/other"}})),
    )
    .unwrap();
    let mut answers = BTreeMap::new();
    answers.insert(ask.id.clone(), answer);
    let resume = agui_resume(&[&ask], &answers).unwrap();
    assert_eq!(
        resume[0].payload.as_ref().unwrap()["editedArgs"],
        json!({"path": "/tmp/other"})
    );
    let bad = validate(&ask, &receipt(&ask, "once", json!({"editedArgs": "nope"}))).unwrap_err();
    assert_eq!(
        bad.to_string(),
        "receipt.data.editedArgs: expected an object of replacement arguments"
    );
}

#[test]
fn edit_accept_and_reject_are_keyed_by_the_tool_call() {
    let ask = interrupt(
        "edit-1",
        "edit_preview",
        json!({"toolCallId":"call-edit","metadata":{"filename":"src/lib.rs","patch":"@@ -1 +1 @@\n-a\n+b\n"}}),
    );
    assert_eq!(ask.actions, ["accept", "reject"]);
    assert_eq!(
        ask.diff.as_ref().unwrap().filename.as_deref(),
        Some("src/lib.rs")
    );
    for (action, accepted) in [("accept", true), ("reject", false)] {
        let mut answers = BTreeMap::new();
        answers.insert(
            ask.id.clone(),
            validate(&ask, &receipt(&ask, action, Value::Null)).unwrap(),
        );
        let resume = agui_resume(&[&ask], &answers).unwrap();
        assert_eq!(
            resume[0].payload,
            Some(json!({"accepted": accepted, "toolCallId": "call-edit"}))
        );
    }
}

#[test]
fn a_frontend_tool_answer_becomes_a_tool_message_for_the_next_run() {
    let ask = ask_for_frontend_tool(
        "call_frontend_1",
        "change_background",
        r##"{"color":"#ff0000"}"##,
    );
    let answer = validate(
        &ask,
        &receipt(&ask, "submit", json!({"result": {"ok": true}})),
    )
    .unwrap();
    assert_eq!(
        hermes_answer(&ask, &answer),
        Some(GatewayAnswer::AgUiToolMessage {
            tool_call_id: "call_frontend_1".into(),
            content: r#"{"ok":true}"#.into(),
            error: None,
        })
    );
    let declined = validate(&ask, &receipt(&ask, "cancel", Value::Null)).unwrap();
    let Some(GatewayAnswer::AgUiToolMessage { error, .. }) = hermes_answer(&ask, &declined) else {
        panic!()
    };
    assert!(error.is_some());
}

#[test]
fn a_langgraph_interrupt_is_answered_through_forwarded_props() {
    let view = project_file(&repo_path("fixtures/peers/agui/langgraph-approval.sse"));
    let ask = view.pending_asks().next().unwrap().clone();
    let answer = validate(&ask, &receipt(&ask, "once", Value::Null)).unwrap();
    let request: Value = serde_json::from_slice(
        &std::fs::read(repo_path(
            "fixtures/peers/agui/langgraph-approval-resume.request.json",
        ))
        .unwrap(),
    )
    .unwrap();
    let resume = custom_interrupt_resume(&ask, &answer);
    assert_eq!(
        resume["approved"],
        request["forwardedProps"]["command"]["resume"]["approved"]
    );
}

fn agui_approval(id: &str) -> Ask {
    ask_from_interrupt(
        &json!({"id": id, "reason": "tool_approval", "message": "Delete /tmp/x?",
                "toolCallId": id, "metadata": {"choices": ["once", "session", "deny"]}}),
        InterruptSource::Outcome,
    )
    .unwrap()
}

#[test]
fn the_contract_example_receipt_is_accepted_exactly_as_written() {
    let body = br#"{"channel":"tool-result","receipt":{"toolCallId":"call_abc","component":"approval_card","action":"approve","data":{"approved":true},"ts":1782487573184}}"#;
    let envelope = ReceiptEnvelope::parse(body).unwrap();
    assert_eq!(envelope.receipt.ts, Some(ReceiptTime(1_782_487_573_184)));
    let answer = validate(&agui_approval("call_abc"), &envelope.receipt).unwrap();
    assert_eq!(answer.action, "once");
    assert_eq!(answer.recorded.action, "once");
    assert_eq!(answer.recorded.summary, "Approved once");
    assert_eq!(
        answer.recorded.at.as_deref(),
        Some("2026-06-26T15:26:13.184Z")
    );
    // Written back, the time is the contract's integer again.
    let written = serde_json::to_value(&envelope).unwrap();
    assert_eq!(written["receipt"]["ts"], json!(1_782_487_573_184_i64));
}

#[test]
fn a_receipt_time_is_epoch_milliseconds_or_rfc3339_and_nothing_else() {
    let parse = |ts: &str| {
        ReceiptEnvelope::parse(
            format!(r#"{{"channel":"tool-result","receipt":{{"toolCallId":"a","component":"approval_card","action":"once","ts":{ts}}}}}"#)
                .as_bytes(),
        )
    };
    for same in [
        "1782487573184",
        r#""2026-06-26T15:26:13.184Z""#,
        r#""2026-06-26T17:26:13.184+02:00""#,
    ] {
        assert_eq!(
            parse(same).unwrap().receipt.ts,
            Some(ReceiptTime(1_782_487_573_184)),
            "{same}"
        );
    }
    for wrong in [
        r#""t""#,
        "-5",
        "1.5",
        r#""2026-13-01T00:00:00Z""#,
        r#""""#,
        "null",
    ] {
        let error = parse(wrong).unwrap_err().to_string();
        assert!(
            error.contains("epoch milliseconds") || error.contains("receipt.ts"),
            "{wrong}: {error}"
        );
    }
}

#[test]
fn approve_and_reject_mean_once_and_deny_on_an_approval_card() {
    let ask = agui_approval("call_abc");
    let meant = |action: &str, data: Value| validate(&ask, &receipt(&ask, action, data));
    assert_eq!(meant("approve", Value::Null).unwrap().action, "once");
    assert_eq!(
        meant("approve", json!({"approved": true, "choice": "session"}))
            .unwrap()
            .recorded
            .summary,
        "Approved for session"
    );
    let denied = meant("reject", json!({"approved": false, "reason": "no"})).unwrap();
    assert_eq!(
        (denied.action.as_str(), denied.recorded.summary.as_str()),
        ("deny", "Denied")
    );
    assert_eq!(denied.data["reason"], "no");
    let contradiction = meant("approve", json!({"approved": false})).unwrap_err();
    assert_eq!(
        contradiction.to_string(),
        "receipt.data.approved: is false, but the action is `approve`"
    );
    let not_offered = meant("approve", json!({"choice": "always"})).unwrap_err();
    assert!(
        not_offered
            .to_string()
            .contains("`always` is not an approving action"),
        "{not_offered}"
    );
    assert!(matches!(
        meant("approve", json!({"choice": "deny"})).unwrap_err(),
        ReceiptError::BadData { .. }
    ));
    // Only approval cards know the aliases.
    let question = ask_from_interrupt(
        &json!({"id": "q", "reason": "clarify", "message": "Which?",
                "metadata": {"choices": ["a", "b"]}}),
        InterruptSource::Outcome,
    )
    .unwrap();
    assert!(matches!(
        validate(&question, &receipt(&question, "approve", Value::Null)).unwrap_err(),
        ReceiptError::ActionNotAllowed { .. }
    ));
}

/// A LangGraph run as ag-ui-langgraph writes it with `emit_interrupt_outcome=True`: the
/// interrupt as CUSTOM `on_interrupt` (its id in `rawEvent.id`), then again in the outcome.
fn interrupt_announced_twice(outcome_id: &str) -> Vec<u8> {
    let value = json!({"reason": "tool_approval", "message": "Approve delete_file?",
        "toolCallId": "call_delete_1", "action": {"name": "delete_file", "args": {"path": "/tmp/x"}},
        "responseSchema": {"type": "object", "properties": {"approved": {"type": "boolean"}}}});
    let events = [
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "CUSTOM", "name": "on_interrupt", "value": value.to_string(),
               "rawEvent": {"id": "d63c27aa", "value": value, "ns": ["agent:1"]}}),
        json!({"type": "RAW", "event": {"kind": "on_chain_end"}}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
               "outcome": {"type": "interrupt", "interrupts": [
                   {"id": outcome_id, "reason": "tool_approval", "toolCallId": "call_delete_1"}]}}),
    ];
    events
        .iter()
        .map(|event| format!("data: {event}\n\n"))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn one_interrupt_announced_by_a_custom_event_and_the_outcome_is_one_ask_resumed_in_the_1_0_form() {
    let view = project_bytes(
        &interrupt_announced_twice("d63c27aa"),
        app::protocol::agui::AgUiConfig::default(),
    );
    assert!(error_lines(&view).is_empty(), "{:?}", error_lines(&view));
    assert_eq!(view.asks.len(), 1, "{:?}", view.asks);
    let ask = view.pending_asks().next().unwrap().clone();
    assert_eq!(ask.id, "d63c27aa");
    assert!(matches!(
        ask.origin,
        app::protocol::ask::AskOrigin::AgUiInterrupt { .. }
    ));
    // What the CUSTOM event said and the outcome left out is kept.
    assert_eq!(ask.title, "Approve delete_file?");
    assert_eq!(ask.kind, app::protocol::ask::AskKind::Approval);
    let answer = validate(&ask, &receipt(&ask, "once", Value::Null)).unwrap();
    let answers = BTreeMap::from([(ask.id.clone(), answer)]);
    let resume = serde_json::to_value(agui_resume(&[&ask], &answers).unwrap()).unwrap();
    assert_eq!(resume.as_array().unwrap().len(), 1);
    assert_eq!(
        (
            &resume[0]["interruptId"],
            &resume[0]["status"],
            &resume[0]["payload"]["approved"]
        ),
        (&json!("d63c27aa"), &json!("resolved"), &json!(true))
    );
}

#[test]
fn a_custom_interrupt_the_outcome_does_not_repeat_stays_its_own_ask() {
    let view = project_bytes(
        &interrupt_announced_twice("another"),
        app::protocol::agui::AgUiConfig::default(),
    );
    let ids: Vec<&str> = view.asks.iter().map(|ask| ask.id.as_str()).collect();
    assert_eq!(ids, ["call_delete_1", "another"]);
}
