//! `/api/v1/projects`: list (paged; `?archived=true` for the archived ones), create, read
//! (with its threads, notes, open asks and latest runs), edit or archive (`PATCH`), delete.

use std::sync::Arc;

use app::api::service::ProjectsService;
use app::model::projects::{NewProject, ProjectEdit};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;

use super::AppState;
use super::api::parse_body;
use super::context::Context;
use super::error::HttpError;

type ApiResult = Result<Response, HttpError>;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/projects", get(list).post(create))
        .route(
            "/api/v1/projects/{id}",
            get(read).patch(edit).delete(delete),
        )
}

#[derive(Deserialize)]
struct ListQuery {
    #[serde(default)]
    archived: bool,
    q: Option<String>,
    #[serde(default)]
    offset: u32,
    limit: Option<u32>,
}

async fn list(
    State(projects): State<Arc<dyn ProjectsService>>,
    Context(context): Context,
    Query(query): Query<ListQuery>,
) -> ApiResult {
    let list = projects
        .list_projects(
            &context,
            query.archived,
            query.q.as_deref(),
            query.offset,
            query.limit.unwrap_or(50),
        )
        .await?;
    Ok(axum::Json(list).into_response())
}

async fn create(
    State(projects): State<Arc<dyn ProjectsService>>,
    Context(context): Context,
    body: Bytes,
) -> ApiResult {
    let project: NewProject = parse_body(&body)?;
    let project = projects.create_project(&context, project).await?;
    Ok((StatusCode::CREATED, axum::Json(project)).into_response())
}

async fn read(
    State(projects): State<Arc<dyn ProjectsService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    Ok(axum::Json(projects.project_page(&context, &id).await?).into_response())
}

async fn edit(
    State(projects): State<Arc<dyn ProjectsService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let edit: ProjectEdit = parse_body(&body)?;
    Ok(axum::Json(projects.edit_project(&context, &id, edit).await?).into_response())
}

async fn delete(
    State(projects): State<Arc<dyn ProjectsService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    projects.delete_project(&context, &id).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
