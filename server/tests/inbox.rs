//! The operator's inbox over HTTP against a real server and its demo agent: every pending
//! ask of the tenant with its thread and agent, the runs in progress with their last
//! activity, and one live stream per tenant that carries each change once, resumes after
//! its Last-Event-ID, and shows nothing of another tenant.

#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::api::Api;
use common::events::{Message, Stream};
use serde_json::{Value, json};
use tokio::time::Instant;

fn is_ask(message: &Message, key: &str, pending: bool) -> bool {
    message.data["change"] == "ask"
        && message.data["key"] == key
        && message.data["ask"].is_object() == pending
}

async fn inbox(api: &Api) -> Value {
    let (status, inbox) = api.get("/api/v1/inbox").await;
    assert_eq!(status, 200, "{inbox}");
    inbox
}

/// Waits until the inbox holds `count` pending asks.
async fn pending(api: &Api, count: usize) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let inbox = inbox(api).await;
        if inbox["asks"].as_array().unwrap().len() == count {
            return inbox;
        }
        assert!(
            Instant::now() < deadline,
            "the inbox never held {count} asks: {inbox}"
        );
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
}

#[tokio::test]
async fn the_inbox_holds_every_pending_ask_and_its_stream_carries_each_change_once() {
    let api = Api::start(&[]).await;
    let start = inbox(&api).await;
    assert_eq!(start["asks"], json!([]));
    let cursor = start["cursor"].as_u64().unwrap();
    let mut stream = Stream::open(
        &api.client,
        api.url(&format!("/api/v1/inbox/events?after={cursor}")),
        None,
    )
    .await;

    let booking = api.thread(None).await;
    let booked = api.say(&booking, "approve").await;
    let colors = api.thread(None).await;
    let colored = api.say(&colors, "clarify").await;
    let budget = format!("{booked}:approve-budget");
    let color = format!("{colored}:clarify-color");
    stream.until(|message| is_ask(message, &budget, true)).await;
    stream.until(|message| is_ask(message, &color, true)).await;

    let listed = pending(&api, 3).await;
    assert_eq!(listed["pending"], 3);
    let asks = listed["asks"].as_array().unwrap();
    let first = asks.iter().find(|ask| ask["key"] == color).unwrap();
    assert_eq!(first["thread_id"], colors.as_str());
    assert_eq!(first["thread_title"], "clarify");
    assert_eq!(first["agent"], "demo");
    assert_eq!(first["run_id"], colored.as_str());
    assert_eq!(first["ask"]["title"], "Which color should I use?");
    // Newest first.
    assert_eq!(asks[0]["key"], color);

    let (status, _) = api
        .receipt(
            &booked,
            "approve-budget",
            "approval_card",
            "once",
            json!({}),
        )
        .await;
    assert_eq!(status, 200);
    let seen = stream
        .until(|message| is_ask(message, &budget, false))
        .await;
    let closing = seen.last().unwrap();
    assert!(closing.id.is_some(), "a feed change carries its position");
    assert_eq!(pending(&api, 2).await["pending"], 2);

    // Resuming after a position gets exactly what followed it, in order.
    let resume_at = closing.id.unwrap() - 1;
    let mut resumed = Stream::open(
        &api.client,
        api.url("/api/v1/inbox/events"),
        Some(resume_at),
    )
    .await;
    let again = resumed.next(Duration::from_secs(5)).await.unwrap();
    assert!(again.id.unwrap() > resume_at);
    assert!(
        is_ask(&again, &budget, false) || again.data["change"] == "run",
        "{again:?}"
    );
    let mut ids = vec![again.id.unwrap()];
    while let Some(message) = resumed.next(Duration::from_millis(500)).await {
        if let Some(id) = message.id {
            ids.push(id);
        }
    }
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "{ids:?}");
    assert!(ids.iter().all(|id| *id > resume_at));
}

#[tokio::test]
async fn running_now_shows_a_run_in_progress_with_its_last_activity_until_it_is_stopped() {
    let api = Api::start(&[]).await;
    let cursor = inbox(&api).await["cursor"].as_u64().unwrap();
    let mut stream = Stream::open(
        &api.client,
        api.url(&format!("/api/v1/inbox/events?after={cursor}")),
        None,
    )
    .await;
    let thread = api.thread(None).await;
    let run = api.say(&thread, "slow").await;
    stream
        .until(|message| {
            message.data["change"] == "run" && message.data["run"]["run_id"] == run.as_str()
        })
        .await;
    let line = "working on it, this will take a while";
    stream
        .until(|message| {
            message.data["change"] == "activity"
                && message.data["run_id"] == run.as_str()
                && message.data["activity"]["line"] == line
        })
        .await;
    let listed = inbox(&api).await;
    let running = listed["running"].as_array().unwrap();
    assert_eq!(running.len(), 1, "{listed}");
    assert_eq!(running[0]["agent"], "demo");
    assert_eq!(running[0]["thread_title"], "slow");
    assert_eq!(running[0]["activity"]["line"], line);

    let (status, _) = api
        .post(&format!("/api/v1/runs/{run}/cancel"), json!({}))
        .await;
    assert_eq!(status, 200);
    stream
        .until(|message| {
            message.data["change"] == "run"
                && message.data["run_id"] == run.as_str()
                && message.data["run"].is_null()
        })
        .await;
    assert_eq!(inbox(&api).await["running"], json!([]));
}

#[tokio::test]
async fn another_tenant_neither_lists_nor_hears_of_the_asks() {
    let api = Api::start(&[]).await;
    let token = api.server.user_with_token("eve", "elsewhere", "operator");
    let eve = common::client_with(&token);
    let mut theirs = Stream::open(&eve, api.url("/api/v1/inbox/events"), None).await;
    let thread = api.thread(None).await;
    let run = api.say(&thread, "busy").await;
    pending(&api, 1).await;
    let (_, eves) = {
        let response = eve.get(api.url("/api/v1/inbox")).send().await.unwrap();
        (response.status(), response.json::<Value>().await.unwrap())
    };
    assert_eq!(eves["asks"], json!([]), "{eves}");
    assert_eq!(eves["running"], json!([]));
    assert!(
        theirs.next(Duration::from_millis(1500)).await.is_none(),
        "another tenant's stream carried a change of run {run}"
    );
}

#[tokio::test]
async fn a_position_beyond_the_feed_makes_the_page_read_the_inbox_again() {
    let api = Api::start(&[]).await;
    let mut stream = Stream::open(
        &api.client,
        api.url("/api/v1/inbox/events?after=999999"),
        None,
    )
    .await;
    let message = stream.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(message.event.as_deref(), Some("reset"), "{message:?}");
    let refused = api
        .client
        .get(api.url("/api/v1/inbox/events"))
        .header("last-event-id", "yesterday")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 400);
}

#[tokio::test]
async fn a_thread_or_project_renamed_is_renamed_in_the_open_inbox_without_a_reload() {
    let api = Api::start(&[]).await;
    let (status, project) = api
        .post("/api/v1/projects", json!({ "name": "Launch" }))
        .await;
    assert_eq!(status, 201, "{project}");
    let project_id = project["id"].as_str().unwrap().to_owned();
    let (status, created) = api
        .post("/api/v1/threads", json!({ "project_id": project_id }))
        .await;
    assert_eq!(status, 201, "{created}");
    let thread = created["thread"]["id"].as_str().unwrap().to_owned();
    let run = api.say(&thread, "approve").await;
    let key = format!("{run}:approve-budget");
    let cursor = pending(&api, 2).await["cursor"].as_u64().unwrap();
    let mut stream = Stream::open(
        &api.client,
        api.url(&format!("/api/v1/inbox/events?after={cursor}")),
        None,
    )
    .await;

    // Renamed from the page (its server function): the stream says so once, as it stands.
    api.rename_thread(&thread, "Incident 42").await;
    let seen = stream
        .until(|message| message.data["change"] == "thread")
        .await;
    let renamed = &seen.last().unwrap().data;
    assert_eq!(renamed["thread_id"], thread.as_str());
    assert_eq!(renamed["title"], "Incident 42");
    assert_eq!(renamed["project_name"], "Launch");
    assert!(seen.last().unwrap().id.is_some(), "a rename is a feed row");

    let response = api
        .client
        .patch(api.url(&format!("/api/v1/projects/{project_id}")))
        .json(&json!({ "name": "Launch week" }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let seen = stream
        .until(|message| message.data["change"] == "project")
        .await;
    assert_eq!(
        seen.last().unwrap().data,
        json!({"change": "project", "project_id": project_id, "name": "Launch week"})
    );

    // What a reload would read says the same.
    let listed = inbox(&api).await;
    let ask = listed["asks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|ask| ask["key"] == key)
        .unwrap()
        .clone();
    assert_eq!(ask["thread_title"], "Incident 42");
    assert_eq!(ask["project_name"], "Launch week");
}

#[tokio::test]
async fn every_stream_opens_by_naming_its_tenant() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let run = api.say(&thread, "hello there").await;
    api.settled(&run).await;
    for path in [
        "/api/v1/inbox/events?after=0".to_owned(),
        format!("/api/v1/runs/{run}/events?after=0"),
    ] {
        // A page drawn for another tenant (the session switched in another tab) reloads.
        let mut response = api.client.get(api.url(&path)).send().await.unwrap();
        let first = response.chunk().await.unwrap().unwrap();
        assert!(
            String::from_utf8_lossy(&first).starts_with("event: tenant\ndata: default\n\n"),
            "{path}: {first:?}"
        );
    }
}

#[tokio::test]
async fn past_the_listed_asks_the_count_stays_the_servers() {
    let api = Api::start(&[]).await;
    // 251 runs of two approvals: 502 pending, two more than the inbox lists.
    let mut runs = Vec::new();
    for _ in 0..251 {
        let thread = api.thread(None).await;
        runs.push(api.say(&thread, "approve").await);
    }
    for run in &runs {
        api.settled(run).await;
    }
    let start = inbox(&api).await;
    assert_eq!(start["pending"], 502);
    assert_eq!(start["asks"].as_array().unwrap().len(), 500);
    let oldest = format!("{}:approve-budget", runs[0]);
    assert!(
        !start["asks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|ask| ask["key"] == oldest),
        "the oldest ask is past the list"
    );
    let cursor = start["cursor"].as_u64().unwrap();
    let mut stream = Stream::open(
        &api.client,
        api.url(&format!("/api/v1/inbox/events?after={cursor}")),
        None,
    )
    .await;
    let (status, _) = api
        .receipt(
            &runs[0],
            "approve-budget",
            "approval_card",
            "once",
            json!({}),
        )
        .await;
    assert_eq!(status, 200);
    let seen = stream
        .until(|message| is_ask(message, &oldest, false))
        .await;
    assert_eq!(seen.last().unwrap().data["pending"], 501, "{seen:?}");
}
