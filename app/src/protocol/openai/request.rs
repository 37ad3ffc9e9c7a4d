//! The request bodies the console sends an OpenAI-compatible endpoint: the thread's
//! conversation (AG-UI messages, as every connector reads history) turned into Chat
//! Completions `messages` or Responses `input`, with the offered tools and, for a paused
//! Responses run, the operator's answers to its MCP approval requests — the whole
//! conversation again, or, for a runtime that keeps its responses, only the answers
//! after the paused response it names.
//!
//! Both APIs refuse a call without its result and a result without its call, so the
//! conversation is first put in their order: an assistant's text and the calls that follow
//! it become one turn, each call's result comes right after it, a call that never got a
//! result says so, and a result of no call is dropped.

use serde_json::{Value, json};

/// The operator's answer to one `mcp_approval_request`, with what the request said (the
/// endpoint keeps no state the console relies on, so the request goes back with it).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ApprovalAnswer {
    pub request_id: String,
    pub server_label: Option<String>,
    pub name: String,
    /// The call's arguments (JSON text).
    pub arguments: String,
    pub approve: bool,
}

/// What one request carries besides the model (and, as the run's recorded input, what
/// the store keeps of it: no key is ever part of it).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Conversation {
    /// AG-UI messages, oldest first (`projection::history::messages_from_views`).
    pub messages: Vec<Value>,
    /// What the console gives the model besides the conversation (pinned notes, memory).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// AG-UI tool definitions (`{name, description, parameters}`); an entry with another
    /// `type` (a Responses `mcp` tool, say) goes to Responses as it is.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub approvals: Vec<ApprovalAnswer>,
    /// A message the operator sent instead of the remaining answers: the user's turn
    /// after everything above, the approvals' answers included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow_up: Option<String>,
    /// The paused response this request continues, when the runtime keeps its
    /// responses (the Responses API's own resume form): the request then names it and
    /// carries only what comes after it — the approvals' answers and any message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_response_id: Option<String>,
    /// Answers to a KsADK runtime's interrupts (`ksadk_resume` items): sent alone, in
    /// the session that holds them, which keeps the conversation itself.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ksadk_resumes: Vec<Value>,
    /// The runtime's session this request continues (KsADK).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The user the runtime's session belongs to, when it is not the default one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
}

impl Conversation {
    /// The same conversation sent whole, for a runtime that no longer holds the
    /// response it was to continue.
    pub fn whole(&self) -> Conversation {
        Conversation {
            previous_response_id: None,
            ..self.clone()
        }
    }
}

/// What a call that never got a result reports, so the model hears it did not run.
pub const NOT_RUN: &str = "(no result: the call was not run)";

#[derive(Debug)]
enum Turn {
    Text {
        role: String,
        content: String,
    },
    Calls {
        content: String,
        /// (id, name, arguments)
        calls: Vec<(String, String, String)>,
        /// A result of one of them came: later calls are a new turn.
        answered: bool,
    },
}

fn text_of(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(text)) => text.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => other.to_string(),
    }
}

/// The conversation as turns, and each call's result by call id.
fn turns(messages: &[Value]) -> (Vec<Turn>, Vec<(String, String)>) {
    let mut turns: Vec<Turn> = Vec::new();
    let mut results: Vec<(String, String)> = Vec::new();
    for message in messages {
        let role = message
            .get("role")
            .and_then(Value::as_str)
            .unwrap_or("user");
        let content = text_of(message.get("content"));
        if role == "tool" {
            let Some(id) = message.get("toolCallId").and_then(Value::as_str) else {
                continue;
            };
            let content = match message.get("error").and_then(Value::as_str) {
                Some(error) if content.is_empty() => format!("error: {error}"),
                _ => content,
            };
            if !results.iter().any(|(known, _)| known == id) {
                results.push((id.to_owned(), content));
            }
            if let Some(Turn::Calls {
                calls, answered, ..
            }) = turns.last_mut()
                && calls.iter().any(|(call, _, _)| call == id)
            {
                *answered = true;
            }
            continue;
        }
        let calls: Vec<(String, String, String)> = message
            .get("toolCalls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|call| {
                let id = call.get("id")?.as_str()?.to_owned();
                let name = call.pointer("/function/name")?.as_str()?.to_owned();
                let arguments = call
                    .pointer("/function/arguments")
                    .and_then(Value::as_str)
                    .filter(|arguments| !arguments.trim().is_empty())
                    .unwrap_or("{}")
                    .to_owned();
                Some((id, name, arguments))
            })
            .collect();
        if role == "assistant" && !calls.is_empty() {
            match turns.last_mut() {
                Some(Turn::Calls {
                    content: earlier,
                    calls: before,
                    answered: false,
                }) => {
                    earlier.push_str(&content);
                    before.extend(calls);
                }
                Some(Turn::Text {
                    role: last_role,
                    content: earlier,
                }) if last_role == "assistant" => {
                    let content = format!("{earlier}{content}");
                    if let Some(last) = turns.last_mut() {
                        *last = Turn::Calls {
                            content,
                            calls,
                            answered: false,
                        };
                    }
                }
                _ => turns.push(Turn::Calls {
                    content,
                    calls,
                    answered: false,
                }),
            }
            continue;
        }
        if content.is_empty() {
            continue;
        }
        turns.push(Turn::Text {
            role: role.to_owned(),
            content,
        });
    }
    (turns, results)
}

fn result_of(results: &[(String, String)], id: &str) -> String {
    results
        .iter()
        .find(|(known, _)| known == id)
        .map_or_else(|| NOT_RUN.to_owned(), |(_, content)| content.clone())
}

/// Function tools (AG-UI definitions) and the entries that are not functions.
fn split_tools(tools: &[Value]) -> (Vec<&Value>, Vec<&Value>) {
    tools.iter().partition(|tool| {
        tool.get("type")
            .and_then(Value::as_str)
            .is_none_or(|kind| kind == "function")
    })
}

fn parameters(tool: &Value) -> Value {
    tool.get("parameters")
        .cloned()
        .unwrap_or_else(|| json!({"type": "object", "properties": {}}))
}

/// A streamed `POST /chat/completions` body.
pub fn chat_body(model: &str, conversation: &Conversation) -> Value {
    let mut messages = Vec::new();
    if let Some(instructions) = &conversation.instructions {
        messages.push(json!({"role": "system", "content": instructions}));
    }
    let (turns, results) = turns(&conversation.messages);
    for turn in turns {
        match turn {
            Turn::Text { role, content } => {
                messages.push(json!({"role": role, "content": content}))
            }
            Turn::Calls { content, calls, .. } => {
                let content = if content.is_empty() {
                    Value::Null
                } else {
                    Value::String(content)
                };
                messages.push(json!({
                    "role": "assistant",
                    "content": content,
                    "tool_calls": calls.iter().map(|(id, name, arguments)| json!({
                        "id": id, "type": "function",
                        "function": {"name": name, "arguments": arguments},
                    })).collect::<Vec<_>>(),
                }));
                for (id, _, _) in &calls {
                    messages.push(json!({"role": "tool", "tool_call_id": id, "content": result_of(&results, id)}));
                }
            }
        }
    }
    if let Some(text) = &conversation.follow_up {
        messages.push(json!({"role": "user", "content": text}));
    }
    let mut body = json!({
        "model": model,
        "stream": true,
        "stream_options": {"include_usage": true},
        "messages": messages,
    });
    let (functions, _) = split_tools(&conversation.tools);
    if !functions.is_empty() {
        body["tools"] = functions
            .iter()
            .map(|tool| {
                json!({"type": "function", "function": {
                    "name": tool.get("name"),
                    "description": tool.get("description").cloned().unwrap_or(json!("")),
                    "parameters": parameters(tool),
                }})
            })
            .collect();
    }
    in_session(&mut body, conversation);
    body
}

/// A streamed `POST /responses` body.
pub fn responses_body(model: &str, conversation: &Conversation) -> Value {
    if !conversation.ksadk_resumes.is_empty() {
        let mut body = json!({"model": model, "stream": true, "input": conversation.ksadk_resumes});
        in_session(&mut body, conversation);
        return body;
    }
    let mut input = Vec::new();
    if let Some(previous) = &conversation.previous_response_id {
        input.extend(
            conversation
                .approvals
                .iter()
                .map(|answer| super::mcp_approval_response(&answer.request_id, answer.approve)),
        );
        if let Some(text) = &conversation.follow_up {
            input.push(json!({"role": "user", "content": text}));
        }
        let mut body = responses_body_with(model, conversation, input);
        body["previous_response_id"] = json!(previous);
        return body;
    }
    let (turns, results) = turns(&conversation.messages);
    for turn in turns {
        match turn {
            Turn::Text { role, content } => input.push(json!({"role": role, "content": content})),
            Turn::Calls { content, calls, .. } => {
                if !content.is_empty() {
                    input.push(json!({"role": "assistant", "content": content}));
                }
                for (id, name, arguments) in &calls {
                    input.push(json!({"type": "function_call", "call_id": id, "name": name, "arguments": arguments}));
                    input.push(json!({"type": "function_call_output", "call_id": id, "output": result_of(&results, id)}));
                }
            }
        }
    }
    for answer in &conversation.approvals {
        let mut request = json!({
            "type": "mcp_approval_request",
            "id": answer.request_id,
            "name": answer.name,
            "arguments": answer.arguments,
        });
        if let Some(server) = &answer.server_label {
            request["server_label"] = json!(server);
        }
        input.push(request);
        input.push(super::mcp_approval_response(
            &answer.request_id,
            answer.approve,
        ));
    }
    if let Some(text) = &conversation.follow_up {
        input.push(json!({"role": "user", "content": text}));
    }
    responses_body_with(model, conversation, input)
}

/// A Responses request carrying `input`, with the conversation's instructions and tools.
fn responses_body_with(model: &str, conversation: &Conversation, input: Vec<Value>) -> Value {
    let mut body = json!({"model": model, "stream": true, "input": input});
    if let Some(instructions) = &conversation.instructions {
        body["instructions"] = json!(instructions);
    }
    let (functions, others) = split_tools(&conversation.tools);
    let tools: Vec<Value> = functions
        .iter()
        .map(|tool| {
            json!({
                "type": "function",
                "name": tool.get("name"),
                "description": tool.get("description").cloned().unwrap_or(json!("")),
                "parameters": parameters(tool),
                "strict": false,
            })
        })
        .chain(others.into_iter().cloned())
        .collect();
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
    }
    in_session(&mut body, conversation);
    body
}

/// Names the runtime's session (and its user) the request continues, when there is one.
fn in_session(body: &mut Value, conversation: &Conversation) {
    if let Some(session) = &conversation.session_id {
        body["session_id"] = json!(session);
    }
    if let Some(user) = &conversation.user {
        body["user"] = json!(user);
    }
}
