//! `/api/v1/notes`: list (paged, `?q=` searches), create, read, edit (`PATCH`), delete,
//! and each note's versions — read one, restore one.

use std::sync::Arc;

use app::api::service::NotesService;
use app::model::notes::{NewNote, NoteEdit, NoteQuery};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;

use super::AppState;
use super::api::parse_body;
use super::context::Context;
use super::error::HttpError;

type ApiResult = Result<Response, HttpError>;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/notes", get(list).post(create))
        .route("/api/v1/notes/{id}", get(read).patch(edit).delete(delete))
        .route("/api/v1/notes/{id}/versions", get(versions))
        .route("/api/v1/notes/{id}/versions/{version}", get(version))
        .route(
            "/api/v1/notes/{id}/versions/{version}/restore",
            post(restore),
        )
}

async fn list(
    State(notes): State<Arc<dyn NotesService>>,
    Context(context): Context,
    Query(query): Query<NoteQuery>,
) -> ApiResult {
    Ok(axum::Json(notes.list_notes(&context, &query).await?).into_response())
}

async fn create(
    State(notes): State<Arc<dyn NotesService>>,
    Context(context): Context,
    body: Bytes,
) -> ApiResult {
    let note: NewNote = parse_body(&body)?;
    let note = notes.create_note(&context, note).await?;
    Ok((StatusCode::CREATED, axum::Json(note)).into_response())
}

async fn read(
    State(notes): State<Arc<dyn NotesService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    Ok(axum::Json(notes.get_note(&context, &id).await?).into_response())
}

async fn edit(
    State(notes): State<Arc<dyn NotesService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let edit: NoteEdit = parse_body(&body)?;
    Ok(axum::Json(notes.edit_note(&context, &id, edit).await?).into_response())
}

async fn delete(
    State(notes): State<Arc<dyn NotesService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    notes.delete_note(&context, &id).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

async fn versions(
    State(notes): State<Arc<dyn NotesService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    let versions = notes.note_versions(&context, &id).await?;
    Ok(axum::Json(json!({ "versions": versions })).into_response())
}

async fn version(
    State(notes): State<Arc<dyn NotesService>>,
    Context(context): Context,
    UrlPath((id, version)): UrlPath<(String, u32)>,
) -> ApiResult {
    Ok(axum::Json(notes.note_version(&context, &id, version).await?).into_response())
}

async fn restore(
    State(notes): State<Arc<dyn NotesService>>,
    Context(context): Context,
    UrlPath((id, version)): UrlPath<(String, u32)>,
) -> ApiResult {
    Ok(axum::Json(notes.restore_note(&context, &id, version).await?).into_response())
}
