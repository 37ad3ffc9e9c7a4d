//! The OpenAPI 3.1 description of the JSON API, made from the operation list at start and
//! served at `GET /api/v1/openapi.json`: every operation under `/api/v1` (and the health
//! check) with its query, body and answers, each error it may answer in the API's one
//! error shape, and the schemas of every type named. Requests are described as the server
//! reads them, answers as it writes them.

use axum::response::{IntoResponse, Response};
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::{Access, Answer, Body, Operation, Operations};
use crate::http::state::OpenApiText;

pub const OPERATIONS: &[Operation] =
    &[
        Operation::get("/api/v1/openapi.json", "this description of the JSON API")
            .public()
            .answer(Answer::File)
            .by(|verb| axum::routing::on(verb, serve)),
    ];

/// The body of every error the API answers.
#[derive(Serialize, JsonSchema)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Serialize, JsonSchema)]
pub struct ErrorDetail {
    /// `bad_request`, `not_found`, `conflict`, `unauthorized`, `forbidden`,
    /// `too_many_requests`, `unsupported_media_type`, `payload_too_large`,
    /// `request_timeout`, `method_not_allowed`, `storage`, `internal` or `transport`.
    pub kind: String,
    /// What went wrong, in words for whoever sent the request.
    pub message: String,
}

async fn serve(axum::extract::State(text): axum::extract::State<OpenApiText>) -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        text.0.to_string(),
    )
        .into_response()
}

/// Whether an operation belongs in the description: the JSON API and the health check.
fn described(operation: &Operation) -> bool {
    operation.path.starts_with("/api/v1/") || operation.path == "/healthz"
}

fn generator(reading: bool) -> SchemaGenerator {
    let settings = SchemaSettings::draft2020_12().with(|settings| {
        settings.definitions_path = "#/components/schemas".into();
        settings.meta_schema = None;
    });
    let settings = if reading {
        settings.for_deserialize()
    } else {
        settings.for_serialize()
    };
    settings.into_generator()
}

/// The whole description of `operations`.
pub fn description(operations: &Operations) -> Value {
    // Requests as the server reads them, answers as it writes them: one generator each,
    // their schemas merged, a request schema that differs from an answer's of the same
    // name kept apart as `NameInput`.
    let mut reads = generator(true);
    let mut writes = generator(false);
    let error = writes.subschema_for::<ErrorBody>().to_value();
    let mut paths: Map<String, Value> = Map::new();
    for operation in operations.iter().filter(|operation| described(operation)) {
        let item = paths
            .entry(operation.path.to_owned())
            .or_insert_with(|| json!({}));
        let method = operation.verb.method().as_str().to_ascii_lowercase();
        item[method] = describe(operation, operations, (&mut reads, &mut writes), &error);
    }
    let answers = writes.take_definitions(true);
    let requests = reads.take_definitions(true);
    let (schemas, renamed) = merge(answers, requests);
    let mut document = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Agent OS",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The JSON API of the Agent OS console. Every call but signing in needs a session cookie or `Authorization: Bearer aos_…`, and acts in that credential's tenant. Errors are `{\"error\": {\"kind\", \"message\"}}`. See docs/api.md.",
        },
        "servers": [{"url": "/"}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "token": {"type": "http", "scheme": "bearer", "description": "an API token, `aos_<id>_<secret>` (`agent-os token create`)"},
                "session": {"type": "apiKey", "in": "cookie", "name": "agent_os_session"},
            },
        },
    });
    rename_request_refs(&mut document["paths"], &renamed);
    document
}

/// One operation's description.
fn describe(
    operation: &Operation,
    operations: &Operations,
    (reads, writes): (&mut SchemaGenerator, &mut SchemaGenerator),
    error: &Value,
) -> Value {
    let mut described = json!({
        "summary": operation.summary,
        "operationId": operation_id(operation),
        "tags": [tag(operation.path)],
    });
    if let Access::Public = operation.access {
        described["security"] = json!([]);
    } else {
        described["security"] = json!([{"token": []}, {"session": []}]);
    }
    let mut parameters: Vec<Value> = path_parameters(operation.path)
        .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
        .collect();
    if let Some(query) = operation.query {
        parameters.extend(query_parameters(&query(reads).to_value(), reads));
    }
    if !parameters.is_empty() {
        described["parameters"] = Value::Array(parameters);
    }
    if let Body::Json(body) = operation.body {
        described["requestBody"] = json!({
            "required": true,
            "content": {"application/json": {"schema": body(reads).to_value()}},
        });
    }
    let mut responses = Map::new();
    match operation.answer {
        Answer::Json(status, answer) => {
            let mut answered = json!({"description": "done", "content": {"application/json": {"schema": answer(writes).to_value()}}});
            if let Some(links) = links(operation, operations) {
                answered["links"] = links;
            }
            if let Some(also) = operation.also {
                responses.insert(also.to_string(), answered.clone());
            }
            responses.insert(status.to_string(), answered);
        }
        Answer::Empty => {
            responses.insert("204".into(), json!({"description": "done"}));
        }
        Answer::Events => {
            responses.insert(
                "200".into(),
                json!({"description": "Server-Sent Events, each with `id:` its sequence, until the client goes", "content": {"text/event-stream": {"schema": {"type": "string"}}}}),
            );
        }
        Answer::File | Answer::Page | Answer::Redirect | Answer::Any => {
            responses.insert("200".into(), json!({"description": "done"}));
        }
    }
    for (status, why) in errors(operation) {
        responses.insert(
            status.to_string(),
            json!({"description": why, "content": {"application/json": {"schema": error}}}),
        );
    }
    described["responses"] = Value::Object(responses);
    described
}

/// For an operation that makes an object: a link to each operation on that object, its
/// id read from the answer.
fn links(operation: &Operation, operations: &Operations) -> Option<Value> {
    let (collection, pointer) = operation.creates?;
    let prefix = format!("{collection}/{{");
    let mut links = Map::new();
    for target in operations.iter().filter(|target| described(target)) {
        let Some(rest) = target.path.strip_prefix(&prefix) else {
            continue;
        };
        let Some((parameter, _)) = rest.split_once('}') else {
            continue;
        };
        links.insert(
            operation_id(target),
            json!({
                "operationId": operation_id(target),
                "parameters": {parameter: format!("$response.body#{pointer}")},
            }),
        );
    }
    (!links.is_empty()).then_some(Value::Object(links))
}

/// The errors an operation may answer, each with when.
fn errors(operation: &Operation) -> Vec<(u16, &'static str)> {
    let mut errors = vec![
        (
            400,
            "the request is not valid: a field, the query or a header",
        ),
        (
            401,
            "no valid credentials came with the request, or they were wrong",
        ),
        (
            403,
            "not allowed: the caller's role, another site, or a spent link",
        ),
        (404, "no such object in the caller's tenant"),
        (409, "the object changed or was answered first"),
        (429, "a limit was reached: try again later"),
        (500, "the server failed; the log has the incident named"),
    ];
    if !matches!(operation.body, Body::None) {
        errors.push((408, "the body did not arrive in time"));
        errors.push((413, "the body is larger than the API takes"));
        errors.push((415, "the body is not declared as JSON"));
    }
    errors
}

/// `GET /api/v1/notes/{id}` → `getApiV1NotesId`.
fn operation_id(operation: &Operation) -> String {
    let mut id = operation.verb.method().as_str().to_ascii_lowercase();
    for word in operation
        .path
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
    {
        let mut letters = word.chars();
        if let Some(first) = letters.next() {
            id.push(first.to_ascii_uppercase());
            id.extend(letters);
        }
    }
    id
}

/// The resource an operation belongs to: the path's segment after `/api/v1/`.
fn tag(path: &str) -> &str {
    path.trim_start_matches("/api/v1/")
        .split('/')
        .next()
        .filter(|segment| !segment.is_empty())
        .unwrap_or("health")
}

fn path_parameters(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter_map(|segment| {
        segment
            .strip_prefix('{')
            .and_then(|rest| rest.strip_suffix('}'))
    })
}

/// A query type's fields as query parameters.
fn query_parameters(schema: &Value, reads: &SchemaGenerator) -> Vec<Value> {
    let resolved = match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => reference
            .rsplit('/')
            .next()
            .and_then(|name| reads.definitions().get(name))
            .cloned()
            .unwrap_or(Value::Null),
        None => schema.clone(),
    };
    let required: Vec<&str> = resolved["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    resolved["properties"]
        .as_object()
        .map(|properties| {
            properties
                .iter()
                .map(|(name, schema)| {
                    json!({"name": name, "in": "query", "required": required.contains(&name.as_str()), "schema": schema})
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The answers' schemas and the requests', in one map; a request schema whose name an
/// answer's differing schema holds is kept as `NameInput`, and its new name returned.
fn merge(
    answers: Map<String, Value>,
    requests: Map<String, Value>,
) -> (Map<String, Value>, Vec<(String, String)>) {
    let renamed: Vec<(String, String)> = requests
        .iter()
        .filter(|(name, schema)| answers.get(*name).is_some_and(|answer| answer != *schema))
        .map(|(name, _)| (name.clone(), format!("{name}Input")))
        .collect();
    let mut schemas = answers;
    for (name, mut schema) in requests {
        rename_refs(&mut schema, &renamed);
        match renamed.iter().find(|(old, _)| *old == name) {
            Some((_, input)) => {
                schemas.insert(input.clone(), schema);
            }
            None => {
                schemas.entry(name).or_insert(schema);
            }
        }
    }
    (schemas, renamed)
}

/// Points the request bodies' and queries' references at the renamed schemas.
fn rename_request_refs(paths: &mut Value, renamed: &[(String, String)]) {
    let Some(paths) = paths.as_object_mut() else {
        return;
    };
    for item in paths.values_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for operation in item.values_mut() {
            if let Some(body) = operation.get_mut("requestBody") {
                rename_refs(body, renamed);
            }
            if let Some(parameters) = operation.get_mut("parameters") {
                rename_refs(parameters, renamed);
            }
        }
    }
}

fn rename_refs(value: &mut Value, renamed: &[(String, String)]) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get_mut("$ref")
                && let Some((_, input)) = renamed
                    .iter()
                    .find(|(name, _)| reference.as_str() == format!("#/components/schemas/{name}"))
            {
                *reference = format!("#/components/schemas/{input}");
            }
            for child in map.values_mut() {
                rename_refs(child, renamed);
            }
        }
        Value::Array(items) => {
            for item in items {
                rename_refs(item, renamed);
            }
        }
        _ => {}
    }
}
