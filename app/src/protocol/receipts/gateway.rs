//! A validated answer as the Hermes call or reply, or AG-UI tool message, that carries it.

use std::fmt;

use serde_json::{Map, Value, json};

use super::ValidatedAnswer;
use crate::protocol::ask::{Ask, AskKind, AskOrigin};

/// What travels to the agent. May carry a secret: never log or store it.
#[derive(Clone, PartialEq)]
pub enum GatewayAnswer {
    /// Older Hermes form: call `method` with `params`.
    HermesCall { method: String, params: Value },
    /// Newer Hermes form: reply to server request `id` with `result`.
    HermesReply { id: String, result: Value },
    /// A tool message for the next AG-UI run's `messages`.
    AgUiToolMessage {
        tool_call_id: String,
        content: String,
        error: Option<String>,
    },
}

impl fmt::Debug for GatewayAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GatewayAnswer::HermesCall { method, .. } => {
                write!(f, "HermesCall {{ method: {method:?}, .. }}")
            }
            GatewayAnswer::HermesReply { id, .. } => write!(f, "HermesReply {{ id: {id:?}, .. }}"),
            GatewayAnswer::AgUiToolMessage { tool_call_id, .. } => {
                write!(
                    f,
                    "AgUiToolMessage {{ tool_call_id: {tool_call_id:?}, .. }}"
                )
            }
        }
    }
}

/// Maps a validated answer to the Hermes gateway call or reply for its ask.
pub fn hermes_answer(ask: &Ask, answer: &ValidatedAnswer) -> Option<GatewayAnswer> {
    let text_of = |field: &str| answer.data.get(field).cloned().unwrap_or(json!(""));
    let single_answer = || {
        answer
            .data
            .get("answer")
            .cloned()
            .or_else(|| {
                let first = ask.questions.first()?;
                answer.data.get("answers")?.get(&first.id).cloned()
            })
            .filter(|value| !value.is_null())
            .unwrap_or(json!(""))
    };
    match &ask.origin {
        AskOrigin::HermesEvent {
            method,
            session_id,
            request_id,
        } => {
            let mut params = Map::new();
            match ask.kind {
                AskKind::Approval => {
                    params.insert("session_id".into(), json!(session_id));
                    params.insert("choice".into(), json!(answer.action));
                    if let Some(request_id) = request_id {
                        params.insert("request_id".into(), json!(request_id));
                    }
                    if answer.data.get("all") == Some(&Value::Bool(true)) {
                        params.insert("all".into(), json!(true));
                    }
                }
                AskKind::Clarify => {
                    params.insert("request_id".into(), json!(request_id));
                    let text = if answer.action == "cancel" {
                        json!("")
                    } else {
                        single_answer()
                    };
                    params.insert("answer".into(), text);
                }
                AskKind::Sudo => {
                    params.insert("request_id".into(), json!(request_id));
                    params.insert("password".into(), text_of("password"));
                }
                AskKind::Secret => {
                    params.insert("request_id".into(), json!(request_id));
                    params.insert("value".into(), text_of("value"));
                }
                AskKind::TerminalRead => {
                    params.insert("request_id".into(), json!(request_id));
                    let text = if answer.action == "cancel" {
                        json!("")
                    } else {
                        single_answer()
                    };
                    params.insert("text".into(), text);
                }
                _ => return None,
            }
            Some(GatewayAnswer::HermesCall {
                method: method.clone(),
                params: Value::Object(params),
            })
        }
        AskOrigin::HermesRequest { rpc_id, .. } => {
            let result = match ask.kind {
                AskKind::Approval => {
                    let mut result = Map::new();
                    result.insert("choice".into(), json!(answer.action));
                    if answer.data.get("all") == Some(&Value::Bool(true)) {
                        result.insert("all".into(), json!(true));
                    }
                    Value::Object(result)
                }
                AskKind::Clarify => {
                    if answer.action == "cancel" {
                        json!({})
                    } else {
                        json!({ "answers": answer.data.get("answers").cloned().unwrap_or(json!({})) })
                    }
                }
                AskKind::Sudo => json!({ "value": text_of("password") }),
                AskKind::Secret => json!({ "value": text_of("value") }),
                AskKind::TerminalRead => {
                    let value = if answer.action == "cancel" {
                        json!("")
                    } else {
                        single_answer()
                    };
                    json!({ "value": value })
                }
                _ => return None,
            };
            Some(GatewayAnswer::HermesReply {
                id: rpc_id.clone(),
                result,
            })
        }
        AskOrigin::AgUiFrontendTool { .. } => {
            let (content, error) = if answer.action == "cancel" {
                (
                    String::new(),
                    Some("The user declined to run this tool.".to_owned()),
                )
            } else {
                let result = answer.data.get("result").cloned().unwrap_or(Value::Null);
                let content = match result {
                    Value::String(text) => text,
                    other => other.to_string(),
                };
                (content, None)
            };
            Some(GatewayAnswer::AgUiToolMessage {
                tool_call_id: ask.tool_call_id.clone().unwrap_or_else(|| ask.id.clone()),
                content,
                error,
            })
        }
        AskOrigin::AgUiInterrupt { .. }
        | AskOrigin::AgUiCustomInterrupt
        | AskOrigin::OpenAiApproval { .. } => None,
    }
}
