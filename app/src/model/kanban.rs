//! Boards as clients see them: a board with its limits, its cards (each with what it
//! depends on and links to), and a card in full with its attempts, its event log and its
//! comments; what a client sends to make, change and move them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::kanban::{Lane, Limits};
use crate::model::schedules::AskPolicy;

/// The most cards a board holds.
pub const CARDS_MOST: usize = 5_000;
/// The longest a card's body may be, in characters.
pub const BODY_MOST: usize = 20_000;
/// The highest priority (urgent); 0 is low.
pub const PRIORITY_MOST: u8 = 3;

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Board {
    pub id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    pub limits: Limits,
    /// What an ask of a card's run does while nobody watches.
    pub asks: AskPolicy,
    pub created_by: String,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

/// A new board (`POST /api/v1/boards`).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewBoard {
    pub name: String,
    #[serde(default)]
    pub project_id: Option<String>,
    #[serde(default)]
    pub limits: Option<Limits>,
    #[serde(default)]
    pub asks: AskPolicy,
}

/// A change to a board (`PATCH /api/v1/boards/{id}`).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardEdit {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub limits: Option<Limits>,
    #[serde(default)]
    pub asks: Option<AskPolicy>,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BoardList {
    pub boards: Vec<Board>,
}

/// What a card links to besides the cards it depends on.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardLinks {
    #[serde(default)]
    pub threads: Vec<String>,
    #[serde(default)]
    pub notes: Vec<String>,
    #[serde(default)]
    pub cards: Vec<String>,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Card {
    pub id: String,
    pub board_id: String,
    pub title: String,
    /// Markdown.
    pub body: String,
    /// The agent that works it; none: nobody, and it is not handed out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// 0 (low) to 3 (urgent).
    pub priority: u8,
    pub labels: Vec<String>,
    pub lane: Lane,
    /// Its place in its lane (lower is higher up).
    pub position: f64,
    /// Why it is blocked, while it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_reason: Option<String>,
    /// The reason it was last blocked for, kept after it is unblocked: the same reason
    /// again sends it to triage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_block: Option<String>,
    /// Attempts that ended without the agent completing or blocking it, since it last
    /// completed.
    pub failures: u32,
    /// The attempt working it now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt_id: Option<String>,
    /// What the agent said when it completed it (or asked for review), for the cards that
    /// depend on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    pub depends_on: Vec<String>,
    pub links: CardLinks,
    /// The key of an ask its run waits on: the card needs a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs_you: Option<String>,
    pub created_by: String,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

/// A new card (`POST /api/v1/boards/{id}/cards`).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewCard {
    pub title: String,
    #[serde(default)]
    pub body: String,
    #[serde(default)]
    pub agent: Option<String>,
    #[serde(default)]
    pub priority: u8,
    #[serde(default)]
    pub labels: Vec<String>,
    /// Where it starts (not `running`); `todo` by default.
    #[serde(default)]
    pub lane: Option<Lane>,
    #[serde(default)]
    pub depends_on: Vec<String>,
    #[serde(default)]
    pub links: CardLinks,
    /// Makes the create happen once: a second create with the same key answers the card
    /// the first made.
    #[serde(default)]
    pub idempotency_key: Option<String>,
}

/// A change to a card (`PATCH /api/v1/cards/{id}`); `agent: ""` leaves it to nobody.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardEdit {
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub agent: Option<String>,
    #[serde(default)]
    pub priority: Option<u8>,
    #[serde(default)]
    pub labels: Option<Vec<String>>,
    #[serde(default)]
    pub depends_on: Option<Vec<String>>,
    #[serde(default)]
    pub links: Option<CardLinks>,
}

/// A move (`POST /api/v1/cards/{id}/move`): to `lane`, at `index` among its cards (the end
/// when none), with the reason when it is `blocked`.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardMove {
    pub lane: Lane,
    #[serde(default)]
    pub index: Option<u32>,
    #[serde(default)]
    pub reason: Option<String>,
}

/// One attempt at a card: the run an agent worked it in.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    pub id: String,
    pub card_id: String,
    /// 1 for the first.
    pub number: u32,
    pub agent: String,
    pub job_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// `running`, `completed`, `review`, `blocked`, `failed`, `reclaimed` or `cancelled`.
    pub state: String,
    pub started_at_ms: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at_ms: Option<i64>,
    /// The last sign of life of its run.
    pub last_sign_ms: i64,
    /// What the agent said, or why the attempt ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One entry of a card's append-only log.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CardEvent {
    pub seq: u64,
    /// `created`, `edited`, `moved`, `promoted`, `claimed`, `heartbeat`, `completed`,
    /// `review`, `blocked`, `loop_detected`, `failed`, `reclaimed`, `commented`.
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt_id: Option<String>,
    pub actor: String,
    pub detail: Value,
    pub at_ms: i64,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comment {
    pub id: String,
    pub author: String,
    pub body: String,
    pub at_ms: i64,
}

/// A comment (`POST /api/v1/cards/{id}/comments`).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewComment {
    pub body: String,
}

/// A board with every card not archived (`?archived=true`: those too).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoardView {
    pub board: Board,
    pub cards: Vec<Card>,
}

/// A card in full.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CardDetail {
    pub card: Card,
    pub attempts: Vec<Attempt>,
    pub events: Vec<CardEvent>,
    pub comments: Vec<Comment>,
}
