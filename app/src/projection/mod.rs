//! The projection: a pure fold of a run's events into what the console shows.
//! `RunView::apply` updates in place — no part of the view is re-cloned per event — so
//! the cost of an event does not grow with the run.

pub mod history;
pub mod items;
mod patch;
use self::patch::apply_patch;

use crate::protocol::idmap::IdMap;
use std::hash::BuildHasher;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::ask::{Ask, AskState};
use crate::protocol::channel::{
    Channel, EventBody, Level, PlanItem, Role, RunEvent, RunOutcome, kind_name, kind_number,
};

pub use self::items::{
    ArtifactView, EditView, ErrorKind, Item, ItemBody, ToolResultView, ToolStatus,
};

pub use crate::protocol::status::RunStatus;

/// Display policy for a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewPolicy {
    /// Analysis (reasoning) items are hidden unless this is set.
    pub show_reasoning: bool,
}

/// The pinned answer of the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FinalAnswer {
    pub text: String,
    /// Index of the message item that holds it, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<usize>,
}

/// One event as it arrived, for the in-arrival-order view. There is one per event, so
/// it is kept to 16 bytes and written as a tuple: `[sequence, kind, channel, item?]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arrival {
    pub sequence: u64,
    /// The timeline item the event created or changed; `NO_ITEM` for none.
    item: u32,
    /// Position of the event's kind in [`crate::protocol::channel::EVENT_KINDS`].
    kind: u8,
    pub channel: Channel,
}

impl Arrival {
    const NO_ITEM: u32 = u32::MAX;

    fn new(sequence: u64, kind: u8, channel: Channel, item: Option<usize>) -> Self {
        Self {
            sequence,
            item: item
                .and_then(|item| u32::try_from(item).ok())
                .unwrap_or(Self::NO_ITEM),
            kind,
            channel,
        }
    }

    /// The event's `kind`.
    pub fn kind(&self) -> &'static str {
        kind_name(self.kind)
    }

    /// The timeline item the event created or changed, if any.
    pub fn item(&self) -> Option<usize> {
        (self.item != Self::NO_ITEM).then_some(self.item as usize)
    }
}

#[derive(Serialize, Deserialize)]
struct ArrivalWire(
    u64,
    KindName,
    Channel,
    #[serde(default, skip_serializing_if = "Option::is_none")] Option<usize>,
);

/// An event kind, written as its name and read back as its number.
struct KindName(u8);

impl Serialize for KindName {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(kind_name(self.0))
    }
}

impl<'de> Deserialize<'de> for KindName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = KindName;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an event kind")
            }
            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<KindName, E> {
                Ok(KindName(kind_number(name)))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

impl Serialize for Arrival {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ArrivalWire(
            self.sequence,
            KindName(self.kind),
            self.channel,
            self.item(),
        )
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Arrival {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let ArrivalWire(sequence, kind, channel, item) = ArrivalWire::deserialize(deserializer)?;
        Ok(Arrival::new(sequence, kind.0, channel, item))
    }
}

/// The kinds of timeline item looked up by the upstream id they carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Keyed {
    Message,
    Reasoning,
    Tool,
}

fn item_key(body: &ItemBody) -> Option<(Keyed, &str)> {
    match body {
        ItemBody::Message { message_id, .. } => Some((Keyed::Message, message_id)),
        ItemBody::Reasoning { message_id, .. } => Some((Keyed::Reasoning, message_id)),
        ItemBody::ToolCall { tool_call_id, .. } => Some((Keyed::Tool, tool_call_id)),
        _ => None,
    }
}

/// Message, reasoning and tool-call items by their id. The table holds only item
/// positions and hashes the ids in the items themselves, so a new item costs no copy of
/// its id and the index stays a few bytes an item.
#[derive(Clone, Debug, Default)]
struct ItemIndex {
    table: hashbrown::HashTable<u32>,
    hasher: foldhash::fast::RandomState,
}

impl ItemIndex {
    fn get(&self, items: &[Item], keyed: Keyed, id: &str) -> Option<usize> {
        let hash = self.hasher.hash_one((keyed, id));
        self.table
            .find(hash, |&position| {
                item_key(&items[position as usize].body) == Some((keyed, id))
            })
            .map(|&position| position as usize)
    }

    /// Indexes the item at `position`, which must carry a key.
    fn insert(&mut self, items: &[Item], position: usize) {
        let Some(key) = item_key(&items[position].body) else {
            return;
        };
        let Ok(slot) = u32::try_from(position) else {
            return;
        };
        let hasher = &self.hasher;
        self.table
            .insert_unique(hasher.hash_one(key), slot, |&other| {
                item_key(&items[other as usize].body).map_or(0, |key| hasher.hash_one(key))
            });
    }
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// Lookup tables rebuilt from the view's content; never serialized.
#[derive(Clone, Debug, Default)]
struct Index {
    built: bool,
    items: ItemIndex,
    asks: IdMap<usize>,
    artifacts: IdMap<usize>,
    /// Timeline item of each ask, by ask id.
    ask_items: IdMap<usize>,
    /// Steps still running (name, item), innermost last.
    active_steps: Vec<(String, usize)>,
    subagents: IdMap<usize>,
}

/// Everything the console shows of one run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RunView {
    pub policy: ViewPolicy,
    pub status: RunStatus,
    /// Why the run failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Timeline items in the order they first appeared (tool calls grouped by id).
    pub items: Vec<Item>,
    /// Every applied event in sequence order, pointing at the item it touched, except
    /// those up to `arrivals_omitted_through` (see [`RunView::omit_arrivals`]).
    pub arrivals: Vec<Arrival>,
    /// The arrivals of events up to this sequence were left out of this copy; 0 when
    /// none were.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub arrivals_omitted_through: u64,
    pub final_answer: Option<FinalAnswer>,
    /// Every ask of the run, in the order asked, with its current state.
    pub asks: Vec<Ask>,
    /// The agent state (STATE_SNAPSHOT / STATE_DELTA).
    pub state: Value,
    pub plan: Vec<PlanItem>,
    pub artifacts: Vec<ArtifactView>,
    pub edits: Vec<EditView>,
    /// The latest messages snapshot the agent sent, if any.
    pub messages_snapshot: Option<Value>,
    /// Opaque reasoning to echo back on the next run.
    pub encrypted_reasoning: Vec<Value>,
    /// What the agent is doing right now (spinner text), while it runs.
    pub activity: Option<String>,
    /// The AG-UI protocol version the agent reported when the run started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    pub last_sequence: u64,
    #[serde(skip)]
    index: Index,
}

impl PartialEq for RunView {
    fn eq(&self, other: &Self) -> bool {
        self.policy == other.policy
            && self.status == other.status
            && self.failure == other.failure
            && self.items == other.items
            && self.arrivals == other.arrivals
            && self.arrivals_omitted_through == other.arrivals_omitted_through
            && self.final_answer == other.final_answer
            && self.asks == other.asks
            && self.state == other.state
            && self.plan == other.plan
            && self.artifacts == other.artifacts
            && self.edits == other.edits
            && self.messages_snapshot == other.messages_snapshot
            && self.encrypted_reasoning == other.encrypted_reasoning
            && self.activity == other.activity
            && self.protocol_version == other.protocol_version
            && self.last_sequence == other.last_sequence
    }
}

impl RunView {
    pub fn new(policy: ViewPolicy) -> Self {
        Self {
            policy,
            state: Value::Object(Default::default()),
            ..Self::default()
        }
    }

    /// Projects a whole run.
    pub fn from_events<'a>(
        policy: ViewPolicy,
        events: impl IntoIterator<Item = &'a RunEvent>,
    ) -> Self {
        let mut view = Self::new(policy);
        for event in events {
            view.apply(event);
        }
        view
    }

    /// Leaves the arrival list out of this copy (one entry an event: the bulk of a long
    /// run's page, and only the arrival-order view reads it). Events applied afterwards
    /// still record theirs; [`RunView::restore_arrivals`] puts the earlier ones back.
    pub fn omit_arrivals(&mut self) {
        if let Some(last) = self.arrivals.last() {
            self.arrivals_omitted_through = last.sequence;
            self.arrivals = Vec::new();
        }
    }

    /// Whether `arrivals` holds every applied event.
    pub fn arrivals_complete(&self) -> bool {
        self.arrivals_omitted_through == 0
    }

    /// Puts back the omitted arrivals, taken from `full` (the arrivals of the same run,
    /// read at any later time): those up to the omitted sequence come first, then the ones
    /// recorded here since.
    pub fn restore_arrivals(&mut self, full: &[Arrival]) {
        if self.arrivals_complete() {
            return;
        }
        let through = self.arrivals_omitted_through;
        let earlier = full.partition_point(|arrival| arrival.sequence <= through);
        let mut arrivals = Vec::with_capacity(earlier + self.arrivals.len());
        arrivals.extend_from_slice(&full[..earlier]);
        arrivals.append(&mut self.arrivals);
        self.arrivals = arrivals;
        self.arrivals_omitted_through = 0;
    }

    /// Asks still waiting for an answer, oldest first.
    pub fn pending_asks(&self) -> impl Iterator<Item = &Ask> {
        self.asks.iter().filter(|ask| ask.state.is_pending())
    }

    pub fn ask(&self, ask_id: &str) -> Option<&Ask> {
        self.asks.iter().find(|ask| ask.id == ask_id)
    }

    /// Whether analysis items are shown under the current policy.
    pub fn reasoning_visible(&self) -> bool {
        self.policy.show_reasoning
    }

    pub fn artifact(&self, artifact_id: &str) -> Option<&ArtifactView> {
        self.artifacts.iter().find(|a| a.artifact_id == artifact_id)
    }

    pub fn edit(&self, edit_id: &str) -> Option<&EditView> {
        self.edits.iter().find(|e| e.edit_id == edit_id)
    }

    /// The timeline, one line an item (the replay tool's text form).
    pub fn timeline_lines(&self) -> Vec<String> {
        self.items
            .iter()
            .filter(|item| !item.is_blank())
            .map(|item| item.summary_line(&self.asks))
            .collect()
    }

    fn ensure_index(&mut self) {
        if self.index.built {
            return;
        }
        let mut index = Index {
            built: true,
            ..Index::default()
        };
        for (position, item) in self.items.iter().enumerate() {
            match &item.body {
                ItemBody::Message { .. }
                | ItemBody::Reasoning { .. }
                | ItemBody::ToolCall { .. } => {
                    index.items.insert(&self.items, position);
                }
                ItemBody::Ask { ask_id } => {
                    index.ask_items.insert(ask_id.clone(), position);
                }
                ItemBody::Step { name, active: true } => {
                    index.active_steps.push((name.clone(), position));
                }
                ItemBody::Subagent {
                    subagent_run_id, ..
                } => {
                    index.subagents.insert(subagent_run_id.clone(), position);
                }
                _ => {}
            }
        }
        for (position, ask) in self.asks.iter().enumerate() {
            index.asks.insert(ask.id.clone(), position);
        }
        for (position, artifact) in self.artifacts.iter().enumerate() {
            index
                .artifacts
                .insert(artifact.artifact_id.clone(), position);
        }
        self.index = index;
    }

    fn push_item(&mut self, event: &RunEvent, body: ItemBody) -> usize {
        self.items.push(Item {
            sequence: event.sequence,
            updated: event.sequence,
            ts: event.ts,
            channel: event.channel,
            body,
        });
        self.items.len() - 1
    }

    fn touch(&mut self, position: usize, event: &RunEvent) {
        self.items[position].updated = event.sequence;
    }

    fn message_item(&mut self, event: &RunEvent, message_id: &str, role: Role) -> usize {
        if let Some(position) = self
            .index
            .items
            .get(&self.items, Keyed::Message, message_id)
        {
            return position;
        }
        let position = self.push_item(
            event,
            ItemBody::Message {
                message_id: message_id.to_owned(),
                role,
                name: None,
                text: String::new(),
                streaming: true,
                is_final: false,
            },
        );
        self.index.items.insert(&self.items, position);
        position
    }

    fn reasoning_item(&mut self, event: &RunEvent, message_id: &str) -> usize {
        if let Some(position) = self
            .index
            .items
            .get(&self.items, Keyed::Reasoning, message_id)
        {
            return position;
        }
        let position = self.push_item(
            event,
            ItemBody::Reasoning {
                message_id: message_id.to_owned(),
                text: String::new(),
                streaming: true,
            },
        );
        self.index.items.insert(&self.items, position);
        position
    }

    fn tool_item(&mut self, event: &RunEvent, tool_call_id: &str, name: &str) -> usize {
        if let Some(position) = self.index.items.get(&self.items, Keyed::Tool, tool_call_id) {
            return position;
        }
        let position = self.push_item(
            event,
            ItemBody::ToolCall {
                tool_call_id: tool_call_id.to_owned(),
                name: name.to_owned(),
                arguments: String::new(),
                status: ToolStatus::Streaming,
                summary: None,
                parent_message_id: None,
                started_ts: event.ts,
                ended_ts: None,
                progress: Vec::new(),
                result: None,
            },
        );
        self.index.items.insert(&self.items, position);
        position
    }

    fn error_item(
        &mut self,
        event: &RunEvent,
        kind: ErrorKind,
        message: String,
        excerpt: Option<String>,
    ) -> usize {
        let position = self.push_item(
            event,
            ItemBody::Error {
                kind,
                message,
                excerpt,
            },
        );
        self.items[position].channel = Channel::Error;
        position
    }

    /// Applies one event. Events at or below the last applied sequence are ignored, so a
    /// resumed stream that repeats an event cannot duplicate anything.
    pub fn apply(&mut self, event: &RunEvent) {
        if event.sequence <= self.last_sequence && self.last_sequence != 0 {
            return;
        }
        self.ensure_index();
        self.last_sequence = event.sequence;
        let touched = self.apply_body(event);
        self.arrivals.push(Arrival::new(
            event.sequence,
            event.body.kind_number(),
            event.channel,
            touched,
        ));
    }

    fn apply_body(&mut self, event: &RunEvent) -> Option<usize> {
        match &event.body {
            EventBody::RunStarted { protocol_version } => {
                self.status = RunStatus::Running;
                self.failure = None;
                self.protocol_version.clone_from(protocol_version);
                None
            }
            EventBody::RunFinished { outcome } => {
                self.activity = None;
                let has_pending = self.pending_asks().next().is_some();
                self.status = match outcome {
                    RunOutcome::Success if has_pending => RunStatus::Interrupted,
                    RunOutcome::Success => RunStatus::Succeeded,
                    RunOutcome::Interrupted { .. } => RunStatus::Interrupted,
                    RunOutcome::Cancelled => RunStatus::Cancelled,
                };
                self.settle_tools();
                None
            }
            EventBody::RunFailed { message, .. } => {
                self.activity = None;
                self.status = RunStatus::Failed;
                self.failure = Some(message.clone());
                self.settle_tools();
                Some(self.error_item(event, ErrorKind::RunFailed, message.clone(), None))
            }
            EventBody::UserMessage { message_id, text } => {
                let position = self.message_item(event, message_id, Role::User);
                if let ItemBody::Message {
                    text: body,
                    streaming,
                    ..
                } = &mut self.items[position].body
                {
                    body.clone_from(text);
                    *streaming = false;
                }
                Some(position)
            }
            EventBody::MessageStarted {
                message_id,
                role,
                name,
            } => {
                let position = self.message_item(event, message_id, *role);
                if let ItemBody::Message {
                    role: r,
                    name: n,
                    streaming,
                    ..
                } = &mut self.items[position].body
                {
                    *r = *role;
                    n.clone_from(name);
                    *streaming = true;
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::TextDelta { message_id, delta } => {
                let position = self.message_item(event, message_id, Role::Assistant);
                if let ItemBody::Message { text, .. } = &mut self.items[position].body {
                    text.push_str(delta);
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::MessageEnded { message_id } => {
                let position = self
                    .index
                    .items
                    .get(&self.items, Keyed::Message, message_id)?;
                if let ItemBody::Message { streaming, .. } = &mut self.items[position].body {
                    *streaming = false;
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::FinalAnswer { message_id, text } => {
                let position = message_id
                    .as_ref()
                    .map(|id| self.message_item(event, id, Role::Assistant));
                let position = match (position, text) {
                    (Some(position), _) => Some(position),
                    (None, Some(_)) => {
                        let id = format!("final-{}", event.sequence);
                        Some(self.message_item(event, &id, Role::Assistant))
                    }
                    (None, None) => None,
                };
                let position = position?;
                if let ItemBody::Message {
                    text: body,
                    is_final,
                    streaming,
                    ..
                } = &mut self.items[position].body
                {
                    if let Some(text) = text {
                        // The upstream's own final text wins over what was streamed.
                        body.clone_from(text);
                    }
                    *is_final = true;
                    *streaming = false;
                    self.final_answer = Some(FinalAnswer {
                        text: body.clone(),
                        item: Some(position),
                    });
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::ReasoningStarted { message_id } => {
                Some(self.reasoning_item(event, message_id))
            }
            EventBody::ReasoningDelta { message_id, delta } => {
                let position = self.reasoning_item(event, message_id);
                if let ItemBody::Reasoning { text, .. } = &mut self.items[position].body {
                    text.push_str(delta);
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::ReasoningEnded { message_id } => {
                let position = self
                    .index
                    .items
                    .get(&self.items, Keyed::Reasoning, message_id)?;
                if let ItemBody::Reasoning { streaming, .. } = &mut self.items[position].body {
                    *streaming = false;
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::ReasoningEncrypted {
                subtype,
                entity_id,
                value,
            } => {
                self.encrypted_reasoning.push(serde_json::json!({
                    "subtype": subtype, "entityId": entity_id, "encryptedValue": value
                }));
                Some(self.push_item(
                    event,
                    ItemBody::EncryptedReasoning {
                        entity_id: entity_id.clone(),
                        subtype: subtype.clone(),
                    },
                ))
            }
            EventBody::ToolCallStarted {
                tool_call_id,
                name,
                parent_message_id,
                summary,
            } => {
                let position = self.tool_item(event, tool_call_id, name);
                if let ItemBody::ToolCall {
                    name: n,
                    parent_message_id: p,
                    summary: s,
                    status,
                    started_ts,
                    ..
                } = &mut self.items[position].body
                {
                    n.clone_from(name);
                    p.clone_from(parent_message_id);
                    if summary.is_some() {
                        s.clone_from(summary);
                    }
                    *status = ToolStatus::Streaming;
                    *started_ts = event.ts;
                }
                self.activity = None;
                Some(position)
            }
            EventBody::ToolCallArgs {
                tool_call_id,
                delta,
            } => {
                let position = self.tool_item(event, tool_call_id, "unknown");
                if let ItemBody::ToolCall { arguments, .. } = &mut self.items[position].body {
                    arguments.push_str(delta);
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::ToolCallEnded { tool_call_id } => {
                let position = self.tool_item(event, tool_call_id, "unknown");
                if let ItemBody::ToolCall {
                    status, ended_ts, ..
                } = &mut self.items[position].body
                {
                    if *status == ToolStatus::Streaming {
                        *status = ToolStatus::Running;
                    }
                    *ended_ts = Some(event.ts);
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::ToolProgress { tool_call_id, text } => {
                let position = self.tool_item(event, tool_call_id, "unknown");
                if let ItemBody::ToolCall { progress, .. } = &mut self.items[position].body {
                    progress.push(text.clone());
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::ToolResult {
                tool_call_id,
                tool_name,
                content,
                is_error,
                duration_ms,
            } => {
                let name = tool_name.as_deref().unwrap_or("unknown");
                let position = self.tool_item(event, tool_call_id, name);
                if let ItemBody::ToolCall {
                    status,
                    result,
                    started_ts,
                    ..
                } = &mut self.items[position].body
                {
                    *status = if *is_error {
                        ToolStatus::Failed
                    } else {
                        ToolStatus::Done
                    };
                    let measured = u64::try_from(event.ts - *started_ts).ok();
                    *result = Some(ToolResultView {
                        content: content.clone(),
                        is_error: *is_error,
                        duration_ms: duration_ms.or(measured),
                        ts: event.ts,
                    });
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::Edit {
                edit_id,
                tool_call_id,
                filename,
                patch,
            } => {
                let view = EditView {
                    edit_id: edit_id.clone(),
                    tool_call_id: tool_call_id.clone(),
                    filename: filename.clone(),
                    patch: patch.clone(),
                };
                match self.edits.iter_mut().find(|e| e.edit_id == *edit_id) {
                    Some(existing) => *existing = view,
                    None => self.edits.push(view),
                }
                Some(self.push_item(
                    event,
                    ItemBody::Edit {
                        edit_id: edit_id.clone(),
                    },
                ))
            }
            EventBody::Artifact {
                artifact_id,
                artifact_kind,
                title,
                data,
            } => {
                let view = ArtifactView {
                    artifact_id: artifact_id.clone(),
                    kind: artifact_kind.clone(),
                    title: title.clone(),
                    data: data.clone(),
                };
                match self.index.artifacts.get(artifact_id) {
                    Some(&position) => {
                        self.artifacts[position] = view;
                        None
                    }
                    None => {
                        self.index
                            .artifacts
                            .insert(artifact_id.clone(), self.artifacts.len());
                        self.artifacts.push(view);
                        Some(self.push_item(
                            event,
                            ItemBody::Artifact {
                                artifact_id: artifact_id.clone(),
                            },
                        ))
                    }
                }
            }
            EventBody::ArtifactPatched { artifact_id, patch } => {
                let Some(&position) = self.index.artifacts.get(artifact_id) else {
                    return Some(self.error_item(
                        event,
                        ErrorKind::Patch,
                        format!("patch for artifact {artifact_id:?}, which does not exist"),
                        None,
                    ));
                };
                match apply_patch(&mut self.artifacts[position].data, patch) {
                    Ok(()) => None,
                    Err(problem) => Some(self.error_item(
                        event,
                        ErrorKind::Patch,
                        format!(
                            "artifact {artifact_id:?} patch failed and was rolled back: {problem}"
                        ),
                        None,
                    )),
                }
            }
            EventBody::StateSnapshot { snapshot } => {
                self.state.clone_from(snapshot);
                None
            }
            EventBody::StateDelta { patch } => match apply_patch(&mut self.state, patch) {
                Ok(()) => None,
                Err(problem) => Some(self.error_item(
                    event,
                    ErrorKind::Patch,
                    format!("state patch failed and was rolled back: {problem}"),
                    None,
                )),
            },
            EventBody::MessagesSnapshot { messages } => {
                self.messages_snapshot = Some(messages.clone());
                let count = messages.as_array().map_or(0, Vec::len);
                Some(self.push_item(
                    event,
                    ItemBody::Json {
                        label: format!("messages snapshot ({count} messages)"),
                        json: messages.clone(),
                    },
                ))
            }
            EventBody::Plan { items } => {
                self.plan.clone_from(items);
                None
            }
            EventBody::StepStarted { name } => {
                let position = self.push_item(
                    event,
                    ItemBody::Step {
                        name: name.clone(),
                        active: true,
                    },
                );
                self.index.active_steps.push((name.clone(), position));
                Some(position)
            }
            EventBody::StepFinished { name } => {
                let slot = self
                    .index
                    .active_steps
                    .iter()
                    .rposition(|(n, _)| n == name)?;
                let (_, position) = self.index.active_steps.remove(slot);
                if let ItemBody::Step { active, .. } = &mut self.items[position].body {
                    *active = false;
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::SubagentStarted {
                subagent_run_id,
                name,
            } => {
                let position = self.push_item(
                    event,
                    ItemBody::Subagent {
                        subagent_run_id: subagent_run_id.clone(),
                        name: name.clone(),
                        running: true,
                        error: None,
                    },
                );
                self.index
                    .subagents
                    .insert(subagent_run_id.clone(), position);
                Some(position)
            }
            EventBody::SubagentFinished {
                subagent_run_id,
                error,
            } => {
                let position = *self.index.subagents.get(subagent_run_id)?;
                if let ItemBody::Subagent {
                    running, error: e, ..
                } = &mut self.items[position].body
                {
                    *running = false;
                    e.clone_from(error);
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::Notice {
                level,
                text,
                source,
            } => {
                // Spinner and "preparing a tool" texts describe the present moment only.
                if source == "thinking.delta" || source == "tool.generating" {
                    self.activity = (!text.is_empty()).then(|| text.clone());
                    return None;
                }
                let kind = if *level == Level::Error {
                    Some(ErrorKind::Gateway)
                } else {
                    None
                };
                Some(match kind {
                    Some(kind) if event.channel == Channel::Error => {
                        self.error_item(event, kind, text.clone(), None)
                    }
                    _ => self.push_item(
                        event,
                        ItemBody::Notice {
                            level: *level,
                            text: text.clone(),
                            source: source.clone(),
                        },
                    ),
                })
            }
            EventBody::Custom { name, value } => Some(self.push_item(
                event,
                ItemBody::Json {
                    label: format!("custom event {name}"),
                    json: value.clone(),
                },
            )),
            EventBody::Raw { source, event: raw } => Some(self.push_item(
                event,
                ItemBody::Json {
                    label: match source {
                        Some(source) => format!("raw event from {source}"),
                        None => "raw event".into(),
                    },
                    json: raw.clone(),
                },
            )),
            EventBody::Unknown {
                upstream_type,
                event: raw,
            } => Some(self.push_item(
                event,
                ItemBody::Json {
                    label: format!("unknown event {upstream_type}"),
                    json: raw.clone(),
                },
            )),
            EventBody::AskOpened { ask } => {
                match self.index.asks.get(&ask.id) {
                    // An ask once answered (or expired) stays as it was closed.
                    Some(&position) if !self.asks[position].state.is_pending() => return None,
                    Some(&position) => {
                        self.asks[position] = (**ask).clone();
                        if let Some(&item) = self.index.ask_items.get(&ask.id) {
                            self.touch(item, event);
                            return Some(item);
                        }
                    }
                    None => {
                        self.index.asks.insert(ask.id.clone(), self.asks.len());
                        self.asks.push((**ask).clone());
                    }
                }
                let position = self.push_item(
                    event,
                    ItemBody::Ask {
                        ask_id: ask.id.clone(),
                    },
                );
                self.index.ask_items.insert(ask.id.clone(), position);
                Some(position)
            }
            EventBody::AskClosed { ask_id, state, .. } => {
                let position = *self.index.asks.get(ask_id)?;
                // The first close is the one that counts: a late expiry does not relabel
                // an answer. Only the console reopens a closed ask (its answer was lost
                // before it reached the agent).
                if !self.asks[position].state.is_pending() && !state.is_pending() {
                    return None;
                }
                self.asks[position].state = (**state).clone();
                let item = self.index.ask_items.get(ask_id).copied();
                if let Some(item) = item {
                    self.touch(item, event);
                }
                if !matches!(**state, AskState::Pending) {
                    self.settle_tools_if_terminal();
                }
                item
            }
            EventBody::ProtocolViolation { message, .. } => {
                Some(self.error_item(event, ErrorKind::ProtocolViolation, message.clone(), None))
            }
            EventBody::Malformed { message, excerpt } => Some(self.error_item(
                event,
                ErrorKind::Malformed,
                message.clone(),
                (!excerpt.is_empty()).then(|| excerpt.clone()),
            )),
        }
    }

    /// Once the run is over, calls still waiting for a result will not get one here —
    /// unless an open ask is about that very call.
    fn settle_tools(&mut self) {
        let waiting: Vec<&str> = self
            .asks
            .iter()
            .filter(|ask| ask.state.is_pending())
            .filter_map(|ask| ask.tool_call_id.as_deref())
            .collect();
        for item in &mut self.items {
            match &mut item.body {
                ItemBody::ToolCall {
                    status,
                    tool_call_id,
                    ..
                } if matches!(status, ToolStatus::Streaming | ToolStatus::Running)
                    && !waiting.contains(&tool_call_id.as_str()) =>
                {
                    *status = ToolStatus::NoResult;
                }
                ItemBody::Step { active, .. } => {
                    *active = false;
                    self.index.active_steps.clear();
                }
                ItemBody::Subagent { running, .. } => *running = false,
                _ => {}
            }
        }
    }

    fn settle_tools_if_terminal(&mut self) {
        if self.status.is_terminal() {
            self.settle_tools();
        }
    }
}
