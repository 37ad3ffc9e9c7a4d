//! `/api/v1/projects`: list (paged; `?archived=true` for the archived ones), create, read
//! (with its threads, notes, open asks and latest runs), edit or archive (`PATCH`), delete.

use std::sync::Arc;

use app::api::service::ProjectsService;
use app::model::Role::Operator;
use app::model::projects::{NewProject, Project, ProjectEdit, ProjectList, ProjectPage};
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
    Operation::get(
        "/api/v1/projects",
        "projects, paged; the archived ones with ?archived=true",
    )
    .query(schema::<ListQuery>)
    .answers(200, schema::<ProjectList>)
    .by(|verb| on(verb, list)),
    Operation::post("/api/v1/projects", "start a project")
        .needs(Operator)
        .records("project.create")
        .json(schema::<NewProject>, r#"{"name":"Probe"}"#)
        .answers(201, schema::<Project>)
        .creates("/api/v1/projects", "/id")
        .by(|verb| on(verb, create)),
    Operation::get(
        "/api/v1/projects/{id}",
        "a project with its threads, notes, open asks and latest runs",
    )
    .answers(200, schema::<ProjectPage>)
    .by(|verb| on(verb, read)),
    Operation::patch(
        "/api/v1/projects/{id}",
        "edit, archive or restore a project",
    )
    .needs(Operator)
    .records("project.edit")
    .json(schema::<ProjectEdit>, r#"{"description":"probed"}"#)
    .answers(200, schema::<Project>)
    .by(|verb| on(verb, edit)),
    Operation::delete(
        "/api/v1/projects/{id}",
        "delete a project (its threads and notes stay)",
    )
    .needs(Operator)
    .records("project.delete")
    .by(|verb| on(verb, delete)),
];

#[derive(Deserialize, JsonSchema)]
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
