//! The demo model's wire: reading what a request ends with, and streaming a script as
//! Responses events or Chat Completions chunks, paced like the other demo agents.

use axum::body::Bytes;
use axum::response::Response;
use serde_json::{Value, json};
use tokio::sync::mpsc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    Responses,
    Chat,
}

impl Api {
    pub fn name(self) -> &'static str {
        match self {
            Api::Responses => "responses",
            Api::Chat => "chat",
        }
    }
}

/// One thing the scripted model does.
pub enum Step {
    Reasoning(String),
    Text(String),
    Refusal(String),
    /// A function call the console is to run.
    Call {
        name: String,
        arguments: String,
    },
    /// An MCP call the runtime wants approved first (Responses only).
    Approval {
        name: String,
        server: String,
        arguments: String,
    },
    /// An MCP call the runtime made itself, with its output.
    Hosted {
        name: String,
        server: String,
        arguments: String,
        output: String,
    },
    /// An error event mid-stream.
    Fail(String),
    /// The connection closes here, before the end.
    Cut,
    /// Nothing more is sent until the client goes away.
    Hang,
}

/// What the conversation ends with.
pub enum Last {
    User(String),
    /// (tool name, output) of the trailing tool results.
    ToolResults(Vec<(String, String)>),
    Approval {
        approve: bool,
    },
    Nothing,
}

fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

/// The name of the call `id` among `entries`.
fn call_name(entries: &[Value], id: &str) -> String {
    entries
        .iter()
        .find_map(|entry| {
            if entry.get("call_id").and_then(Value::as_str) == Some(id) {
                return entry.get("name")?.as_str().map(str::to_owned);
            }
            entry
                .get("tool_calls")?
                .as_array()?
                .iter()
                .find(|call| call.get("id").and_then(Value::as_str) == Some(id))?
                .pointer("/function/name")?
                .as_str()
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "a tool".into())
}

pub fn last_entry(api: Api, request: &Value) -> Last {
    let key = match api {
        Api::Responses => "input",
        Api::Chat => "messages",
    };
    let entries: Vec<Value> = match request.get(key) {
        Some(Value::Array(entries)) => entries.clone(),
        Some(Value::String(text)) => vec![json!({"role": "user", "content": text})],
        _ => Vec::new(),
    };
    let Some(last) = entries.last() else {
        return Last::Nothing;
    };
    let kind = last
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("message");
    if kind == "mcp_approval_response" {
        return Last::Approval {
            approve: last.get("approve") == Some(&json!(true)),
        };
    }
    let is_result = |entry: &Value| {
        entry.get("type").and_then(Value::as_str) == Some("function_call_output")
            || entry.get("role").and_then(Value::as_str) == Some("tool")
    };
    if is_result(last) {
        // Every result since the operator last spoke: one round of calls may come back
        // as several turns.
        let results = entries
            .iter()
            .rev()
            .take_while(|entry| entry.get("role").and_then(Value::as_str) != Some("user"))
            .filter(|entry| is_result(entry))
            .map(|entry| {
                let id = entry
                    .get("call_id")
                    .or_else(|| entry.get("tool_call_id"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let output = entry
                    .get("output")
                    .map(|output| text_of(Some(output)))
                    .unwrap_or_else(|| text_of(entry.get("content")));
                (call_name(&entries, id), output)
            })
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        return Last::ToolResults(results);
    }
    let user = entries
        .iter()
        .rev()
        .find(|entry| entry.get("role").and_then(Value::as_str) == Some("user"));
    match user {
        Some(entry) => Last::User(text_of(entry.get("content"))),
        None => Last::Nothing,
    }
}

/// At most 160 characters of `text`.
pub fn short(text: &str) -> String {
    let cut: String = text.chars().take(160).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// Splits text into the pieces a model streams (words with their spaces).
fn pieces(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for ch in text.chars() {
        current.push(ch);
        if ch == ' ' {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// A stream's frames, and whether it ends by hanging.
struct Frames {
    frames: Vec<Value>,
    hang: bool,
    /// The last frame is not sent as JSON: Chat's `[DONE]`.
    done: bool,
}

/// A Responses stream of `steps` as response `response_id`, which the endpoint keeps
/// (`store`), so a later request may continue it.
fn responses_frames(steps: Vec<Step>, response_id: &str) -> Frames {
    let mut frames = vec![
        json!({"type": "response.created", "response": {"id": response_id, "status": "in_progress", "store": true}}),
    ];
    let mut item = 0;
    let mut approvals = false;
    let mut id = |prefix: &str| {
        item += 1;
        format!("{prefix}_{item}")
    };
    for step in steps {
        match step {
            Step::Reasoning(text) => {
                let id = id("rs");
                frames.push(json!({"type": "response.output_item.added", "item": {"type": "reasoning", "id": id}}));
                for piece in pieces(&text) {
                    frames.push(json!({"type": "response.reasoning_summary_text.delta", "item_id": id, "delta": piece}));
                }
                frames.push(json!({"type": "response.output_item.done", "item": {"type": "reasoning", "id": id}}));
            }
            Step::Text(_) | Step::Refusal(_) => {
                let (text, refusal) = match step {
                    Step::Refusal(text) => (text, true),
                    Step::Text(text) => (text, false),
                    _ => continue,
                };
                let id = id("msg");
                frames.push(json!({"type": "response.output_item.added", "item": {"type": "message", "id": id, "role": "assistant"}}));
                let kind = if refusal {
                    "response.refusal.delta"
                } else {
                    "response.output_text.delta"
                };
                for piece in pieces(&text) {
                    frames.push(json!({"type": kind, "item_id": id, "delta": piece}));
                }
                frames.push(json!({"type": "response.output_item.done", "item": {"type": "message", "id": id}}));
            }
            Step::Call { name, arguments } => {
                let id = id("fc");
                let call_id = format!("call_{id}");
                frames.push(json!({"type": "response.output_item.added", "item": {"type": "function_call", "id": id, "call_id": call_id, "name": name, "arguments": ""}}));
                for piece in pieces(&arguments) {
                    frames.push(json!({"type": "response.function_call_arguments.delta", "item_id": id, "delta": piece}));
                }
                frames.push(json!({"type": "response.output_item.done", "item": {"type": "function_call", "id": id, "call_id": call_id, "name": name, "arguments": arguments}}));
            }
            Step::Approval {
                name,
                server,
                arguments,
            } => {
                approvals = true;
                let item = json!({"type": "mcp_approval_request", "id": id("mcpr"), "server_label": server, "name": name, "arguments": arguments});
                frames.push(json!({"type": "response.output_item.added", "item": item}));
                frames.push(json!({"type": "response.output_item.done", "item": item}));
            }
            Step::Hosted {
                name,
                server,
                arguments,
                output,
            } => {
                let id = id("mcp");
                frames.push(json!({"type": "response.output_item.added", "item": {"type": "mcp_call", "id": id, "server_label": server, "name": name, "arguments": arguments}}));
                frames.push(json!({"type": "response.output_item.done", "item": {"type": "mcp_call", "id": id, "server_label": server, "name": name, "arguments": arguments, "output": output}}));
            }
            Step::Fail(message) => {
                frames.push(json!({"type": "error", "code": "server_error", "message": message}));
                return Frames {
                    frames,
                    hang: false,
                    done: false,
                };
            }
            Step::Cut => {
                return Frames {
                    frames,
                    hang: false,
                    done: false,
                };
            }
            Step::Hang => {
                return Frames {
                    frames,
                    hang: true,
                    done: false,
                };
            }
        }
    }
    let usage = json!({"input_tokens": 42, "output_tokens": 17, "output_tokens_details": {"reasoning_tokens": 5}});
    frames.push(if approvals {
        json!({"type": "response.incomplete", "response": {"id": response_id, "status": "incomplete", "incomplete_details": {"reason": "mcp_approval"}, "usage": usage}})
    } else {
        json!({"type": "response.completed", "response": {"id": response_id, "status": "completed", "usage": usage}})
    });
    Frames {
        frames,
        hang: false,
        done: false,
    }
}

fn chat_frames(steps: Vec<Step>) -> Frames {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-demo", "object": "chat.completion.chunk", "model": "demo-model",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut frames = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    let mut calls = 0;
    for step in steps {
        match step {
            Step::Reasoning(text) => {
                for piece in pieces(&text) {
                    frames.push(chunk(json!({"reasoning_content": piece}), Value::Null));
                }
            }
            Step::Text(text) => {
                for piece in pieces(&text) {
                    frames.push(chunk(json!({"content": piece}), Value::Null));
                }
            }
            Step::Refusal(text) => frames.push(chunk(json!({"refusal": text}), Value::Null)),
            Step::Call { name, arguments } => {
                let index = calls;
                calls += 1;
                frames.push(chunk(json!({"tool_calls": [{"index": index, "id": format!("call_demo_{index}"), "type": "function", "function": {"name": name, "arguments": ""}}]}), Value::Null));
                for piece in pieces(&arguments) {
                    frames.push(chunk(
                        json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
                        Value::Null,
                    ));
                }
            }
            Step::Approval { .. } | Step::Hosted { .. } => {
                let text =
                    "Chat Completions carries no MCP approvals; ask me over the Responses API.";
                frames.push(chunk(json!({"content": text}), Value::Null));
            }
            Step::Fail(message) => {
                frames.push(json!({"error": {"message": message, "code": "server_error"}}));
                return Frames {
                    frames,
                    hang: false,
                    done: false,
                };
            }
            Step::Cut => {
                return Frames {
                    frames,
                    hang: false,
                    done: false,
                };
            }
            Step::Hang => {
                return Frames {
                    frames,
                    hang: true,
                    done: false,
                };
            }
        }
    }
    let finish = if calls > 0 { "tool_calls" } else { "stop" };
    frames.push(chunk(json!({}), json!(finish)));
    frames.push(json!({"id": "chatcmpl-demo", "object": "chat.completion.chunk", "choices": [],
                       "usage": {"prompt_tokens": 42, "completion_tokens": 17, "total_tokens": 59}}));
    Frames {
        frames,
        hang: false,
        done: true,
    }
}

/// Streams the script as Server-Sent Events with the demo's pacing, holding `slot` until
/// it ends.
pub fn stream(
    api: Api,
    steps: Vec<Step>,
    response_id: &str,
    slot: tokio::sync::OwnedSemaphorePermit,
) -> Response {
    let Frames { frames, hang, done } = match api {
        Api::Responses => responses_frames(steps, response_id),
        Api::Chat => chat_frames(steps),
    };
    let delay = super::super::default_delay();
    let (tx, rx) = mpsc::channel::<Bytes>(16);
    tokio::spawn(async move {
        let _slot = slot;
        for (sequence, mut frame) in frames.into_iter().enumerate() {
            if api == Api::Responses {
                frame["sequence_number"] = json!(sequence);
            }
            tokio::time::sleep(delay).await;
            if tx
                .send(Bytes::from(format!("data: {frame}\n\n")))
                .await
                .is_err()
            {
                return;
            }
        }
        if done
            && tx
                .send(Bytes::from_static(b"data: [DONE]\n\n"))
                .await
                .is_err()
        {
            return;
        }
        if hang {
            tx.closed().await;
        }
    });
    super::super::sse_response(rx)
}
