//! `/api/v1/notes`: list (paged, `?q=` searches), create, read, edit (`PATCH`), delete,
//! and each note's versions — read one, restore one.

use std::sync::Arc;

use app::api::service::NotesService;
use app::model::Role::Operator;
use app::model::notes::{
    NewNote, Note, NoteEdit, NoteList, NoteQuery, NoteVersion, NoteVersionSummary,
};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::on;
use schemars::JsonSchema;
use serde::Serialize;

use super::body::{Query, UrlPath, parse_body};
use super::context::Context;
use super::error::HttpError;
use super::operations::{Operation, schema};

type ApiResult = Result<Response, HttpError>;

pub const OPERATIONS: &[Operation] = &[
    Operation::get(
        "/api/v1/notes",
        "notes, newest edit first, or those a search finds, best first",
    )
    .query(schema::<NoteQuery>)
    .answers(200, schema::<NoteList>)
    .by(|verb| on(verb, list)),
    Operation::post("/api/v1/notes", "write a note")
        .needs(Operator)
        .records("note.create")
        .json(schema::<NewNote>, r#"{"title":"Probe","body":"probe"}"#)
        .answers(201, schema::<Note>)
        .creates("/api/v1/notes", "/id")
        .by(|verb| on(verb, create)),
    Operation::get("/api/v1/notes/{id}", "a note")
        .answers(200, schema::<Note>)
        .by(|verb| on(verb, read)),
    Operation::patch("/api/v1/notes/{id}", "edit a note: a new version")
        .needs(Operator)
        .records("note.edit")
        .json(schema::<NoteEdit>, r#"{"title":"Probe edited"}"#)
        .answers(200, schema::<Note>)
        .by(|verb| on(verb, edit)),
    Operation::delete("/api/v1/notes/{id}", "delete a note and its versions")
        .needs(Operator)
        .records("note.delete")
        .by(|verb| on(verb, delete)),
    Operation::get(
        "/api/v1/notes/{id}/versions",
        "a note's versions, newest first",
    )
    .answers(200, schema::<VersionList>)
    .by(|verb| on(verb, versions)),
    Operation::get(
        "/api/v1/notes/{id}/versions/{version}",
        "one version of a note",
    )
    .answers(200, schema::<NoteVersion>)
    .by(|verb| on(verb, version)),
    Operation::post(
        "/api/v1/notes/{id}/versions/{version}/restore",
        "make an earlier version the note's newest",
    )
    .needs(Operator)
    .records("note.restore")
    .answers(200, schema::<Note>)
    .by(|verb| on(verb, restore)),
];

#[derive(Serialize, JsonSchema)]
pub struct VersionList {
    pub versions: Vec<NoteVersionSummary>,
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
    Ok(axum::Json(VersionList { versions }).into_response())
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
