//! The conversation a thread has established, as AG-UI messages for the next run's
//! RunAgentInput: user text, assistant text, assistant tool calls, tool results, and the
//! console's own answers to frontend tool calls.

use serde_json::{Value, json};

use crate::projection::{ItemBody, RunView};
use crate::protocol::ask::{AskKind, AskState};
use crate::protocol::channel::Role;

/// Messages of the runs so far, oldest first.
pub fn messages_from_views<'a>(views: impl IntoIterator<Item = &'a RunView>) -> Vec<Value> {
    let mut messages = Vec::new();
    for view in views {
        for item in &view.items {
            match &item.body {
                ItemBody::Message {
                    message_id,
                    role,
                    text,
                    ..
                } if !text.is_empty() => {
                    let role = match role {
                        Role::User => "user",
                        Role::Assistant => "assistant",
                        Role::System => "system",
                        Role::Developer => "developer",
                        Role::Tool => continue,
                    };
                    messages.push(json!({ "id": message_id, "role": role, "content": text }));
                }
                ItemBody::ToolCall {
                    tool_call_id,
                    name,
                    arguments,
                    result,
                    ..
                } => {
                    messages.push(json!({
                        "id": format!("call-message-{tool_call_id}"),
                        "role": "assistant",
                        "content": "",
                        "toolCalls": [{
                            "id": tool_call_id,
                            "type": "function",
                            "function": { "name": name, "arguments": arguments },
                        }],
                    }));
                    if let Some(result) = result {
                        let content = match &result.content {
                            Value::String(text) => text.clone(),
                            other => other.to_string(),
                        };
                        messages.push(json!({
                            "id": format!("result-{tool_call_id}"),
                            "role": "tool",
                            "toolCallId": tool_call_id,
                            "content": content,
                        }));
                    }
                }
                _ => {}
            }
        }
        // The console ran these tools itself: their results go back as tool messages.
        for ask in &view.asks {
            if ask.kind != AskKind::FrontendTool {
                continue;
            }
            let (Some(tool_call_id), AskState::Resolved { answer }) =
                (&ask.tool_call_id, &ask.state)
            else {
                continue;
            };
            let mut message = json!({
                "id": format!("result-{tool_call_id}"),
                "role": "tool",
                "toolCallId": tool_call_id,
            });
            if answer.action == "cancel" {
                message["content"] = json!("");
                message["error"] = json!("The user declined to run this tool.");
            } else {
                message["content"] = match answer.data.get("result") {
                    Some(Value::String(text)) => json!(text),
                    Some(other) => json!(other.to_string()),
                    None => json!(""),
                };
            }
            messages.push(message);
        }
    }
    messages
}

/// The agent state the latest run left, if any run published one.
pub fn latest_state<'a>(views: impl IntoIterator<Item = &'a RunView>) -> Value {
    views
        .into_iter()
        .filter(|view| view.has_state())
        .last()
        .map(|view| view.state.clone())
        .unwrap_or_else(|| json!({}))
}

/// The run a follow-up run carries on from: `{paused}.resume` names `paused`.
pub fn resumed_run(run_id: &str) -> Option<&str> {
    run_id.strip_suffix(".resume")
}

/// The calls a follow-up run brought results for that the paused run started: a resume
/// run answers the paused run's tool call with a TOOL_CALL_RESULT for the original id,
/// without repeating its start. Each is the follow-up's item of that call; its card is the
/// one in the paused run.
pub fn continued_calls<'a>(
    follow_up: &'a RunView,
    paused: &'a RunView,
) -> impl Iterator<Item = &'a crate::projection::Item> + 'a {
    follow_up.items.iter().filter(move |item| {
        matches!(
            &item.body,
            ItemBody::ToolCall { tool_call_id, result: Some(_), .. }
                if paused.tool_call(tool_call_id).is_some()
        )
    })
}
