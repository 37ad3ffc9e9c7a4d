//! Boards and cards made over the API, for the tests of boards.

use serde_json::Value;

use super::api::Api;

/// A new board made of `body`.
pub async fn board(api: &Api, body: Value) -> Value {
    let (status, board) = api.post("/api/v1/boards", body).await;
    assert_eq!(status, 201, "{board}");
    board
}

/// A new card on `board`, made of `body`.
pub async fn card(api: &Api, board: &str, body: Value) -> Value {
    let (status, card) = api
        .post(&format!("/api/v1/boards/{board}/cards"), body)
        .await;
    assert_eq!(status, 201, "{card}");
    card
}

/// The kinds of a card's log entries, newest first, from its detail.
pub fn event_kinds(detail: &Value) -> Vec<String> {
    detail["events"]
        .as_array()
        .unwrap_or(&Vec::new())
        .iter()
        .map(|event| event["kind"].as_str().unwrap_or_default().to_owned())
        .collect()
}
