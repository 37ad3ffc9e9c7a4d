//! What the store keeps of boards: each board with its limits; its cards with what they
//! depend on; each card's attempts, append-only event log and comments. Every change to a
//! card is written with its event in one transaction, and only over the card as it was
//! read (`updated_at_ms`), so of two changes made at once one wins and the other is told.

use app::model::kanban::{Attempt, Board, Card, CardEvent, Comment};
use serde_json::Value;

use super::StoreError;
use super::jobs::NewJob;

/// An entry for a card's log.
#[derive(Clone, Debug, PartialEq)]
pub struct NewEvent {
    pub kind: &'static str,
    pub actor: String,
    pub attempt_id: Option<String>,
    pub detail: Value,
}

impl NewEvent {
    pub fn new(kind: &'static str, actor: &str, detail: Value) -> Self {
        Self {
            kind,
            actor: actor.to_owned(),
            attempt_id: None,
            detail,
        }
    }
}

/// A card handed to its agent: the card as it is now (running), its new attempt and the
/// job that works it, written together.
#[derive(Clone, Debug, PartialEq)]
pub struct Claim {
    pub card: Card,
    /// The card's `updated_at_ms` the claim was decided on.
    pub expected_updated_at_ms: i64,
    pub attempt: Attempt,
    pub job: NewJob,
}

#[async_trait::async_trait]
pub trait KanbanStore: Send + Sync {
    async fn create_board(&self, tenant_id: &str, board: &Board) -> Result<(), StoreError>;
    async fn boards(&self, tenant_id: &str) -> Result<Vec<Board>, StoreError>;
    async fn board(&self, tenant_id: &str, id: &str) -> Result<Option<Board>, StoreError>;
    /// Every tenant's boards, for the dispatcher.
    async fn all_boards(&self) -> Result<Vec<(String, Board)>, StoreError>;
    /// Writes `board` if it is still at `expected_updated_at_ms`.
    async fn replace_board(
        &self,
        tenant_id: &str,
        board: &Board,
        expected_updated_at_ms: i64,
    ) -> Result<bool, StoreError>;
    /// Removes the board with its cards, their attempts, logs and comments; false when
    /// there was none.
    async fn delete_board(&self, tenant_id: &str, id: &str) -> Result<bool, StoreError>;

    /// Adds `card` (with its dependencies and a `created` event); with an idempotency key
    /// the board already used, returns that card instead (and false).
    async fn create_card(
        &self,
        tenant_id: &str,
        card: &Card,
        idempotency_key: Option<&str>,
    ) -> Result<(Card, bool), StoreError>;
    /// The board's cards by lane and place, archived ones only when asked; each with what
    /// it depends on and the ask its run waits on, if one does.
    async fn cards(
        &self,
        tenant_id: &str,
        board_id: &str,
        archived: bool,
    ) -> Result<Vec<Card>, StoreError>;
    async fn card(&self, tenant_id: &str, id: &str) -> Result<Option<Card>, StoreError>;
    /// Writes `card` (its fields and its dependencies) and `event`, if the card is still at
    /// `expected_updated_at_ms`.
    async fn write_card(
        &self,
        tenant_id: &str,
        card: &Card,
        expected_updated_at_ms: i64,
        event: &NewEvent,
    ) -> Result<bool, StoreError>;
    /// Writes each claim — the card running, its attempt, a `claimed` event and its job —
    /// all or none of them: none when any card changed since it was read, or the board no
    /// longer has `running` cards running (another dispatcher came first), so no limit is
    /// passed by two dispatchers at once.
    async fn claim_cards(
        &self,
        tenant_id: &str,
        board_id: &str,
        running: usize,
        claims: &[Claim],
        now_ms: i64,
    ) -> Result<bool, StoreError>;
    async fn attempts(&self, tenant_id: &str, card_id: &str) -> Result<Vec<Attempt>, StoreError>;
    async fn attempt(&self, tenant_id: &str, id: &str) -> Result<Option<Attempt>, StoreError>;
    /// The latest attempt that worked in thread `thread_id`.
    async fn attempt_of_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Option<Attempt>, StoreError>;
    async fn write_attempt(&self, tenant_id: &str, attempt: &Attempt) -> Result<(), StoreError>;
    /// When the latest event of any run in the thread arrived: its last sign of life.
    async fn last_sign(&self, tenant_id: &str, thread_id: &str) -> Result<Option<i64>, StoreError>;
    async fn card_events(
        &self,
        tenant_id: &str,
        card_id: &str,
    ) -> Result<Vec<CardEvent>, StoreError>;
    async fn comments(&self, tenant_id: &str, card_id: &str) -> Result<Vec<Comment>, StoreError>;
    /// Adds the comment and a `commented` event.
    async fn add_comment(
        &self,
        tenant_id: &str,
        card_id: &str,
        comment: &Comment,
    ) -> Result<(), StoreError>;
}
