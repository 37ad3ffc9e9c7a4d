//! Hermes gateway adapter: newline-delimited JSON-RPC frames from a `tui_gateway` →
//! [`EventDraft`]s. Handles both ask forms: `*.request` events answered by `*.respond`
//! calls (≤ 0.21.1) and server-to-client requests with `srq-…` ids (≥ 0.21.2).

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::agui::asks::question_from;
use super::ask::{
    Ask, AskKind, AskOrigin, AskState, Component, Question, approval_actions, looks_dangerous,
};
use super::channel::{Channel, EventBody, EventDraft, Level, Role, RunOutcome, plan_items};
use super::limits::{self, excerpt};
use super::receipts::{Receipt, resolved_state, validate};

/// Server-request methods this console answers; others get a JSON-RPC -32601 reply.
pub const SUPPORTED_REQUESTS: [&str; 6] = [
    "approval",
    "clarify",
    "sudo",
    "secret",
    "terminal.read",
    "preview.read",
];

pub fn is_supported_request(method: &str) -> bool {
    SUPPORTED_REQUESTS.contains(&method)
}

/// One line of a recorded transcript (`{"seq","ts","t","dir","msg"}`).
#[derive(Clone, Debug, PartialEq)]
pub struct TranscriptLine {
    /// `gw->ui` (from the gateway) or `ui->gw` (from the client).
    pub from_gateway: bool,
    pub message: Value,
}

/// Reads one transcript record; a bare JSON-RPC frame counts as coming from the gateway.
pub fn parse_transcript_line(line: &str) -> Result<TranscriptLine, String> {
    limits::check(line).map_err(|error| error.to_string())?;
    let value: Value =
        serde_json::from_str(line).map_err(|error| format!("line is not valid JSON: {error}"))?;
    match (value.get("dir"), value.get("msg")) {
        (Some(Value::String(dir)), Some(message)) => Ok(TranscriptLine {
            from_gateway: dir == "gw->ui",
            message: message.clone(),
        }),
        _ if value.get("jsonrpc").is_some() => Ok(TranscriptLine {
            from_gateway: true,
            message: value,
        }),
        _ => Err("line is neither a transcript record nor a JSON-RPC frame".into()),
    }
}

/// Removes ANSI escape sequences (colours, cursor moves) from terminal text.
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('[') => {
                chars.next();
                // CSI: parameters and intermediates, then one final byte in @..~
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                chars.next();
                // OSC: until BEL or ESC \
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' {
                        chars.next();
                        break;
                    }
                }
            }
            Some(_) => {
                chars.next();
            }
            None => {}
        }
    }
    out
}

#[derive(Debug)]
struct OpenMessage {
    id: String,
    text: String,
}

/// Normalizes the frames of one Hermes session.
#[derive(Debug, Default)]
pub struct HermesNormalizer {
    next_upstream: u64,
    turn_active: bool,
    messages: u32,
    message: Option<OpenMessage>,
    reasoning: Option<String>,
    reasoning_streamed: bool,
    /// tool_id → (name, arguments sent, latest context text)
    tools: HashMap<String, (String, bool)>,
    open_tools: Vec<String>,
    last_tool_context: Option<String>,
    approvals: u32,
    /// Asks still open, oldest first (Hermes 0.19 answers approvals first-in, first-out).
    open_asks: Vec<Ask>,
}

fn text_of(payload: &Value, key: &str) -> Option<String> {
    payload.get(key)?.as_str().map(str::to_owned)
}

fn strings(value: Option<&Value>) -> Option<Vec<String>> {
    Some(
        value?
            .as_array()?
            .iter()
            .filter_map(|item| item.as_str().map(str::to_owned))
            .collect(),
    )
}

impl HermesNormalizer {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn upstream_count(&self) -> u64 {
        self.next_upstream
    }

    /// One frame from the gateway as JSON text.
    pub fn push_line(&mut self, line: &str, out: &mut Vec<EventDraft>) {
        let index = self.next_upstream;
        self.next_upstream += 1;
        if let Err(error) = limits::check(line) {
            out.push(malformed(error.to_string(), line, index));
            return;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(frame) => self.push_frame(frame, index, out),
            Err(error) => out.push(malformed(
                format!("frame is not valid JSON: {error}"),
                line,
                index,
            )),
        }
    }

    /// One frame from the gateway, already parsed.
    pub fn push_value(&mut self, frame: Value, out: &mut Vec<EventDraft>) {
        let index = self.next_upstream;
        self.next_upstream += 1;
        self.push_frame(frame, index, out);
    }

    fn push_frame(&mut self, frame: Value, index: u64, out: &mut Vec<EventDraft>) {
        let Value::Object(mut frame) = frame else {
            out.push(malformed(
                "frame is not a JSON object".into(),
                &frame.to_string(),
                index,
            ));
            return;
        };
        let method = frame
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let params = frame.remove("params").unwrap_or(Value::Null);
        match (method.as_deref(), frame.get("id")) {
            (Some("event"), _) => self.event(params, index, out),
            (Some(method), Some(Value::String(rpc_id))) => {
                let rpc_id = rpc_id.clone();
                self.server_request(method, rpc_id, params, index, out)
            }
            (Some(method), _) => out.push(draft(
                EventBody::Unknown {
                    upstream_type: method.to_owned(),
                    event: params,
                },
                index,
            )),
            (None, Some(id)) => {
                if let Some(error) = frame.get("error") {
                    let code = error.get("code").map(Value::to_string).unwrap_or_default();
                    let message = error
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("no message");
                    out.push(
                        draft(
                            EventBody::Notice {
                                level: Level::Error,
                                text: format!(
                                    "the gateway answered request {id} with error {code}: {message}"
                                ),
                                source: "jsonrpc.error".into(),
                            },
                            index,
                        )
                        .with_channel(Channel::Error),
                    );
                }
                // Successful replies are correlated by the bridge, which sent the request.
            }
            (None, None) => out.push(malformed(
                "frame has neither `method` nor `id`".into(),
                &Value::Object(frame).to_string(),
                index,
            )),
        }
    }

    fn begin_turn(&mut self, index: u64, out: &mut Vec<EventDraft>) {
        if !self.turn_active {
            self.turn_active = true;
            out.push(draft(
                EventBody::RunStarted {
                    protocol_version: None,
                },
                index,
            ));
        }
    }

    fn open_message(&mut self, index: u64, out: &mut Vec<EventDraft>) -> String {
        self.begin_turn(index, out);
        if let Some(open) = &self.message {
            return open.id.clone();
        }
        self.messages += 1;
        let id = format!("msg-{}", self.messages);
        self.message = Some(OpenMessage {
            id: id.clone(),
            text: String::new(),
        });
        out.push(draft(
            EventBody::MessageStarted {
                message_id: id.clone(),
                role: Role::Assistant,
                name: None,
            },
            index,
        ));
        id
    }

    fn close_message(&mut self, index: u64, out: &mut Vec<EventDraft>) -> Option<OpenMessage> {
        let open = self.message.take()?;
        out.push(draft(
            EventBody::MessageEnded {
                message_id: open.id.clone(),
            },
            index,
        ));
        Some(open)
    }

    fn close_reasoning(&mut self, index: u64, out: &mut Vec<EventDraft>) {
        if let Some(id) = self.reasoning.take() {
            out.push(draft(EventBody::ReasoningEnded { message_id: id }, index));
        }
    }

    fn event(&mut self, params: Value, index: u64, out: &mut Vec<EventDraft>) {
        let event_type = params
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let session_id = text_of(&params, "session_id").unwrap_or_default();
        let payload = params.get("payload").cloned().unwrap_or(Value::Null);
        let notice = |level: Level, text: String| EventBody::Notice {
            level,
            text,
            source: event_type.clone(),
        };
        match event_type.as_str() {
            "message.start" => {
                self.begin_turn(index, out);
            }
            "message.delta" => {
                let text = text_of(&payload, "text").unwrap_or_default();
                if text.is_empty() {
                    return;
                }
                self.close_reasoning(index, out);
                let id = self.open_message(index, out);
                if let Some(open) = &mut self.message {
                    open.text.push_str(&text);
                }
                out.push(draft(
                    EventBody::TextDelta {
                        message_id: id,
                        delta: text,
                    },
                    index,
                ));
            }
            "message.interim" => {
                let text = text_of(&payload, "text").unwrap_or_default();
                if self.message.is_none() && !text.is_empty() {
                    let id = self.open_message(index, out);
                    out.push(draft(
                        EventBody::TextDelta {
                            message_id: id,
                            delta: text,
                        },
                        index,
                    ));
                }
                self.close_message(index, out);
            }
            "message.complete" => self.complete(&payload, index, out),
            "reasoning.delta" => {
                let text = text_of(&payload, "text").unwrap_or_default();
                if text.is_empty() {
                    return;
                }
                self.begin_turn(index, out);
                let id = match &self.reasoning {
                    Some(id) => id.clone(),
                    None => {
                        let id = format!("reasoning-{}", index);
                        self.reasoning = Some(id.clone());
                        out.push(draft(
                            EventBody::ReasoningStarted {
                                message_id: id.clone(),
                            },
                            index,
                        ));
                        id
                    }
                };
                self.reasoning_streamed = true;
                out.push(draft(
                    EventBody::ReasoningDelta {
                        message_id: id,
                        delta: text,
                    },
                    index,
                ));
            }
            // Repeats the visible answer after every model call: not reasoning at all.
            "reasoning.available" => {}
            "thinking.delta" => out.push(
                draft(
                    notice(Level::Info, text_of(&payload, "text").unwrap_or_default()),
                    index,
                )
                .with_channel(Channel::Analysis),
            ),
            "tool.generating" => out.push(
                draft(
                    notice(
                        Level::Info,
                        text_of(&payload, "name").unwrap_or_else(|| "tool".into()),
                    ),
                    index,
                )
                .with_channel(Channel::ToolCall),
            ),
            "tool.start" => self.tool_start(&payload, index, out),
            "tool.progress" => {
                let name = text_of(&payload, "name").unwrap_or_default();
                let text = text_of(&payload, "preview").unwrap_or_default();
                let tool = self
                    .open_tools
                    .iter()
                    .rev()
                    .find(|id| self.tools.get(*id).is_some_and(|(n, _)| *n == name))
                    .cloned();
                match tool {
                    Some(tool_call_id) => {
                        out.push(draft(EventBody::ToolProgress { tool_call_id, text }, index))
                    }
                    None => out.push(draft(notice(Level::Info, format!("{name}: {text}")), index)),
                }
            }
            "tool.complete" => self.tool_complete(&payload, index, out),
            "todo.updated" => {
                let items = plan_items(payload.get("todos"));
                out.push(draft(EventBody::Plan { items }, index));
            }
            "status.update" => {
                let kind = text_of(&payload, "kind").unwrap_or_default();
                let text = text_of(&payload, "text").unwrap_or_default();
                let level = if text.starts_with('❌') {
                    Level::Error
                } else {
                    Level::Info
                };
                out.push(draft(
                    EventBody::Notice {
                        level,
                        text,
                        source: format!("status.update/{kind}"),
                    },
                    index,
                ));
            }
            "notification.show" => {
                let level = match text_of(&payload, "level").as_deref() {
                    Some("error") => Level::Error,
                    Some("warning" | "warn") => Level::Warning,
                    _ => Level::Info,
                };
                out.push(draft(
                    notice(level, text_of(&payload, "text").unwrap_or_default()),
                    index,
                ));
            }
            "error" => out.push(
                draft(
                    notice(
                        Level::Error,
                        text_of(&payload, "message").unwrap_or_else(|| payload.to_string()),
                    ),
                    index,
                )
                .with_channel(Channel::Error),
            ),
            "notice" => out.push(draft(
                notice(
                    Level::Info,
                    text_of(&payload, "message").unwrap_or_default(),
                ),
                index,
            )),
            "gateway.ready" => out.push(draft(notice(Level::Info, "Gateway ready".into()), index)),
            "session.title" => out.push(draft(
                notice(
                    Level::Info,
                    format!(
                        "Session titled {:?}",
                        text_of(&payload, "title").unwrap_or_default()
                    ),
                ),
                index,
            )),
            "background.complete" | "btw.complete" => out.push(draft(
                notice(Level::Info, text_of(&payload, "text").unwrap_or_default()),
                index,
            )),
            "clarify.request" => {
                let request_id = text_of(&payload, "request_id").unwrap_or_default();
                let question = text_of(&payload, "question").unwrap_or_default();
                let choices = strings(payload.get("choices")).unwrap_or_default();
                let component = if choices.is_empty() {
                    Component::QuestionFlow
                } else {
                    Component::OptionList
                };
                let ask = Ask {
                    questions: vec![Question {
                        id: "answer".into(),
                        text: question.clone(),
                        choices,
                        multi_select: false,
                    }],
                    ..base_ask(
                        request_id.clone(),
                        AskKind::Clarify,
                        component,
                        question,
                        vec!["answer".into(), "cancel".into()],
                        AskOrigin::HermesEvent {
                            method: "clarify.respond".into(),
                            session_id,
                            request_id: Some(request_id),
                        },
                    )
                };
                self.open_ask(ask, index, out);
            }
            "approval.request" => {
                let request_id = text_of(&payload, "request_id");
                let id = request_id.clone().unwrap_or_else(|| {
                    self.approvals += 1;
                    match self.open_tools.last() {
                        Some(tool) => format!("approval-{tool}"),
                        None => format!("approval-{}", self.approvals),
                    }
                });
                let ask = self.approval_ask(
                    id,
                    &payload,
                    AskOrigin::HermesEvent {
                        method: "approval.respond".into(),
                        session_id,
                        request_id,
                    },
                );
                self.open_ask(ask, index, out);
            }
            "sudo.request" => {
                let request_id = text_of(&payload, "request_id").unwrap_or_default();
                let ask = self.sudo_ask(
                    request_id.clone(),
                    &payload,
                    AskOrigin::HermesEvent {
                        method: "sudo.respond".into(),
                        session_id,
                        request_id: Some(request_id),
                    },
                );
                self.open_ask(ask, index, out);
            }
            "secret.request" => {
                let request_id = text_of(&payload, "request_id").unwrap_or_default();
                let ask = secret_ask(
                    request_id.clone(),
                    &payload,
                    AskOrigin::HermesEvent {
                        method: "secret.respond".into(),
                        session_id,
                        request_id: Some(request_id),
                    },
                );
                self.open_ask(ask, index, out);
            }
            "terminal.read.request" => {
                let request_id = text_of(&payload, "request_id").unwrap_or_default();
                let ask = terminal_ask(
                    request_id.clone(),
                    AskOrigin::HermesEvent {
                        method: "terminal.read.respond".into(),
                        session_id,
                        request_id: Some(request_id),
                    },
                );
                self.open_ask(ask, index, out);
            }
            "sudo.expire" | "secret.expire" => {
                let request_id = text_of(&payload, "request_id").unwrap_or_default();
                self.close_ask(request_id, AskState::Expired, index, out);
            }
            "request.cancel" => {
                let id = text_of(&payload, "id").unwrap_or_default();
                let reason = text_of(&payload, "reason").unwrap_or_else(|| "cancelled".into());
                let state = if reason == "timeout" {
                    AskState::Expired
                } else {
                    AskState::Cancelled { reason }
                };
                self.close_ask(id, state, index, out);
            }
            _ => out.push(draft(
                EventBody::Custom {
                    name: event_type.clone(),
                    value: payload,
                },
                index,
            )),
        }
    }

    fn complete(&mut self, payload: &Value, index: u64, out: &mut Vec<EventDraft>) {
        self.begin_turn(index, out);
        if !self.reasoning_streamed
            && let Some(reasoning) = text_of(payload, "reasoning").filter(|r| !r.is_empty())
        {
            let id = format!("reasoning-{index}");
            out.push(draft(
                EventBody::ReasoningStarted {
                    message_id: id.clone(),
                },
                index,
            ));
            out.push(draft(
                EventBody::ReasoningDelta {
                    message_id: id.clone(),
                    delta: reasoning,
                },
                index,
            ));
            out.push(draft(EventBody::ReasoningEnded { message_id: id }, index));
        }
        self.close_reasoning(index, out);
        self.expire_asks(None, index, out);
        let status = text_of(payload, "status").unwrap_or_else(|| "complete".into());
        let text = text_of(payload, "text");
        let open = self.close_message(index, out);
        match status.as_str() {
            "error" => out.push(draft(
                EventBody::RunFailed {
                    message: text.unwrap_or_else(|| "the agent reported an error".into()),
                    code: text_of(payload, "failure_reason"),
                },
                index,
            )),
            "interrupted" => {
                out.push(draft(
                    EventBody::Notice {
                        level: Level::Warning,
                        text: "The turn was interrupted".into(),
                        source: "message.complete".into(),
                    },
                    index,
                ));
                out.push(draft(
                    EventBody::RunFinished {
                        outcome: RunOutcome::Cancelled,
                    },
                    index,
                ));
            }
            _ => {
                if let Some(text) = text.filter(|t| !t.is_empty()) {
                    out.push(draft(
                        EventBody::FinalAnswer {
                            message_id: open.map(|open| open.id),
                            text: Some(text),
                        },
                        index,
                    ));
                }
                out.push(draft(
                    EventBody::RunFinished {
                        outcome: RunOutcome::Success,
                    },
                    index,
                ));
            }
        }
        self.turn_active = false;
        self.reasoning_streamed = false;
    }

    fn tool_start(&mut self, payload: &Value, index: u64, out: &mut Vec<EventDraft>) {
        self.begin_turn(index, out);
        self.close_reasoning(index, out);
        self.close_message(index, out);
        let tool_call_id = text_of(payload, "tool_id").unwrap_or_else(|| format!("tool-{index}"));
        let name = text_of(payload, "name").unwrap_or_else(|| "tool".into());
        let context = text_of(payload, "context").filter(|c| !c.is_empty());
        self.last_tool_context = context.clone();
        out.push(draft(
            EventBody::ToolCallStarted {
                tool_call_id: tool_call_id.clone(),
                name: name.clone(),
                parent_message_id: None,
                summary: context,
            },
            index,
        ));
        let args = payload
            .get("args")
            .filter(|a| !a.is_null())
            .map(Value::to_string)
            .or_else(|| text_of(payload, "args_text"));
        let sent = args.is_some();
        if let Some(delta) = args {
            out.push(draft(
                EventBody::ToolCallArgs {
                    tool_call_id: tool_call_id.clone(),
                    delta,
                },
                index,
            ));
        }
        self.tools.insert(tool_call_id.clone(), (name, sent));
        self.open_tools.push(tool_call_id);
    }

    fn tool_complete(&mut self, payload: &Value, index: u64, out: &mut Vec<EventDraft>) {
        let tool_call_id = text_of(payload, "tool_id").unwrap_or_else(|| format!("tool-{index}"));
        if !self.tools.contains_key(&tool_call_id) {
            self.tool_start(payload, index, out);
        }
        let args_sent = self.tools.get(&tool_call_id).is_some_and(|(_, sent)| *sent);
        if !args_sent && let Some(args) = payload.get("args").filter(|a| !a.is_null()) {
            out.push(draft(
                EventBody::ToolCallArgs {
                    tool_call_id: tool_call_id.clone(),
                    delta: args.to_string(),
                },
                index,
            ));
        }
        self.open_tools.retain(|id| *id != tool_call_id);
        self.expire_asks(Some(&tool_call_id), index, out);
        out.push(draft(
            EventBody::ToolCallEnded {
                tool_call_id: tool_call_id.clone(),
            },
            index,
        ));
        let result = payload.get("result").cloned().unwrap_or(Value::Null);
        let is_error = result.get("status").and_then(Value::as_str) == Some("blocked")
            || result
                .get("error")
                .is_some_and(|e| !e.is_null() && e != &Value::String(String::new()));
        let duration_ms = payload
            .get("duration_s")
            .and_then(Value::as_f64)
            .map(|seconds| (seconds * 1000.0).round() as u64);
        let diff = result
            .get("diff")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let inline = text_of(payload, "inline_diff");
        out.push(draft(
            EventBody::ToolResult {
                tool_call_id: tool_call_id.clone(),
                tool_name: None,
                content: result,
                is_error,
                duration_ms,
            },
            index,
        ));
        if diff.is_some() || inline.is_some() {
            let inline = inline.map(|text| strip_ansi(&text));
            let filename = inline
                .as_deref()
                .and_then(diff_filename)
                .or_else(|| diff.as_deref().and_then(unified_filename));
            let patch = diff.or_else(|| inline.map(|text| inline_to_patch(&text)));
            out.push(draft(
                EventBody::Edit {
                    edit_id: format!("{tool_call_id}-edit"),
                    tool_call_id: Some(tool_call_id),
                    filename,
                    patch: patch.unwrap_or_default(),
                },
                index,
            ));
        }
        if let Some(todos) = payload.get("todos").filter(|t| t.is_array()) {
            out.push(draft(
                EventBody::Plan {
                    items: plan_items(Some(todos)),
                },
                index,
            ));
        }
    }

    fn server_request(
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
                    ..base_ask(
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

    fn approval_ask(&mut self, id: String, payload: &Value, origin: AskOrigin) -> Ask {
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
        Ask {
            tool_call_id: self.open_tools.last().cloned(),
            dangerous: command.as_deref().is_some_and(looks_dangerous),
            command,
            description: text_of(payload, "description"),
            pattern_keys,
            ..base_ask(
                id,
                AskKind::Approval,
                Component::ApprovalCard,
                title,
                approval_actions(offered.as_deref(), allow_permanent, smart_denied),
                origin,
            )
        }
    }

    fn sudo_ask(&self, id: String, payload: &Value, origin: AskOrigin) -> Ask {
        // 0.19 sends no command: show what the running tool said it was doing.
        let command = text_of(payload, "command").or_else(|| self.last_tool_context.clone());
        Ask {
            tool_call_id: self.open_tools.last().cloned(),
            command,
            ..base_ask(
                id,
                AskKind::Sudo,
                Component::SudoPrompt,
                "The agent needs your sudo password".into(),
                vec!["submit".into(), "skip".into()],
                origin,
            )
        }
    }

    fn open_ask(&mut self, mut ask: Ask, index: u64, out: &mut Vec<EventDraft>) {
        self.begin_turn(index, out);
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
    fn expire_asks(&mut self, tool_call_id: Option<&str>, index: u64, out: &mut Vec<EventDraft>) {
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

    /// A frame the client sent (a recorded transcript's `ui->gw` side): answers become
    /// closed asks, redacted exactly as a live receipt would be.
    pub fn push_client_frame(&mut self, frame: &Value, out: &mut Vec<EventDraft>) {
        let index = self.next_upstream;
        let method = frame.get("method").and_then(Value::as_str);
        let params = frame.get("params").cloned().unwrap_or(Value::Null);
        let found = match (method, frame.get("id")) {
            (Some(method), _) if method.ends_with(".respond") => {
                let request_id = text_of(&params, "request_id");
                let position = match &request_id {
                    Some(id) => self.open_asks.iter().position(|ask| {
                        ask.id == *id
                            || matches!(&ask.origin, AskOrigin::HermesEvent { request_id: Some(r), .. } if r == id)
                    }),
                    // 0.19 approvals carry no id: the oldest pending approval is answered.
                    None => self
                        .open_asks
                        .iter()
                        .position(|ask| ask.kind == AskKind::Approval),
                };
                position.map(|position| {
                    let answer = event_form_receipt(&self.open_asks[position], &params);
                    (position, answer)
                })
            }
            (None, Some(Value::String(rpc_id))) => {
                let position = self.open_asks.iter().position(|ask| ask.id == *rpc_id);
                let result = frame.get("result").cloned().unwrap_or(Value::Null);
                position.map(|position| {
                    let answer = request_form_receipt(&self.open_asks[position], &result);
                    (position, answer)
                })
            }
            _ => None,
        };
        let Some((position, (action, data))) = found else {
            return;
        };
        let ask = self.open_asks.remove(position);
        let receipt = Receipt {
            tool_call_id: ask.id.clone(),
            component: ask.component.as_str().to_owned(),
            action,
            data,
            ts: None,
        };
        let state = match validate(&ask, &receipt) {
            Ok(answer) => resolved_state(&answer),
            Err(error) => AskState::Cancelled {
                reason: format!("the recorded answer was not valid: {error}"),
            },
        };
        out.push(draft(
            EventBody::AskClosed {
                ask_id: ask.id,
                ask_kind: ask.kind,
                state: Box::new(state),
            },
            index,
        ));
    }

    fn close_ask(
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

    /// End of the gateway's output. A turn still running ends failed: the gateway died.
    pub fn finish(&mut self, out: &mut Vec<EventDraft>) {
        if !self.turn_active {
            return;
        }
        let index = self.next_upstream;
        self.close_reasoning(index, out);
        if let Some(open) = self.message.take() {
            out.push(EventDraft::new(
                EventBody::MessageEnded {
                    message_id: open.id,
                },
                None,
                None,
            ));
        }
        for tool_call_id in std::mem::take(&mut self.open_tools) {
            out.push(EventDraft::new(
                EventBody::ToolCallEnded { tool_call_id },
                None,
                None,
            ));
        }
        out.push(EventDraft::new(
            EventBody::RunFailed {
                message: "the gateway's output ended in the middle of a turn".into(),
                code: Some("truncated".into()),
            },
            None,
            None,
        ));
        self.turn_active = false;
    }
}

/// The receipt action and data an older-form `*.respond` call amounts to.
fn event_form_receipt(ask: &Ask, params: &Value) -> (String, Value) {
    let text = |key: &str| text_of(params, key).unwrap_or_default();
    match ask.kind {
        AskKind::Approval => {
            let mut data = Map::new();
            if let Some(all) = params.get("all") {
                data.insert("all".into(), all.clone());
            }
            (text("choice"), Value::Object(data))
        }
        AskKind::Sudo if text("password").is_empty() => ("skip".into(), Value::Null),
        AskKind::Sudo => ("submit".into(), json!({ "password": text("password") })),
        AskKind::Secret if text("value").is_empty() => ("skip".into(), Value::Null),
        AskKind::Secret => ("save".into(), json!({ "value": text("value") })),
        _ => {
            let answer = text_of(params, "answer")
                .or_else(|| text_of(params, "text"))
                .unwrap_or_default();
            if answer.is_empty() {
                ("cancel".into(), Value::Null)
            } else if ask.component == Component::OptionList {
                ("answer".into(), json!({ "answer": answer }))
            } else {
                let qid = ask
                    .questions
                    .first()
                    .map_or("answer".to_owned(), |q| q.id.clone());
                ("answer".into(), json!({ "answers": { qid: answer } }))
            }
        }
    }
}

/// The receipt action and data a newer-form JSON-RPC result amounts to.
fn request_form_receipt(ask: &Ask, result: &Value) -> (String, Value) {
    let value = text_of(result, "value").unwrap_or_default();
    match ask.kind {
        AskKind::Approval => {
            let mut data = Map::new();
            if let Some(all) = result.get("all") {
                data.insert("all".into(), all.clone());
            }
            (
                text_of(result, "choice").unwrap_or_default(),
                Value::Object(data),
            )
        }
        AskKind::Clarify => match result.get("answers") {
            Some(answers) => ("answer".into(), json!({ "answers": answers })),
            None => ("cancel".into(), Value::Null),
        },
        AskKind::Sudo if value.is_empty() => ("skip".into(), Value::Null),
        AskKind::Sudo => ("submit".into(), json!({ "password": value })),
        AskKind::Secret if value.is_empty() => ("skip".into(), Value::Null),
        AskKind::Secret => ("save".into(), json!({ "value": value })),
        _ if value.is_empty() => ("cancel".into(), Value::Null),
        _ => {
            let qid = ask
                .questions
                .first()
                .map_or("answer".to_owned(), |q| q.id.clone());
            ("answer".into(), json!({ "answers": { qid: value } }))
        }
    }
}

fn base_ask(
    id: String,
    kind: AskKind,
    component: Component,
    title: String,
    actions: Vec<String>,
    origin: AskOrigin,
) -> Ask {
    Ask {
        id,
        kind,
        component,
        tool_call_id: None,
        title,
        command: None,
        description: None,
        questions: Vec::new(),
        env_var: None,
        metadata: Vec::new(),
        diff: None,
        pattern_keys: Vec::new(),
        dangerous: false,
        actions,
        response_schema: None,
        expires_at_ms: None,
        origin,
        state: AskState::Pending,
    }
}

fn secret_ask(id: String, payload: &Value, origin: AskOrigin) -> Ask {
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
        ..base_ask(
            id,
            AskKind::Secret,
            Component::SecretPrompt,
            String::new(),
            vec!["save".into(), "skip".into()],
            origin,
        )
    }
}

fn terminal_ask(id: String, origin: AskOrigin) -> Ask {
    let text = "The agent asks what your terminal shows".to_owned();
    Ask {
        questions: vec![Question {
            id: "answer".into(),
            text: text.clone(),
            choices: Vec::new(),
            multi_select: false,
        }],
        ..base_ask(
            id,
            AskKind::TerminalRead,
            Component::QuestionFlow,
            text,
            vec!["answer".into(), "cancel".into()],
            origin,
        )
    }
}

/// The file named by an inline diff's `a/X → b/X` header.
fn diff_filename(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let line = line.trim();
        let (_, after) = line.split_once(" → ")?;
        let name = after.trim().strip_prefix("b/").unwrap_or(after.trim());
        Some(name.to_owned())
    })
}

fn unified_filename(diff: &str) -> Option<String> {
    diff.lines().find_map(|line| {
        let name = line.strip_prefix("+++ ")?;
        Some(name.strip_prefix("b/").unwrap_or(name).trim().to_owned())
    })
}

/// An inline diff minus its decoration lines: what is left reads as a unified diff.
fn inline_to_patch(text: &str) -> String {
    text.lines()
        .filter(|line| {
            let trimmed = line.trim_start();
            !trimmed.starts_with('┊') && !trimmed.contains(" → ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn draft(body: EventBody, index: u64) -> EventDraft {
    EventDraft::new(body, None, Some(index))
}

fn malformed(message: String, text: &str, index: u64) -> EventDraft {
    EventDraft::new(
        EventBody::Malformed {
            message,
            excerpt: excerpt(text, 240),
        },
        None,
        Some(index),
    )
}

/// The JSON-RPC error reply for a server request this console cannot handle.
pub fn unsupported_request_reply(rpc_id: &str, method: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": rpc_id,
        "error": { "code": -32601, "message": format!("this client does not handle `{method}`") }
    })
}

/// Params of a JSON-RPC request frame as a map, for the bridge.
pub fn request_frame(id: u64, method: &str, params: Value) -> Value {
    let mut frame = Map::new();
    frame.insert("jsonrpc".into(), json!("2.0"));
    frame.insert("id".into(), json!(id));
    frame.insert("method".into(), json!(method));
    frame.insert("params".into(), params);
    Value::Object(frame)
}
