//! An agent proposing a schedule through the console's `schedule_create` tool, against a
//! real AG-UI agent on a loopback socket: it always raises an approval ask first (no policy
//! lets it run freely), makes the schedule once allowed — for that agent, attributed to it
//! and its approver — and nothing when denied; bad arguments are told to the agent.

#![allow(clippy::unwrap_used)]

mod common;

use common::api::Api;
use serde_json::{Value, json};

async fn start() -> (Api, std::sync::Arc<std::sync::Mutex<Vec<Value>>>) {
    let (url, seen) = common::agent::tool_calling().await;
    let agent = format!("scripted={url}");
    (Api::start(&["--agent", &agent]).await, seen)
}

/// A thread whose agent calls `schedule_create` with `arguments`; the thread and run.
async fn propose(api: &Api, arguments: Value) -> (String, String) {
    let thread = api.thread(Some("scripted")).await;
    let message = json!({"tool": "schedule_create", "arguments": arguments}).to_string();
    let run = api.say(&thread, &message).await;
    (thread, run)
}

async fn schedules(api: &Api) -> Vec<Value> {
    let (_, list) = api.get("/api/v1/schedules").await;
    list["schedules"].as_array().unwrap().clone()
}

#[tokio::test]
async fn a_schedule_an_agent_proposes_waits_for_an_operator_and_is_made_once_allowed() {
    let (api, seen) = start().await;
    // No tenant policy lets it run freely.
    let response = api
        .client
        .put(api.url("/api/v1/tools/schedule_create"))
        .json(&json!({"policy": "free"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    let (_, tools) = api.get("/api/v1/tools").await;
    let setting = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "schedule_create")
        .unwrap()
        .clone();
    assert_eq!(setting["policy"], "ask", "{tools}");

    let arguments = json!({"name": "Morning digest", "prompt": "Summarise the inbox",
                           "cron": "0 9 * * 1-5", "timezone": "Europe/Berlin"});
    let (thread, run) = propose(&api, arguments).await;
    let paused = api.settled(&run).await;
    assert_eq!(paused["run"]["status"], "interrupted", "{paused}");
    let ask = &paused["view"]["asks"][0];
    assert!(
        ask["title"]
            .as_str()
            .unwrap_or_default()
            .contains("schedule_create")
            || ask["tool"].to_string().contains("Morning digest"),
        "{ask}"
    );
    assert!(
        schedules(&api).await.is_empty(),
        "made before it was allowed"
    );

    let id = ask["id"].as_str().unwrap().to_owned();
    let (status, _) = api
        .receipt(&run, &id, "frontend_tool", "submit", json!({"result": {}}))
        .await;
    assert_eq!(status, 200);
    api.nth_run(&thread, 1).await;
    let made = schedules(&api).await;
    assert_eq!(made.len(), 1, "{made:?}");
    let schedule = &made[0];
    assert_eq!(schedule["name"], "Morning digest");
    assert_eq!(schedule["agent"], "scripted");
    assert_eq!(schedule["timezone"], "Europe/Berlin");
    assert_eq!(
        schedule["when"],
        json!({"kind": "cron", "expression": "0 9 * * 1-5"})
    );
    let by = schedule["created_by"].as_str().unwrap();
    assert!(
        by.starts_with(&format!(
            "agent scripted (run {run}), approved by {}",
            common::TEST_USER
        )),
        "{by}"
    );
    assert_eq!(
        common::agent::last_tool_result(&seen)["schedule"],
        schedule["id"]
    );

    // Denied: nothing is made.
    let (thread, run) = propose(
        &api,
        json!({"name": "Never made", "prompt": "x", "every": "2h"}),
    )
    .await;
    let paused = api.settled(&run).await;
    let id = paused["view"]["asks"][0]["id"].as_str().unwrap().to_owned();
    let (status, _) = api
        .receipt(&run, &id, "frontend_tool", "cancel", Value::Null)
        .await;
    assert_eq!(status, 200);
    api.nth_run(&thread, 1).await;
    assert_eq!(schedules(&api).await.len(), 1);
}

#[tokio::test]
async fn a_proposed_schedule_with_a_bad_clock_is_told_to_the_agent() {
    let (api, seen) = start().await;
    let (thread, run) = propose(
        &api,
        json!({"name": "Two clocks", "prompt": "x", "cron": "0 9 * * *", "every": "2h"}),
    )
    .await;
    let _ = run;
    api.nth_run(&thread, 1).await;
    let told = common::agent::last_tool_result(&seen);
    assert!(
        told["error"].as_str().unwrap().contains("exactly one"),
        "{told}"
    );
    assert!(schedules(&api).await.is_empty());
}
