//! `/api/v1/boards` and `/api/v1/cards`: boards listed, made, read with their cards,
//! changed and deleted; cards made on a board (idempotent with a key), read with their
//! attempts, log and comments, changed, moved and commented on.

use std::sync::Arc;

use app::api::service::KanbanService;
use app::model::Role::{Operator, Owner};
use app::model::kanban::{
    Board, BoardEdit, BoardList, BoardView, Card, CardDetail, CardEdit, CardMove, Comment,
    NewBoard, NewCard, NewComment,
};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::on;
use schemars::JsonSchema;
use serde::Deserialize;

use super::body::{Query, UrlPath, parse_body};
use super::context::Context;
use super::error::HttpError;
use super::operations::{Operation, schema};

type ApiResult = Result<Response, HttpError>;

pub const OPERATIONS: &[Operation] = &[
    Operation::get("/api/v1/boards", "the tenant's boards, by name")
        .answers(200, schema::<BoardList>)
        .by(|verb| on(verb, boards)),
    Operation::post("/api/v1/boards", "make a board")
        .needs(Operator)
        .records("board.create")
        .json(schema::<NewBoard>, r#"{"name":"Probe board"}"#)
        .answers(201, schema::<Board>)
        .creates("/api/v1/boards", "/id")
        .by(|verb| on(verb, create_board)),
    Operation::get(
        "/api/v1/boards/{id}",
        "a board with its cards (archived ones with ?archived=true)",
    )
    .query(schema::<BoardQuery>)
    .answers(200, schema::<BoardView>)
    .by(|verb| on(verb, board)),
    Operation::patch(
        "/api/v1/boards/{id}",
        "rename a board, or change its limits",
    )
    .needs(Operator)
    .records("board.edit")
    .json(schema::<BoardEdit>, r#"{"name":"Probed board"}"#)
    .answers(200, schema::<Board>)
    .by(|verb| on(verb, edit_board)),
    Operation::delete(
        "/api/v1/boards/{id}",
        "delete a board with its cards, their attempts, logs and comments",
    )
    .needs(Owner)
    .records("board.delete")
    .by(|verb| on(verb, delete_board)),
    Operation::post(
        "/api/v1/boards/{id}/cards",
        "make a card on a board (a second create with the same idempotency_key returns the first)",
    )
    .needs(Operator)
    .records("card.create")
    .json(schema::<NewCard>, r#"{"title":"Probe card"}"#)
    .answers(201, schema::<Card>)
    .or_status(200)
    .creates("/api/v1/cards", "/id")
    .by(|verb| on(verb, create_card)),
    Operation::get(
        "/api/v1/cards/{id}",
        "a card with its attempts, its log and its comments",
    )
    .answers(200, schema::<CardDetail>)
    .by(|verb| on(verb, card)),
    Operation::patch(
        "/api/v1/cards/{id}",
        "change a card's title, body, agent, priority, labels, links or dependencies",
    )
    .needs(Operator)
    .records("card.edit")
    .json(schema::<CardEdit>, r#"{"priority":2}"#)
    .answers(200, schema::<Card>)
    .by(|verb| on(verb, edit_card)),
    Operation::post(
        "/api/v1/cards/{id}/move",
        "move a card to a lane, at a place in it",
    )
    .needs(Operator)
    .records("card.move")
    .json(schema::<CardMove>, r#"{"lane":"todo","index":0}"#)
    .answers(200, schema::<Card>)
    .by(|verb| on(verb, move_card)),
    Operation::post("/api/v1/cards/{id}/comments", "comment on a card")
        .needs(Operator)
        .records("card.comment")
        .json(schema::<NewComment>, r#"{"body":"probed"}"#)
        .answers(201, schema::<Comment>)
        .by(|verb| on(verb, comment)),
];

#[derive(Deserialize, JsonSchema)]
struct BoardQuery {
    #[serde(default)]
    archived: bool,
}

async fn boards(
    State(kanban): State<Arc<dyn KanbanService>>,
    Context(context): Context,
) -> ApiResult {
    Ok(axum::Json(kanban.boards(&context).await?).into_response())
}

async fn create_board(
    State(kanban): State<Arc<dyn KanbanService>>,
    Context(context): Context,
    body: Bytes,
) -> ApiResult {
    let new: NewBoard = parse_body(&body)?;
    let board = kanban.create_board(&context, new).await?;
    Ok((StatusCode::CREATED, axum::Json(board)).into_response())
}

async fn board(
    State(kanban): State<Arc<dyn KanbanService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
    Query(query): Query<BoardQuery>,
) -> ApiResult {
    Ok(axum::Json(kanban.board(&context, &id, query.archived).await?).into_response())
}

async fn edit_board(
    State(kanban): State<Arc<dyn KanbanService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let edit: BoardEdit = parse_body(&body)?;
    Ok(axum::Json(kanban.edit_board(&context, &id, edit).await?).into_response())
}

async fn delete_board(
    State(kanban): State<Arc<dyn KanbanService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    kanban.delete_board(&context, &id).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

async fn create_card(
    State(kanban): State<Arc<dyn KanbanService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let new: NewCard = parse_body(&body)?;
    let (card, made) = kanban.create_card(&context, &id, new).await?;
    let status = if made {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, axum::Json(card)).into_response())
}

async fn card(
    State(kanban): State<Arc<dyn KanbanService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    Ok(axum::Json(kanban.card(&context, &id).await?).into_response())
}

async fn edit_card(
    State(kanban): State<Arc<dyn KanbanService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let edit: CardEdit = parse_body(&body)?;
    Ok(axum::Json(kanban.edit_card(&context, &id, edit).await?).into_response())
}

async fn move_card(
    State(kanban): State<Arc<dyn KanbanService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let to: CardMove = parse_body(&body)?;
    Ok(axum::Json(kanban.move_card(&context, &id, to).await?).into_response())
}

async fn comment(
    State(kanban): State<Arc<dyn KanbanService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let new: NewComment = parse_body(&body)?;
    let made = kanban.comment(&context, &id, new).await?;
    Ok((StatusCode::CREATED, axum::Json(made)).into_response())
}
