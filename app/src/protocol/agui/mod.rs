//! AG-UI adapter: upstream SSE frames or JSON events → verified [`EventDraft`]s.
//!
//! Order of work per event (AG-UI 1.0): parse and type-check (`wire`), translate the
//! deprecated THINKING_* family, expand chunks (`chunks`), verify (`verify`), map to
//! the channel contract (`map`, with the run's end in `outcome`).

pub mod asks;
pub mod chunks;
pub mod verify;
pub mod wire;

mod map;
mod outcome;

use std::collections::HashMap;

use crate::protocol::idmap::{IdMap, IdSet};

use serde_json::Value;

use crate::protocol::ask::Ask;
use crate::protocol::channel::{EventBody, EventDraft};
use crate::protocol::limits::excerpt;
use crate::protocol::sse::{SseError, SseFrame};

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

/// A CUSTOM `on_interrupt` ask waiting for the run's end.
struct HeldInterrupt {
    ask: Ask,
    /// `rawEvent.id`: the interrupt's id in the framework, which the outcome repeats.
    raw_id: Option<String>,
    value: Value,
    ts: Option<i64>,
    index: u64,
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

impl crate::protocol::sse::FrameNormalizer for AgUiNormalizer {
    fn upstream_count(&self) -> u64 {
        AgUiNormalizer::upstream_count(self)
    }

    fn push_frame(
        &mut self,
        frame: Result<crate::protocol::sse::SseFrame<'_>, crate::protocol::sse::SseError>,
        out: &mut Vec<EventDraft>,
    ) {
        AgUiNormalizer::push_frame(self, frame, out)
    }

    fn finish(&mut self, out: &mut Vec<EventDraft>) {
        AgUiNormalizer::finish(self, out)
    }
}
