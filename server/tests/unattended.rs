//! Asks raised by unattended work, against a real server and its demo agent: a fire's ask
//! waits in the inbox like any other and, once answered there, the fire completes; a
//! schedule whose policy denies asks refuses each in its own name as it opens; a fire's run
//! is told which schedule and fire it belongs to.

#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::api::Api;
use serde_json::{Value, json};

fn approving(name: &str, asks: &str) -> Value {
    json!({
        "name": name,
        "agent": "demo",
        "prompt": "approve",
        "when": {"kind": "cron", "expression": "0 0 1 1 *"},
        "timezone": "UTC",
        "asks": asks,
    })
}

/// Fires `schedule` now; its fire once `done` holds of it (or after 20 s).
async fn fired(api: &Api, schedule: &str, done: impl Fn(&Value) -> bool) -> Value {
    let (status, _) = api
        .post(&format!("/api/v1/schedules/{schedule}/run"), json!({}))
        .await;
    assert_eq!(status, 202);
    for _ in 0..200 {
        let (_, detail) = api.get(&format!("/api/v1/schedules/{schedule}")).await;
        if let Some(fire) = detail["fires"].as_array().and_then(|fires| fires.first())
            && done(fire)
        {
            return fire.clone();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the fire never got there");
}

#[tokio::test]
async fn an_unattended_runs_ask_waits_in_the_inbox_and_once_answered_the_fire_completes() {
    let api = Api::start(&[]).await;
    let (_, schedule) = api
        .post("/api/v1/schedules", approving("Budget run", "wait"))
        .await;
    let id = schedule["id"].as_str().unwrap().to_owned();
    let fire = fired(&api, &id, |fire| fire["run_id"].is_string()).await;
    let run = fire["run_id"].as_str().unwrap().to_owned();
    let key = format!("{run}:approve-budget");
    let mut waiting = Value::Null;
    for _ in 0..100 {
        let (_, inbox) = api.get("/api/v1/inbox").await;
        if let Some(ask) = inbox["asks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|ask| ask["key"] == key.as_str())
        {
            waiting = ask.clone();
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(waiting["thread_id"], fire["thread_id"], "{waiting}");
    assert!(
        waiting["thread_title"]
            .as_str()
            .unwrap()
            .starts_with("Budget run"),
        "{waiting}"
    );
    let (_, detail) = api.get(&format!("/api/v1/schedules/{id}")).await;
    assert_eq!(
        detail["fires"][0]["outcome"], "running",
        "it waits on the ask"
    );

    // It waits on both of the run's asks: answered from the inbox, the run goes on.
    for ask in ["approve-budget", "confirm-date"] {
        let (status, answered) = api
            .receipt(&run, ask, "approval_card", "once", json!({}))
            .await;
        assert_eq!(status, 200, "{answered}");
    }
    let mut outcome = Value::Null;
    for _ in 0..200 {
        let (_, detail) = api.get(&format!("/api/v1/schedules/{id}")).await;
        let fires = detail["fires"].as_array().unwrap();
        let first = fires.iter().find(|each| each["run_id"] == run.as_str());
        outcome = first
            .map(|each| each["outcome"].clone())
            .unwrap_or_default();
        if outcome == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let runs = api.runs(fire["thread_id"].as_str().unwrap()).await;
    assert_eq!(outcome, "completed", "{runs:#?}");
}

#[tokio::test]
async fn a_schedule_that_denies_asks_refuses_each_in_its_own_name() {
    let api = Api::start(&[]).await;
    let (_, schedule) = api
        .post("/api/v1/schedules", approving("Hands off", "deny"))
        .await;
    let id = schedule["id"].as_str().unwrap().to_owned();
    let fire = fired(&api, &id, |fire| {
        matches!(fire["outcome"].as_str(), Some("completed" | "failed"))
    })
    .await;
    assert_eq!(fire["outcome"], "completed", "{fire}");
    let run = fire["run_id"].as_str().unwrap();
    let (status, ask) = api.get(&format!("/api/v1/asks/{run}:approve-budget")).await;
    assert_eq!(status, 200, "{ask}");
    let answer = &ask["ask"]["ask"]["state"]["answer"];
    assert_eq!(answer["action"], "deny", "{ask}");
    assert_eq!(answer["actor"], format!("schedule:{id}"), "{ask}");
    let (_, inbox) = api.get("/api/v1/inbox").await;
    assert_eq!(inbox["pending"], 0, "{inbox}");
    // The run was told which schedule and fire it belongs to, and keeps it.
    let (_, view) = api.get(&format!("/api/v1/runs/{run}")).await;
    let given = view["view"]["given"].as_array().unwrap();
    let fire = given
        .iter()
        .find(|item| item["kind"] == "schedule")
        .unwrap();
    assert_eq!(fire["id"], id.as_str(), "{view}");
    assert!(
        fire["title"]
            .as_str()
            .unwrap()
            .starts_with("Hands off · due "),
        "{fire}"
    );
    let (_, jobs) = api.get(&format!("/api/v1/jobs?q={id}")).await;
    let job = jobs["jobs"][0]["id"].as_str().unwrap();
    let (_, detail) = api.get(&format!("/api/v1/jobs/{job}")).await;
    assert!(
        detail["log"]
            .as_array()
            .unwrap()
            .iter()
            .any(|line| line["message"].as_str().unwrap().starts_with("refused ask")),
        "{detail}"
    );
}
