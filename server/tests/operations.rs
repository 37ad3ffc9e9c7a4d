//! The operation list is what is served: the OpenAPI description a live server serves
//! names every declared operation of the API and nothing else, a path the list does not
//! name is not served (404), and a declared path with another method answers 405 saying
//! which methods it takes.

#![allow(clippy::unwrap_used)]

mod common;

use common::api::Api;
use serde_json::Value;
use server::http::operations::Verb;

#[tokio::test]
async fn the_served_description_names_every_declared_api_operation_and_nothing_else() {
    let api = Api::start(&[]).await;
    // Open to anyone: it holds nothing of any tenant.
    let response = reqwest::get(api.url("/api/v1/openapi.json")).await.unwrap();
    assert_eq!(response.status(), 200);
    let document: Value = response.json().await.unwrap();
    assert_eq!(document["openapi"], "3.1.0");
    let mut described = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            described.push(format!("{} {path}", method.to_uppercase()));
        }
    }
    let operations = server::http::operations();
    let mut declared: Vec<String> = operations
        .iter()
        .filter(|operation| operation.path.starts_with("/api/v1/") || operation.path == "/healthz")
        .map(|operation| format!("{} {}", operation.verb.method(), operation.path))
        .collect();
    described.sort();
    declared.sort();
    assert_eq!(described, declared);
    assert!(
        operations
            .iter()
            .any(|operation| operation.verb == Verb::Delete)
    );
}

#[tokio::test]
async fn a_path_the_list_does_not_name_is_not_served_and_a_wrong_method_is_told_the_right_ones() {
    let api = Api::start(&[]).await;
    // An owner, who may call anything declared, calls what is not.
    let undeclared = api
        .client
        .post(api.url("/fn/not_a_function"))
        .header("content-type", "application/x-www-form-urlencoded")
        .send()
        .await
        .unwrap();
    assert_eq!(undeclared.status(), 404);
    let (status, said) = api.get("/api/v1/nothing/here").await;
    assert_eq!(status, 404, "{said}");
    let wrong = api
        .client
        .put(api.url("/api/v1/notes"))
        .json(&serde_json::json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 405);
    let allowed = wrong.headers()["allow"].to_str().unwrap().to_owned();
    assert!(
        allowed.contains("GET") && allowed.contains("POST"),
        "{allowed}"
    );
    let said: Value = wrong.json().await.unwrap();
    assert_eq!(said["error"]["kind"], "method_not_allowed", "{said}");
}
