//! Each verified AG-UI event mapped to the channel contract's drafts.

use serde_json::{Value, json};

use super::asks::{InterruptSource, ask_from_interrupt};
use super::wire::{AgUiEvent, Upstream};
use super::{AgUiNormalizer, CallInfo, HeldInterrupt};
use crate::protocol::channel::{EventBody, EventDraft, Role, plan_items};
use crate::protocol::limits::excerpt;

impl AgUiNormalizer {
    pub(super) fn map(&mut self, upstream: Upstream, index: u64, out: &mut Vec<EventDraft>) {
        let ts = upstream.ts;
        let mut emit = |body: EventBody| out.push(EventDraft::new(body, ts, Some(index)));
        match upstream.event {
            AgUiEvent::RunStarted { protocol_version } => {
                emit(EventBody::RunStarted { protocol_version })
            }
            AgUiEvent::RunFinished { outcome } => {
                self.ended = true;
                self.finish_run(outcome, ts, index, out);
            }
            AgUiEvent::RunError { message, code } => {
                self.ended = true;
                self.open_held_interrupts(out);
                out.push(EventDraft::new(
                    EventBody::RunFailed { message, code },
                    ts,
                    Some(index),
                ));
            }
            AgUiEvent::StepStarted { name } => emit(EventBody::StepStarted { name }),
            AgUiEvent::StepFinished { name } => emit(EventBody::StepFinished { name }),
            AgUiEvent::TextStart { id, role, name } => {
                if role == Role::Assistant {
                    self.final_candidate = Some((id.clone(), false));
                }
                emit(EventBody::MessageStarted {
                    message_id: id,
                    role,
                    name,
                })
            }
            AgUiEvent::TextContent { id, delta } => {
                if let Some((candidate, has_text)) = &mut self.final_candidate
                    && *candidate == id
                    && !delta.is_empty()
                {
                    *has_text = true;
                }
                emit(EventBody::TextDelta {
                    message_id: id,
                    delta,
                })
            }
            AgUiEvent::TextEnd { id } => emit(EventBody::MessageEnded { message_id: id }),
            AgUiEvent::ToolStart { id, name, parent } => {
                self.final_candidate = None;
                let call = CallInfo {
                    order: self.started_calls,
                    offered: self.config.offered_tools.contains(&name),
                    name: name.clone(),
                    arguments: String::new(),
                    ended: false,
                };
                self.started_calls += 1;
                match self.calls.get_mut(&id) {
                    // A call started again keeps its place in the order.
                    Some(known) => {
                        *known = CallInfo {
                            order: known.order,
                            ..call
                        }
                    }
                    None => {
                        self.calls.insert(id.clone(), call);
                    }
                }
                emit(EventBody::ToolCallStarted {
                    tool_call_id: id,
                    name,
                    parent_message_id: parent,
                    summary: None,
                })
            }
            AgUiEvent::ToolArgs { id, delta } => {
                // Only a call the client may have to run needs its arguments kept here.
                if let Some(call) = self.calls.get_mut(&id)
                    && call.offered
                {
                    call.arguments.push_str(&delta);
                }
                emit(EventBody::ToolCallArgs {
                    tool_call_id: id,
                    delta,
                })
            }
            AgUiEvent::ToolEnd { id } => {
                if let Some(call) = self.calls.get_mut(&id) {
                    call.ended = true;
                }
                emit(EventBody::ToolCallEnded { tool_call_id: id })
            }
            AgUiEvent::ToolResult {
                tool_call_id,
                content,
            } => {
                let of_this_stream = self.calls.remove(&tool_call_id).is_some();
                let surface = a2ui_operations(&content);
                let artifact_id = surface
                    .is_some()
                    .then(|| format!("a2ui-surface-{tool_call_id}"));
                let tool_name = if of_this_stream {
                    None
                } else {
                    self.config.prior_calls.get(&tool_call_id).cloned()
                };
                emit(EventBody::ToolResult {
                    tool_call_id,
                    tool_name,
                    content,
                    is_error: false,
                    duration_ms: None,
                });
                if let (Some(operations), Some(artifact_id)) = (surface, artifact_id) {
                    self.artifacts.insert(artifact_id.clone());
                    emit(EventBody::Artifact {
                        artifact_id,
                        artifact_kind: "a2ui_surface".into(),
                        title: None,
                        data: json!({ "a2ui_operations": operations }),
                    });
                }
            }
            AgUiEvent::ReasoningStart { .. } | AgUiEvent::ReasoningEnd { .. } => {
                // Phase brackets only; their messages carry the content. The raw log keeps them.
            }
            AgUiEvent::ReasoningMessageStart { id } => {
                emit(EventBody::ReasoningStarted { message_id: id })
            }
            AgUiEvent::ReasoningMessageContent { id, delta } => emit(EventBody::ReasoningDelta {
                message_id: id,
                delta,
            }),
            AgUiEvent::ReasoningMessageEnd { id } => {
                emit(EventBody::ReasoningEnded { message_id: id })
            }
            AgUiEvent::ReasoningEncrypted {
                subtype,
                entity_id,
                value,
            } => emit(EventBody::ReasoningEncrypted {
                subtype,
                entity_id,
                value,
            }),
            AgUiEvent::StateSnapshot { snapshot } => emit(EventBody::StateSnapshot { snapshot }),
            AgUiEvent::StateDelta { patch } => emit(EventBody::StateDelta { patch }),
            AgUiEvent::MessagesSnapshot { messages } => {
                emit(EventBody::MessagesSnapshot { messages })
            }
            AgUiEvent::ActivitySnapshot {
                id,
                activity_type,
                content,
                replace,
            } => {
                if activity_type == "plan" {
                    emit(EventBody::Plan {
                        items: plan_items(content.get("todos")),
                    });
                    return;
                }
                if !replace && self.artifacts.contains(&id) {
                    return;
                }
                self.artifacts.insert(id.clone());
                // tool-ui payloads name themselves in `title`; the pane and timeline use it.
                let title = content
                    .get("title")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                emit(EventBody::Artifact {
                    artifact_id: id,
                    artifact_kind: activity_type.replace('-', "_"),
                    title,
                    data: content,
                })
            }
            AgUiEvent::ActivityDelta { id, patch } => emit(EventBody::ArtifactPatched {
                artifact_id: id,
                patch,
            }),
            AgUiEvent::Raw { event, source } => emit(EventBody::Raw { source, event }),
            AgUiEvent::Custom {
                name,
                value,
                raw_id,
            } if name == "on_interrupt" => {
                let parsed = match &value {
                    Value::String(text) => serde_json::from_str(text).unwrap_or(Value::Null),
                    other => other.clone(),
                };
                let fallback_id = format!("interrupt-{index}");
                match ask_from_interrupt(&parsed, InterruptSource::Custom { fallback_id }) {
                    Ok(ask) => self.held_interrupts.push(HeldInterrupt {
                        ask,
                        raw_id,
                        value: parsed,
                        ts,
                        index,
                    }),
                    Err(problem) => emit(EventBody::Malformed {
                        message: format!("CUSTOM on_interrupt is malformed: {problem}"),
                        excerpt: excerpt(&value.to_string(), 240),
                    }),
                }
            }
            AgUiEvent::Custom { name, value, .. } => emit(EventBody::Custom { name, value }),
            AgUiEvent::SubagentStarted { id, name, .. } => emit(EventBody::SubagentStarted {
                subagent_run_id: id,
                name,
            }),
            AgUiEvent::SubagentFinished { id, .. } => emit(EventBody::SubagentFinished {
                subagent_run_id: id,
                error: None,
            }),
            AgUiEvent::SubagentError { id, message } => emit(EventBody::SubagentFinished {
                subagent_run_id: id,
                error: Some(message),
            }),
            AgUiEvent::Unknown { type_name, json } => emit(EventBody::Unknown {
                upstream_type: type_name,
                event: json,
            }),
            // Expanded or translated before this point.
            AgUiEvent::TextChunk { .. }
            | AgUiEvent::ToolChunk { .. }
            | AgUiEvent::ReasoningChunk { .. }
            | AgUiEvent::ThinkingStart
            | AgUiEvent::ThinkingEnd
            | AgUiEvent::ThinkingTextStart
            | AgUiEvent::ThinkingTextContent { .. }
            | AgUiEvent::ThinkingTextEnd => {}
        }
    }
}

/// The A2UI operations in a `render_a2ui`-style tool result, if it carries them.
fn a2ui_operations(content: &Value) -> Option<Value> {
    let Value::String(text) = content else {
        return content.get("a2ui_operations").cloned();
    };
    if !text.contains("a2ui_operations") {
        return None;
    }
    let parsed: Value = serde_json::from_str(text).ok()?;
    parsed.get("a2ui_operations").cloned()
}
