//! The item types a run view holds, and their one-line text form.

use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::tagged::{SharedFields, internally_tagged, read_tagged_object};

use crate::protocol::ask::{Ask, AskState};
use crate::protocol::channel::{Channel, Level, Role};

/// Where a tool call stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// Arguments are still arriving.
    Streaming,
    /// Arguments complete; waiting for the result.
    Running,
    Done,
    Failed,
    /// The run ended without a result for it.
    NoResult,
}

impl ToolStatus {
    pub fn label(self) -> &'static str {
        match self {
            ToolStatus::Streaming => "streaming arguments",
            ToolStatus::Running => "running",
            ToolStatus::Done => "done",
            ToolStatus::Failed => "failed",
            ToolStatus::NoResult => "no result",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolResultView {
    pub content: Value,
    pub is_error: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    pub ts: i64,
}

/// What kind of failure an error item reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The run failed (RUN_ERROR, a truncated stream, an unreachable agent).
    RunFailed,
    /// The upstream broke an ordering rule.
    ProtocolViolation,
    /// Input that was not an event.
    Malformed,
    /// A state or artifact patch that could not be applied (rolled back).
    Patch,
    /// An error the gateway reported.
    Gateway,
}

/// Flags that are false most of the time are left out of an item's JSON (a tenth of a
/// long run's page), and read back as false.
fn is_false(flag: &bool) -> bool {
    !flag
}

/// One entry of the timeline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case")]
pub enum ItemBody {
    Message {
        message_id: String,
        role: Role,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        text: String,
        #[serde(default, skip_serializing_if = "is_false")]
        streaming: bool,
        /// The run's pinned answer.
        #[serde(default, skip_serializing_if = "is_false")]
        is_final: bool,
    },
    Reasoning {
        message_id: String,
        text: String,
        #[serde(default, skip_serializing_if = "is_false")]
        streaming: bool,
    },
    EncryptedReasoning {
        entity_id: String,
        subtype: String,
    },
    ToolCall {
        tool_call_id: String,
        name: String,
        arguments: String,
        status: ToolStatus,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_message_id: Option<String>,
        started_ts: i64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ended_ts: Option<i64>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        progress: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<ToolResultView>,
    },
    /// An ask in the timeline; its live state is in [`super::RunView::asks`].
    Ask {
        ask_id: String,
    },
    Edit {
        edit_id: String,
    },
    Artifact {
        artifact_id: String,
    },
    Step {
        name: String,
        active: bool,
    },
    Subagent {
        subagent_run_id: String,
        name: String,
        running: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    Notice {
        level: Level,
        text: String,
        source: String,
    },
    /// The operator's action on an A2UI surface, as sent to the agent.
    SurfaceAction {
        action: crate::a2ui::action::UserAction,
    },
    /// Anything no component matches, shown as readable JSON: RAW, CUSTOM, unknown
    /// event types, messages snapshots.
    Json {
        label: String,
        json: Value,
    },
    Error {
        kind: ErrorKind,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        excerpt: Option<String>,
    },
}

internally_tagged!(ItemBody, "type");

/// A timeline entry with where it sits in the run. Written as one object: these fields,
/// then the body's `type` and fields.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Item {
    /// Sequence of the event that created the item.
    pub sequence: u64,
    /// Sequence of the last event that changed it.
    pub updated: u64,
    pub ts: i64,
    pub channel: Channel,
    #[serde(flatten)]
    pub body: ItemBody,
}

impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ItemVisitor)
    }
}

/// The fields an item's object shares with its body.
#[derive(Default)]
struct ItemPlace {
    sequence: Option<u64>,
    updated: Option<u64>,
    ts: Option<i64>,
    channel: Option<Channel>,
}

impl SharedFields for ItemPlace {
    fn read<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
        match key {
            "sequence" => self.sequence = Some(map.next_value()?),
            "updated" => self.updated = Some(map.next_value()?),
            "ts" => self.ts = Some(map.next_value()?),
            "channel" => self.channel = Some(map.next_value()?),
            _ => return Ok(false),
        }
        Ok(true)
    }
}

struct ItemVisitor;

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = Item;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a timeline item object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Item, A::Error> {
        use serde::de::Error;
        let mut place = ItemPlace::default();
        let body = read_tagged_object(map, "type", &mut place)?;
        Ok(Item {
            sequence: place
                .sequence
                .ok_or_else(|| A::Error::missing_field("sequence"))?,
            updated: place
                .updated
                .ok_or_else(|| A::Error::missing_field("updated"))?,
            ts: place.ts.ok_or_else(|| A::Error::missing_field("ts"))?,
            channel: place
                .channel
                .ok_or_else(|| A::Error::missing_field("channel"))?,
            body,
        })
    }
}

/// An artifact the run produced (table, chart, image, terminal, code, A2UI surface…).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArtifactView {
    pub artifact_id: String,
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub data: Value,
    /// What the artifact held before the agent sent it again whole, oldest first (at most
    /// [`ArtifactView::MOST_VERSIONS_KEPT`]); patches change the current version in place.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier: Vec<Value>,
    /// Versions dropped from `earlier` to stay within the bound.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub versions_dropped: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl ArtifactView {
    /// Earlier versions kept per artifact: a run that redraws a chart every second does
    /// not grow without bound.
    pub const MOST_VERSIONS_KEPT: usize = 20;

    /// How many versions the artifact has had, the current one included.
    pub fn versions(&self) -> usize {
        self.earlier.len() + self.versions_dropped as usize + 1
    }

    /// The data of version `n` (1-based, as shown), if still kept.
    pub fn version(&self, n: usize) -> Option<&Value> {
        let total = self.versions();
        if n == total {
            return Some(&self.data);
        }
        let first_kept = self.versions_dropped as usize + 1;
        n.checked_sub(first_kept)
            .and_then(|index| self.earlier.get(index))
    }

    /// The artifact sent again whole: the current data becomes an earlier version, unless
    /// nothing changed (a surface's operations accumulate; they are not versions).
    pub fn replace(&mut self, title: Option<String>, data: Value) {
        if self.data != data && self.kind != crate::a2ui::ARTIFACT_KIND {
            let previous = std::mem::replace(&mut self.data, data);
            self.earlier.push(previous);
            if self.earlier.len() > Self::MOST_VERSIONS_KEPT {
                self.earlier.remove(0);
                self.versions_dropped += 1;
            }
        } else {
            self.data = data;
        }
        self.title = title;
    }
}

/// A proposed or applied change shown as a diff.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EditView {
    pub edit_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    pub patch: String,
}

fn clip(text: &str, max: usize) -> String {
    let flat = text.replace('\n', "⏎");
    match flat.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &flat[..cut]),
        None => flat,
    }
}

fn compact(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

impl Item {
    /// A finished message with no text (some agents announce a message, then send a tool
    /// call instead): nothing to show.
    pub fn is_blank(&self) -> bool {
        matches!(&self.body, ItemBody::Message { text, streaming: false, .. } if text.is_empty())
    }

    /// The item on one line, as `agent-os replay --format text` prints it. Free of
    /// sequences and times, so two projections of one stream compare equal.
    pub fn summary_line(&self, asks: &[Ask]) -> String {
        let channel = self.channel.as_str();
        match &self.body {
            ItemBody::Message {
                role,
                text,
                is_final,
                ..
            } => {
                let who = match role {
                    Role::Assistant => "assistant",
                    Role::User => "user",
                    Role::System => "system",
                    Role::Developer => "developer",
                    Role::Tool => "tool",
                };
                let pin = if *is_final { " (final)" } else { "" };
                format!("[{channel}] {who}{pin}: {}", clip(text, 400))
            }
            ItemBody::Reasoning { text, .. } => {
                format!("[{channel}] reasoning: {}", clip(text, 400))
            }
            ItemBody::SurfaceAction { action } => format!(
                "[{channel}] action {:?} on surface {} from {} {}",
                action.name,
                action.surface_id,
                action.source_component_id,
                serde_json::Value::Object(action.context.clone())
            ),
            ItemBody::EncryptedReasoning { entity_id, subtype } => {
                format!("[{channel}] encrypted reasoning for {subtype} {entity_id}")
            }
            ItemBody::ToolCall {
                tool_call_id,
                name,
                arguments,
                status,
                result,
                ..
            } => {
                let outcome = match result {
                    Some(result) => format!(" → {}", clip(&compact(&result.content), 200)),
                    None => String::new(),
                };
                format!(
                    "[{channel}] {name} #{tool_call_id} {} [{}]{outcome}",
                    clip(arguments, 300),
                    status.label()
                )
            }
            ItemBody::Ask { ask_id } => match asks.iter().find(|ask| ask.id == *ask_id) {
                Some(ask) => {
                    let state = match &ask.state {
                        AskState::Resolved { answer } => {
                            format!("{} ({})", answer.summary, answer.action)
                        }
                        other => other.label().to_owned(),
                    };
                    format!(
                        "[{channel}] ask {} {:?}: {} [{}] — {state}",
                        ask.kind.as_str(),
                        ask.id,
                        clip(&ask.title, 200),
                        ask.actions.join("|")
                    )
                }
                None => format!("[{channel}] ask {ask_id:?}"),
            },
            ItemBody::Edit { edit_id } => format!("[{channel}] edit {edit_id}"),
            ItemBody::Artifact { artifact_id } => format!("[{channel}] artifact {artifact_id}"),
            ItemBody::Step { name, active } => format!(
                "[{channel}] step {name}{}",
                if *active { " (running)" } else { "" }
            ),
            ItemBody::Subagent {
                name,
                running,
                error,
                ..
            } => format!(
                "[{channel}] subagent {name}{}",
                match (running, error) {
                    (_, Some(error)) => format!(" failed: {error}"),
                    (true, None) => " (running)".into(),
                    (false, None) => " finished".into(),
                }
            ),
            ItemBody::Notice { level, text, .. } => {
                let level = match level {
                    Level::Info => "info",
                    Level::Warning => "warning",
                    Level::Error => "error",
                };
                format!("[{channel}] {level}: {}", clip(text, 300))
            }
            ItemBody::Json { label, json } => {
                format!("[{channel}] {label}: {}", clip(&json.to_string(), 300))
            }
            ItemBody::Error { message, .. } => format!("[{channel}] {message}"),
        }
    }
}
