//! OpenAI-compatible streams (Responses and Chat Completions) onto the channel contract:
//! text, reasoning, parallel calls with streamed arguments, refusals, usage, approval
//! requests, errors mid-stream and streams that stop.

#![allow(clippy::unwrap_used)]

mod common;

use app::projection::{ItemBody, RunStatus};
use app::protocol::ask::{AskKind, AskOrigin};
use app::protocol::openai::{OpenAiApi, OpenAiNormalizer, mcp_approval_response};
use app::protocol::recorded::{RecordedFormat, detect_format};
use common::*;

fn fixture(name: &str) -> app::projection::RunView {
    project_file(&repo_path(&format!("fixtures/openai/{name}")))
}

fn notices(view: &app::projection::RunView) -> Vec<String> {
    view.items
        .iter()
        .filter_map(|item| match &item.body {
            ItemBody::Notice { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

fn calls(view: &app::projection::RunView) -> Vec<(String, String, String)> {
    view.items
        .iter()
        .filter_map(|item| match &item.body {
            ItemBody::ToolCall {
                tool_call_id,
                name,
                arguments,
                ..
            } => Some((tool_call_id.clone(), name.clone(), arguments.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn recorded_bodies_are_recognised_by_api() {
    let read = |name: &str| std::fs::read(repo_path(&format!("fixtures/openai/{name}"))).unwrap();
    assert_eq!(
        detect_format(&read("chat_text.sse")),
        RecordedFormat::OpenAiChat
    );
    assert_eq!(
        detect_format(&read("responses_text_reasoning.sse")),
        RecordedFormat::OpenAiResponses
    );
    assert_eq!(
        detect_format(&std::fs::read(repo_path("fixtures/agui/a2ui_surface.sse")).unwrap()),
        RecordedFormat::AgUiSse
    );
}

#[test]
fn chat_text_streams_into_one_answer_with_its_usage() {
    let view = fixture("chat_text.sse");
    assert_eq!(view.status, RunStatus::Succeeded);
    assert_eq!(
        message_texts(&view),
        ["The board has two tasks: **draft** and **book**."]
    );
    assert_eq!(
        view.final_answer.as_ref().unwrap().text,
        "The board has two tasks: **draft** and **book**."
    );
    assert_eq!(notices(&view), ["Tokens: 120 in (64 cached), 14 out"]);
}

#[test]
fn chat_parallel_calls_keep_their_streamed_arguments_apart() {
    let view = fixture("chat_reasoning_parallel_tools.sse");
    // The model stopped to have its functions run: the run waits on one ask per call.
    assert_eq!(view.status, RunStatus::Interrupted);
    let asks: Vec<(&str, AskKind)> = view
        .pending_asks()
        .map(|ask| (ask.id.as_str(), ask.kind))
        .collect();
    assert_eq!(
        asks,
        [
            ("call_a", AskKind::FrontendTool),
            ("call_b", AskKind::FrontendTool)
        ]
    );
    assert_eq!(
        calls(&view),
        [
            (
                "call_a".into(),
                "get_weather".into(),
                "{\"city\":\"Lima\"}".into()
            ),
            (
                "call_b".into(),
                "get_weather".into(),
                "{\"city\":\"Oslo\"}".into()
            ),
        ]
    );
    let reasoning: Vec<_> = view
        .items
        .iter()
        .filter_map(|item| match &item.body {
            ItemBody::Reasoning { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(reasoning, ["Two lookups, one per city."]);
    // The model stopped to have its tools run: no answer is pinned yet.
    assert!(view.final_answer.is_none());
}

#[test]
fn an_error_mid_stream_fails_the_run_and_keeps_the_text() {
    let view = fixture("chat_error_mid_stream.sse");
    assert_eq!(view.status, RunStatus::Failed);
    assert_eq!(message_texts(&view), ["Starting the summary"]);
    assert!(
        error_lines(&view)
            .join(" ")
            .contains("The server had an error while processing your request.")
    );
}

#[test]
fn a_stream_that_stops_fails_as_truncated_and_keeps_the_partial_text() {
    for name in ["chat_truncated.sse", "responses_truncated.sse"] {
        let view = fixture(name);
        assert_eq!(view.status, RunStatus::Failed, "{name}");
        assert_eq!(message_texts(&view), ["Half a sen"], "{name}");
        assert!(
            error_lines(&view)
                .join(" ")
                .contains("the stream stopped before the response was complete"),
            "{name}"
        );
    }
}

#[test]
fn a_refusal_and_a_token_limit_are_said_as_such() {
    let view = fixture("chat_refusal_length.sse");
    assert_eq!(message_texts(&view), ["I can't help with that."]);
    assert_eq!(
        notices(&view),
        [
            "The reply was cut at the model's token limit.",
            "The model refused this request."
        ]
    );
}

#[test]
fn responses_reasoning_summary_and_text_arrive_as_their_own_items() {
    let view = fixture("responses_text_reasoning.sse");
    assert_eq!(view.status, RunStatus::Succeeded);
    assert_eq!(message_texts(&view), ["Two tasks are open. 👩\u{200d}💻"]);
    assert_eq!(notices(&view), ["Tokens: 80 in, 40 out (24 reasoning)"]);
    assert!(view.items.iter().any(
        |item| matches!(&item.body, ItemBody::Reasoning { text, .. } if text == "Counting the open tasks.")
    ));
}

#[test]
fn responses_parallel_function_calls_are_named_by_their_call_ids() {
    let view = fixture("responses_parallel_calls.sse");
    assert_eq!(view.status, RunStatus::Interrupted);
    let ask = view.pending_asks().next().unwrap();
    assert_eq!(
        ask.origin,
        AskOrigin::AgUiFrontendTool {
            tool_name: "get_weather".into(),
            arguments: "{\"city\":\"Lima\"}".into()
        }
    );
    assert_eq!(
        calls(&view),
        [
            (
                "call_lima".into(),
                "get_weather".into(),
                "{\"city\":\"Lima\"}".into()
            ),
            (
                "call_oslo".into(),
                "get_weather".into(),
                "{\"city\":\"Oslo\"}".into()
            ),
        ]
    );
}

#[test]
fn an_mcp_approval_request_pauses_the_run_on_an_approval_ask() {
    let view = fixture("responses_mcp_approval.sse");
    assert_eq!(view.status, RunStatus::Interrupted);
    let ask = view.pending_asks().next().unwrap();
    assert_eq!(ask.id, "mcpr_1");
    assert_eq!(ask.kind, AskKind::Approval);
    assert_eq!(
        ask.title,
        "Ask question “What transport does it use?” on deepwiki?"
    );
    assert_eq!(
        ask.tool.as_ref().unwrap().arguments["repoName"],
        "openai/codex"
    );
    assert_eq!(ask.actions, ["once", "deny"]);
    assert_eq!(
        ask.origin,
        AskOrigin::OpenAiApproval {
            approval_request_id: "mcpr_1".into(),
            ksadk: None,
        }
    );
    assert_eq!(
        mcp_approval_response("mcpr_1", true),
        serde_json::json!({"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": true})
    );
}

#[test]
fn a_failed_response_says_why() {
    let view = fixture("responses_failed.sse");
    assert_eq!(view.status, RunStatus::Failed);
    assert_eq!(message_texts(&view), ["Looking it up"]);
    assert!(
        error_lines(&view)
            .join(" ")
            .contains("The model failed to generate a response.")
    );
}

#[test]
fn malformed_events_are_reported_and_the_stream_goes_on() {
    let mut out = Vec::new();
    let mut normalizer = OpenAiNormalizer::new(OpenAiApi::Responses);
    normalizer.push_json("{not json", &mut out);
    normalizer.push_json("[1,2]", &mut out);
    normalizer.push_json(
        r#"{"type":"response.function_call_arguments.delta","item_id":"ghost","delta":"{}"}"#,
        &mut out,
    );
    normalizer.push_json(r#"{"type":"response.completed","response":{}}"#, &mut out);
    normalizer.finish(&mut out);
    let kinds: Vec<_> = out.iter().map(|draft| draft.body.kind()).collect();
    assert_eq!(
        kinds,
        [
            "malformed",
            "malformed",
            "run_started",
            "protocol_violation",
            "run_finished"
        ]
    );
}

/// Captured from a LiteLLM 1.108.7 proxy on loopback whose mock model cannot stream the
/// Responses API: a typeless error frame, then Chat's `[DONE]`.
#[test]
fn a_proxy_s_typeless_error_frame_fails_the_run_with_its_words() {
    let body = std::fs::read(repo_path(
        "fixtures/openai/captured/litellm_responses_stream_error.body",
    ))
    .unwrap();
    let mut normalizer = OpenAiNormalizer::new(OpenAiApi::Responses);
    let mut drafts = Vec::new();
    app::protocol::sse::normalize_body(&mut normalizer, &body, &mut drafts);
    let view = project_drafts(drafts);
    assert_eq!(view.status, RunStatus::Failed);
    assert_eq!(
        view.failure.as_deref(),
        Some("the endpoint reported an error: Error processing stream start")
    );
}

mod requests {
    use app::protocol::openai::request::{
        ApprovalAnswer, Conversation, NOT_RUN, chat_body, responses_body,
    };
    use serde_json::{Value, json};

    fn call(id: &str, name: &str, arguments: &str) -> Value {
        json!({"id": format!("m-{id}"), "role": "assistant", "content": "",
               "toolCalls": [{"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}]})
    }

    fn result(id: &str, content: &str) -> Value {
        json!({"id": format!("r-{id}"), "role": "tool", "toolCallId": id, "content": content})
    }

    /// The answer to an MCP approval request of server "wiki".
    fn wiki_approval(approve: bool) -> ApprovalAnswer {
        ApprovalAnswer {
            request_id: "mcpr_1".into(),
            server_label: Some("wiki".into()),
            name: "read".into(),
            arguments: "{}".into(),
            approve,
        }
    }

    /// Two parallel calls with their results after both (as the console's history has
    /// them), a second round of calls, one call never answered, and a stray result.
    fn conversation() -> Conversation {
        Conversation {
            messages: vec![
                json!({"id": "u1", "role": "user", "content": "weather?"}),
                json!({"id": "a1", "role": "assistant", "content": "Looking."}),
                call("c1", "get_weather", "{\"city\":\"Lima\"}"),
                call("c2", "get_weather", ""),
                result("c2", "rain"),
                result("c1", "sun"),
                call("c3", "notes_search", "{}"),
                result("nobody", "stray"),
                json!({"id": "u2", "role": "user", "content": "and now?"}),
            ],
            instructions: Some("Pinned: be brief.".into()),
            tools: vec![
                json!({"name": "get_weather", "description": "Weather.", "parameters": {"type": "object"}}),
                json!({"type": "mcp", "server_label": "wiki", "server_url": "https://wiki.example/mcp"}),
            ],
            approvals: Vec::new(),
            ..Conversation::default()
        }
    }

    #[test]
    fn chat_messages_pair_every_call_with_its_result_in_order() {
        let body = chat_body("m", &conversation());
        let messages = body["messages"].as_array().unwrap();
        let roles: Vec<&str> = messages
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(
            roles,
            [
                "system",
                "user",
                "assistant",
                "tool",
                "tool",
                "assistant",
                "tool",
                "user"
            ]
        );
        assert_eq!(messages[2]["content"], "Looking.");
        let ids: Vec<&str> = messages[2]["tool_calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["c1", "c2"]);
        assert_eq!(messages[2]["tool_calls"][1]["function"]["arguments"], "{}");
        assert_eq!(
            (
                messages[3]["tool_call_id"].as_str(),
                messages[3]["content"].as_str()
            ),
            (Some("c1"), Some("sun"))
        );
        assert_eq!(
            (
                messages[4]["tool_call_id"].as_str(),
                messages[4]["content"].as_str()
            ),
            (Some("c2"), Some("rain"))
        );
        assert_eq!(messages[5]["content"], Value::Null);
        assert_eq!(messages[6]["content"], NOT_RUN);
        assert!(!body.to_string().contains("stray"));
        // Chat has only function tools.
        assert_eq!(body["tools"].as_array().unwrap().len(), 1);
        assert_eq!(body["tools"][0]["function"]["name"], "get_weather");
        assert_eq!(body["stream"], true);
    }

    #[test]
    fn responses_input_carries_calls_outputs_and_approval_answers() {
        let mut conversation = conversation();
        conversation.approvals.push(wiki_approval(false));
        let body = responses_body("m", &conversation);
        assert_eq!(body["instructions"], "Pinned: be brief.");
        let kinds: Vec<String> = body["input"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| {
                item["type"]
                    .as_str()
                    .map_or_else(|| item["role"].as_str().unwrap().to_owned(), str::to_owned)
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "user",
                "assistant",
                "function_call",
                "function_call_output",
                "function_call",
                "function_call_output",
                "function_call",
                "function_call_output",
                "user",
                "mcp_approval_request",
                "mcp_approval_response",
            ]
        );
        assert_eq!(body["input"][10]["approve"], false);
        assert_eq!(body["input"][9]["server_label"], "wiki");
        let tools = body["tools"].as_array().unwrap();
        assert_eq!(tools[0]["name"], "get_weather");
        assert_eq!(tools[1]["type"], "mcp");
    }

    #[test]
    fn a_message_sent_in_place_of_answers_follows_them() {
        let mut conversation = conversation();
        conversation.approvals.push(ApprovalAnswer {
            server_label: None,
            ..wiki_approval(false)
        });
        conversation.follow_up = Some("do it another way".into());
        let responses = responses_body("m", &conversation);
        let input = responses["input"].as_array().unwrap();
        assert_eq!(input[input.len() - 2]["type"], "mcp_approval_response");
        assert_eq!(
            input.last().unwrap(),
            &json!({"role": "user", "content": "do it another way"})
        );
        conversation.approvals.clear();
        let chat = chat_body("m", &conversation);
        assert_eq!(
            chat["messages"].as_array().unwrap().last().unwrap(),
            &json!({"role": "user", "content": "do it another way"})
        );
    }

    #[test]
    fn a_kept_response_is_continued_with_only_the_answers_and_the_message() {
        let mut conversation = conversation();
        conversation.approvals.push(wiki_approval(true));
        conversation.follow_up = Some("then summarize".into());
        conversation.previous_response_id = Some("resp_7".into());
        let body = responses_body("m", &conversation);
        assert_eq!(body["previous_response_id"], "resp_7");
        assert_eq!(
            body["input"],
            json!([
                {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": true},
                {"role": "user", "content": "then summarize"}
            ])
        );
        assert_eq!(body["instructions"], "Pinned: be brief.");
        assert_eq!(body["tools"].as_array().unwrap().len(), 2);
        // Sent whole, it is the conversation again, naming no response.
        let whole = responses_body("m", &conversation.whole());
        assert!(whole.get("previous_response_id").is_none());
        assert_eq!(whole["input"].as_array().unwrap().len(), 12);
    }

    #[test]
    fn the_recorded_conversation_reads_back_as_it_was() {
        let conversation = conversation();
        let recorded = serde_json::to_value(&conversation).unwrap();
        let back: Conversation = serde_json::from_value(recorded).unwrap();
        assert_eq!(back.messages, conversation.messages);
        let empty: Conversation = serde_json::from_value(json!({"messages": []})).unwrap();
        assert!(empty.tools.is_empty() && empty.approvals.is_empty());
    }
}
