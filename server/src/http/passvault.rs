//! `/api/v1/passvault`: list (paged; `?env_var=` for the entries one variable takes, `?q=`
//! to search names, variables and descriptions),
//! store (`POST`, the value write-only), read, edit (`PATCH`, a new value replaces the old
//! unseen), delete, and `POST /{id}/reveal` with the password — the one response that
//! carries a value.

use std::sync::Arc;

use app::api::service::PassvaultService;
use app::model::Role::Owner;
use app::model::passvault::{
    NewVaultEntry, RevealRequest, Revealed, VaultEntry, VaultEntryEdit, VaultList,
};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
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
        "/api/v1/passvault",
        "passvault entries without their values, paged; ?env_var= or ?q= to narrow",
    )
    .query(schema::<ListQuery>)
    .answers(200, schema::<VaultList>)
    .by(|verb| on(verb, list)),
    Operation::post("/api/v1/passvault", "keep a secret: its value goes in once")
        .needs(Owner)
        .records("passvault.create")
        .json(
            schema::<NewVaultEntry>,
            r#"{"name":"Probe key","env_var":"PROBE_KEY","value":"probe-value-1"}"#,
        )
        .answers(201, schema::<VaultEntry>)
        .creates("/api/v1/passvault", "/id")
        .by(|verb| on(verb, create)),
    Operation::get(
        "/api/v1/passvault/{id}",
        "a passvault entry, without its value",
    )
    .answers(200, schema::<VaultEntry>)
    .by(|verb| on(verb, read)),
    Operation::patch(
        "/api/v1/passvault/{id}",
        "edit an entry; a new value replaces the old unseen",
    )
    .needs(Owner)
    .records("passvault.edit")
    .json(schema::<VaultEntryEdit>, r#"{"description":"probed"}"#)
    .answers(200, schema::<VaultEntry>)
    .by(|verb| on(verb, edit)),
    Operation::delete("/api/v1/passvault/{id}", "delete a passvault entry")
        .needs(Owner)
        .records("passvault.delete")
        .by(|verb| on(verb, delete)),
    Operation::post(
        "/api/v1/passvault/{id}/reveal",
        "an entry's value, with the caller's password given again",
    )
    .needs(Owner)
    .records("passvault.reveal")
    .json(
        schema::<RevealRequest>,
        r#"{"password":"not the password"}"#,
    )
    .answers(200, schema::<Revealed>)
    .by(|verb| on(verb, reveal)),
];

#[derive(Deserialize, JsonSchema)]
struct ListQuery {
    env_var: Option<String>,
    q: Option<String>,
    #[serde(default)]
    offset: u32,
    limit: Option<u32>,
}

async fn list(
    State(passvault): State<Arc<dyn PassvaultService>>,
    Context(context): Context,
    Query(query): Query<ListQuery>,
) -> ApiResult {
    let list = passvault
        .list_secrets(
            &context,
            query.env_var.as_deref().filter(|name| !name.is_empty()),
            query.q.as_deref(),
            query.offset,
            query.limit.unwrap_or(50),
        )
        .await?;
    Ok(axum::Json(list).into_response())
}

async fn create(
    State(passvault): State<Arc<dyn PassvaultService>>,
    Context(context): Context,
    body: Bytes,
) -> ApiResult {
    let entry: NewVaultEntry = parse_body(&body)?;
    let entry = passvault.create_secret(&context, entry).await?;
    Ok((StatusCode::CREATED, axum::Json(entry)).into_response())
}

async fn read(
    State(passvault): State<Arc<dyn PassvaultService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    Ok(axum::Json(passvault.secret(&context, &id).await?).into_response())
}

async fn edit(
    State(passvault): State<Arc<dyn PassvaultService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let edit: VaultEntryEdit = parse_body(&body)?;
    Ok(axum::Json(passvault.edit_secret(&context, &id, edit).await?).into_response())
}

async fn delete(
    State(passvault): State<Arc<dyn PassvaultService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    passvault.delete_secret(&context, &id).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// The value, never to be kept by a cache along the way.
async fn reveal(
    State(passvault): State<Arc<dyn PassvaultService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let request: RevealRequest = parse_body(&body)?;
    let revealed = passvault
        .reveal_secret(&context, &id, request.password)
        .await?;
    let mut response = axum::Json(revealed).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}
