//! Asks the gateway raises, as events or server requests: built, opened, expired, withdrawn.

use serde_json::Value;

use super::{HermesNormalizer, draft, strings, text_of};
use crate::protocol::agui::asks::question_from;
use crate::protocol::ask::{
    Ask, AskKind, AskOrigin, AskState, Component, Question, approval_actions, looks_dangerous,
};
use crate::protocol::channel::{EventBody, EventDraft, Level};

impl HermesNormalizer {
    pub(super) fn server_request(
        &mut self,
        method: &str,
        rpc_id: String,
        params: Value,
        index: u64,
        out: &mut Vec<EventDraft>,
    ) {
        let session_id = text_of(&params, "session_id").unwrap_or_default();
        let origin = AskOrigin::HermesRequest {
            rpc_id: rpc_id.clone(),
            method: method.to_owned(),
            session_id,
        };
        let ask = match method {
            "approval" => self.approval_ask(rpc_id, &params, origin),
            "clarify" => {
                let questions: Vec<Question> = params
                    .get("questions")
                    .and_then(Value::as_array)
                    .map(|list| list.iter().filter_map(question_from).collect())
                    .unwrap_or_default();
                let title = match questions.as_slice() {
                    [only] => only.text.clone(),
                    many => format!("{} questions before the agent goes on", many.len()),
                };
                Ask {
                    questions,
                    ..Ask::new(
                        rpc_id,
                        AskKind::Clarify,
                        Component::QuestionFlow,
                        title,
                        vec!["answer".into(), "cancel".into()],
                        origin,
                    )
                }
            }
            "sudo" => self.sudo_ask(rpc_id, &params, origin),
            "secret" => secret_ask(rpc_id, &params, origin),
            "terminal.read" | "preview.read" => terminal_ask(rpc_id, origin),
            other => {
                out.push(draft(
                    EventBody::Notice {
                        level: Level::Warning,
                        text: format!(
                            "the gateway asked `{other}`, which this console does not handle; it is declined"
                        ),
                        source: other.to_owned(),
                    },
                    index,
                ));
                return;
            }
        };
        self.open_ask(ask, index, out);
    }

    pub(super) fn approval_ask(&mut self, id: String, payload: &Value, origin: AskOrigin) -> Ask {
        let command = text_of(payload, "command");
        let offered = strings(payload.get("choices"));
        let allow_permanent = payload
            .get("allow_permanent")
            .and_then(Value::as_bool)
            .unwrap_or(true);
        let smart_denied = payload
            .get("smart_denied")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let pattern_keys = strings(payload.get("pattern_keys"))
            .or_else(|| text_of(payload, "pattern_key").map(|key| vec![key]))
            .unwrap_or_default();
        let title = match &command {
            Some(command) => format!("Run {command}?"),
            None => "Approve the agent's action?".into(),
        };
        let dangerous = command.as_deref().is_some_and(looks_dangerous);
        Ask {
            tool_call_id: self.open_tools.last().cloned(),
            dangerous,
            command,
            description: text_of(payload, "description"),
            pattern_keys,
            ..Ask::new(
                id,
                AskKind::Approval,
                Component::ApprovalCard,
                title,
                approval_actions(
                    offered.as_deref(),
                    allow_permanent && !dangerous,
                    smart_denied,
                ),
                origin,
            )
        }
    }

    pub(super) fn sudo_ask(&self, id: String, payload: &Value, origin: AskOrigin) -> Ask {
        // 0.19 sends no command: show what the running tool said it was doing.
        let command = text_of(payload, "command").or_else(|| self.last_tool_context.clone());
        Ask {
            tool_call_id: self.open_tools.last().cloned(),
            command,
            ..Ask::new(
                id,
                AskKind::Sudo,
                Component::SudoPrompt,
                "The agent needs your sudo password".into(),
                vec!["submit".into(), "skip".into()],
                origin,
            )
        }
    }

    pub(super) fn open_ask(&mut self, mut ask: Ask, index: u64, out: &mut Vec<EventDraft>) {
        self.begin_turn(index, out);
        if ask.expires_at_ms.is_none() {
            ask.expires_at_ms = self
                .now_ms
                .zip(gateway_timeout_ms(ask.kind))
                .map(|(now, timeout)| now + timeout);
        }
        if ask.tool_call_id.is_none() {
            ask.tool_call_id = self.open_tools.last().cloned();
        }
        self.open_asks.push(ask.clone());
        out.push(draft(EventBody::AskOpened { ask: Box::new(ask) }, index));
    }

    /// The bridge answered `ask_id` itself (and stored that): stop tracking it.
    pub fn mark_closed(&mut self, ask_id: &str) {
        self.open_asks.retain(|ask| ask.id != ask_id);
    }

    /// Asks this stream has opened and nobody has closed yet, oldest first.
    pub fn open_asks(&self) -> &[Ask] {
        &self.open_asks
    }

    /// Asks a finished tool or turn left unanswered can no longer be answered.
    pub(super) fn expire_asks(
        &mut self,
        tool_call_id: Option<&str>,
        index: u64,
        out: &mut Vec<EventDraft>,
    ) {
        let (expired, open): (Vec<Ask>, Vec<Ask>) = std::mem::take(&mut self.open_asks)
            .into_iter()
            .partition(|ask| tool_call_id.is_none() || ask.tool_call_id.as_deref() == tool_call_id);
        self.open_asks = open;
        for ask in expired {
            out.push(draft(
                EventBody::AskClosed {
                    ask_id: ask.id,
                    ask_kind: ask.kind,
                    state: Box::new(AskState::Expired),
                },
                index,
            ));
        }
    }

    pub(super) fn close_ask(
        &mut self,
        ask_id: String,
        state: AskState,
        index: u64,
        out: &mut Vec<EventDraft>,
    ) {
        let Some(position) = self.open_asks.iter().position(|ask| ask.id == ask_id) else {
            out.push(draft(
                EventBody::Notice {
                    level: Level::Warning,
                    text: format!("the gateway withdrew request {ask_id:?}, which was not open"),
                    source: "request.cancel".into(),
                },
                index,
            ));
            return;
        };
        let ask = self.open_asks.remove(position);
        out.push(draft(
            EventBody::AskClosed {
                ask_id,
                ask_kind: ask.kind,
                state: Box::new(state),
            },
            index,
        ));
    }
}

pub(super) fn secret_ask(id: String, payload: &Value, origin: AskOrigin) -> Ask {
    let env_var = text_of(payload, "env_var");
    let metadata = payload
        .get("metadata")
        .and_then(Value::as_object)
        .map(|metadata| {
            metadata
                .iter()
                .map(|(key, value)| {
                    let shown = match value {
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    };
                    (key.clone(), shown)
                })
                .collect()
        })
        .unwrap_or_default();
    Ask {
        title: text_of(payload, "prompt").unwrap_or_else(|| match &env_var {
            Some(var) => format!("The agent needs a value for {var}"),
            None => "The agent needs a secret".into(),
        }),
        env_var,
        metadata,
        ..Ask::new(
            id,
            AskKind::Secret,
            Component::SecretPrompt,
            String::new(),
            vec!["save".into(), "skip".into()],
            origin,
        )
    }
}

pub(super) fn terminal_ask(id: String, origin: AskOrigin) -> Ask {
    let text = "The agent asks what your terminal shows".to_owned();
    Ask {
        questions: vec![Question {
            id: "answer".into(),
            text: text.clone(),
            choices: Vec::new(),
            multi_select: false,
        }],
        ..Ask::new(
            id,
            AskKind::TerminalRead,
            Component::QuestionFlow,
            text,
            vec!["answer".into(), "cancel".into()],
            origin,
        )
    }
}

/// How long the gateway waits for an answer before it gives up on the ask itself
/// (approval: denied; sudo, secret, clarify: answered empty); `None` when it waits on.
pub fn gateway_timeout_ms(kind: AskKind) -> Option<i64> {
    match kind {
        AskKind::Approval => Some(60_000),
        AskKind::Sudo => Some(120_000),
        AskKind::Secret | AskKind::Clarify => Some(300_000),
        _ => None,
    }
}
