//! Gateway `event` notifications: messages, reasoning, tools, notices and event-form asks.

use serde_json::Value;

use super::asks::{secret_ask, terminal_ask};
use super::wire::strip_ansi;
use super::{HermesNormalizer, draft, strings, text_of};
use crate::protocol::ask::{Ask, AskKind, AskOrigin, AskState, Component, Question};
use crate::protocol::channel::{Channel, EventBody, EventDraft, Level, RunOutcome, plan_items};

impl HermesNormalizer {
    pub(super) fn event(&mut self, params: Value, index: u64, out: &mut Vec<EventDraft>) {
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
            // The session's whole state (model, tools, skills, its system prompt), sent
            // before and after each turn: kept in the raw log, not drawn in the run.
            "session.info" => {}
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
                    ..Ask::new(
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
                    let id = match self.open_tools.last() {
                        Some(tool) if !self.approval_ids.contains(&format!("approval-{tool}")) => {
                            format!("approval-{tool}")
                        }
                        Some(tool) => format!("approval-{tool}-{}", self.approvals),
                        None => format!("approval-{}", self.approvals),
                    };
                    self.approval_ids.insert(id.clone());
                    id
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
