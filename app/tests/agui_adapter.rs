//! AG-UI adapter behaviour: chunk expansion, verification, asks, state, artifacts.

#![allow(clippy::unwrap_used)]

mod common;

use app::projection::{ErrorKind, ItemBody, RunStatus, ToolStatus};
use app::protocol::agui::{AgUiConfig, AgUiNormalizer};
use app::protocol::ask::{AskKind, AskOrigin, Component};
use app::protocol::channel::{Channel, EventBody};
use app::protocol::sse::{SseDecoder, SseFrames};
use common::*;
use serde_json::{Value, json};

/// Frames JSON events as an SSE body.
fn sse(events: &[Value]) -> Vec<u8> {
    events
        .iter()
        .map(|event| format!("data: {event}\n\n"))
        .collect::<String>()
        .into_bytes()
}

fn started() -> Value {
    json!({"type":"RUN_STARTED","threadId":"t","runId":"r"})
}

fn finished() -> Value {
    json!({"type":"RUN_FINISHED","threadId":"t","runId":"r"})
}

fn project(events: &[Value]) -> app::projection::RunView {
    project_bytes(&sse(events), AgUiConfig::default())
}

#[test]
fn chunked_text_split_inside_a_zwj_emoji_rejoins_intact() {
    let view = project_file(&repo_path("fixtures/agui/chunked_text_split_zwj_emoji.sse"));
    assert_eq!(
        message_texts(&view),
        [
            "Chunked text arrives in fragments, and the client rejoins them — emoji included: 👩\u{200d}💻."
        ]
    );
    assert!(error_lines(&view).is_empty());
}

#[test]
fn a_body_split_at_every_byte_decodes_like_the_whole_body() {
    let bytes = std::fs::read(repo_path("fixtures/agui/chunked_text_split_zwj_emoji.sse")).unwrap();
    let mut whole = Vec::new();
    let mut normalizer = AgUiNormalizer::new(AgUiConfig::default());
    let mut decoder = SseDecoder::new();
    let mut frames = SseFrames::new();
    decoder.feed(&bytes, &mut frames);
    decoder.finish(&mut frames);
    for frame in frames.iter() {
        normalizer.push_frame(frame, &mut whole);
    }
    normalizer.finish(&mut whole);

    let mut piecewise = Vec::new();
    let mut normalizer = AgUiNormalizer::new(AgUiConfig::default());
    let mut decoder = SseDecoder::new();
    let mut frames = SseFrames::new();
    for byte in &bytes {
        decoder.feed(std::slice::from_ref(byte), &mut frames);
        for frame in frames.iter() {
            normalizer.push_frame(frame, &mut piecewise);
        }
        frames.clear();
    }
    decoder.finish(&mut frames);
    for frame in frames.iter() {
        normalizer.push_frame(frame, &mut piecewise);
    }
    normalizer.finish(&mut piecewise);
    assert_eq!(whole, piecewise);
}

#[test]
fn tool_arguments_split_between_a_backslash_and_its_escape_reassemble_into_valid_json() {
    let view = project_file(&repo_path("fixtures/agui/arguments_split_mid_escape.sse"));
    let ItemBody::ToolCall {
        arguments,
        status,
        name,
        ..
    } = &view.items[0].body
    else {
        panic!("first item is not a tool call: {:?}", view.items[0]);
    };
    assert_eq!(name, "add_task");
    assert_eq!(*status, ToolStatus::Done);
    let parsed: Value = serde_json::from_str(arguments).expect("arguments parse as JSON");
    assert_eq!(parsed["note"], "line\nbreak");
    assert_eq!(parsed["depth"], 3);
}

#[test]
fn interleaved_parallel_calls_keep_their_arguments_apart_by_id() {
    let view = project_file(&repo_path("fixtures/agui/parallel_calls_interleaved.sse"));
    let calls: Vec<(String, Value)> = view
        .items
        .iter()
        .filter_map(|item| match &item.body {
            ItemBody::ToolCall {
                tool_call_id,
                arguments,
                ..
            } => Some((
                tool_call_id.clone(),
                serde_json::from_str(arguments).unwrap(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("call-a".to_owned(), json!({"title":"write it down"})),
            ("call-b".to_owned(), json!({"title":"read it back"}))
        ]
    );
}

#[test]
fn the_arrival_view_shows_a_state_event_nested_inside_an_open_call() {
    let view = project_file(&repo_path("fixtures/agui/parallel_calls_interleaved.sse"));
    let kinds: Vec<&str> = view.arrivals.iter().map(|a| a.kind()).collect();
    let state = kinds.iter().position(|k| *k == "state_delta").unwrap();
    let first_end = kinds.iter().position(|k| *k == "tool_call_ended").unwrap();
    let first_start = kinds
        .iter()
        .position(|k| *k == "tool_call_started")
        .unwrap();
    assert!(first_start < state && state < first_end, "{kinds:?}");
    // The grouped timeline keeps one item per call and no state item between them.
    assert_eq!(view.timeline_lines().len(), 2);
}

#[test]
fn bracketless_reasoning_text_and_tool_streams_are_closed_by_what_follows_and_the_run_end() {
    let view = project_file(&repo_path(
        "fixtures/agui/mixed_chunk_streams_never_closed.sse",
    ));
    assert!(error_lines(&view).is_empty(), "{:?}", error_lines(&view));
    assert_eq!(view.status, RunStatus::Succeeded);
    let mut saw = 0;
    for item in &view.items {
        match &item.body {
            ItemBody::Reasoning {
                text, streaming, ..
            } => {
                assert_eq!(text, "three streams, no brackets");
                assert!(!streaming);
                saw += 1;
            }
            ItemBody::Message {
                text, streaming, ..
            } => {
                assert_eq!(text, "Reading the board, then adding to it.");
                assert!(!streaming);
                saw += 1;
            }
            ItemBody::ToolCall {
                arguments, status, ..
            } => {
                assert_eq!(arguments, r#"{"title":"unbracketed"}"#);
                assert_eq!(*status, ToolStatus::NoResult);
                saw += 1;
            }
            other => panic!("unexpected item {other:?}"),
        }
    }
    assert_eq!(saw, 3);
}

#[test]
fn an_idless_chunk_with_nothing_open_is_a_violation_and_not_applied() {
    let view = project(&[
        started(),
        json!({"type":"TEXT_MESSAGE_CHUNK","delta":"orphan"}),
        finished(),
    ]);
    assert_eq!(
        error_lines(&view),
        [
            "[error] protocol violation: TEXT_MESSAGE_CHUNK carries no messageId and no message is open"
        ]
    );
    assert!(message_texts(&view).is_empty());
}

#[test]
fn a_chunk_that_changes_the_role_of_an_open_message_is_refused() {
    let view = project(&[
        started(),
        json!({"type":"TEXT_MESSAGE_CHUNK","messageId":"m","role":"assistant","delta":"a"}),
        json!({"type":"TEXT_MESSAGE_CHUNK","messageId":"m","role":"user","delta":"b"}),
        finished(),
    ]);
    assert_eq!(message_texts(&view), ["a"]);
    assert_eq!(error_lines(&view).len(), 1);
    assert!(error_lines(&view)[0].contains("changes the role of message \"m\""));
}

#[test]
fn a_tool_chunk_that_opens_a_call_without_a_name_is_refused() {
    let view = project(&[
        started(),
        json!({"type":"TOOL_CALL_CHUNK","toolCallId":"c","delta":"{}"}),
        finished(),
    ]);
    assert_eq!(
        error_lines(&view),
        [
            "[error] protocol violation: TOOL_CALL_CHUNK opens tool call \"c\" without a toolCallName"
        ]
    );
}

#[test]
fn content_for_a_message_never_opened_is_diagnosed_and_not_applied() {
    let view = project_file(&repo_path("fixtures/agui/unbracketed_content.sse"));
    assert_eq!(
        error_lines(&view),
        [
            "[error] protocol violation: TEXT_MESSAGE_CONTENT for message \"ghost\", which was never opened"
        ]
    );
    assert!(message_texts(&view).is_empty());
    assert_eq!(view.status, RunStatus::Succeeded, "the run goes on");
}

#[test]
fn with_verification_off_the_same_content_is_applied_without_a_diagnosis() {
    let bytes = std::fs::read(repo_path("fixtures/agui/unbracketed_content.sse")).unwrap();
    let config = AgUiConfig {
        verify: false,
        ..AgUiConfig::default()
    };
    let view = project_bytes(&bytes, config);
    assert!(error_lines(&view).is_empty());
    assert_eq!(message_texts(&view), ["text nobody opened"]);
}

#[test]
fn a_truncated_stream_fails_the_run_keeps_the_partial_text_and_closes_the_message() {
    let view = project_file(&repo_path("fixtures/agui/truncated_stream.sse"));
    assert_eq!(
        (view.status, view.failure.as_deref()),
        (
            RunStatus::Failed,
            Some("the stream ended before RUN_FINISHED or RUN_ERROR")
        )
    );
    let ItemBody::Message {
        text, streaming, ..
    } = &view.items[0].body
    else {
        panic!("{:?}", view.items[0]);
    };
    assert_eq!(text, "half a sen");
    assert!(!streaming);
    // Never a made-up RUN_FINISHED.
    assert!(!view.arrivals.iter().any(|a| a.kind() == "run_finished"));
}

#[test]
fn a_stream_that_never_starts_is_diagnosed() {
    let view = project(&[]);
    assert_eq!(
        (view.status, view.failure.as_deref()),
        (
            RunStatus::Failed,
            Some("the stream ended before RUN_STARTED")
        )
    );
}

#[test]
fn nothing_may_follow_run_finished_except_a_late_run_error() {
    let view = project(&[
        started(),
        finished(),
        json!({"type":"TEXT_MESSAGE_START","messageId":"late"}),
        json!({"type":"RUN_ERROR","message":"backend crashed after finishing"}),
    ]);
    assert_eq!(
        error_lines(&view)[0],
        "[error] protocol violation: TEXT_MESSAGE_START arrived after the run had already finished"
    );
    assert_eq!(
        (view.status, view.failure.as_deref()),
        (RunStatus::Failed, Some("backend crashed after finishing"))
    );
}

#[test]
fn events_before_run_started_are_refused_except_raw_and_custom() {
    let view = project(&[
        json!({"type":"RAW","event":{"x":1}}),
        json!({"type":"TEXT_MESSAGE_START","messageId":"early"}),
        started(),
        finished(),
    ]);
    assert_eq!(
        error_lines(&view),
        ["[error] protocol violation: TEXT_MESSAGE_START arrived before RUN_STARTED"]
    );
}

#[test]
fn run_finished_while_a_message_is_open_is_refused_and_the_run_then_fails() {
    let view = project(&[
        started(),
        json!({"type":"TEXT_MESSAGE_START","messageId":"open"}),
        finished(),
    ]);
    assert_eq!(
        error_lines(&view)[0],
        "[error] protocol violation: RUN_FINISHED arrived while message \"open\" was still open"
    );
    assert_eq!(view.status, RunStatus::Failed);
}

#[test]
fn a_result_for_a_call_that_has_not_ended_is_refused() {
    let view = project(&[
        started(),
        json!({"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"t"}),
        json!({"type":"TOOL_CALL_RESULT","messageId":"r","toolCallId":"c","content":"early"}),
        json!({"type":"TOOL_CALL_END","toolCallId":"c"}),
        finished(),
    ]);
    assert_eq!(
        error_lines(&view),
        [
            "[error] protocol violation: TOOL_CALL_RESULT for tool call \"c\", which has not ended yet"
        ]
    );
}

#[test]
fn an_orphan_tool_result_is_refused() {
    let view = project_file(&repo_path("fixtures/agui/orphan_tool_result.sse"));
    assert_eq!(
        error_lines(&view),
        [
            "[error] protocol violation: TOOL_CALL_RESULT for tool call \"never-called\", which was never opened"
        ]
    );
}

#[test]
fn a_resume_run_may_deliver_the_result_of_a_call_from_an_earlier_run() {
    let view = project_file(&repo_path(
        "fixtures/peers/agui/pydantic-ai-approval-resume.sse",
    ));
    assert!(error_lines(&view).is_empty());
    let ItemBody::ToolCall { name, result, .. } = &view.items[0].body else {
        panic!("{:?}", view.items[0]);
    };
    assert_eq!(name, "delete_file");
    assert_eq!(result.as_ref().unwrap().content, "deleted /tmp/demo.txt");
}

#[test]
fn steps_must_be_started_before_they_finish() {
    let view = project(&[
        started(),
        json!({"type":"STEP_FINISHED","stepName":"ghost-step"}),
        finished(),
    ]);
    assert_eq!(
        error_lines(&view),
        ["[error] protocol violation: STEP_FINISHED for step \"ghost-step\", which never started"]
    );
}

#[test]
fn an_interrupt_outcome_without_interrupts_is_refused() {
    let view = project(&[
        started(),
        json!({"type":"RUN_FINISHED","outcome":{"type":"interrupt","interrupts":[]}}),
    ]);
    assert_eq!(
        error_lines(&view)[0],
        "[error] protocol violation: RUN_FINISHED carries an interrupt outcome with no interrupts"
    );
}

#[test]
fn two_interrupts_become_two_pending_asks_and_the_run_pauses() {
    let view = project_file(&repo_path("fixtures/agui/pause_on_two_decisions.sse"));
    assert_eq!(view.status, RunStatus::Interrupted);
    let pending: Vec<_> = view.pending_asks().collect();
    assert_eq!(pending.len(), 2);
    assert_eq!(pending[0].id, "approve-budget");
    assert_eq!(pending[0].kind, AskKind::Approval);
    assert_eq!(pending[0].component, Component::ApprovalCard);
    assert_eq!(pending[0].actions, ["once", "session", "always", "deny"]);
    assert_eq!(pending[1].id, "confirm-date");
    assert!(matches!(pending[1].origin, AskOrigin::AgUiInterrupt { .. }));
}

#[test]
fn a_run_that_did_work_can_still_pause_and_keeps_its_calls_results_and_state() {
    let view = project_file(&repo_path("fixtures/agui/work_then_pause.sse"));
    assert_eq!(view.status, RunStatus::Interrupted);
    let done = view
        .items
        .iter()
        .filter(|item| {
            matches!(
                item.body,
                ItemBody::ToolCall {
                    status: ToolStatus::Done,
                    ..
                }
            )
        })
        .count();
    assert_eq!(done, 2);
    assert_eq!(view.state["tasks"].as_array().unwrap().len(), 2);
    assert_eq!(view.pending_asks().count(), 1);
}

#[test]
fn a_frontend_tool_call_left_unanswered_becomes_a_pending_ask() {
    let view = project_file(&repo_path(
        "fixtures/agui/frontend_tool_left_for_the_client.sse",
    ));
    let ask = view.pending_asks().next().expect("an ask");
    assert_eq!(ask.kind, AskKind::FrontendTool);
    assert_eq!(ask.id, "call-bg");
    assert_eq!(ask.tool_call_id.as_deref(), Some("call-bg"));
    assert_eq!(view.status, RunStatus::Interrupted);
    // The call waits on the client, so it is not written off as "no result".
    assert!(matches!(
        view.items[0].body,
        ItemBody::ToolCall {
            status: ToolStatus::Running,
            ..
        }
    ));
}

#[test]
fn only_the_offered_calls_still_without_a_result_become_asks_in_the_order_they_started() {
    let frames = [
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
        r#"{"type":"TOOL_CALL_START","toolCallId":"first","toolCallName":"change_background"}"#,
        r#"{"type":"TOOL_CALL_END","toolCallId":"first"}"#,
        r#"{"type":"TOOL_CALL_START","toolCallId":"answered","toolCallName":"change_background"}"#,
        r#"{"type":"TOOL_CALL_END","toolCallId":"answered"}"#,
        r#"{"type":"TOOL_CALL_RESULT","messageId":"m1","toolCallId":"answered","content":"done"}"#,
        // A second result for a finished call is allowed and changes nothing.
        r#"{"type":"TOOL_CALL_RESULT","messageId":"m2","toolCallId":"answered","content":"again"}"#,
        r#"{"type":"TOOL_CALL_START","toolCallId":"last","toolCallName":"change_background"}"#,
        r#"{"type":"TOOL_CALL_END","toolCallId":"last"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
    ];
    let body: String = frames
        .iter()
        .map(|frame| format!("data: {frame}\n\n"))
        .collect();
    let config = AgUiConfig {
        offered_tools: vec!["change_background".into()],
        ..AgUiConfig::default()
    };
    let view = project_bytes(body.as_bytes(), config);
    assert!(error_lines(&view).is_empty(), "{:?}", error_lines(&view));
    let asked: Vec<&str> = view.pending_asks().map(|ask| ask.id.as_str()).collect();
    assert_eq!(asked, ["first", "last"]);
    assert_eq!(view.status, RunStatus::Interrupted);
}

#[test]
fn a_call_to_a_tool_that_was_not_offered_is_not_an_ask() {
    let bytes = std::fs::read(repo_path(
        "fixtures/agui/frontend_tool_left_for_the_client.sse",
    ))
    .unwrap();
    let view = project_bytes(&bytes, AgUiConfig::default());
    assert_eq!(view.pending_asks().count(), 0);
    assert_eq!(view.status, RunStatus::Succeeded);
}

#[test]
fn state_deltas_apply_in_place_and_a_failing_patch_is_reported_and_rolled_back() {
    let view = project_file(&repo_path("fixtures/agui/every_event_type.sse"));
    assert_eq!(view.state, json!({"count": 2, "items": ["a", "b"]}));
    let patch_errors: Vec<_> = view
        .items
        .iter()
        .filter(|item| {
            matches!(
                item.body,
                ItemBody::Error {
                    kind: ErrorKind::Patch,
                    ..
                }
            )
        })
        .collect();
    assert_eq!(patch_errors.len(), 1);
    assert_eq!(patch_errors[0].channel, Channel::Error);
}

#[test]
fn a_malformed_state_delta_is_an_error_and_leaves_the_state_alone() {
    let view = project(&[
        started(),
        json!({"type":"STATE_SNAPSHOT","snapshot":{"a":1}}),
        json!({"type":"STATE_DELTA","delta":{"op":"add"}}),
        finished(),
    ]);
    assert_eq!(view.state, json!({"a":1}));
    assert!(error_lines(&view)[0].contains("STATE_DELTA event is malformed"));
}

#[test]
fn an_unknown_event_type_is_kept_in_order_as_readable_json() {
    let view = project_file(&repo_path("fixtures/agui/unknown_event_type.sse"));
    let ItemBody::Json { label, json } = &view.items[1].body else {
        panic!("{:?}", view.items[1]);
    };
    assert_eq!(label, "unknown event HOLOGRAM_PROJECTED");
    assert_eq!(json["hologram"]["shape"], "cube");
    assert_eq!(message_texts(&view), ["before and after"]);
}

#[test]
fn an_a2ui_surface_becomes_an_artifact() {
    let view = project_file(&repo_path("fixtures/agui/a2ui_surface.sse"));
    let surface = view
        .artifact("a2ui-surface-call-surface")
        .expect("surface artifact");
    assert_eq!(surface.kind, "a2ui_surface");
    assert_eq!(surface.data["a2ui_operations"].as_array().unwrap().len(), 3);
    let activity = view
        .artifact("a2ui-surface-activity")
        .expect("activity artifact");
    assert_eq!(activity.data["status"], "building");
}

#[test]
fn an_activity_snapshot_that_must_not_replace_is_ignored_when_the_artifact_exists() {
    let view = project(&[
        started(),
        json!({"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"progress","content":{"v":1}}),
        json!({"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"progress","content":{"v":2},"replace":false}),
        finished(),
    ]);
    assert_eq!(view.artifact("a").unwrap().data, json!({"v":1}));
}

#[test]
fn deprecated_thinking_events_become_reasoning() {
    let view = project_file(&repo_path("fixtures/agui/deprecated_thinking_events.sse"));
    assert!(error_lines(&view).is_empty());
    let ItemBody::Reasoning { text, .. } = &view.items[0].body else {
        panic!("{:?}", view.items[0]);
    };
    assert_eq!(text, "weighing the options");
    assert_eq!(view.items[0].channel, Channel::Analysis);
}

#[test]
fn reasoning_is_hidden_unless_the_policy_permits_it() {
    let view = project_file(&repo_path("fixtures/agui/deprecated_thinking_events.sse"));
    assert!(!view.reasoning_visible());
}

#[test]
fn the_final_answer_is_the_last_assistant_text_after_the_last_tool_call() {
    let view = project_file(&repo_path("fixtures/peers/agui/pydantic-ai-two_tools.sse"));
    let final_answer = view.final_answer.as_ref().unwrap();
    assert!(final_answer.text.starts_with("Tool results received"));
    let calls_only = project_file(&repo_path("fixtures/agui/arguments_split_mid_escape.sse"));
    assert!(calls_only.final_answer.is_none());
}

#[test]
fn every_normalized_event_names_the_upstream_event_it_came_from() {
    let stream = repo_path("fixtures/agui/every_event_type.sse");
    let drafts = drafts_of_file(&stream);
    let upstream_count = std::fs::read_to_string(&stream)
        .unwrap()
        .matches("data: ")
        .count() as u64;
    for draft in &drafts {
        let index = draft
            .upstream
            .unwrap_or_else(|| panic!("{draft:?} has no upstream reference"));
        assert!(index < upstream_count);
    }
    let subagent_text = drafts
        .iter()
        .find(|d| matches!(&d.body, EventBody::TextDelta { delta, .. } if delta == "found it"))
        .unwrap();
    assert_eq!(subagent_text.upstream, Some(16));
}

#[test]
fn a_langgraph_custom_interrupt_becomes_an_ask() {
    let view = project_file(&repo_path("fixtures/peers/agui/langgraph-approval.sse"));
    assert!(error_lines(&view).is_empty());
    assert_eq!(view.status, RunStatus::Interrupted);
    let ask = view.pending_asks().next().unwrap();
    assert_eq!(ask.id, "call_delete_1");
    assert_eq!(ask.origin, AskOrigin::AgUiCustomInterrupt);
    assert_eq!(ask.kind, AskKind::Approval);
}

#[test]
fn an_interrupts_action_is_kept_as_the_tool_and_its_arguments_not_a_line_of_json() {
    let view = project_file(&repo_path("fixtures/peers/agui/langgraph-approval.sse"));
    let ask = view.pending_asks().next().unwrap();
    let tool = ask.tool.as_ref().expect("the action is the ask's tool");
    assert_eq!(tool.name, "delete_file");
    assert_eq!(tool.arguments["path"], "/tmp/demo.txt");
    assert_eq!(ask.command, None);
}
