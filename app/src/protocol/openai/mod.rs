//! OpenAI-compatible adapter: a streamed `POST /v1/responses` or `/v1/chat/completions`
//! body (SSE) → channel events. Text, reasoning (summaries), tool calls (parallel, their
//! arguments streamed), refusals, usage and errors map onto the contract like the other
//! adapters; a Responses `mcp_approval_request` becomes an approval ask and pauses the
//! run. A stream that stops before its end fails the run and keeps what arrived.

mod approvals;
mod chat;
pub mod ksadk;
pub mod request;
mod responses;

pub use approvals::{mcp_approval_ask, mcp_approval_response};

use serde_json::Value;

use crate::protocol::agui::asks::ask_for_frontend_tool;
use crate::protocol::ask::Ask;
use crate::protocol::channel::{EventBody, EventDraft, Level, RunOutcome};
use crate::protocol::limits::excerpt;
use crate::protocol::sse::{SseError, SseFrame};

/// Which of the two APIs a stream speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenAiApi {
    Responses,
    Chat,
}

/// One call the model is making, keyed by where the stream names it.
#[derive(Debug)]
struct Call {
    /// Chat: the `index`; Responses: the output item's id.
    key: String,
    tool_call_id: String,
    name: String,
    /// The arguments as streamed (JSON text).
    arguments: String,
    /// A function the console runs (not a call the runtime makes itself).
    function: bool,
    ended: bool,
}

/// Normalizes one streamed response.
pub struct OpenAiNormalizer {
    api: OpenAiApi,
    next_upstream: u64,
    started: bool,
    ended: bool,
    /// The open assistant message and reasoning, by id.
    message: Option<String>,
    reasoning: Option<String>,
    /// The last message that carried text: the run's answer unless calls follow it.
    last_message: Option<String>,
    calls: Vec<Call>,
    refused: bool,
    /// Approval requests of this response, opened as asks; the run pauses on them.
    approvals: Vec<String>,
    /// The Chat stream's `finish_reason`, once given.
    finish_reason: Option<String>,
    /// A fallback id for messages of a stream that names none.
    response_id: String,
    /// Chat's usage, which arrives before `[DONE]`.
    usage: Option<Value>,
    /// The runtime's session holding this response, when it says (KsADK).
    session_id: Option<String>,
    /// KsADK's Chat stream announced an approval, after which it ends with no terminal
    /// event: its end is the pause, not a truncation.
    ends_on_approval: bool,
    /// What a stream that sends nothing means, when the request says (see [`Self::when_silent`]).
    silent_means: Option<String>,
    /// KsADK's interrupts, opened as asks when the response ends.
    interrupts: Vec<Ask>,
    /// The user the runtime's session belongs to, when it is not its default one.
    ksadk_user: Option<String>,
}

impl OpenAiNormalizer {
    pub fn new(api: OpenAiApi) -> Self {
        Self {
            api,
            next_upstream: 0,
            started: false,
            ended: false,
            message: None,
            reasoning: None,
            last_message: None,
            calls: Vec::new(),
            refused: false,
            approvals: Vec::new(),
            finish_reason: None,
            response_id: "response".into(),
            usage: None,
            session_id: None,
            ends_on_approval: false,
            silent_means: None,
            interrupts: Vec::new(),
            ksadk_user: None,
        }
    }

    /// What a stream that sends no event at all means, said instead of "no events".
    pub fn when_silent(mut self, meaning: &str) -> Self {
        self.silent_means = Some(meaning.to_owned());
        self
    }

    /// A stream in a session of `user`'s (KsADK's AG-UI side runs its own as `agui-user`):
    /// an interrupt raised there is answered as them.
    pub fn for_user(mut self, user: Option<String>) -> Self {
        self.ksadk_user = user;
        self
    }

    /// A stream asked for in `session` of the runtime (KsADK): its interrupts are held
    /// there unless the stream names another (its Chat stream never names one).
    pub fn in_session(mut self, session: Option<String>) -> Self {
        self.session_id = session;
        self
    }

    /// How many upstream events have been read.
    pub fn upstream_count(&self) -> u64 {
        self.next_upstream
    }

    /// One decoded SSE frame (or the decoder's error for it).
    pub fn push_frame(&mut self, frame: Result<SseFrame<'_>, SseError>, out: &mut Vec<EventDraft>) {
        match frame {
            Ok(frame) => self.push_event(frame.event, frame.data, out),
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

    /// One upstream event as JSON text (Chat's `[DONE]` included).
    pub fn push_json(&mut self, text: &str, out: &mut Vec<EventDraft>) {
        self.push_event(None, text, out);
    }

    /// One upstream event: its SSE `event:` name, when it has one, and its JSON text. The
    /// name stands for the event's `type` when the data carries none (KsADK names its
    /// events only there).
    pub fn push_event(&mut self, name: Option<&str>, text: &str, out: &mut Vec<EventDraft>) {
        let index = self.take_index();
        if self.ended {
            return;
        }
        if text.trim() == "[DONE]" {
            self.chat_done(index, out);
            return;
        }
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(mut event)) => {
                if let Some(name) = name.filter(|name| *name != "message")
                    && !event.contains_key("type")
                {
                    event.insert("type".into(), Value::String(name.to_owned()));
                }
                let value = Value::Object(event);
                self.ensure_started(index, out);
                // Chunks carry `choices`; a Chat stream of named Responses-style events
                // (KsADK's) is read as those events.
                match self.api {
                    OpenAiApi::Chat
                        if value.get("choices").is_some()
                            || value.get("type").is_none()
                            || value.get("error").is_some_and(|e| !e.is_null()) =>
                    {
                        self.chat_chunk(&value, index, out)
                    }
                    _ => self.responses_event(&value, index, out),
                }
            }
            Ok(_) => out.push(malformed("an event must be a JSON object", text, index)),
            Err(error) => out.push(malformed(&error.to_string(), text, index)),
        }
    }

    /// End of the stream: one that stopped before its end fails the run, keeping what
    /// arrived (open text, reasoning and calls are closed).
    pub fn finish(&mut self, out: &mut Vec<EventDraft>) {
        if self.ended {
            return;
        }
        // Some servers end a complete Chat stream without `[DONE]`.
        if (self.api == OpenAiApi::Chat && self.finish_reason.is_some()) || self.ends_on_approval {
            let (usage, index) = (self.usage.take(), self.next_upstream);
            self.end_run(usage.as_ref(), index, out);
            return;
        }
        self.ended = true;
        self.close_all(None, out);
        let message = if self.started {
            "the stream stopped before the response was complete".to_owned()
        } else {
            self.silent_means
                .clone()
                .unwrap_or_else(|| "the endpoint sent no events".to_owned())
        };
        out.push(EventDraft::new(
            EventBody::RunFailed {
                message,
                code: Some("truncated".into()),
            },
            None,
            None,
        ));
    }

    /// The session a response names (at its top level, or in its metadata).
    fn note_session(&mut self, response: &Value) {
        if let Some(id) = response
            .get("session_id")
            .or_else(|| response.pointer("/metadata/session_id"))
            .and_then(Value::as_str)
        {
            self.session_id = Some(id.to_owned());
        }
    }

    fn take_index(&mut self) -> u64 {
        let index = self.next_upstream;
        self.next_upstream += 1;
        index
    }

    fn ensure_started(&mut self, index: u64, out: &mut Vec<EventDraft>) {
        if !self.started {
            self.started = true;
            out.push(draft(
                EventBody::RunStarted {
                    protocol_version: None,
                },
                index,
            ));
        }
    }

    fn text(&mut self, message_id: &str, delta: &str, index: u64, out: &mut Vec<EventDraft>) {
        if delta.is_empty() {
            return;
        }
        self.end_reasoning(index, out);
        if self.message.as_deref() != Some(message_id) {
            self.end_message(index, out);
            self.message = Some(message_id.to_owned());
            out.push(draft(
                EventBody::MessageStarted {
                    message_id: message_id.to_owned(),
                    role: Default::default(),
                    name: None,
                },
                index,
            ));
        }
        self.last_message = Some(message_id.to_owned());
        out.push(draft(
            EventBody::TextDelta {
                message_id: message_id.to_owned(),
                delta: delta.to_owned(),
            },
            index,
        ));
    }

    fn reason(&mut self, reasoning_id: &str, delta: &str, index: u64, out: &mut Vec<EventDraft>) {
        if delta.is_empty() {
            return;
        }
        if self.reasoning.as_deref() != Some(reasoning_id) {
            self.end_reasoning(index, out);
            self.reasoning = Some(reasoning_id.to_owned());
            out.push(draft(
                EventBody::ReasoningStarted {
                    message_id: reasoning_id.to_owned(),
                },
                index,
            ));
        }
        out.push(draft(
            EventBody::ReasoningDelta {
                message_id: reasoning_id.to_owned(),
                delta: delta.to_owned(),
            },
            index,
        ));
    }

    fn end_message(&mut self, index: u64, out: &mut Vec<EventDraft>) {
        if let Some(message_id) = self.message.take() {
            out.push(draft(EventBody::MessageEnded { message_id }, index));
        }
    }

    fn end_reasoning(&mut self, index: u64, out: &mut Vec<EventDraft>) {
        if let Some(message_id) = self.reasoning.take() {
            out.push(draft(EventBody::ReasoningEnded { message_id }, index));
        }
    }

    /// Opens a call; `function` when the console is to run it.
    fn start_call(
        &mut self,
        key: &str,
        tool_call_id: &str,
        name: &str,
        function: bool,
        index: u64,
        out: &mut Vec<EventDraft>,
    ) {
        if self.calls.iter().any(|call| call.key == key) {
            return;
        }
        self.calls.push(Call {
            key: key.to_owned(),
            tool_call_id: tool_call_id.to_owned(),
            name: name.to_owned(),
            arguments: String::new(),
            function,
            ended: false,
        });
        out.push(draft(
            EventBody::ToolCallStarted {
                tool_call_id: tool_call_id.to_owned(),
                name: name.to_owned(),
                parent_message_id: self.message.clone(),
                summary: None,
            },
            index,
        ));
    }

    fn call_args(&mut self, key: &str, delta: &str, index: u64, out: &mut Vec<EventDraft>) {
        let Some(call) = self
            .calls
            .iter_mut()
            .find(|call| call.key == key && !call.ended)
        else {
            out.push(draft(
                EventBody::ProtocolViolation {
                    message: format!(
                        "arguments for call {key:?}, which was never started: {}",
                        excerpt(delta, 120)
                    ),
                    applied: false,
                },
                index,
            ));
            return;
        };
        if !delta.is_empty() {
            call.arguments.push_str(delta);
            out.push(draft(
                EventBody::ToolCallArgs {
                    tool_call_id: call.tool_call_id.clone(),
                    delta: delta.to_owned(),
                },
                index,
            ));
        }
    }

    fn end_call(&mut self, key: &str, index: u64, out: &mut Vec<EventDraft>) {
        if let Some(call) = self
            .calls
            .iter_mut()
            .find(|call| call.key == key && !call.ended)
        {
            call.ended = true;
            out.push(draft(
                EventBody::ToolCallEnded {
                    tool_call_id: call.tool_call_id.clone(),
                },
                index,
            ));
        }
    }

    /// Closes what is open; `index` is the upstream event that closed it, if one did.
    fn close_all(&mut self, index: Option<u64>, out: &mut Vec<EventDraft>) {
        let at = |body| EventDraft::new(body, None, index);
        if let Some(message_id) = self.reasoning.take() {
            out.push(at(EventBody::ReasoningEnded { message_id }));
        }
        if let Some(message_id) = self.message.take() {
            out.push(at(EventBody::MessageEnded { message_id }));
        }
        for call in self.calls.iter_mut().filter(|call| !call.ended) {
            call.ended = true;
            out.push(at(EventBody::ToolCallEnded {
                tool_call_id: call.tool_call_id.clone(),
            }));
        }
    }

    /// The run's end: the answer pinned (when the model ended on text), refusals and
    /// usage said, and the outcome — paused when approvals wait or the model called
    /// functions, each of which becomes an ask the console runs or the operator answers.
    fn end_run(&mut self, usage: Option<&Value>, index: u64, out: &mut Vec<EventDraft>) {
        self.close_all(Some(index), out);
        self.ended = true;
        if self.refused {
            out.push(notice(
                Level::Warning,
                "The model refused this request.",
                "openai.refusal",
                index,
            ));
        }
        if let Some(line) = usage.and_then(usage_line) {
            out.push(notice(Level::Info, &line, "openai.usage", index));
        }
        self.open_interrupts(index, out);
        let functions: Vec<&Call> = self.calls.iter().filter(|call| call.function).collect();
        let mut waiting = self.approvals.clone();
        for call in &functions {
            waiting.push(call.tool_call_id.clone());
            let ask = ask_for_frontend_tool(&call.tool_call_id, &call.name, &call.arguments);
            out.push(draft(EventBody::AskOpened { ask: Box::new(ask) }, index));
        }
        // A model that called functions waits for their results: no answer yet.
        if waiting.is_empty()
            && let Some(message_id) = self.last_message.clone()
        {
            out.push(draft(
                EventBody::FinalAnswer {
                    message_id: Some(message_id),
                    text: None,
                },
                index,
            ));
        }
        let outcome = if waiting.is_empty() {
            RunOutcome::Success
        } else {
            RunOutcome::Interrupted { ask_ids: waiting }
        };
        out.push(draft(EventBody::RunFinished { outcome }, index));
    }

    fn fail(
        &mut self,
        message: String,
        code: Option<String>,
        index: u64,
        out: &mut Vec<EventDraft>,
    ) {
        self.close_all(Some(index), out);
        self.ended = true;
        out.push(draft(EventBody::RunFailed { message, code }, index));
    }
}

/// "Tokens: 120 in (100 cached), 48 out (30 reasoning)".
fn usage_line(usage: &Value) -> Option<String> {
    let number = |keys: &[&str]| keys.iter().find_map(|key| usage.pointer(key)?.as_u64());
    let input = number(&["/input_tokens", "/prompt_tokens"])?;
    let output = number(&["/output_tokens", "/completion_tokens"]).unwrap_or(0);
    // A runtime that counts nothing reports zeros: nothing worth a line.
    if input == 0 && output == 0 {
        return None;
    }
    let cached = number(&[
        "/input_tokens_details/cached_tokens",
        "/prompt_tokens_details/cached_tokens",
    ])
    .filter(|n| *n > 0)
    .map(|n| format!(" ({n} cached)"))
    .unwrap_or_default();
    let reasoning = number(&[
        "/output_tokens_details/reasoning_tokens",
        "/completion_tokens_details/reasoning_tokens",
    ])
    .filter(|n| *n > 0)
    .map(|n| format!(" ({n} reasoning)"))
    .unwrap_or_default();
    Some(format!(
        "Tokens: {input} in{cached}, {output} out{reasoning}"
    ))
}

fn draft(body: EventBody, index: u64) -> EventDraft {
    EventDraft::new(body, None, Some(index))
}

fn notice(level: Level, text: &str, source: &str, index: u64) -> EventDraft {
    draft(
        EventBody::Notice {
            level,
            text: text.to_owned(),
            source: source.to_owned(),
        },
        index,
    )
}

fn malformed(message: &str, text: &str, index: u64) -> EventDraft {
    draft(
        EventBody::Malformed {
            message: message.to_owned(),
            excerpt: excerpt(text, 240),
        },
        index,
    )
}

/// The error an event carries (`{"error": {"message", "code"}}`), worded for the operator.
fn error_of(value: &Value) -> Option<(String, Option<String>)> {
    let error = value.get("error").filter(|e| !e.is_null()).unwrap_or(value);
    let message = error.get("message").and_then(Value::as_str)?;
    let code = error
        .get("code")
        .or_else(|| error.get("type"))
        .and_then(|code| match code {
            Value::String(text) => Some(text.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        });
    Some((format!("the endpoint reported an error: {message}"), code))
}

impl crate::protocol::sse::FrameNormalizer for OpenAiNormalizer {
    fn upstream_count(&self) -> u64 {
        OpenAiNormalizer::upstream_count(self)
    }

    fn push_frame(
        &mut self,
        frame: Result<crate::protocol::sse::SseFrame<'_>, crate::protocol::sse::SseError>,
        out: &mut Vec<EventDraft>,
    ) {
        OpenAiNormalizer::push_frame(self, frame, out)
    }

    fn finish(&mut self, out: &mut Vec<EventDraft>) {
        OpenAiNormalizer::finish(self, out)
    }
}
