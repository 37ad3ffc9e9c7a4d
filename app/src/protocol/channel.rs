//! The channel contract: one ordered, typed event stream per run, whatever the upstream.

use std::sync::Arc;

use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::tagged::{self, TagAndContent, adjacently_tagged, internally_tagged};

use super::ask::{Ask, AskKind, AskState};

/// Where an event belongs in the console. Stable snake_case on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    Analysis,
    Commentary,
    Final,
    ToolCall,
    ToolResult,
    Approval,
    Question,
    Edit,
    Artifact,
    System,
    Error,
    User,
}

impl Channel {
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Analysis => "analysis",
            Channel::Commentary => "commentary",
            Channel::Final => "final",
            Channel::ToolCall => "tool_call",
            Channel::ToolResult => "tool_result",
            Channel::Approval => "approval",
            Channel::Question => "question",
            Channel::Edit => "edit",
            Channel::Artifact => "artifact",
            Channel::System => "system",
            Channel::Error => "error",
            Channel::User => "user",
        }
    }
}

/// Who wrote a text message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    #[default]
    Assistant,
    User,
    System,
    Developer,
    Tool,
}

impl Role {
    pub fn parse(role: &str) -> Option<Role> {
        match role {
            "assistant" => Some(Role::Assistant),
            "user" => Some(Role::User),
            "system" => Some(Role::System),
            "developer" => Some(Role::Developer),
            "tool" => Some(Role::Tool),
            _ => None,
        }
    }
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case")]
pub enum RunOutcome {
    Success,
    /// Paused on blocking asks; a later run answers them.
    Interrupted {
        ask_ids: Vec<String>,
    },
    Cancelled,
}

internally_tagged!(RunOutcome, "type");

/// Severity of a system notice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    #[default]
    Info,
    Warning,
    Error,
}

/// One entry of a published plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanItem {
    pub id: String,
    pub label: String,
    /// pending, in_progress, completed or cancelled.
    pub status: String,
}

/// Reads a todo list (`[{id, content|label|text|title, status}]`) as plan items.
pub fn plan_items(todos: Option<&Value>) -> Vec<PlanItem> {
    todos
        .and_then(Value::as_array)
        .map(|todos| {
            todos
                .iter()
                .enumerate()
                .map(|(position, todo)| PlanItem {
                    id: todo
                        .get("id")
                        .map(|id| match id {
                            Value::String(text) => text.clone(),
                            other => other.to_string(),
                        })
                        .unwrap_or_else(|| (position + 1).to_string()),
                    label: ["content", "label", "text", "title"]
                        .iter()
                        .find_map(|key| todo.get(*key).and_then(Value::as_str).map(str::to_owned))
                        .unwrap_or_default(),
                    status: todo
                        .get("status")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .unwrap_or_else(|| "pending".into()),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// What happened, typed. Serialized as `"kind": <snake_case name>, "payload": {...}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case")]
pub enum EventBody {
    RunStarted {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        protocol_version: Option<String>,
    },
    RunFinished {
        outcome: RunOutcome,
    },
    /// The run failed: RUN_ERROR, a truncated stream, an unreachable agent.
    RunFailed {
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    },
    UserMessage {
        message_id: String,
        text: String,
    },
    MessageStarted {
        message_id: String,
        #[serde(default)]
        role: Role,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    TextDelta {
        message_id: String,
        delta: String,
    },
    MessageEnded {
        message_id: String,
    },
    /// Pins the run's answer: the text of `message_id`, or `text` when the upstream sent
    /// the whole answer at once.
    FinalAnswer {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    ReasoningStarted {
        message_id: String,
    },
    ReasoningDelta {
        message_id: String,
        delta: String,
    },
    ReasoningEnded {
        message_id: String,
    },
    /// Opaque reasoning the agent wants echoed back on the next run.
    ReasoningEncrypted {
        subtype: String,
        entity_id: String,
        value: String,
    },
    ToolCallStarted {
        tool_call_id: String,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_message_id: Option<String>,
        /// What the tool is doing, in words (Hermes `context`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
    },
    ToolCallArgs {
        tool_call_id: String,
        delta: String,
    },
    ToolCallEnded {
        tool_call_id: String,
    },
    ToolProgress {
        tool_call_id: String,
        text: String,
    },
    ToolResult {
        tool_call_id: String,
        /// The tool's name when the call began in an earlier run (a resume result).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_name: Option<String>,
        content: Value,
        #[serde(default)]
        is_error: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        duration_ms: Option<u64>,
    },
    /// A change to files, shown as a diff.
    Edit {
        edit_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_call_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        filename: Option<String>,
        /// A unified diff.
        patch: String,
    },
    Artifact {
        artifact_id: String,
        /// table, chart, image, terminal, code, a2ui_surface, json, …
        artifact_kind: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        data: Value,
    },
    /// RFC 6902 patch to an artifact's data (AG-UI ACTIVITY_DELTA).
    ArtifactPatched {
        artifact_id: String,
        patch: Value,
    },
    StateSnapshot {
        snapshot: Value,
    },
    /// RFC 6902 patch to the agent state.
    StateDelta {
        patch: Value,
    },
    MessagesSnapshot {
        messages: Value,
    },
    Plan {
        items: Vec<PlanItem>,
    },
    StepStarted {
        name: String,
    },
    StepFinished {
        name: String,
    },
    SubagentStarted {
        subagent_run_id: String,
        name: String,
    },
    SubagentFinished {
        subagent_run_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    Notice {
        #[serde(default)]
        level: Level,
        text: String,
        /// Where the notice came from, e.g. `status.update/lifecycle`.
        source: String,
    },
    Custom {
        name: String,
        value: Value,
    },
    /// An upstream event passed through verbatim (AG-UI RAW).
    Raw {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        source: Option<String>,
        event: Value,
    },
    /// An event type this version does not know: kept, in order, as readable JSON.
    Unknown {
        upstream_type: String,
        event: Value,
    },
    AskOpened {
        ask: Box<Ask>,
    },
    /// The ask's fate: answered (with its redacted answer), expired or cancelled.
    AskClosed {
        ask_id: String,
        ask_kind: AskKind,
        state: Box<AskState>,
    },
    /// The upstream broke a protocol rule; `applied` says whether the event was applied.
    ProtocolViolation {
        message: String,
        applied: bool,
    },
    /// Input that could not be read as an event at all.
    Malformed {
        message: String,
        excerpt: String,
    },
}

adjacently_tagged!(EventBody, "kind", "payload");

/// Writes `EventBody::kind`, its number and the list of every kind from one table, so
/// they cannot disagree.
macro_rules! event_kinds {
    ($($variant:ident => $name:literal,)*) => {
        /// Every `kind` an event can have; [`EventBody::kind_number`] indexes it.
        pub const EVENT_KINDS: &[&str] = &[$($name),*];

        #[repr(u8)]
        enum KindNumber {
            $($variant,)*
        }

        impl EventBody {
            /// The snake_case name written as `kind`.
            pub fn kind(&self) -> &'static str {
                kind_name(self.kind_number())
            }

            /// The position of [`Self::kind`] in [`EVENT_KINDS`] (one byte to keep).
            pub fn kind_number(&self) -> u8 {
                match self {
                    $(EventBody::$variant { .. } => KindNumber::$variant as u8,)*
                }
            }
        }
    };
}

event_kinds! {
    RunStarted => "run_started",
    RunFinished => "run_finished",
    RunFailed => "run_failed",
    UserMessage => "user_message",
    MessageStarted => "message_started",
    TextDelta => "text_delta",
    MessageEnded => "message_ended",
    FinalAnswer => "final_answer",
    ReasoningStarted => "reasoning_started",
    ReasoningDelta => "reasoning_delta",
    ReasoningEnded => "reasoning_ended",
    ReasoningEncrypted => "reasoning_encrypted",
    ToolCallStarted => "tool_call_started",
    ToolCallArgs => "tool_call_args",
    ToolCallEnded => "tool_call_ended",
    ToolProgress => "tool_progress",
    ToolResult => "tool_result",
    Edit => "edit",
    Artifact => "artifact",
    ArtifactPatched => "artifact_patched",
    StateSnapshot => "state_snapshot",
    StateDelta => "state_delta",
    MessagesSnapshot => "messages_snapshot",
    Plan => "plan",
    StepStarted => "step_started",
    StepFinished => "step_finished",
    SubagentStarted => "subagent_started",
    SubagentFinished => "subagent_finished",
    Notice => "notice",
    Custom => "custom",
    Raw => "raw",
    Unknown => "unknown",
    AskOpened => "ask_opened",
    AskClosed => "ask_closed",
    ProtocolViolation => "protocol_violation",
    Malformed => "malformed",
}

/// The kind a number stands for ([`EventBody::kind_number`]); `unknown` if none.
pub fn kind_name(number: u8) -> &'static str {
    EVENT_KINDS
        .get(usize::from(number))
        .copied()
        .unwrap_or("unknown")
}

/// The number of a kind read back from text; anything unlisted reads as `unknown`.
pub fn kind_number(name: &str) -> u8 {
    let position = EVENT_KINDS
        .iter()
        .position(|kind| *kind == name)
        .or_else(|| EVENT_KINDS.iter().position(|kind| *kind == "unknown"))
        .unwrap_or_default();
    u8::try_from(position).unwrap_or_default()
}

impl EventBody {
    /// The channel an event of this body belongs to.
    pub fn channel(&self) -> Channel {
        use EventBody::*;
        match self {
            RunStarted { .. } | RunFinished { .. } => Channel::System,
            RunFailed { .. } | ProtocolViolation { .. } | Malformed { .. } => Channel::Error,
            UserMessage { .. } => Channel::User,
            MessageStarted { role, .. } => match role {
                Role::User => Channel::User,
                Role::Assistant | Role::Tool => Channel::Commentary,
                Role::System | Role::Developer => Channel::System,
            },
            TextDelta { .. } | MessageEnded { .. } => Channel::Commentary,
            FinalAnswer { .. } => Channel::Final,
            ReasoningStarted { .. }
            | ReasoningDelta { .. }
            | ReasoningEnded { .. }
            | ReasoningEncrypted { .. } => Channel::Analysis,
            ToolCallStarted { .. }
            | ToolCallArgs { .. }
            | ToolCallEnded { .. }
            | ToolProgress { .. } => Channel::ToolCall,
            ToolResult { .. } => Channel::ToolResult,
            Edit { .. } => Channel::Edit,
            Artifact { .. } | ArtifactPatched { .. } => Channel::Artifact,
            StateSnapshot { .. }
            | StateDelta { .. }
            | MessagesSnapshot { .. }
            | Plan { .. }
            | StepStarted { .. }
            | StepFinished { .. }
            | SubagentStarted { .. }
            | SubagentFinished { .. }
            | Notice { .. }
            | Custom { .. }
            | Raw { .. }
            | Unknown { .. } => Channel::System,
            AskOpened { ask } => ask.kind.channel(),
            AskClosed { ask_kind, .. } => ask_kind.channel(),
        }
    }

    /// The tool call this event concerns, if any.
    pub fn tool_call_id(&self) -> Option<&str> {
        use EventBody::*;
        match self {
            ToolCallStarted { tool_call_id, .. }
            | ToolCallArgs { tool_call_id, .. }
            | ToolCallEnded { tool_call_id, .. }
            | ToolProgress { tool_call_id, .. }
            | ToolResult { tool_call_id, .. } => Some(tool_call_id),
            Edit { tool_call_id, .. } => tool_call_id.as_deref(),
            AskOpened { ask } => ask.tool_call_id.as_deref(),
            _ => None,
        }
    }

    /// The blocking request this event concerns, if any.
    pub fn request_id(&self) -> Option<&str> {
        match self {
            EventBody::AskOpened { ask } => Some(&ask.id),
            EventBody::AskClosed { ask_id, .. } => Some(ask_id),
            _ => None,
        }
    }
}

/// What an adapter produces: an event not yet placed in a run's sequence.
#[derive(Clone, Debug, PartialEq)]
pub struct EventDraft {
    pub channel: Channel,
    pub body: EventBody,
    /// Upstream timestamp in Unix milliseconds, when the upstream gave one.
    pub ts: Option<i64>,
    /// Position (0-based) of the upstream event this one came from, in the run's raw
    /// log; `None` for what the adapter adds itself (closing a truncated stream).
    pub upstream: Option<u64>,
}

impl EventDraft {
    pub fn new(body: EventBody, ts: Option<i64>, upstream: Option<u64>) -> Self {
        Self {
            channel: body.channel(),
            body,
            ts,
            upstream,
        }
    }

    pub fn with_channel(mut self, channel: Channel) -> Self {
        self.channel = channel;
        self
    }
}

/// The identity of a run: every event of it carries these (shared, not copied).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRef {
    pub tenant_id: Arc<str>,
    pub thread_id: Arc<str>,
    pub run_id: Arc<str>,
}

impl RunRef {
    pub fn new(tenant_id: &str, thread_id: &str, run_id: &str) -> Self {
        Self {
            tenant_id: tenant_id.into(),
            thread_id: thread_id.into(),
            run_id: run_id.into(),
        }
    }
}

/// One durable event of a run, as stored, streamed and projected. Its JSON form also
/// carries `tool_call_id` and `request_id`, taken from the body when written (see
/// [`RunEvent::tool_call_id`]) so every reader can route without knowing each kind.
#[derive(Clone, Debug, PartialEq)]
pub struct RunEvent {
    /// The run the event belongs to, shared by all its events: placing or dropping an
    /// event touches one reference count, not three.
    pub run: Arc<RunRef>,
    /// Dense and monotonic per run, starting at 1.
    pub sequence: u64,
    pub channel: Channel,
    /// Written as `kind` and `payload` beside the other fields.
    pub body: EventBody,
    /// Unix milliseconds.
    pub ts: i64,
    /// Position of the raw upstream event this one was normalized from.
    pub upstream: Option<u64>,
}

/// The written form of a [`RunEvent`]: the body's routing ids repeated at the top level.
#[derive(Serialize)]
struct RunEventOut<'a> {
    tenant_id: &'a str,
    thread_id: &'a str,
    run_id: &'a str,
    sequence: u64,
    channel: Channel,
    kind: &'static str,
    payload: tagged::Content<'a, EventBody>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    request_id: Option<&'a str>,
    ts: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    upstream: Option<u64>,
}

impl Serialize for RunEvent {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RunEventOut {
            tenant_id: &self.run.tenant_id,
            thread_id: &self.run.thread_id,
            run_id: &self.run.run_id,
            sequence: self.sequence,
            channel: self.channel,
            // The derive's name, which is what the reader matches.
            kind: tagged::variant_name(&self.body).map_err(serde::ser::Error::custom)?,
            payload: tagged::Content(&self.body),
            tool_call_id: self.tool_call_id(),
            request_id: self.request_id(),
            ts: self.ts,
            upstream: self.upstream,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RunEvent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(RunEventVisitor)
    }
}

struct RunEventVisitor;

impl<'de> Visitor<'de> for RunEventVisitor {
    type Value = RunEvent;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a run event object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RunEvent, A::Error> {
        use serde::de::Error;
        let (mut tenant_id, mut thread_id, mut run_id) = (None, None, None);
        let (mut sequence, mut channel, mut ts, mut upstream) = (None, None, None, None);
        let mut body = TagAndContent::<EventBody>::new("kind", "payload");
        while let Some(tagged::Text(key)) = map.next_key()? {
            match &*key {
                "tenant_id" => tenant_id = Some(map.next_value::<Arc<str>>()?),
                "thread_id" => thread_id = Some(map.next_value::<Arc<str>>()?),
                "run_id" => run_id = Some(map.next_value::<Arc<str>>()?),
                "sequence" => sequence = Some(map.next_value::<u64>()?),
                "channel" => channel = Some(map.next_value::<Channel>()?),
                "ts" => ts = Some(map.next_value::<i64>()?),
                "upstream" => upstream = map.next_value::<Option<u64>>()?,
                // Written from the body; read back from it.
                _ if body.read(&key, &mut map)? => {}
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(RunEvent {
            run: Arc::new(RunRef {
                tenant_id: tenant_id.ok_or_else(|| A::Error::missing_field("tenant_id"))?,
                thread_id: thread_id.ok_or_else(|| A::Error::missing_field("thread_id"))?,
                run_id: run_id.ok_or_else(|| A::Error::missing_field("run_id"))?,
            }),
            sequence: sequence.ok_or_else(|| A::Error::missing_field("sequence"))?,
            channel: channel.ok_or_else(|| A::Error::missing_field("channel"))?,
            body: body.finish()?,
            ts: ts.ok_or_else(|| A::Error::missing_field("ts"))?,
            upstream,
        })
    }
}

impl RunEvent {
    /// Places a draft in a run at `sequence`; `now_ms` stands in for a missing upstream time.
    pub fn from_draft(run: &Arc<RunRef>, sequence: u64, draft: EventDraft, now_ms: i64) -> Self {
        Self {
            run: Arc::clone(run),
            sequence,
            channel: draft.channel,
            body: draft.body,
            ts: draft.ts.unwrap_or(now_ms),
            upstream: draft.upstream,
        }
    }

    pub fn kind(&self) -> &'static str {
        self.body.kind()
    }

    pub fn tenant_id(&self) -> &str {
        &self.run.tenant_id
    }

    pub fn thread_id(&self) -> &str {
        &self.run.thread_id
    }

    pub fn run_id(&self) -> &str {
        &self.run.run_id
    }

    /// The tool call this event concerns, if any.
    pub fn tool_call_id(&self) -> Option<&str> {
        self.body.tool_call_id()
    }

    /// The ask or gateway request this event concerns, if any.
    pub fn request_id(&self) -> Option<&str> {
        self.body.request_id()
    }
}

/// Assigns dense sequence numbers to drafts of one run.
#[derive(Clone, Debug)]
pub struct Sequencer {
    run: Arc<RunRef>,
    next: u64,
}

impl Sequencer {
    pub fn new(run: RunRef) -> Self {
        Self {
            run: Arc::new(run),
            next: 1,
        }
    }

    /// Continues a run whose last stored event is `last_sequence`.
    pub fn resume(run: RunRef, last_sequence: u64) -> Self {
        Self {
            run: Arc::new(run),
            next: last_sequence + 1,
        }
    }

    pub fn place(&mut self, draft: EventDraft, now_ms: i64) -> RunEvent {
        let event = RunEvent::from_draft(&self.run, self.next, draft, now_ms);
        self.next += 1;
        event
    }

    pub fn run(&self) -> &RunRef {
        &self.run
    }
}
