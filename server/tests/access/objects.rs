//! The tenant's objects the probes name, made over the API as a client makes them.

use serde_json::json;

use crate::common::api::Api;

/// A new tenant memory entry saying `fact`; its id.
pub async fn remembered(api: &Api, fact: &str) -> String {
    let (status, scope) = api
        .post(
            "/api/v1/memory",
            json!({"scope": "tenant", "operations": [{"action": "add", "content": fact}]}),
        )
        .await;
    assert_eq!(status, 200, "{scope}");
    scope["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["text"] == fact)
        .unwrap_or_else(|| panic!("{fact:?} is not in {scope}"))["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A new passvault entry named `name`; its id.
pub async fn secret(api: &Api, name: &str) -> String {
    let (status, created) = api
        .post(
            "/api/v1/passvault",
            json!({"name": name, "env_var": "PROBE", "value": "probe-value"}),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    created["id"].as_str().unwrap().to_owned()
}

/// A curator pass that found two entries saying the same, and the change made when its
/// proposal was accepted.
pub async fn curated_change(api: &Api) -> (String, String) {
    remembered(api, "Probes repeat themselves.").await;
    remembered(api, "probes repeat  themselves").await;
    let (status, started) = api
        .post("/api/v1/curator/passes", json!({"dry_run": false}))
        .await;
    assert_eq!(status, 202, "{started}");
    let pass = started["pass_id"].as_str().unwrap().to_owned();
    let report = crate::common::curator::finished_pass(api, &pass).await;
    let proposal = report["report"]["findings"][0]["proposal_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no proposal in {report}"))
        .to_owned();
    let (status, accepted) = api
        .post(
            &format!("/api/v1/memory/review/{proposal}/accept"),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{accepted}");
    let (_, ledger) = api.get("/api/v1/curator/changes").await;
    let change = ledger["changes"][0]["id"].as_str().unwrap().to_owned();
    (pass, change)
}

/// A new board's id.
pub async fn board(api: &Api, name: &str) -> String {
    let (status, made) = api.post("/api/v1/boards", json!({ "name": name })).await;
    assert_eq!(status, 201, "{made}");
    made["id"].as_str().unwrap().to_owned()
}

/// A paused schedule's id.
pub async fn paused_schedule(api: &Api) -> String {
    let body: serde_json::Value = serde_json::from_str(crate::probes::PAUSED_SCHEDULE).unwrap();
    let (status, created) = api.post("/api/v1/schedules", body).await;
    assert_eq!(status, 201, "{created}");
    created["id"].as_str().unwrap().to_owned()
}
