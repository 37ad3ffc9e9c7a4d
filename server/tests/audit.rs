//! The audit trail against a real `agent-os serve`: every change is recorded with the
//! user and the token that made it, refused requests and reads are not, what was typed
//! never is, and only the tenant's owners read it.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;
mod common;
#[path = "common/secret_agents.rs"]
mod secret_agents;

use common::api::Api;
use common::{TEST_USER, call_server_fn, client_with};
use serde_json::{Value, json};

async fn trail(client: &reqwest::Client, api: &Api) -> (u16, Value) {
    let response = client.get(api.url("/api/v1/audit")).send().await.unwrap();
    (
        response.status().as_u16(),
        response.json().await.unwrap_or(Value::Null),
    )
}

#[tokio::test]
async fn every_change_is_recorded_with_its_user_and_token_and_nothing_typed() {
    for backend in backends::all().await {
        let api = Api::start(&["--db", &backend.url]).await;
        record_and_read(&api).await;
    }
}

async fn record_and_read(api: &Api) {
    let token_id = api.server.token.split('_').nth(1).unwrap().to_owned();
    common::add_user(
        &api.server.data_dir,
        &api.server.args,
        "otto",
        "default",
        "operator",
    );
    let viewer = client_with(&api.server.user_with_token("vic", "default", "viewer"));
    let otto = common::session_client(&api.server, "otto").await;

    // By token: a thread and a run.
    let thread = api.thread(None).await;
    let run = api.say(&thread, "secret").await;
    api.settled(&run).await;
    // By session: a secret answered, which the trail names but never holds.
    let secret = "audit-secret-never-kept";
    let receipt = json!({"channel": "tool-result", "receipt": {"toolCallId": "secret-token",
        "component": "secret_prompt", "action": "save", "data": {"value": secret},
        "ts": "2026-12-04T12:00:00Z"}});
    let refused = viewer
        .post(api.url(&format!("/api/v1/asks/{run}:secret-token/receipt")))
        .json(&receipt)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
    let answered = otto
        .post(api.url(&format!("/api/v1/asks/{run}:secret-token/receipt")))
        .json(&receipt)
        .send()
        .await
        .unwrap();
    assert_eq!(answered.status(), 200);
    // A server function names its ids in a form: only those are kept.
    let (status, _) = call_server_fn(
        &api.server,
        "rename_thread",
        &[
            ("thread_id", &thread),
            ("title", "a title nobody needs to audit"),
        ],
    )
    .await;
    assert_eq!(status, 200);
    // Reads are not changes.
    api.get("/api/v1/threads").await;

    let (status, listed) = trail(&api.client, api).await;
    assert_eq!(status, 200, "{listed}");
    let entries: Vec<(String, String, Option<String>, String)> = listed["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry["user"].as_str().unwrap().to_owned(),
                entry["action"].as_str().unwrap().to_owned(),
                entry["token"].as_str().map(str::to_owned),
                entry["target"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let tester = TEST_USER.to_owned();
    assert_eq!(
        entries,
        vec![
            (
                tester.clone(),
                "thread.rename".into(),
                Some(token_id.clone()),
                format!("thread_id={thread}")
            ),
            (
                "otto".into(),
                "ask.answer".into(),
                None,
                format!("asks/{run}:secret-token/receipt")
            ),
            (
                tester.clone(),
                "run.start".into(),
                Some(token_id.clone()),
                format!("threads/{thread}/messages")
            ),
            (
                tester,
                "thread.create".into(),
                Some(token_id),
                "threads".into()
            ),
            ("otto".into(), "session.sign_in".into(), None, String::new()),
        ],
        "{listed}"
    );
    let text = listed.to_string();
    assert!(
        !text.contains(secret) && !text.contains("nobody needs"),
        "{text}"
    );

    // Owners only, and only their own tenant's trail.
    assert_eq!(trail(&viewer, api).await.0, 403);
    assert_eq!(trail(&otto, api).await.0, 403);
    let eve = client_with(&api.server.user_with_token("eve", "evil", "owner"));
    let (status, theirs) = trail(&eve, api).await;
    assert_eq!((status, theirs["entries"].clone()), (200, json!([])));
    assert_eq!(
        eve.get(api.url("/audit")).send().await.unwrap().status(),
        200
    );
    assert_eq!(
        viewer.get(api.url("/audit")).send().await.unwrap().status(),
        403
    );
}

#[tokio::test]
async fn founding_and_entering_another_tenant_is_recorded_there_and_names_nothing_in_the_tenant_left()
 {
    let api = Api::start(&[]).await;
    let cookie = common::session_cookie(&api.server, TEST_USER).await;
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let form = |path: &str, body: &'static str| {
        browser
            .post(api.url(path))
            .header("cookie", &cookie)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
    };
    // Founded from `default` (the session moves there), then back to `default`.
    let founded = form("/auth/new-tenant", "tenant=hidden-venture")
        .send()
        .await
        .unwrap();
    assert_eq!(founded.status(), 303);
    let back = form("/auth/tenant", "tenant=default").send().await.unwrap();
    assert_eq!(back.status(), 303);
    let (status, default_trail) = trail(&api.client, &api).await;
    assert_eq!(status, 200);
    assert!(
        !default_trail.to_string().contains("hidden-venture"),
        "the trail of the tenant left names the other: {default_trail}"
    );
    let entered: Vec<&Value> = default_trail["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["action"] == "session.switch_tenant")
        .collect();
    assert_eq!(entered.len(), 1, "{default_trail}");
    assert_eq!(entered[0]["target"], "", "{default_trail}");
    let venture = client_with(&common::new_token(
        &api.server.data_dir,
        &api.server.args,
        TEST_USER,
        "hidden-venture",
        None,
    ));
    let (status, venture_trail) = trail(&venture, &api).await;
    assert_eq!(status, 200);
    let actions: Vec<&str> = venture_trail["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|entry| entry["action"].as_str())
        .collect();
    assert!(actions.contains(&"tenant.create"), "{venture_trail}");
}

/// The receipts the store kept for the audit: (outcome, receipt as stored), oldest first.
async fn kept_receipts(data: &std::path::Path) -> Vec<(String, String)> {
    let url = format!("sqlite:{}", data.join("agent-os.sqlite3").display());
    let mut db = <sqlx::SqliteConnection as sqlx::Connection>::connect(&url)
        .await
        .unwrap();
    sqlx::query_as("SELECT outcome, receipt FROM receipts ORDER BY at_ms, rowid")
        .fetch_all(&mut db)
        .await
        .unwrap()
}

#[tokio::test]
async fn every_receipt_refused_or_accepted_is_kept_for_the_audit_without_its_secret() {
    const INVALID: &str = "refused-key-0c1e-never-store-me";
    const ANSWER: &str = "accepted-key-7d2f-never-store-me";
    const LATE: &str = "late-key-9a4b-never-store-me";
    let (agent_url, _) = secret_agents::langgraph_agent().await;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let log = dir.path().join("server.log");
    let agent = format!("langgraph={agent_url}");
    let server =
        common::TestServer::start_logging(&data, &["--agent", &agent, "--no-demo"], &[], &log)
            .await;
    let api = Api {
        client: server.client(),
        server,
        _dir: None,
    };
    let thread = api.thread(Some("langgraph")).await;
    let run = api.say(&thread, "store my key").await;
    api.settled(&run).await;

    let answer = |action: &'static str, value: &'static str| {
        api.receipt(
            &run,
            "key-ask",
            "secret_prompt",
            action,
            json!({"value": value}),
        )
    };
    let (refused, body) = answer("bogus", INVALID).await;
    assert_eq!(refused, 400, "{body}");
    let (accepted, body) = answer("save", ANSWER).await;
    assert_eq!(accepted, 200, "{body}");
    api.nth_run(&thread, 1).await;
    let (late, body) = answer("save", LATE).await;
    assert!(late < 500, "{late}: {body}");

    let kept = kept_receipts(&data).await;
    let outcomes: Vec<&str> = kept.iter().map(|(outcome, _)| outcome.as_str()).collect();
    assert_eq!(outcomes, ["invalid", "accepted", "late"], "{kept:?}");
    for (outcome, receipt) in &kept {
        assert!(
            receipt.contains("secret_prompt"),
            "{outcome}: the receipt is kept, its secret redacted: {receipt}"
        );
    }
    drop(api);
    for secret in [INVALID, ANSWER, LATE] {
        assert_eq!(
            secret_agents::found_in_files(&data, &log, secret),
            Vec::<String>::new()
        );
    }
}
