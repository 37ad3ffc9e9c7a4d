//! The demo agents sit behind the same door as the rest of the console: the host
//! allowlist, the cross-site check, the security headers, and a credential of their own
//! (the demo key). What they keep for tests is read with that key alone, and what one
//! caller can make them do is bounded.

#![allow(clippy::unwrap_used)]

mod common;

use common::DEMO_KEY;
use common::api::Api;
use serde_json::json;

fn run_input(run: &str, text: &str) -> serde_json::Value {
    json!({"threadId": "t-door", "runId": run, "messages": [
        {"id": format!("u-{run}"), "role": "user", "content": text}], "tools": [], "context": [],
        "state": {}, "forwardedProps": {}})
}

#[tokio::test]
async fn the_demo_agents_answer_only_to_the_demo_key() {
    let api = Api::start(&[]).await;
    let introspection = api.url("/demo/openai/v1/requests");
    let anonymous = reqwest::get(&introspection).await.unwrap();
    assert_eq!(anonymous.status(), 401);
    // A console credential is not the demo's: a tenant's member reads nothing of it.
    let member = api.client.get(&introspection).send().await.unwrap();
    assert_eq!(member.status(), 401);
    let (status, _) = api.demo_get("/demo/openai/v1/requests").await;
    assert_eq!(status, 200);
    let run = reqwest::Client::new()
        .post(api.url("/demo/agent"))
        .json(&run_input("r-anonymous", "chunks"))
        .send()
        .await
        .unwrap();
    assert_eq!(run.status(), 401);
    // The console's own demo connector holds the key: its runs go through.
    let thread = api.thread(Some("demo")).await;
    let run = api.say(&thread, "chunks").await;
    assert_eq!(api.settled(&run).await["run"]["status"], "succeeded");
}

#[tokio::test]
async fn the_demo_agents_sit_inside_the_host_and_origin_checks_and_carry_the_headers() {
    let api = Api::start(&[]).await;
    let client = reqwest::Client::new();
    let rebound = client
        .get(api.url("/demo/openai/v1/requests"))
        .bearer_auth(DEMO_KEY)
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(rebound.status(), 403, "a name that merely resolves here");
    let cross_site = client
        .post(api.url("/demo/agent"))
        .bearer_auth(DEMO_KEY)
        .header("origin", "http://evil.example")
        .json(&run_input("r-cross", "chunks"))
        .send()
        .await
        .unwrap();
    assert_eq!(cross_site.status(), 403, "a page on another site");
    let answered = client
        .get(api.url("/demo/resumes"))
        .bearer_auth(DEMO_KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(answered.status(), 200);
    assert_eq!(answered.headers()["x-content-type-options"], "nosniff");
}

#[tokio::test]
async fn the_demo_agent_streams_a_bounded_number_of_runs_nobody_reads() {
    let api = Api::start(&[]).await;
    let client = reqwest::Client::new();
    let mut unread = Vec::new();
    for n in 0..32 {
        let response = client
            .post(api.url("/demo/agent"))
            .bearer_auth(DEMO_KEY)
            .json(&run_input(&format!("r-{n}"), "long 50000 0"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "stream {n}");
        unread.push(response);
    }
    let past = client
        .post(api.url("/demo/agent"))
        .bearer_auth(DEMO_KEY)
        .json(&run_input("r-past", "long 50000 0"))
        .send()
        .await
        .unwrap();
    assert_eq!(past.status(), 503);
    // A stream whose client goes frees its place.
    drop(unread.pop());
    let mut freed = false;
    for _ in 0..50 {
        let again = client
            .post(api.url("/demo/agent"))
            .bearer_auth(DEMO_KEY)
            .json(&run_input("r-again", "chunks"))
            .send()
            .await
            .unwrap();
        if again.status() == 200 {
            freed = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(freed, "a dropped stream never freed its place");
}
