//! KsADK 0.8.5's hosted runtime as recorded (`fixtures/peers/ksadk/`): its Responses and
//! Chat streams name their events only in the SSE `event:` field, carry bare response
//! objects, run their own tools, and hold approvals that are answered with its own
//! `ksadk_resume` item — each read from the recorded bytes.

#![allow(clippy::unwrap_used)]

mod common;

use app::projection::{RunStatus, RunView, ToolStatus};
use app::protocol::ask::{AskKind, AskOrigin, KsAdkInterrupt};
use app::protocol::openai::ksadk::resume_item;
use app::protocol::openai::{OpenAiApi, OpenAiNormalizer};
use common::*;
use serde_json::{Value, json};

fn recorded(name: &str) -> RunView {
    project_file(&repo_path(&format!(
        "fixtures/peers/ksadk/{name}.response.sse"
    )))
}

/// The body the runtime was sent in a recorded exchange.
fn sent(name: &str) -> Value {
    let bytes = std::fs::read(repo_path(&format!(
        "fixtures/peers/ksadk/{name}.request.json"
    )))
    .unwrap();
    serde_json::from_slice::<Value>(&bytes).unwrap()["body"].clone()
}

fn final_text(view: &RunView) -> String {
    view.final_answer.as_ref().unwrap().text.clone()
}

#[test]
fn a_responses_stream_named_only_in_the_event_field_is_read_to_its_answer() {
    let view = recorded("10_responses_text_stream");
    assert_eq!(view.status, RunStatus::Succeeded, "{:?}", view.failure);
    assert_eq!(
        final_text(&view),
        "Hello from the fake model. This reply arrives in several chunks."
    );
    // One message, though the response names three different ids for it.
    assert_eq!(message_texts(&view).len(), 1);
    // The runtime counts no tokens: no line says "0 in, 0 out".
    assert!(
        !view.timeline_lines().iter().any(|l| l.contains("Tokens")),
        "{:?}",
        view.timeline_lines()
    );
    assert!(error_lines(&view).is_empty(), "{:?}", error_lines(&view));
}

#[test]
fn a_tool_the_runtime_ran_and_reported_is_not_an_ask() {
    let view = recorded("12_responses_tool_stream");
    assert_eq!(view.status, RunStatus::Succeeded, "{:?}", view.failure);
    assert!(view.asks.is_empty(), "{:?}", view.asks);
    let calls = tool_calls(&view);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].0, "get_weather");
    assert_eq!(calls[0].1, ToolStatus::Done);
    assert_eq!(
        calls[0].2,
        Some(Value::String("It is sunny and 21C in Paris.".into()))
    );
    assert_eq!(
        final_text(&view),
        "Weather tool said: It is sunny and 21C in Paris."
    );
}

#[test]
fn an_approval_interrupt_is_one_ask_that_knows_its_session() {
    let view = recorded("14_responses_approval_stream");
    assert_eq!(view.status, RunStatus::Interrupted, "{:?}", view.failure);
    assert_eq!(
        view.asks.len(),
        1,
        "the item comes twice and the interrupt once more"
    );
    let ask = &view.asks[0];
    assert_eq!(ask.kind, AskKind::Approval);
    assert_eq!(ask.id, "48fd13277ac62321f2cb999bab2898da");
    assert_eq!(ask.title, "Delete file “/tmp/ksadk-accept/victim.txt”?");
    assert_eq!(ask.actions, ["once", "deny"]);
    assert!(
        ask.description
            .as_deref()
            .unwrap()
            .starts_with("delete_file needs approval")
    );
    assert_eq!(
        ask.tool.as_ref().unwrap().arguments["path"],
        "/tmp/ksadk-accept/victim.txt"
    );
    assert_eq!(
        ask.origin,
        AskOrigin::OpenAiApproval {
            approval_request_id: "48fd13277ac62321f2cb999bab2898da".into(),
            ksadk: Some(KsAdkInterrupt {
                session_id: Some("sess-54cf248410f34cc4".into()),
                user: None,
                actions: 1,
            }),
        }
    );
    // What the agent said before it stopped stays.
    assert_eq!(message_texts(&view), ["I will delete the file. "]);
}

#[test]
fn the_answers_are_the_resume_items_the_runtime_accepted() {
    let approve = sent("15_responses_approval_resume_stream");
    assert_eq!(
        resume_item("48fd13277ac62321f2cb999bab2898da", true, None, 1),
        approve["input"][0]
    );
    let reject = sent("19_responses_approval2_reject_stream");
    let id = reject["input"][0]["interrupt_id"].as_str().unwrap();
    assert_eq!(
        resume_item(id, false, Some("not allowed"), 1),
        reject["input"][0]
    );
    // One decision per action the interrupt reviews.
    let two = resume_item("i", true, None, 2);
    assert_eq!(two["value"]["decisions"].as_array().unwrap().len(), 2);
}

#[test]
fn an_approved_resume_runs_the_tool_and_answers() {
    let view = recorded("15_responses_approval_resume_stream");
    assert_eq!(view.status, RunStatus::Succeeded, "{:?}", view.failure);
    let calls = tool_calls(&view);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].0, "delete_file");
    assert_eq!(calls[0].1, ToolStatus::Done);
    assert!(final_text(&view).starts_with("Done. delete_file said: pretend-deleted"));

    let rejected = recorded("19_responses_approval2_reject_stream");
    assert_eq!(rejected.status, RunStatus::Succeeded);
    assert!(tool_calls(&rejected).is_empty());
    assert!(
        final_text(&rejected).contains("not allowed"),
        "{}",
        final_text(&rejected)
    );
}

#[test]
fn a_second_answer_answered_with_nothing_fails_the_run_in_words() {
    let bytes = std::fs::read(repo_path(
        "fixtures/peers/ksadk/16_responses_approval_resume_again_stream.response.sse",
    ))
    .unwrap();
    assert!(
        bytes.is_empty(),
        "KsADK answers a second answer with an empty 200"
    );
    let mut normalizer =
        OpenAiNormalizer::new(OpenAiApi::Responses).when_silent("it no longer holds this approval");
    let mut drafts = Vec::new();
    let mut frames = app::protocol::sse::decode_all(&bytes);
    for frame in frames.iter() {
        normalizer.push_frame(frame, &mut drafts);
    }
    frames.clear();
    normalizer.finish(&mut drafts);
    let view = project_drafts(drafts);
    assert_eq!(view.status, RunStatus::Failed);
    assert_eq!(
        view.failure.as_deref(),
        Some("it no longer holds this approval")
    );
}

#[test]
fn the_chat_stream_in_ksadk_framing_carries_text_tools_and_its_approval() {
    let text = recorded("20_chat_text_stream");
    assert_eq!(text.status, RunStatus::Succeeded, "{:?}", text.failure);
    assert_eq!(
        final_text(&text),
        "Hello from the fake model. This reply arrives in several chunks."
    );

    let tool = recorded("22_chat_tool_stream");
    assert_eq!(tool.status, RunStatus::Succeeded, "{:?}", tool.failure);
    let calls = tool_calls(&tool);
    assert_eq!(calls.len(), 1);
    assert_eq!(
        (calls[0].0.as_str(), calls[0].1),
        ("get_weather", ToolStatus::Done)
    );
    assert!(tool.asks.is_empty());

    // The stream ends at the approval with no terminal event: a pause, not a truncation.
    let approval = recorded("24_chat_approval_stream");
    assert_eq!(
        approval.status,
        RunStatus::Interrupted,
        "{:?}",
        approval.failure
    );
    let ask = &approval.asks[0];
    assert_eq!(ask.id, "34e3363d793da58d39a49ef32a92a050");
    // Its session is nowhere in the stream.
    assert!(matches!(
        &ask.origin,
        AskOrigin::OpenAiApproval {
            ksadk: Some(KsAdkInterrupt {
                session_id: None,
                actions: 1,
                ..
            }),
            ..
        }
    ));
}

#[test]
fn every_recorded_stream_that_succeeded_on_the_runtime_projects_without_an_error() {
    // The AG-UI resumes (33–36, 39) failed on the runtime itself, the standard approval
    // answer (1b) stopped mid-stream and a second answer (16) got nothing back.
    let failed_there = ["1b_", "16_", "33_", "34_", "35_", "36_", "39_"];
    let mut checked = 0;
    let dir = repo_path("fixtures/peers/ksadk");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        // 4x are the runtime's own session records, not an agent's stream.
        if !name.ends_with(".response.sse")
            || name.starts_with('4')
            || failed_there.iter().any(|f| name.starts_with(f))
        {
            continue;
        }
        let view = project_file(&path);
        assert!(
            error_lines(&view).is_empty(),
            "{name}: {:?}",
            error_lines(&view)
        );
        assert_ne!(view.status, RunStatus::Failed, "{name}: {:?}", view.failure);
        checked += 1;
    }
    assert_eq!(checked, 17);
}

#[test]
fn an_interrupt_reviewing_two_calls_is_answered_with_two_decisions() {
    let item = json!({"id": "int-2", "type": "mcp_approval_request", "name": "delete_file",
        "arguments": "{}", "server_label": "ksadk", "allowed_decisions": ["approve", "reject"]});
    let interrupt = json!({"action_requests": [{"name": "delete_file", "args": {}}, {"name": "delete_file", "args": {}}],
        "review_configs": [{"action_name": "delete_file", "allowed_decisions": ["approve", "reject"]}],
        "approval_request_id": "int-2", "tool_name": "delete_file", "arguments": {}, "id": "int-2"});
    let frames = [
        (
            "response.created",
            json!({"id": "resp_1", "session_id": "sess-2"}),
        ),
        (
            "response.output_item.added",
            json!({"output_index": 0, "item": item}),
        ),
        (
            "response.output_item.done",
            json!({"output_index": 0, "item": item}),
        ),
        (
            "response.incomplete",
            json!({"id": "resp_1", "status": "incomplete",
            "incomplete_details": {"reason": "approval_required", "ksadk_interrupt": interrupt}}),
        ),
    ];
    let mut normalizer =
        OpenAiNormalizer::new(OpenAiApi::Responses).for_user(Some("agui-user".into()));
    let mut drafts = Vec::new();
    for (name, data) in frames {
        normalizer.push_event(Some(name), &data.to_string(), &mut drafts);
    }
    normalizer.finish(&mut drafts);
    let view = project_drafts(drafts);
    assert_eq!(view.status, RunStatus::Interrupted);
    assert_eq!(view.asks.len(), 1);
    assert_eq!(
        view.asks[0].origin,
        AskOrigin::OpenAiApproval {
            approval_request_id: "int-2".into(),
            ksadk: Some(KsAdkInterrupt {
                session_id: Some("sess-2".into()),
                user: Some("agui-user".into()),
                actions: 2,
            }),
        }
    );
}

#[test]
fn a_chat_approval_asked_for_in_a_session_is_held_there() {
    // The stream never names its session; the request that asked for it did.
    let bytes = std::fs::read(repo_path(
        "fixtures/peers/ksadk/24_chat_approval_stream.response.sse",
    ))
    .unwrap();
    let mut normalizer = OpenAiNormalizer::new(OpenAiApi::Chat)
        .in_session(Some("thread-7".into()))
        .for_user(Some("agui-user".into()));
    let mut drafts = Vec::new();
    app::protocol::sse::normalize_body(&mut normalizer, &bytes, &mut drafts);
    let view = project_drafts(drafts);
    assert_eq!(view.status, RunStatus::Interrupted, "{:?}", view.failure);
    match &view.asks[0].origin {
        AskOrigin::OpenAiApproval {
            ksadk: Some(interrupt),
            ..
        } => {
            assert_eq!(interrupt.session_id.as_deref(), Some("thread-7"));
            assert_eq!(interrupt.user.as_deref(), Some("agui-user"));
        }
        other => panic!("{other:?}"),
    }
}
