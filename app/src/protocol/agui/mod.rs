//! AG-UI adapter: upstream SSE frames or JSON events → verified [`EventDraft`]s.
//!
//! Order of work per event (AG-UI 1.0): parse and type-check (`wire`), translate the
//! deprecated THINKING_* family, expand chunks (`chunks`), verify (`verify`), map to
//! the channel contract (here).

pub mod asks;
pub mod chunks;
pub mod verify;
pub mod wire;

use std::collections::HashMap;

use crate::protocol::idmap::{IdMap, IdSet};

use serde_json::{Value, json};

use crate::protocol::ask::Ask;
use crate::protocol::channel::{EventBody, EventDraft, Level, Role, RunOutcome, plan_items};
use crate::protocol::limits::excerpt;
use crate::protocol::sse::{SseError, SseFrame};

use self::asks::{InterruptSource, ask_for_frontend_tool, ask_from_interrupt};
use self::chunks::ChunkExpander;
use self::verify::Verifier;
use self::wire::{AgUiEvent, Upstream, parse_event};

/// What the adapter needs to know about the run it reads.
#[derive(Clone, Debug)]
pub struct AgUiConfig {
    /// Apply the ordering rules (a violation is reported and the event skipped). When
    /// off, every event is applied and no diagnosis is made.
    pub verify: bool,
    /// Names of the tools the client offered; an unanswered call to one is an ask.
    pub offered_tools: Vec<String>,
    /// Tool calls (id → name) from earlier runs of the thread, whose results a resume
    /// run may deliver.
    pub prior_calls: HashMap<String, String>,
}

impl Default for AgUiConfig {
    fn default() -> Self {
        Self {
            verify: true,
            offered_tools: Vec::new(),
            prior_calls: HashMap::new(),
        }
    }
}

impl AgUiConfig {
    /// Reads the offered tools and earlier tool calls from the RunAgentInput sent.
    pub fn from_run_input(input: &Value) -> Self {
        let offered_tools = input
            .get("tools")
            .and_then(Value::as_array)
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|tool| tool.get("name")?.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let mut prior_calls = HashMap::new();
        for message in input
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for call in message
                .get("toolCalls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let (Some(id), Some(name)) = (
                    call.get("id").and_then(Value::as_str),
                    call.pointer("/function/name").and_then(Value::as_str),
                ) {
                    prior_calls.insert(id.to_owned(), name.to_owned());
                }
            }
        }
        Self {
            verify: true,
            offered_tools,
            prior_calls,
        }
    }
}

#[derive(Debug)]
struct CallInfo {
    /// When the call first started, among the calls of this stream.
    order: usize,
    name: String,
    offered: bool,
    arguments: String,
    ended: bool,
}

/// Ids for the deprecated THINKING_* events, which carry none.
#[derive(Debug, Default)]
struct ThinkingIds {
    count: u32,
    phase: Option<String>,
    text: Option<String>,
}

/// Normalizes one AG-UI response stream.
pub struct AgUiNormalizer {
    config: AgUiConfig,
    chunks: ChunkExpander,
    verifier: Verifier,
    next_upstream: u64,
    thinking: ThinkingIds,
    /// The calls of this stream still waiting for their result (what a frontend tool ask
    /// at the run's end is made from). A call's record goes as soon as its result
    /// arrives, while it is still in the cache, instead of all at once when a long run
    /// ends.
    calls: IdMap<CallInfo>,
    /// How many calls have started, for their order.
    started_calls: usize,
    final_candidate: Option<(String, bool)>,
    artifacts: IdSet,
    /// CUSTOM `on_interrupt` asks, held until the run's end: an agent may announce the
    /// same interrupt again in `RUN_FINISHED.outcome.interrupts`, and it is one ask.
    held_interrupts: Vec<HeldInterrupt>,
    ended: bool,
    scratch: Vec<Result<Upstream, String>>,
}

impl AgUiNormalizer {
    pub fn new(config: AgUiConfig) -> Self {
        let prior: IdSet = config.prior_calls.keys().cloned().collect();
        Self {
            verifier: Verifier::new(prior),
            config,
            chunks: ChunkExpander::new(),
            next_upstream: 0,
            thinking: ThinkingIds::default(),
            calls: IdMap::default(),
            started_calls: 0,
            final_candidate: None,
            artifacts: IdSet::default(),
            held_interrupts: Vec::new(),
            ended: false,
            scratch: Vec::new(),
        }
    }

    /// How many upstream events have been read; the next one gets this position.
    pub fn upstream_count(&self) -> u64 {
        self.next_upstream
    }

    /// One decoded SSE frame (or the decoder's error for it).
    pub fn push_frame(&mut self, frame: Result<SseFrame<'_>, SseError>, out: &mut Vec<EventDraft>) {
        match frame {
            Ok(frame) => self.push_json(frame.data, out),
            Err(error) => {
                let index = self.take_index();
                out.push(EventDraft::new(
                    EventBody::Malformed {
                        message: error.to_string(),
                        excerpt: String::new(),
                    },
                    None,
                    Some(index),
                ));
            }
        }
    }

    /// One upstream event as JSON text.
    pub fn push_json(&mut self, text: &str, out: &mut Vec<EventDraft>) {
        let index = self.take_index();
        match parse_event(text) {
            Ok(upstream) => self.push_event(upstream, index, out),
            Err(error) => out.push(EventDraft::new(
                EventBody::Malformed {
                    message: error.to_string(),
                    excerpt: excerpt(text, 240),
                },
                None,
                Some(index),
            )),
        }
    }

    fn take_index(&mut self) -> u64 {
        let index = self.next_upstream;
        self.next_upstream += 1;
        index
    }

    fn push_event(&mut self, mut upstream: Upstream, index: u64, out: &mut Vec<EventDraft>) {
        if upstream.event.is_thinking() {
            upstream = self.translate_thinking(upstream);
        }
        if !upstream.event.is_chunk() && self.chunks.is_idle() {
            // Nothing to expand and nothing open to close: the common case goes straight on.
            self.verify_and_map(upstream, index, out);
            return;
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        self.chunks.expand(upstream, &mut scratch);
        for expanded in scratch.drain(..) {
            match expanded {
                Ok(event) => self.verify_and_map(event, index, out),
                Err(message) => {
                    if self.config.verify {
                        out.push(violation(message, index));
                    }
                }
            }
        }
        self.scratch = scratch;
    }

    fn translate_thinking(&mut self, upstream: Upstream) -> Upstream {
        let thinking = &mut self.thinking;
        let mut next_id = |suffix: &str| {
            thinking.count += 1;
            format!("thinking-{}{suffix}", thinking.count)
        };
        let event = match upstream.event {
            AgUiEvent::ThinkingStart => {
                let id = next_id("");
                self.thinking.phase = Some(id.clone());
                AgUiEvent::ReasoningStart { id }
            }
            AgUiEvent::ThinkingEnd => AgUiEvent::ReasoningEnd {
                id: self
                    .thinking
                    .phase
                    .take()
                    .unwrap_or_else(|| "thinking".into()),
            },
            AgUiEvent::ThinkingTextStart => {
                let id = next_id("-text");
                self.thinking.text = Some(id.clone());
                AgUiEvent::ReasoningMessageStart { id }
            }
            AgUiEvent::ThinkingTextContent { delta } => AgUiEvent::ReasoningMessageContent {
                id: self
                    .thinking
                    .text
                    .clone()
                    .unwrap_or_else(|| "thinking-text".into()),
                delta,
            },
            AgUiEvent::ThinkingTextEnd => AgUiEvent::ReasoningMessageEnd {
                id: self
                    .thinking
                    .text
                    .take()
                    .unwrap_or_else(|| "thinking-text".into()),
            },
            other => other,
        };
        Upstream { event, ..upstream }
    }

    fn verify_and_map(&mut self, upstream: Upstream, index: u64, out: &mut Vec<EventDraft>) {
        if self.config.verify {
            if let Err(message) = self.verifier.check(&upstream.event) {
                out.push(violation(message, index));
                return;
            }
        } else {
            self.verifier.record(&upstream.event);
        }
        self.map(upstream, index, out);
    }

    fn map(&mut self, upstream: Upstream, index: u64, out: &mut Vec<EventDraft>) {
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

    fn finish_run(
        &mut self,
        outcome: Option<Value>,
        ts: Option<i64>,
        index: u64,
        out: &mut Vec<EventDraft>,
    ) {
        let outcome_type = outcome
            .as_ref()
            .and_then(|o| o.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("success");
        let interrupts = match outcome_type {
            "interrupt" => outcome
                .as_ref()
                .and_then(|o| o.get("interrupts"))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        // A held CUSTOM interrupt the outcome names again is that interrupt: the outcome's
        // form wins (it resumes with the 1.0 `resume` list), filled in from the CUSTOM one.
        let mut announced: Vec<(usize, Value)> = Vec::new();
        for (position, interrupt) in interrupts.iter().enumerate() {
            let id = interrupt.get("id").and_then(Value::as_str);
            let held = id.and_then(|id| {
                self.held_interrupts
                    .iter()
                    .position(|held| held.raw_id.as_deref() == Some(id) || held.ask.id == id)
            });
            if let Some(held) = held {
                let held = self.held_interrupts.remove(held);
                announced.push((position, merge_interrupt(held.value, interrupt)));
            }
        }
        let mut ask_ids = self.open_held_interrupts(out);
        let mut emit = |body: EventBody| out.push(EventDraft::new(body, ts, Some(index)));
        match outcome_type {
            "interrupt" => {
                for (position, interrupt) in interrupts.iter().enumerate() {
                    let merged = announced
                        .iter()
                        .find(|(merged, _)| *merged == position)
                        .map(|(_, merged)| merged);
                    match ask_from_interrupt(merged.unwrap_or(interrupt), InterruptSource::Outcome)
                    {
                        Ok(ask) => {
                            ask_ids.push(ask.id.clone());
                            emit(EventBody::AskOpened { ask: Box::new(ask) });
                        }
                        Err(problem) => emit(EventBody::Malformed {
                            message: format!("RUN_FINISHED interrupt is malformed: {problem}"),
                            excerpt: excerpt(&interrupt.to_string(), 240),
                        }),
                    }
                }
            }
            "cancelled" => {
                emit(EventBody::RunFinished {
                    outcome: RunOutcome::Cancelled,
                });
                return;
            }
            other => {
                if other != "success" {
                    emit(EventBody::Notice {
                        level: Level::Warning,
                        text: format!("unknown run outcome {other:?}, treated as success"),
                        source: "RUN_FINISHED".into(),
                    });
                }
                let pending: Vec<String> = match outcome
                    .as_ref()
                    .and_then(|o| o.get("pendingToolCallIds"))
                    .and_then(Value::as_array)
                {
                    Some(ids) => ids
                        .iter()
                        .filter_map(|id| id.as_str().map(str::to_owned))
                        .collect(),
                    None => {
                        let mut waiting: Vec<(usize, &String)> = self
                            .calls
                            .iter()
                            .filter(|(_, call)| call.ended && call.offered)
                            .map(|(id, call)| (call.order, id))
                            .collect();
                        waiting.sort_unstable();
                        waiting.into_iter().map(|(_, id)| id.clone()).collect()
                    }
                };
                for id in pending {
                    let (name, arguments) = match self.calls.get(&id) {
                        Some(call) => (call.name.clone(), call.arguments.clone()),
                        None => (
                            self.config
                                .prior_calls
                                .get(&id)
                                .cloned()
                                .unwrap_or_else(|| "tool".into()),
                            String::new(),
                        ),
                    };
                    ask_ids.push(id.clone());
                    emit(EventBody::AskOpened {
                        ask: Box::new(ask_for_frontend_tool(&id, &name, &arguments)),
                    });
                }
            }
        }
        if ask_ids.is_empty() {
            if let Some((message_id, true)) = self.final_candidate.take() {
                emit(EventBody::FinalAnswer {
                    message_id: Some(message_id),
                    text: None,
                });
            }
            emit(EventBody::RunFinished {
                outcome: RunOutcome::Success,
            });
        } else {
            emit(EventBody::RunFinished {
                outcome: RunOutcome::Interrupted { ask_ids },
            });
        }
    }

    /// End of the stream. A stream that stopped before its terminal event fails the run
    /// with a diagnosis (never a made-up RUN_FINISHED); what it left open is closed so
    /// partial text is kept.
    pub fn finish(&mut self, out: &mut Vec<EventDraft>) {
        let (diagnosis, open) = self.verifier.finish();
        let Some(diagnosis) = diagnosis else {
            return;
        };
        if self.ended {
            return;
        }
        self.ended = true;
        self.open_held_interrupts(out);
        for message_id in open.messages {
            out.push(EventDraft::new(
                EventBody::MessageEnded { message_id },
                None,
                None,
            ));
        }
        for message_id in open.reasoning {
            out.push(EventDraft::new(
                EventBody::ReasoningEnded { message_id },
                None,
                None,
            ));
        }
        for tool_call_id in open.calls {
            out.push(EventDraft::new(
                EventBody::ToolCallEnded { tool_call_id },
                None,
                None,
            ));
        }
        out.push(EventDraft::new(
            EventBody::RunFailed {
                message: diagnosis,
                code: Some("truncated".into()),
            },
            None,
            None,
        ));
    }
}

/// A CUSTOM `on_interrupt` ask waiting for the run's end.
struct HeldInterrupt {
    ask: Ask,
    /// `rawEvent.id`: the interrupt's id in the framework, which the outcome repeats.
    raw_id: Option<String>,
    value: Value,
    ts: Option<i64>,
    index: u64,
}

impl AgUiNormalizer {
    /// Opens the held CUSTOM interrupts the outcome did not repeat, at their own place in
    /// the upstream log; returns their ids.
    fn open_held_interrupts(&mut self, out: &mut Vec<EventDraft>) -> Vec<String> {
        std::mem::take(&mut self.held_interrupts)
            .into_iter()
            .map(|held| {
                let id = held.ask.id.clone();
                out.push(EventDraft::new(
                    EventBody::AskOpened {
                        ask: Box::new(held.ask),
                    },
                    held.ts,
                    Some(held.index),
                ));
                id
            })
            .collect()
    }
}

/// The outcome's interrupt over the CUSTOM event's value: the outcome's fields win.
fn merge_interrupt(custom: Value, outcome: &Value) -> Value {
    let (Value::Object(mut merged), Value::Object(outcome)) = (custom, outcome) else {
        return outcome.clone();
    };
    for (key, value) in outcome {
        merged.insert(key.clone(), value.clone());
    }
    Value::Object(merged)
}

fn violation(message: String, index: u64) -> EventDraft {
    EventDraft::new(
        EventBody::ProtocolViolation {
            message: format!("protocol violation: {message}"),
            applied: false,
        },
        None,
        Some(index),
    )
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
