//! The conversation a thread has established, as AG-UI messages for the next run's
//! RunAgentInput: user text, assistant text, assistant tool calls, tool results, and the
//! console's own answers to frontend tool calls.

use serde_json::{Value, json};

use crate::projection::{ItemBody, RunView};
use crate::protocol::ask::{AskKind, AskState};
use crate::protocol::channel::Role;

/// The id and text of the user message a run starts with, if it starts with one (a
/// follow-up run carrying answers does not).
pub fn user_message(view: &RunView) -> Option<(&str, &str)> {
    view.items.iter().find_map(|item| match &item.body {
        ItemBody::Message {
            message_id,
            role: Role::User,
            text,
            ..
        } => Some((message_id.as_str(), text.as_str())),
        _ => None,
    })
}

/// What the agent said in a run, its messages joined (for finding the thread by it).
pub fn assistant_text(view: &RunView) -> String {
    view.items
        .iter()
        .filter_map(|item| match &item.body {
            ItemBody::Message {
                role: Role::Assistant,
                text,
                ..
            } if !text.trim().is_empty() => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The id of the user message a run starts with, if it starts with one.
pub fn user_message_id(view: &RunView) -> Option<&str> {
    user_message(view).map(|(id, _)| id)
}

/// Which runs a retry replaced: a turn (a run with a user message, and the follow-ups
/// after it) whose message is sent again later, or is `next` (the message about to be
/// sent), is left out of the conversation: the agent hears the message once, and not
/// the reply it is asked to redo.
pub fn retried_runs(views: &[&RunView], next: Option<&str>) -> Vec<bool> {
    let turn_ids: Vec<Option<&str>> = {
        let mut current = None;
        views
            .iter()
            .map(|view| {
                if let Some(id) = user_message_id(view) {
                    current = Some(id);
                }
                current
            })
            .collect()
    };
    turn_ids
        .iter()
        .enumerate()
        .map(|(index, turn)| {
            turn.is_some_and(|id| {
                next == Some(id)
                    || views[index + 1..]
                        .iter()
                        .any(|later| user_message_id(later) == Some(id))
            })
        })
        .collect()
}

/// Messages of the runs so far, oldest first, without the turns a retry replaced; `next`
/// is the id of the user message about to be sent, when it is a retry's.
pub fn messages_from_views<'a>(
    views: impl IntoIterator<Item = &'a RunView>,
    next: Option<&str>,
) -> Vec<Value> {
    let views: Vec<&RunView> = views.into_iter().collect();
    let retried = retried_runs(&views, next);
    let mut messages = Vec::new();
    for (view, _) in views.iter().zip(retried).filter(|(_, retried)| !retried) {
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
                // As AG-UI's A2UI middleware records one: a call of `log_a2ui_event`.
                ItemBody::SurfaceAction { action } => {
                    let call_id = format!("a2ui-action-{}-{}", action.surface_id, action.timestamp);
                    let arguments = json!({ "userAction": action }).to_string();
                    messages.push(json!({
                        "id": format!("call-message-{call_id}"),
                        "role": "assistant",
                        "content": "",
                        "toolCalls": [{
                            "id": call_id,
                            "type": "function",
                            "function": { "name": "log_a2ui_event", "arguments": arguments },
                        }],
                    }));
                    messages.push(json!({
                        "id": format!("result-{call_id}"),
                        "role": "tool",
                        "toolCallId": call_id,
                        "content": "the operator's action was sent to the agent",
                    }));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::projection::{Item, ViewPolicy};
    use crate::protocol::channel::Channel;

    fn run(messages: &[(Role, &str, &str)]) -> RunView {
        let mut view = RunView::new(ViewPolicy::default());
        for (n, (role, id, text)) in messages.iter().enumerate() {
            view.items.push(Item {
                sequence: n as u64 + 1,
                updated: n as u64 + 1,
                ts: 0,
                channel: if *role == Role::User {
                    Channel::User
                } else {
                    Channel::Final
                },
                body: ItemBody::Message {
                    message_id: (*id).into(),
                    role: *role,
                    name: None,
                    text: (*text).into(),
                    streaming: false,
                    is_final: false,
                },
            });
        }
        view
    }

    fn contents(messages: &[Value]) -> Vec<&str> {
        messages
            .iter()
            .filter_map(|message| message["content"].as_str())
            .collect()
    }

    #[test]
    fn a_retried_turn_is_heard_once_and_its_old_reply_not_at_all() {
        let first = run(&[(Role::User, "u1", "hello"), (Role::Assistant, "a1", "hi")]);
        let failed = run(&[
            (Role::User, "u2", "book it"),
            (Role::Assistant, "a2", "half a"),
        ]);
        let paused_follow_up = run(&[(Role::Assistant, "a2b", "still half")]);
        let retry = run(&[
            (Role::User, "u2", "book it"),
            (Role::Assistant, "a3", "booked"),
        ]);
        let views = [&first, &failed, &paused_follow_up];
        // About to retry u2: the failed turn and its follow-up are left out.
        assert_eq!(
            contents(&messages_from_views(views, Some("u2"))),
            ["hello", "hi"]
        );
        // Once the retry ran, the conversation holds it instead.
        let views = [&first, &failed, &paused_follow_up, &retry];
        assert_eq!(
            contents(&messages_from_views(views, None)),
            ["hello", "hi", "book it", "booked"]
        );
        assert_eq!(
            retried_runs(&[&first, &failed, &paused_follow_up, &retry], None),
            [false, true, true, false]
        );
    }
}
