//! Hermes gateway adapter: newline-delimited JSON-RPC frames from a `tui_gateway` →
//! [`EventDraft`]s. Handles both ask forms: `*.request` events answered by `*.respond`
//! calls (≤ 0.21.1) and server-to-client requests with `srq-…` ids (≥ 0.21.2).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::ask::Ask;
use super::channel::{Channel, EventBody, EventDraft, Level, Role};
use super::limits::{self, excerpt};

mod answers;
mod asks;
pub mod cron;
pub use self::asks::gateway_timeout_ms;
mod events;
mod wire;

pub use self::wire::{
    SUPPORTED_REQUESTS, TranscriptLine, is_supported_request, parse_transcript_line, request_frame,
    strip_ansi, unsupported_request_reply,
};

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
    /// Ids given to approvals that came without one: a tool that raises a second gets a
    /// second id.
    approval_ids: HashSet<String>,
    /// Asks still open, oldest first (Hermes 0.19 answers approvals first-in, first-out).
    open_asks: Vec<Ask>,
    /// When the frame being read arrived, for the deadlines of the asks it opens; unknown
    /// when a recorded transcript is read.
    now_ms: Option<i64>,
}

use crate::protocol::ask::strings;

fn text_of(payload: &Value, key: &str) -> Option<String> {
    payload.get(key)?.as_str().map(str::to_owned)
}

impl HermesNormalizer {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn upstream_count(&self) -> u64 {
        self.next_upstream
    }

    /// The time the next frames arrive at: an ask they open gets the deadline the gateway
    /// holds it to ([`gateway_timeout_ms`]).
    pub fn arriving_at(&mut self, now_ms: i64) {
        self.now_ms = Some(now_ms);
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

    /// End of the gateway's output. A turn still running ends failed: the gateway died.
    pub fn finish(&mut self, out: &mut Vec<EventDraft>) {
        if self.turn_active {
            self.fail(
                "the gateway's output ended in the middle of a turn",
                "truncated",
                out,
            );
        }
    }

    /// Ends the run failed, closing what its turn left open (whether or not it began).
    pub fn fail(&mut self, message: &str, code: &str, out: &mut Vec<EventDraft>) {
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
                message: message.into(),
                code: Some(code.into()),
            },
            None,
            None,
        ));
        self.turn_active = false;
    }
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
