//! Threads you can find, over the API: titled by their first message (its first line,
//! without Markdown, cut at a word; later messages and a rename are never overwritten;
//! a first message it refuses leaves it as it was), found by what operators and agents
//! said, grouped by project, archived and restored.

#![allow(clippy::unwrap_used)]

mod common;

use common::api::Api;

async fn title_of(api: &Api, thread: &str) -> String {
    let (_, shown) = api.get(&format!("/api/v1/threads/{thread}")).await;
    shown["thread"]["title"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_first_message_titles_the_thread_and_later_ones_do_not() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    assert!(title_of(&api, &thread).await.starts_with("Thread "));
    let run = api
        .say(
            &thread,
            "## Write the **release** notes for Friday\nwith the usual sections",
        )
        .await;
    api.settled(&run).await;
    assert_eq!(
        title_of(&api, &thread).await,
        "Write the release notes for Friday"
    );
    let run = api.say(&thread, "and translate them").await;
    api.settled(&run).await;
    assert_eq!(
        title_of(&api, &thread).await,
        "Write the release notes for Friday"
    );
    let (_, threads) = api.get("/api/v1/threads").await;
    assert!(
        threads["threads"]
            .as_array()
            .unwrap()
            .iter()
            .any(|listed| listed["title"] == "Write the release notes for Friday")
    );
}

#[tokio::test]
async fn a_thread_renamed_before_its_first_message_keeps_its_name() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    api.rename_thread(&thread, "Incident 42").await;
    let run = api.say(&thread, "What happened overnight?").await;
    api.settled(&run).await;
    assert_eq!(title_of(&api, &thread).await, "Incident 42");
}

#[tokio::test]
async fn a_first_message_the_thread_refuses_does_not_title_it() {
    let agent = "rt=http://127.0.0.1:{port}/demo/openai/v1,api_key_env=RT_KEY";
    let api = Api::start_with_env(&["--openai", agent], &[("RT_KEY", "demo-key")]).await;
    let thread = api.thread(Some("rt")).await;
    let untitled = title_of(&api, &thread).await;
    // The thread's agent is no longer configured: its messages are refused.
    let api = api.restarted(|server| server.restart_with(&[], &[])).await;
    let (status, body) = api
        .post(
            &format!("/api/v1/threads/{thread}/messages"),
            serde_json::json!({ "text": "Summarize the quarterly numbers" }),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not configured"),
        "{body}"
    );
    assert_eq!(title_of(&api, &thread).await, untitled);
}

#[tokio::test]
async fn a_thread_is_found_by_its_title_or_a_word_an_operator_said_in_it() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let run = api
        .say(&thread, "Look into the flaky deployment pipeline")
        .await;
    api.settled(&run).await;
    let run = api.say(&thread, "also check the zeppelin dashboards").await;
    api.settled(&run).await;
    let other = api.thread(None).await;
    let run = api.say(&other, "Unrelated question about lunch").await;
    api.settled(&run).await;

    // A later message's word, the start of a title word, a prefix in capitals.
    assert_eq!(found(&api, "zeppelin").await, vec![thread.clone()]);
    assert_eq!(found(&api, "pipe").await, vec![thread.clone()]);
    // A whole word whose stem another word of the thread shares ("deployment").
    assert_eq!(found(&api, "deploy").await, vec![thread.clone()]);
    assert_eq!(found(&api, "deployments").await, vec![thread.clone()]);
    assert_eq!(found(&api, "ZEPP").await, vec![thread.clone()]);
    assert_eq!(found(&api, "flaky lunch").await, Vec::<String>::new());
    assert_eq!(found(&api, "lunch").await, vec![other.clone()]);
    // Query syntax is only words: quotes, stars and brackets are separators.
    assert_eq!(found(&api, "\"zeppel*(").await, vec![thread.clone()]);
    // No words: the whole list.
    assert_eq!(found(&api, "  ").await.len(), 2);
}

/// The ids of the threads a search for `query` finds (the query URL-encoded).
async fn found(api: &Api, query: &str) -> Vec<String> {
    let url = reqwest::Url::parse_with_params("http://host/", &[("q", query)]).unwrap();
    let (status, listed) = api
        .get(&format!("/api/v1/threads?{}", url.query().unwrap()))
        .await;
    assert_eq!(status, 200, "{listed}");
    listed["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|thread| thread["id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_thread_is_found_by_what_its_agent_replied() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    // The demo agent answers "busy" with "Two added. The third needs sign-off."
    let run = api.say(&thread, "busy").await;
    api.settled(&run).await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while found(&api, "third").await.is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the reply was never indexed"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(found(&api, "third").await, vec![thread.clone()]);
    assert_eq!(found(&api, "zeppelin").await, Vec::<String>::new());
}

#[tokio::test]
async fn an_archived_thread_says_so_and_is_restored_and_threads_name_their_project() {
    let api = Api::start(&[]).await;
    let (status, project) = api
        .post("/api/v1/projects", serde_json::json!({ "name": "Launch" }))
        .await;
    assert_eq!(status, 201, "{project}");
    let project_id = project["project"]["id"]
        .as_str()
        .or(project["id"].as_str())
        .unwrap()
        .to_owned();
    let (status, created) = api
        .post(
            "/api/v1/threads",
            serde_json::json!({ "project_id": project_id }),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let thread = created["thread"]["id"].as_str().unwrap().to_owned();
    let (_, listed) = api.get("/api/v1/threads").await;
    let listed = listed["threads"].as_array().unwrap().clone();
    let entry = listed.iter().find(|t| t["id"] == thread.as_str()).unwrap();
    assert_eq!(entry["project_name"], "Launch");
    assert!(entry.get("archived_at_ms").is_none());

    let path = format!("/api/v1/threads/{thread}");
    let response = api
        .client
        .patch(api.url(&path))
        .json(&serde_json::json!({ "archived": true }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let (_, shown) = api.get(&path).await;
    assert!(shown["thread"]["archived_at_ms"].is_i64(), "{shown}");
    // Still listed (the sidebar folds it away), still found.
    let (_, listed) = api.get("/api/v1/threads").await;
    assert!(
        listed["threads"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["id"] == thread.as_str())
    );

    let restore = |body: serde_json::Value| {
        let request = api.client.patch(api.url(&path)).json(&body);
        async move { request.send().await.unwrap() }
    };
    assert_eq!(
        restore(serde_json::json!({ "archived": false }))
            .await
            .status(),
        200
    );
    let (_, shown) = api.get(&path).await;
    assert!(shown["thread"].get("archived_at_ms").is_none(), "{shown}");
    // A body that is not the one field is refused, naming what is wrong.
    let refused = restore(serde_json::json!({ "archive": true })).await;
    assert_eq!(refused.status(), 400);
    let unknown = api
        .client
        .patch(api.url("/api/v1/threads/no-such-thread"))
        .json(&serde_json::json!({ "archived": true }))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
}
