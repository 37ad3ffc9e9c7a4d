//! Boards of cards that agents take, move and finish: the service the REST API and the
//! console share (boards and cards made, changed, moved and commented on, checked field by
//! field), over the rules of `app::kanban`.

mod checks;
pub mod context;
pub mod dispatch;
pub mod work;

use std::sync::Arc;

use app::api::service::KanbanService;
use app::error::ApiError;
use app::kanban::{Lane, may_move_to, position_at};
use app::model::kanban::{
    Board, BoardEdit, BoardList, BoardView, Card, CardDetail, CardEdit, CardMove, Comment,
    NewBoard, NewCard, NewComment,
};
use app::model::{RequestContext, Role};
use serde_json::json;

use crate::clock::{now_ms, stamp_after};
use crate::fields::check_text;
use crate::runs::Runs;
use crate::store::Store;
use crate::store::kanban::NewEvent;

pub use dispatch::Dispatcher;
pub use work::CardWorkKind;

/// How often a change made against a card that moved meanwhile is tried again.
const ATTEMPTS: usize = 5;

pub struct KanbanServiceImpl {
    store: Arc<dyn Store>,
    runs: Arc<Runs>,
    dispatcher: Arc<Dispatcher>,
}

fn board_missing(id: &str) -> ApiError {
    ApiError::NotFound(format!("board {id:?} does not exist"))
}

fn card_missing(id: &str) -> ApiError {
    ApiError::NotFound(format!("card {id:?} does not exist"))
}

impl KanbanServiceImpl {
    pub fn new(store: Arc<dyn Store>, runs: Arc<Runs>, dispatcher: Arc<Dispatcher>) -> Self {
        Self {
            store,
            runs,
            dispatcher,
        }
    }

    /// A card or board changed: open boards read themselves again, and the dispatcher
    /// looks now.
    fn changed(&self, tenant_id: &str) {
        self.runs.live().tenant_changed(tenant_id);
        self.dispatcher.wake();
    }

    async fn get_board(&self, tenant_id: &str, id: &str) -> Result<Board, ApiError> {
        self.store
            .board(tenant_id, id)
            .await?
            .ok_or_else(|| board_missing(id))
    }

    async fn get_card(&self, tenant_id: &str, id: &str) -> Result<Card, ApiError> {
        self.store
            .card(tenant_id, id)
            .await?
            .ok_or_else(|| card_missing(id))
    }

    /// Where a card goes at `index` of `lane` (the end when none), the card itself left
    /// out of the lane.
    async fn position(
        &self,
        tenant_id: &str,
        board_id: &str,
        lane: Lane,
        index: Option<u32>,
        moving: Option<&str>,
    ) -> Result<f64, ApiError> {
        let others: Vec<f64> = self
            .store
            .cards(tenant_id, board_id, lane == Lane::Archived)
            .await?
            .into_iter()
            .filter(|card| card.lane == lane && Some(card.id.as_str()) != moving)
            .map(|card| card.position)
            .collect();
        let index = index.map_or(others.len(), |index| index as usize);
        Ok(position_at(&others, index))
    }

    /// Reads the card, changes it with `change` and writes it with the event `change`
    /// names, again if it moved on meanwhile; the card as written, and its event.
    async fn change_card<F>(
        &self,
        tenant_id: &str,
        id: &str,
        change: F,
    ) -> Result<(Card, NewEvent), ApiError>
    where
        F: Fn(&mut Card) -> Result<NewEvent, ApiError>,
    {
        for _ in 0..ATTEMPTS {
            let before = self.get_card(tenant_id, id).await?;
            let mut card = before.clone();
            let event = change(&mut card)?;
            card.updated_at_ms = stamp_after(before.updated_at_ms);
            if self
                .store
                .write_card(tenant_id, &card, before.updated_at_ms, &event)
                .await?
            {
                self.changed(tenant_id);
                return Ok((self.get_card(tenant_id, id).await?, event));
            }
        }
        Err(ApiError::Conflict(format!(
            "card {id:?} kept changing; try again"
        )))
    }
}

#[async_trait::async_trait]
impl KanbanService for KanbanServiceImpl {
    async fn boards(&self, context: &RequestContext) -> Result<BoardList, ApiError> {
        Ok(BoardList {
            boards: self.store.boards(&context.tenant).await?,
        })
    }

    async fn create_board(
        &self,
        context: &RequestContext,
        new: NewBoard,
    ) -> Result<Board, ApiError> {
        let tenant = &context.tenant;
        let name = check_text("name", &new.name, checks::NAME_MOST)?;
        let project_id = new.project_id.filter(|id| !id.trim().is_empty());
        if let Some(project) = &project_id
            && self.store.get_project(tenant, project).await?.is_none()
        {
            return Err(ApiError::BadRequest(format!(
                "project_id: project {project:?} does not exist"
            )));
        }
        let limits = new
            .limits
            .unwrap_or_default()
            .checked()
            .map_err(|reason| ApiError::BadRequest(format!("limits.{reason}")))?;
        let now = now_ms();
        let board = Board {
            id: format!("brd-{}", uuid::Uuid::new_v4().simple()),
            name,
            project_id,
            limits,
            asks: new.asks,
            created_by: context.acted_by(),
            created_at_ms: now,
            updated_at_ms: now,
        };
        self.store.create_board(tenant, &board).await?;
        Ok(board)
    }

    async fn board(
        &self,
        context: &RequestContext,
        id: &str,
        archived: bool,
    ) -> Result<BoardView, ApiError> {
        let board = self.get_board(&context.tenant, id).await?;
        let cards = self.store.cards(&context.tenant, id, archived).await?;
        Ok(BoardView { board, cards })
    }

    async fn edit_board(
        &self,
        context: &RequestContext,
        id: &str,
        edit: BoardEdit,
    ) -> Result<Board, ApiError> {
        let tenant = &context.tenant;
        for _ in 0..ATTEMPTS {
            let before = self.get_board(tenant, id).await?;
            let mut board = before.clone();
            if let Some(name) = &edit.name {
                board.name = check_text("name", name, checks::NAME_MOST)?;
            }
            if let Some(limits) = edit.limits {
                board.limits = limits
                    .checked()
                    .map_err(|reason| ApiError::BadRequest(format!("limits.{reason}")))?;
            }
            if let Some(asks) = edit.asks {
                board.asks = asks;
            }
            board.updated_at_ms = stamp_after(before.updated_at_ms);
            if self
                .store
                .replace_board(tenant, &board, before.updated_at_ms)
                .await?
            {
                self.changed(tenant);
                return Ok(board);
            }
        }
        Err(ApiError::Conflict(format!(
            "board {id:?} kept changing; try again"
        )))
    }

    async fn delete_board(&self, context: &RequestContext, id: &str) -> Result<(), ApiError> {
        context.require(Role::Owner, "delete a board with its cards")?;
        if self.store.delete_board(&context.tenant, id).await? {
            self.changed(&context.tenant);
            Ok(())
        } else {
            Err(board_missing(id))
        }
    }

    async fn create_card(
        &self,
        context: &RequestContext,
        board_id: &str,
        new: NewCard,
    ) -> Result<(Card, bool), ApiError> {
        let tenant = &context.tenant;
        self.get_board(tenant, board_id).await?;
        let lane = new.lane.unwrap_or(Lane::Todo);
        may_move_to(lane).map_err(ApiError::BadRequest)?;
        let checked = checks::Fields {
            store: self.store.as_ref(),
            runs: &self.runs,
            tenant,
            board_id,
        };
        let now = now_ms();
        let mut card = Card {
            id: format!("crd-{}", uuid::Uuid::new_v4().simple()),
            board_id: board_id.to_owned(),
            title: check_text("title", &new.title, checks::TITLE_MOST)?,
            body: checks::body(&new.body)?,
            agent: checked.agent(new.agent.as_deref())?,
            priority: checks::priority(new.priority)?,
            labels: checks::labels(&new.labels)?,
            lane,
            position: 0.0,
            blocked_reason: None,
            last_block: None,
            failures: 0,
            attempt_id: None,
            summary: None,
            depends_on: Vec::new(),
            links: checked.links(&new.links).await?,
            needs_you: None,
            created_by: context.acted_by(),
            created_at_ms: now,
            updated_at_ms: now,
        };
        card.depends_on = checked.depends_on(&card.id, &new.depends_on).await?;
        if lane == Lane::Blocked {
            card.blocked_reason = Some("made blocked".into());
        }
        card.position = self.position(tenant, board_id, lane, None, None).await?;
        let key = new
            .idempotency_key
            .as_deref()
            .map(str::trim)
            .filter(|key| !key.is_empty());
        let made = self.store.create_card(tenant, &card, key).await?;
        self.changed(tenant);
        Ok(made)
    }

    async fn card(&self, context: &RequestContext, id: &str) -> Result<CardDetail, ApiError> {
        let tenant = &context.tenant;
        let card = self.get_card(tenant, id).await?;
        Ok(CardDetail {
            attempts: self.store.attempts(tenant, id).await?,
            events: self.store.card_events(tenant, id).await?,
            comments: self.store.comments(tenant, id).await?,
            card,
        })
    }

    async fn edit_card(
        &self,
        context: &RequestContext,
        id: &str,
        edit: CardEdit,
    ) -> Result<Card, ApiError> {
        let tenant = &context.tenant;
        let before = self.get_card(tenant, id).await?;
        let checked = checks::Fields {
            store: self.store.as_ref(),
            runs: &self.runs,
            tenant,
            board_id: &before.board_id,
        };
        // Checked once, outside the retry: the checks read the store.
        let links = match &edit.links {
            Some(links) => Some(checked.links(links).await?),
            None => None,
        };
        let depends_on = match &edit.depends_on {
            Some(on) => Some(checked.depends_on(id, on).await?),
            None => None,
        };
        let agent = match &edit.agent {
            Some(agent) => Some(checked.agent(Some(agent))?),
            None => None,
        };
        let actor = context.acted_by();
        self.change_card(tenant, id, |card| {
            if let Some(title) = &edit.title {
                card.title = check_text("title", title, checks::TITLE_MOST)?;
            }
            if let Some(body) = &edit.body {
                card.body = checks::body(body)?;
            }
            if let Some(agent) = &agent {
                card.agent = agent.clone();
            }
            if let Some(priority) = edit.priority {
                card.priority = checks::priority(priority)?;
            }
            if let Some(labels) = &edit.labels {
                card.labels = checks::labels(labels)?;
            }
            if let Some(links) = &links {
                card.links = links.clone();
            }
            if let Some(on) = &depends_on {
                card.depends_on = on.clone();
            }
            Ok(NewEvent::new("edited", &actor, json!({})))
        })
        .await
        .map(|(card, _)| card)
    }

    async fn move_card(
        &self,
        context: &RequestContext,
        id: &str,
        to: CardMove,
    ) -> Result<Card, ApiError> {
        let tenant = &context.tenant;
        may_move_to(to.lane).map_err(ApiError::BadRequest)?;
        let reason = match to.lane {
            Lane::Blocked => Some(check_text(
                "reason",
                to.reason.as_deref().unwrap_or("blocked by hand"),
                checks::TITLE_MOST,
            )?),
            _ => None,
        };
        let before = self.get_card(tenant, id).await?;
        let position = self
            .position(tenant, &before.board_id, to.lane, to.index, Some(id))
            .await?;
        let actor = context.acted_by();
        let (moved, event) = self
            .change_card(tenant, id, |card| {
                let from = card.lane;
                card.lane = to.lane;
                card.position = position;
                card.blocked_reason = reason.clone();
                if let Some(reason) = &reason {
                    card.last_block = Some(reason.clone());
                }
                // A card taken out of running is taken back from its run.
                let taken_back = (from == Lane::Running && to.lane != Lane::Running)
                    .then(|| card.attempt_id.take())
                    .flatten();
                let mut event = NewEvent::new(
                    "moved",
                    &actor,
                    json!({"from": from, "to": to.lane, "reason": reason}),
                );
                event.attempt_id = taken_back;
                Ok(event)
            })
            .await?;
        if let Some(attempt) = &event.attempt_id {
            self.dispatcher.take_back(tenant, attempt, &actor).await?;
        }
        Ok(moved)
    }

    async fn comment(
        &self,
        context: &RequestContext,
        id: &str,
        comment: NewComment,
    ) -> Result<Comment, ApiError> {
        let tenant = &context.tenant;
        self.get_card(tenant, id).await?;
        let comment = Comment {
            id: format!("cmt-{}", uuid::Uuid::new_v4().simple()),
            author: context.acted_by(),
            body: checks::comment(&comment.body)?,
            at_ms: now_ms(),
        };
        self.store.add_comment(tenant, id, &comment).await?;
        self.changed(tenant);
        Ok(comment)
    }
}
