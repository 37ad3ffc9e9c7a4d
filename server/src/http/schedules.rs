//! `/api/v1/schedules`: list (paged), create (idempotent with a key), read (with the next
//! 10 fire times and the last 10 fires), edit, pause or resume (`PATCH`), fire now,
//! delete.

use std::sync::Arc;

use app::api::service::SchedulesService;
use app::model::Role::Operator;
use app::model::schedules::{NewSchedule, Schedule, ScheduleDetail, ScheduleEdit, ScheduleList};
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
    Operation::get("/api/v1/schedules", "schedules, by name, paged")
        .query(schema::<ListQuery>)
        .answers(200, schema::<ScheduleList>)
        .by(|verb| on(verb, list)),
    Operation::post(
        "/api/v1/schedules",
        "make a schedule (a second create with the same idempotency_key returns the first)",
    )
    .needs(Operator)
    .records("schedule.create")
    .json(
        schema::<NewSchedule>,
        r#"{"name":"Probe","agent":"demo","prompt":"hello","when":{"kind":"cron","expression":"0 9 * * 1"},"timezone":"Europe/Berlin","paused_reason":"probe"}"#,
    )
    .answers(201, schema::<Schedule>)
    .or_status(200)
    .creates("/api/v1/schedules", "/id")
    .by(|verb| on(verb, create)),
    Operation::get(
        "/api/v1/schedules/{id}",
        "a schedule with its next 10 fire times in its zone and its last 10 fires",
    )
    .answers(200, schema::<ScheduleDetail>)
    .by(|verb| on(verb, read)),
    Operation::patch(
        "/api/v1/schedules/{id}",
        "edit a schedule, pause it with a reason or resume it",
    )
    .needs(Operator)
    .records("schedule.edit")
    .json(schema::<ScheduleEdit>, r#"{"pause":"probed"}"#)
    .answers(200, schema::<Schedule>)
    .by(|verb| on(verb, edit)),
    Operation::post(
        "/api/v1/schedules/{id}/run",
        "fire a schedule now, under its overlap policy",
    )
    .needs(Operator)
    .records("schedule.run")
    .answers(202, schema::<ScheduleDetail>)
    .by(|verb| on(verb, run)),
    Operation::delete("/api/v1/schedules/{id}", "delete a schedule and its fires' records")
        .needs(Operator)
        .records("schedule.delete")
        .by(|verb| on(verb, delete)),
];

#[derive(Deserialize, JsonSchema)]
struct ListQuery {
    #[serde(default)]
    offset: u32,
    limit: Option<u32>,
}

async fn list(
    State(schedules): State<Arc<dyn SchedulesService>>,
    Context(context): Context,
    Query(query): Query<ListQuery>,
) -> ApiResult {
    let list = schedules
        .list_schedules(&context, query.offset, query.limit.unwrap_or(50))
        .await?;
    Ok(axum::Json(list).into_response())
}

async fn create(
    State(schedules): State<Arc<dyn SchedulesService>>,
    Context(context): Context,
    body: Bytes,
) -> ApiResult {
    let schedule: NewSchedule = parse_body(&body)?;
    let (schedule, made) = schedules.create_schedule(&context, schedule).await?;
    let status = if made {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, axum::Json(schedule)).into_response())
}

async fn read(
    State(schedules): State<Arc<dyn SchedulesService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    Ok(axum::Json(schedules.schedule(&context, &id).await?).into_response())
}

async fn edit(
    State(schedules): State<Arc<dyn SchedulesService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let edit: ScheduleEdit = parse_body(&body)?;
    Ok(axum::Json(schedules.edit_schedule(&context, &id, edit).await?).into_response())
}

async fn run(
    State(schedules): State<Arc<dyn SchedulesService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    let detail = schedules.run_schedule(&context, &id).await?;
    Ok((StatusCode::ACCEPTED, axum::Json(detail)).into_response())
}

async fn delete(
    State(schedules): State<Arc<dyn SchedulesService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    schedules.delete_schedule(&context, &id).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
