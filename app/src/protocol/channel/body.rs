//! What an event says: the typed body of every kind, its `kind` name, channel and routing ids.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Channel, GivenItem, Level, PlanItem, Role, RunOutcome};
use crate::protocol::ask::{Ask, AskKind, AskState};
use crate::tagged::adjacently_tagged;

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
    /// What the console gave the agent with the run: pinned notes and memory entries, each
    /// at the version given. Kept so the run shows (and replays) what it was told.
    ContextGiven {
        items: Vec<GivenItem>,
    },
    /// The operator acted on one of the agent's A2UI surfaces (checked against it); the
    /// run carries the action to the agent.
    SurfaceAction {
        action: crate::a2ui::action::UserAction,
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
    ContextGiven => "context_given",
    SurfaceAction => "surface_action",
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
            UserMessage { .. } | SurfaceAction { .. } => Channel::User,
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
            | Unknown { .. }
            | ContextGiven { .. } => Channel::System,
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
