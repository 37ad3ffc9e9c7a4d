//! The boards service the server implements and provides by context; every method acts in
//! the context's tenant.

use std::sync::Arc;

use leptos::prelude::use_context;

use crate::error::ApiError;
use crate::model::RequestContext;
use crate::model::kanban::{
    Board, BoardEdit, BoardList, BoardView, Card, CardDetail, CardEdit, CardMove, Comment,
    NewBoard, NewCard, NewComment,
};

#[async_trait::async_trait]
pub trait KanbanService: Send + Sync + 'static {
    async fn boards(&self, context: &RequestContext) -> Result<BoardList, ApiError>;
    async fn create_board(
        &self,
        context: &RequestContext,
        new: NewBoard,
    ) -> Result<Board, ApiError>;
    /// The board with its cards; archived ones too when asked.
    async fn board(
        &self,
        context: &RequestContext,
        id: &str,
        archived: bool,
    ) -> Result<BoardView, ApiError>;
    async fn edit_board(
        &self,
        context: &RequestContext,
        id: &str,
        edit: BoardEdit,
    ) -> Result<Board, ApiError>;
    async fn delete_board(&self, context: &RequestContext, id: &str) -> Result<(), ApiError>;
    /// The card, and whether it was made now (false: its idempotency key had made it).
    async fn create_card(
        &self,
        context: &RequestContext,
        board_id: &str,
        new: NewCard,
    ) -> Result<(Card, bool), ApiError>;
    async fn card(&self, context: &RequestContext, id: &str) -> Result<CardDetail, ApiError>;
    async fn edit_card(
        &self,
        context: &RequestContext,
        id: &str,
        edit: CardEdit,
    ) -> Result<Card, ApiError>;
    async fn move_card(
        &self,
        context: &RequestContext,
        id: &str,
        to: CardMove,
    ) -> Result<Card, ApiError>;
    async fn comment(
        &self,
        context: &RequestContext,
        id: &str,
        comment: NewComment,
    ) -> Result<Comment, ApiError>;
}

#[derive(Clone)]
pub struct KanbanOf(pub Arc<dyn KanbanService>);

pub fn kanban() -> Result<Arc<dyn KanbanService>, ApiError> {
    use_context::<KanbanOf>()
        .map(|kanban| kanban.0)
        .ok_or_else(|| ApiError::Internal("the boards service is not provided".into()))
}
