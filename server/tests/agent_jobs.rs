//! An agent's own scheduler through the console, against the repository's demo Hermes
//! gateway speaking `cron.manage` as hermes-agent 0.19 does: jobs listed, added, paused
//! (still shown, though the gateway stops listing them), resumed and removed; the
//! gateway's refusals and bad input answered in words; across a restart of the console.

#![allow(clippy::unwrap_used)]

mod common;

use common::api::Api;
use serde_json::{Value, json};

const CRON_FILE: &str = "AGENT_OS_DEMO_GATEWAY_CRON";

async fn gateway_jobs(api: &Api) -> Vec<Value> {
    let (status, all) = api.get("/api/v1/agent-jobs").await;
    assert_eq!(status, 200, "{all}");
    let gateway = all
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["agent"] == "demo-hermes")
        .unwrap_or_else(|| panic!("the demo gateway is not listed: {all}"))
        .clone();
    assert_eq!(gateway["shared"], true);
    assert_eq!(gateway["problem"], Value::Null, "{gateway}");
    gateway["jobs"].as_array().unwrap().clone()
}

async fn call(api: &Api, path: &str) -> (u16, Value) {
    api.post(path, json!({})).await
}

#[tokio::test]
async fn a_gateways_jobs_are_listed_added_paused_resumed_and_removed_through_the_console() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("cron.json");
    let book = book.to_str().unwrap();
    let api = Api::start_with_env(&[], &[(CRON_FILE, book)]).await;
    assert_eq!(gateway_jobs(&api).await, Vec::<Value>::new());

    let (status, digest) = api
        .post(
            "/api/v1/agent-jobs/demo-hermes",
            json!({"name": "morning-digest", "schedule": "0 9 * * 1-5", "prompt": "Summarise yesterday's deploys"}),
        )
        .await;
    assert_eq!(status, 201, "{digest}");
    let digest_id = digest["id"].as_str().unwrap().to_owned();
    assert!(
        digest["next_run_at"]
            .as_str()
            .unwrap()
            .ends_with("09:00:00.000000+00:00"),
        "{digest}"
    );
    let (status, queue) = api
        .post(
            "/api/v1/agent-jobs/demo-hermes",
            json!({"name": "every-2h", "schedule": "every 2h", "prompt": "Check the queue"}),
        )
        .await;
    assert_eq!(status, 201, "{queue}");
    assert_eq!(
        queue["schedule"], "every 120m",
        "kept as the gateway keeps it"
    );
    assert_eq!(gateway_jobs(&api).await.len(), 2);

    // Paused: the gateway no longer lists it; the console still shows it, paused.
    let (status, paused) = call(
        &api,
        &format!("/api/v1/agent-jobs/demo-hermes/{digest_id}/pause"),
    )
    .await;
    assert_eq!(status, 200, "{paused}");
    assert_eq!(paused["enabled"], false);
    let jobs = gateway_jobs(&api).await;
    assert_eq!(jobs.len(), 2, "{jobs:#?}");
    let shown = jobs
        .iter()
        .find(|job| job["id"] == digest_id.as_str())
        .unwrap();
    assert_eq!(shown["state"], "paused");
    assert!(shown["paused_at"].as_str().unwrap().ends_with("+00:00"));

    // Still shown after the console restarts (and its gateway with it).
    let api = api
        .restarted(|server| async move { server.restart_with(&[], &[(CRON_FILE, book)]).await })
        .await;
    let jobs = gateway_jobs(&api).await;
    assert_eq!(jobs.len(), 2, "{jobs:#?}");

    let (status, resumed) = call(
        &api,
        &format!("/api/v1/agent-jobs/demo-hermes/{digest_id}/resume"),
    )
    .await;
    assert_eq!(status, 200, "{resumed}");
    assert_eq!(resumed["state"], "scheduled");
    let jobs = gateway_jobs(&api).await;
    assert!(jobs.iter().all(|job| job["enabled"] == true), "{jobs:#?}");

    let response = api
        .client
        .delete(api.url(&format!("/api/v1/agent-jobs/demo-hermes/{digest_id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 204);
    let jobs = gateway_jobs(&api).await;
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0]["name"], "every-2h");

    let (_, audit) = api.get("/api/v1/audit").await;
    let actions: Vec<&str> = audit["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|entry| entry["action"].as_str())
        .collect();
    for action in [
        "agent_job.add",
        "agent_job.pause",
        "agent_job.resume",
        "agent_job.remove",
    ] {
        assert!(actions.contains(&action), "{action} not in {actions:?}");
    }
}

#[tokio::test]
async fn a_gateways_refusal_and_bad_input_are_answered_in_words() {
    let api = Api::start(&[]).await;
    let (status, refused) = call(&api, "/api/v1/agent-jobs/demo-hermes/nope/pause").await;
    assert_eq!(status, 409, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not found"),
        "{refused}"
    );
    let (status, bad) = api
        .post(
            "/api/v1/agent-jobs/demo-hermes",
            json!({"name": "x", "schedule": "at teatime", "prompt": "hi"}),
        )
        .await;
    assert_eq!(status, 400, "{bad}");
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("schedule:"),
        "{bad}"
    );
    let (status, empty) = api
        .post(
            "/api/v1/agent-jobs/demo-hermes",
            json!({"name": " ", "schedule": "every 2h", "prompt": "hi"}),
        )
        .await;
    assert_eq!(status, 400);
    assert!(
        empty["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("name:")
    );
    let (status, none) = api
        .post(
            "/api/v1/agent-jobs/demo",
            json!({"name": "x", "schedule": "every 2h", "prompt": "hi"}),
        )
        .await;
    assert_eq!(status, 400, "{none}");
    assert!(
        none["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no scheduled jobs of its own")
    );
    assert_eq!(gateway_jobs(&api).await, Vec::<Value>::new());
}
