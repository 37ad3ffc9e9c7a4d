//! KsADK's session record read as runs: the rows its `ListSessionEvents` returns
//! (canonical RuntimeEvent v2 rows and legacy SessionEvent rows in one `SeqId` sequence,
//! newest first) become one run per invocation, each event citing the `SeqId` of the row
//! it came from. An answer, kept only as the legacy `approval_response` row of the run it
//! resumed, closes the ask in the run that opened it.

use std::collections::HashMap;

use serde_json::Value;

use super::ask::{Ask, AskState};
use super::channel::{EventBody, EventDraft, Level, Role, RunOutcome};
use super::openai::ksadk::interrupt_ask;
use super::receipts::{Receipt, resolved_state, validate};

/// One page of `ListSessionEvents`: its rows as sent and the session's count.
#[derive(Debug)]
pub struct RecordPage {
    pub rows: Vec<Value>,
    pub total: u64,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RecordError {
    #[error("not a ListSessionEvents answer: {0}")]
    NotARecord(String),
    #[error("the runtime refused (code {code}): {message}")]
    Refused { code: i64, message: String },
}

/// Reads a `ListSessionEvents` answer (`{Code, Message, Data: {Events, Total}}`).
pub fn read_page(bytes: &[u8]) -> Result<RecordPage, RecordError> {
    let body: Value = serde_json::from_slice(bytes)
        .map_err(|error| RecordError::NotARecord(format!("not JSON ({error})")))?;
    let code = body.get("Code").and_then(Value::as_i64).unwrap_or(0);
    if code != 0 {
        return Err(RecordError::Refused {
            code,
            message: text(&body, "Message").unwrap_or("no message").to_owned(),
        });
    }
    let data = body
        .get("Data")
        .ok_or_else(|| RecordError::NotARecord("no `Data`".into()))?;
    let rows = data
        .get("Events")
        .and_then(Value::as_array)
        .ok_or_else(|| RecordError::NotARecord("no `Data.Events` list".into()))?
        .clone();
    let total = data
        .get("Total")
        .and_then(Value::as_u64)
        .unwrap_or(rows.len() as u64);
    Ok(RecordPage { rows, total })
}

/// Whether a file holds a session record rather than a stream.
pub fn is_record(bytes: &[u8]) -> bool {
    let start = bytes.iter().position(|byte| !byte.is_ascii_whitespace());
    start.is_some_and(|start| bytes[start] == b'{') && read_page(bytes).is_ok()
}

/// A row's place in the session's sequence.
pub fn seq_of(row: &Value) -> Option<u64> {
    row.get("SeqId").and_then(Value::as_u64)
}

/// One invocation of the session, as the console's events.
#[derive(Debug)]
pub struct RecordedRun {
    pub invocation_id: String,
    pub drafts: Vec<EventDraft>,
}

/// The runs a session's rows hold, in the order they began; rows in any order, each
/// `SeqId` read once.
pub fn runs_of(rows: &[Value]) -> Vec<RecordedRun> {
    let mut ordered: Vec<(u64, &Value)> = rows
        .iter()
        .filter_map(|row| seq_of(row).map(|seq| (seq, row)))
        .collect();
    ordered.sort_by_key(|(seq, _)| *seq);
    ordered.dedup_by_key(|(seq, _)| *seq);
    let mut reader = Reader::default();
    for (seq, row) in ordered {
        reader.row(seq, row);
    }
    reader
        .runs
        .into_iter()
        .map(|run| RecordedRun {
            invocation_id: run.invocation_id,
            drafts: run.drafts,
        })
        .collect()
}

#[derive(Default)]
struct Run {
    invocation_id: String,
    drafts: Vec<EventDraft>,
    started: bool,
    open_asks: Vec<String>,
    /// The text of each message item seen so far.
    texts: HashMap<String, String>,
    /// Tool-call items begun, by item id, with their call id.
    calls: HashMap<String, String>,
}

#[derive(Default)]
struct Reader {
    runs: Vec<Run>,
    /// Each ask opened, with the run that opened it.
    asks: HashMap<String, (usize, Ask)>,
}

fn text<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

impl Reader {
    fn run_of(&mut self, invocation_id: &str) -> usize {
        if let Some(position) = self
            .runs
            .iter()
            .position(|run| run.invocation_id == invocation_id)
        {
            return position;
        }
        self.runs.push(Run {
            invocation_id: invocation_id.to_owned(),
            ..Run::default()
        });
        self.runs.len() - 1
    }

    fn row(&mut self, seq: u64, row: &Value) {
        let ts = row
            .get("Timestamp")
            .and_then(Value::as_f64)
            .map(|seconds| (seconds * 1000.0) as i64);
        let canonical = row.pointer("/Content/runtime_event");
        let invocation = text(row, "InvocationId")
            .or_else(|| canonical.and_then(|event| text(event, "run_id")))
            .unwrap_or("session");
        let position = self.run_of(invocation);
        let emit = |body: EventBody| EventDraft::new(body, ts, Some(seq));
        let mut out = Vec::new();
        match (text(row, "EventType").unwrap_or_default(), canonical) {
            (_, Some(event)) => self.runtime_event(position, event, &emit, &mut out),
            ("user_message", None) => {
                let text = user_text(row);
                self.start(position, &emit, &mut out);
                out.push(emit(EventBody::UserMessage {
                    message_id: text_of_id(row),
                    text,
                }));
            }
            ("approval_response", None) => {
                if let Some((owner, closed)) = self.answer(row, &emit) {
                    self.runs[owner].drafts.push(closed);
                }
            }
            // `run_status` repeats the canonical run events; `run_resume` says no more.
            _ => {}
        }
        self.runs[position].drafts.extend(out);
    }

    fn start(
        &mut self,
        position: usize,
        emit: &dyn Fn(EventBody) -> EventDraft,
        out: &mut Vec<EventDraft>,
    ) {
        let run = &mut self.runs[position];
        if !run.started {
            run.started = true;
            out.push(emit(EventBody::RunStarted {
                protocol_version: None,
            }));
        }
    }

    fn runtime_event(
        &mut self,
        position: usize,
        event: &Value,
        emit: &dyn Fn(EventBody) -> EventDraft,
        out: &mut Vec<EventDraft>,
    ) {
        let kind = text(event, "event_type").unwrap_or_default();
        let item_id = text(event, "item_id").unwrap_or_default().to_owned();
        match kind {
            "run.started" => {
                self.start(position, emit, out);
                // An AG-UI thread keeps its user's text only in the console-side input event.
                if let Some(input) = event
                    .pointer("/source/metadata/input")
                    .and_then(Value::as_str)
                {
                    out.push(emit(EventBody::UserMessage {
                        message_id: text(event, "event_id").unwrap_or_default().to_owned(),
                        text: input.to_owned(),
                    }));
                }
            }
            "item.started" => {
                self.start(position, emit, out);
                match text(event, "item_kind") {
                    Some("message") => {
                        // Its `phase` says final_answer of a preface too: the run's end
                        // names its answer (`output_refs`).
                        self.runs[position]
                            .texts
                            .insert(item_id.clone(), String::new());
                        out.push(emit(EventBody::MessageStarted {
                            message_id: item_id,
                            role: Role::Assistant,
                            name: None,
                        }));
                    }
                    Some("tool_call") => {
                        if let Some(part) = event.pointer("/initial/parts/0") {
                            self.call_started(position, &item_id, part, emit, out);
                        }
                    }
                    _ => {}
                }
            }
            "item.updated" => {
                let update = event.get("update").unwrap_or(&Value::Null);
                if text(event, "op") == Some("append")
                    && text(update, "content_type") == Some("text")
                {
                    let delta = text(update, "text").unwrap_or_default();
                    self.append(position, &item_id, delta, emit, out);
                }
            }
            "item.completed" => self.item_completed(position, &item_id, event, emit, out),
            "interaction.requested" => {
                let source = event.pointer("/source/metadata").unwrap_or(&Value::Null);
                let detail = event.pointer("/request/detail").unwrap_or(&Value::Null);
                let ask = interrupt_ask(
                    detail,
                    text(source, "session_id").map(str::to_owned),
                    text(source, "user_id").map(str::to_owned),
                );
                match ask {
                    Some(ask) => {
                        self.runs[position].open_asks.push(ask.id.clone());
                        self.asks.insert(ask.id.clone(), (position, ask.clone()));
                        out.push(emit(EventBody::AskOpened { ask: Box::new(ask) }));
                    }
                    None => out.push(emit(unknown(kind, event))),
                }
            }
            "continuation.created" => {
                let next = event
                    .pointer("/ref/framework_ref/langgraph/next_node")
                    .and_then(Value::as_str)
                    .filter(|next| !next.is_empty());
                let resumable = event.get("resumable").and_then(Value::as_bool) == Some(true);
                let mut words = format!(
                    "Checkpoint {} ({})",
                    text(event, "continuation_id").unwrap_or("unnamed"),
                    if resumable { "resumable" } else { "final" }
                );
                if let Some(next) = next {
                    words.push_str(&format!(", next: {next}"));
                }
                out.push(emit(EventBody::Notice {
                    level: Level::Info,
                    text: words,
                    source: "ksadk/continuation.created".into(),
                }));
            }
            "run.interrupted" => {
                self.start(position, emit, out);
                let ask_ids = std::mem::take(&mut self.runs[position].open_asks);
                out.push(emit(EventBody::RunFinished {
                    outcome: RunOutcome::Interrupted { ask_ids },
                }));
            }
            "run.completed" => {
                self.start(position, emit, out);
                let answer = event
                    .pointer("/output_refs/0/item_id")
                    .and_then(Value::as_str)
                    .filter(|item| {
                        self.runs[position]
                            .texts
                            .get(*item)
                            .is_some_and(|text| !text.is_empty())
                    });
                if let Some(item) = answer {
                    out.push(emit(EventBody::FinalAnswer {
                        message_id: Some(item.to_owned()),
                        text: None,
                    }));
                }
                out.push(emit(EventBody::RunFinished {
                    outcome: RunOutcome::Success,
                }));
            }
            "run.cancelled" => out.push(emit(EventBody::RunFinished {
                outcome: RunOutcome::Cancelled,
            })),
            "run.failed" => out.push(emit(EventBody::RunFailed {
                message: event
                    .pointer("/error/message")
                    .or_else(|| event.get("reason"))
                    .and_then(Value::as_str)
                    .unwrap_or("The runtime reported the run failed")
                    .to_owned(),
                code: event
                    .pointer("/error/code")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            })),
            "run.progress" => {}
            _ => out.push(emit(unknown(kind, event))),
        }
    }

    fn append(
        &mut self,
        position: usize,
        item_id: &str,
        delta: &str,
        emit: &dyn Fn(EventBody) -> EventDraft,
        out: &mut Vec<EventDraft>,
    ) {
        if delta.is_empty() {
            return;
        }
        let run = &mut self.runs[position];
        if !run.texts.contains_key(item_id) {
            // The window began inside the message.
            run.texts.insert(item_id.to_owned(), String::new());
            out.push(emit(EventBody::MessageStarted {
                message_id: item_id.to_owned(),
                role: Role::Assistant,
                name: None,
            }));
        }
        if let Some(text) = run.texts.get_mut(item_id) {
            text.push_str(delta);
        }
        out.push(emit(EventBody::TextDelta {
            message_id: item_id.to_owned(),
            delta: delta.to_owned(),
        }));
    }

    fn call_started(
        &mut self,
        position: usize,
        item_id: &str,
        part: &Value,
        emit: &dyn Fn(EventBody) -> EventDraft,
        out: &mut Vec<EventDraft>,
    ) {
        let Some(call_id) = text(part, "call_id") else {
            return;
        };
        if self.runs[position].calls.contains_key(item_id) {
            return;
        }
        self.runs[position]
            .calls
            .insert(item_id.to_owned(), call_id.to_owned());
        out.push(emit(EventBody::ToolCallStarted {
            tool_call_id: call_id.to_owned(),
            name: text(part, "name").unwrap_or("unnamed").to_owned(),
            parent_message_id: None,
            summary: None,
        }));
        if let Some(arguments) = part.get("arguments").filter(|a| !a.is_null()) {
            out.push(emit(EventBody::ToolCallArgs {
                tool_call_id: call_id.to_owned(),
                delta: match arguments {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                },
            }));
        }
    }

    fn item_completed(
        &mut self,
        position: usize,
        item_id: &str,
        event: &Value,
        emit: &dyn Fn(EventBody) -> EventDraft,
        out: &mut Vec<EventDraft>,
    ) {
        let parts = event
            .pointer("/snapshot/parts")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        match text(event, "item_kind") {
            Some("message") => {
                let whole: String = parts
                    .iter()
                    .filter(|part| text(part, "content_type") == Some("text"))
                    .filter_map(|part| text(part, "text"))
                    .collect();
                let seen = self.runs[position]
                    .texts
                    .get(item_id)
                    .cloned()
                    .unwrap_or_default();
                // What the window or the stream left out of the text, from the snapshot.
                if let Some(rest) = whole.strip_prefix(seen.as_str()) {
                    self.append(position, item_id, rest, emit, out);
                }
                if self.runs[position].texts.contains_key(item_id) {
                    out.push(emit(EventBody::MessageEnded {
                        message_id: item_id.to_owned(),
                    }));
                }
            }
            Some("tool_call") => {
                if let Some(part) = parts.first() {
                    self.call_started(position, item_id, part, emit, out);
                }
                if let Some(call_id) = self.runs[position].calls.get(item_id) {
                    out.push(emit(EventBody::ToolCallEnded {
                        tool_call_id: call_id.clone(),
                    }));
                }
            }
            Some("tool_result") => {
                for part in parts
                    .iter()
                    .filter(|p| text(p, "content_type") == Some("tool_result"))
                {
                    let Some(call_id) = text(part, "call_id") else {
                        continue;
                    };
                    out.push(emit(EventBody::ToolResult {
                        tool_call_id: call_id.to_owned(),
                        tool_name: None,
                        content: part.get("result").cloned().unwrap_or(Value::Null),
                        is_error: part.get("is_error").and_then(Value::as_bool) == Some(true),
                        duration_ms: None,
                    }));
                }
            }
            _ => {}
        }
    }

    /// The answer an `approval_response` row keeps, closing the ask where it was opened.
    fn answer(
        &mut self,
        row: &Value,
        emit: &dyn Fn(EventBody) -> EventDraft,
    ) -> Option<(usize, EventDraft)> {
        let resume = row.pointer("/Metadata/resume_input")?;
        let id = text(resume, "interrupt_id").or_else(|| text(resume, "approval_request_id"))?;
        let (owner, ask) = self.asks.remove(id)?;
        self.runs[owner].open_asks.retain(|open| open != id);
        let decision = resume.pointer("/value/decisions/0");
        let approved = match decision {
            Some(decision) => text(decision, "type") == Some("approve"),
            None => resume.get("approve").and_then(Value::as_bool) == Some(true),
        };
        let mut data = serde_json::Map::new();
        let reason = decision
            .and_then(|decision| text(decision, "message"))
            .or_else(|| text(resume, "reason"));
        if let (false, Some(reason)) = (approved, reason) {
            data.insert("reason".into(), Value::String(reason.to_owned()));
        }
        let receipt = Receipt {
            tool_call_id: ask.id.clone(),
            component: ask.component.as_str().to_owned(),
            action: if approved { "approve" } else { "reject" }.to_owned(),
            data: Value::Object(data),
            ts: None,
        };
        let state = match validate(&ask, &receipt) {
            Ok(answer) => resolved_state(&answer),
            Err(error) => AskState::Cancelled {
                reason: format!("the recorded answer was not valid: {error}"),
            },
        };
        Some((
            owner,
            emit(EventBody::AskClosed {
                ask_id: ask.id,
                ask_kind: ask.kind,
                state: Box::new(state),
            }),
        ))
    }
}

fn user_text(row: &Value) -> String {
    let parts: String = row
        .pointer("/Content/parts")
        .and_then(Value::as_array)
        .map(|parts| parts.iter().filter_map(|part| text(part, "text")).collect())
        .unwrap_or_default();
    if parts.is_empty() {
        row.pointer("/Metadata/agent_input")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    } else {
        parts
    }
}

fn text_of_id(row: &Value) -> String {
    text(row, "EventId").unwrap_or_default().to_owned()
}

fn unknown(kind: &str, event: &Value) -> EventBody {
    EventBody::Unknown {
        upstream_type: kind.to_owned(),
        event: event.clone(),
    }
}
