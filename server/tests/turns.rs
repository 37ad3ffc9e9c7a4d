//! A thread's turns end to end: what each new run carries from the ones before — the
//! first half of a paused run, earlier messages and state, a retried message (once), a
//! frontend tool's result.

#![allow(clippy::unwrap_used)]

mod common;

use common::api::{Api, texts, tool_calls};
use serde_json::{Value, json};

#[tokio::test]
async fn a_run_that_did_work_can_pause_and_its_resume_carries_the_first_half() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let run = api.say(&thread, "busy").await;
    let paused = api.settled(&run).await;
    assert_eq!(paused["run"]["status"], "interrupted");
    assert_eq!(tool_calls(&paused["view"]).len(), 2);
    assert_eq!(
        paused["view"]["state"]["tasks"].as_array().unwrap().len(),
        2
    );
    api.receipt(&run, "busy-third", "approval_card", "once", json!({}))
        .await;
    let resumed = api.nth_run(&thread, 1).await;
    assert_eq!(texts(&resumed["view"]), ["Three on the board."]);
    assert_eq!(
        resumed["view"]["state"]["tasks"].as_array().unwrap().len(),
        3
    );
}

#[tokio::test]
async fn a_second_run_carries_the_messages_and_state_the_first_established() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    api.settled(&api.say(&thread, "hello there").await).await;
    let second = api.settled(&api.say(&thread, "and again").await).await;
    let text = texts(&second["view"]).join(" ");
    // user, assistant text, the render_a2ui call and its result.
    assert!(
        text.contains("I remember 4 earlier messages; the board had 2 tasks."),
        "{text}"
    );
}

#[tokio::test]
async fn a_retry_sends_the_last_message_once_without_the_reply_it_redoes() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let first = api.say(&thread, "hello there").await;
    api.settled(&first).await;
    let second = api.say(&thread, "and again").await;
    let second_view = api.settled(&second).await;

    let (status, retried) = api
        .post(&format!("/api/v1/runs/{second}/retry"), json!({}))
        .await;
    assert_eq!(status, 202, "{retried}");
    let third = retried["run"]["id"].as_str().unwrap().to_owned();
    let third_view = api.settled(&third).await;
    // The agent heard the first turn and the message once: not the reply being redone.
    let text = texts(&third_view["view"]).join(" ");
    assert!(text.contains("I remember 4 earlier messages;"), "{text}");
    let user_message = |view: &Value| {
        view["view"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|item| item["role"] == "user")
            .map(|item| (item["message_id"].clone(), item["text"].clone()))
            .unwrap()
    };
    assert_eq!(user_message(&third_view), user_message(&second_view));

    // Only the last turn can be sent again, and only a run that exists.
    let (status, refused) = api
        .post(&format!("/api/v1/runs/{first}/retry"), json!({}))
        .await;
    assert_eq!(status, 409, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("last turn"),
        "{refused}"
    );
    let (status, _) = api.post("/api/v1/runs/no-such-run/retry", json!({})).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_frontend_tool_call_is_answered_with_a_tool_message_in_the_next_run() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let run = api.say(&thread, "frontend").await;
    let paused = api.settled(&run).await;
    assert_eq!(paused["run"]["status"], "interrupted");
    let ask = &paused["view"]["asks"][0];
    assert_eq!(ask["kind"], "frontend_tool");
    let id = ask["id"].as_str().unwrap();
    let (status, _) = api
        .receipt(
            &run,
            id,
            "frontend_tool",
            "submit",
            json!({"result": {"applied": "#0b7285"}}),
        )
        .await;
    assert_eq!(status, 200);
    let follow_up = api.nth_run(&thread, 1).await;
    assert_eq!(
        texts(&follow_up["view"]),
        ["The console ran it: {\"applied\":\"#0b7285\"}"]
    );
}
