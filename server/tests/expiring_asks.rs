//! An ask past its deadline (an AG-UI interrupt's `expiresAt`) takes no answer: the
//! receipt is refused as expired, the ask closes so — by itself once its deadline
//! passes — and the resume tells the agent it was abandoned.

#![allow(clippy::unwrap_used)]

mod common;

use std::sync::{Arc, Mutex};

use common::agent::{of_run, said};
use common::api::{Api, resume_statuses, texts};
use serde_json::{Value, json};

/// An agent whose first run pauses on two approvals, one of them past its deadline
/// already (on "wait": on one approval due in 1.5 s); a resume is answered with
/// "Resumed.". Every input is kept.
async fn agent() -> (String, Arc<Mutex<Vec<Value>>>) {
    common::agent::scripted(|input| {
        let mut events = vec![of_run(input, json!({"type": "RUN_STARTED"}))];
        if input.get("resume").is_some() {
            events.extend(said("m1", "Resumed."));
            events.push(of_run(input, json!({"type": "RUN_FINISHED"})));
            return events;
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64;
        let interrupts = if input["messages"][0]["content"] == "wait" {
            json!([{"id": "soon", "reason": "tool_approval", "message": "Deploy now?",
                    "expiresAt": now + 1_500}])
        } else {
            json!([
                {"id": "late", "reason": "tool_approval", "message": "Deploy?", "expiresAt": now - 60_000},
                {"id": "open", "reason": "tool_approval", "message": "Tag it?"},
            ])
        };
        events.push(of_run(
            input,
            json!({"type": "RUN_FINISHED", "outcome": {"type": "interrupt", "interrupts": interrupts}}),
        ));
        events
    })
    .await
}

#[tokio::test]
async fn an_ask_past_its_deadline_is_refused_as_expired_and_resumed_as_abandoned() {
    let (url, seen) = agent().await;
    let api = Api::start(&["--agent", &format!("deadline={url}"), "--no-demo"]).await;
    let thread = api.thread(None).await;
    let run = api.say(&thread, "deploy").await;
    assert_eq!(api.settled(&run).await["run"]["status"], "interrupted");

    let (refused, body) = api
        .receipt(&run, "late", "approval_card", "once", json!({}))
        .await;
    assert_eq!(refused, 409, "{body}");
    assert_eq!(body["resolution"]["state"], "expired", "{body}");
    let (answered, body) = api
        .receipt(&run, "open", "approval_card", "once", json!({}))
        .await;
    assert_eq!(answered, 200, "{body}");

    let resumed = api.nth_run(&thread, 1).await;
    assert_eq!(texts(&resumed["view"]), ["Resumed."]);
    let inputs = seen.lock().unwrap().clone();
    assert_eq!(inputs.len(), 2, "{inputs:?}");
    let statuses = resume_statuses(&inputs[1]["resume"]);
    assert_eq!(statuses, [("late", "cancelled"), ("open", "resolved")]);
}

#[tokio::test]
async fn an_ask_nobody_answers_closes_as_expired_when_its_deadline_passes_and_the_run_resumes() {
    let (url, seen) = agent().await;
    let api = Api::start(&["--agent", &format!("deadline={url}"), "--no-demo"]).await;
    let thread = api.thread(None).await;
    let run = api.say(&thread, "wait").await;
    let paused = api.settled(&run).await;
    assert_eq!(
        paused["view"]["asks"][0]["state"]["state"], "pending",
        "{paused}"
    );
    let (_, inbox) = api.get("/api/v1/inbox").await;
    assert_eq!(inbox["pending"], 1, "{inbox}");

    // Nobody answers; the deadline passes.
    let resumed = api.nth_run(&thread, 1).await;
    assert_eq!(texts(&resumed["view"]), ["Resumed."]);
    let (_, shown) = api.get(&format!("/api/v1/runs/{run}")).await;
    assert_eq!(
        shown["view"]["asks"][0]["state"]["state"], "expired",
        "{shown}"
    );
    let (_, inbox) = api.get("/api/v1/inbox").await;
    assert_eq!(inbox["pending"], 0, "{inbox}");
    let inputs = seen.lock().unwrap().clone();
    assert_eq!(inputs.len(), 2, "{inputs:?}");
    assert_eq!(
        resume_statuses(&inputs[1]["resume"]),
        [("soon", "cancelled")]
    );
    let (late, body) = api
        .receipt(&run, "soon", "approval_card", "once", json!({}))
        .await;
    assert_eq!(late, 409, "{body}");
}
