//! The channel contract: one ordered, typed event stream per run, whatever the upstream.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tagged::internally_tagged;

mod body;
mod event;

pub use self::body::{EVENT_KINDS, EventBody, kind_name, kind_number};
pub use self::event::{RunEvent, RunRef, Sequencer};

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

/// One thing the console gave the agent with a run (a pinned note or memory entry), as it
/// was then.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GivenItem {
    /// `note` or `memory`.
    pub kind: String,
    pub id: String,
    pub title: String,
    /// The note's version given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    /// Pinned to the thread, or to its project.
    pub pinned_by: String,
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
