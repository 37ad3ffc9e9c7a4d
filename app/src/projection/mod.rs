//! The projection: a pure fold of a run's events into what the console shows.
//! `RunView::apply` updates in place — no part of the view is re-cloned per event — so
//! the cost of an event does not grow with the run.

pub mod activity;
mod arrival;
mod asks;
mod content;
pub mod history;
pub mod items;
mod messages;
mod notices;
mod patch;
mod steps;
mod tools;

use crate::protocol::idmap::IdMap;
use std::hash::BuildHasher;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::ask::Ask;
use crate::protocol::channel::{Channel, EventBody, GivenItem, PlanItem, RunEvent, RunOutcome};

pub use self::arrival::Arrival;
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

/// A run's view in the API's description: an object whose fields docs/protocol.md names
/// (the fold of the run's events: items, asks, arrivals, status).
#[cfg(feature = "schema")]
impl schemars::JsonSchema for RunView {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RunView".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "description": "a run's events folded into what the console shows; see docs/protocol.md",
        })
    }
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
    /// What the console gave the agent with the run (pinned notes and memory).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub given: Vec<GivenItem>,
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
            && self.given == other.given
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
    /// Whether the agent published a state in this run (a snapshot or a patch left one).
    pub fn has_state(&self) -> bool {
        self.state
            .as_object()
            .is_none_or(|object| !object.is_empty())
    }

    pub fn pending_asks(&self) -> impl Iterator<Item = &Ask> {
        self.asks.iter().filter(|ask| ask.state.is_pending())
    }

    /// How many of the run's asks are closed (answered, expired or cancelled).
    pub fn closed_asks(&self) -> usize {
        self.asks.len() - self.pending_asks().count()
    }

    pub fn ask(&self, ask_id: &str) -> Option<&Ask> {
        self.asks.iter().find(|ask| ask.id == ask_id)
    }

    /// Whether analysis items are shown under the current policy.
    pub fn reasoning_visible(&self) -> bool {
        self.policy.show_reasoning
    }

    /// The item of tool call `tool_call_id`, if this run has one.
    pub fn tool_call(&self, tool_call_id: &str) -> Option<&Item> {
        // A view read back from JSON has no index until an event is applied to it.
        if !self.index.built {
            return self
                .items
                .iter()
                .find(|item| item_key(&item.body) == Some((Keyed::Tool, tool_call_id)));
        }
        self.index
            .items
            .get(&self.items, Keyed::Tool, tool_call_id)
            .map(|position| &self.items[position])
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

    /// Hands the event to the code for its family; each returns the item it touched.
    fn apply_body(&mut self, event: &RunEvent) -> Option<usize> {
        match &event.body {
            EventBody::RunStarted { .. }
            | EventBody::RunFinished { .. }
            | EventBody::RunFailed { .. } => self.apply_run(event),
            EventBody::UserMessage { .. }
            | EventBody::MessageStarted { .. }
            | EventBody::TextDelta { .. }
            | EventBody::MessageEnded { .. }
            | EventBody::FinalAnswer { .. }
            | EventBody::ReasoningStarted { .. }
            | EventBody::ReasoningDelta { .. }
            | EventBody::ReasoningEnded { .. }
            | EventBody::ReasoningEncrypted { .. } => self.apply_message(event),
            EventBody::ToolCallStarted { .. }
            | EventBody::ToolCallArgs { .. }
            | EventBody::ToolCallEnded { .. }
            | EventBody::ToolProgress { .. }
            | EventBody::ToolResult { .. } => self.apply_tool(event),
            EventBody::Edit { .. }
            | EventBody::Artifact { .. }
            | EventBody::ArtifactPatched { .. }
            | EventBody::StateSnapshot { .. }
            | EventBody::StateDelta { .. }
            | EventBody::MessagesSnapshot { .. }
            | EventBody::Plan { .. } => self.apply_content(event),
            EventBody::StepStarted { .. }
            | EventBody::StepFinished { .. }
            | EventBody::SubagentStarted { .. }
            | EventBody::SubagentFinished { .. } => self.apply_step(event),
            EventBody::Notice { .. }
            | EventBody::Custom { .. }
            | EventBody::Raw { .. }
            | EventBody::Unknown { .. }
            | EventBody::ProtocolViolation { .. }
            | EventBody::Malformed { .. } => self.apply_notice(event),
            EventBody::AskOpened { .. } | EventBody::AskClosed { .. } => self.apply_ask(event),
            EventBody::ContextGiven { items } => {
                self.given.clone_from(items);
                None
            }
            EventBody::SurfaceAction { action } => Some(self.push_item(
                event,
                ItemBody::SurfaceAction {
                    action: action.clone(),
                },
            )),
        }
    }

    fn apply_run(&mut self, event: &RunEvent) -> Option<usize> {
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
                self.settle_open_items();
                None
            }
            EventBody::RunFailed { message, .. } => {
                self.activity = None;
                if !self.status.is_terminal() {
                    self.close_asks_of_failed_run(event);
                }
                self.status = RunStatus::Failed;
                self.failure = Some(message.clone());
                self.settle_open_items();
                Some(self.error_item(event, ErrorKind::RunFailed, message.clone(), None))
            }
            // apply_body routes only the kinds above here.
            _ => None,
        }
    }
}
