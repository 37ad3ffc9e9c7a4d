//! A Responses runtime's approval request arrives while its response still streams: an
//! answer given before the stream ends waits, and goes back once the run has paused; a run
//! stopped, or cut off, with the ask still open closes it, and takes no answer for it.

#![allow(clippy::unwrap_used)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::api::{Api, texts};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::Notify;

/// A Responses endpoint whose first response asks to approve an MCP call, then waits for
/// `release` before it ends as incomplete (or, `cut`, drops the connection without an
/// ending); a request that carries the approval's answer is answered with "Approved."
/// Every request body is kept.
async fn runtime(release: Arc<Notify>, cut: bool) -> (String, Arc<Mutex<Vec<Value>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let Some(input) = common::agent::read_request(&mut socket).await else {
                continue;
            };
            kept.lock().unwrap().push(input.clone());
            let release = release.clone();
            tokio::spawn(async move {
                let frame = |frame: Value| format!("data: {frame}\n\n");
                let created = json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}});
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
                let answered = input.to_string().contains("mcp_approval_response");
                let mut out = format!("{head}{}", frame(created));
                if answered {
                    out.push_str(&frame(json!({"type": "response.output_item.added", "item": {"type": "message", "id": "msg_1", "role": "assistant"}})));
                    out.push_str(&frame(json!({"type": "response.output_text.delta", "item_id": "msg_1", "delta": "Approved."})));
                    out.push_str(&frame(json!({"type": "response.output_item.done", "item": {"type": "message", "id": "msg_1"}})));
                    out.push_str(&frame(json!({"type": "response.completed", "response": {"id": "resp_2", "status": "completed"}})));
                    let _ = socket.write_all(out.as_bytes()).await;
                    let _ = socket.shutdown().await;
                    return;
                }
                let item = json!({"type": "mcp_approval_request", "id": "mcpr_1", "server_label": "wiki", "name": "read_wiki", "arguments": "{}"});
                out.push_str(&frame(
                    json!({"type": "response.output_item.added", "item": item}),
                ));
                out.push_str(&frame(
                    json!({"type": "response.output_item.done", "item": item}),
                ));
                if socket.write_all(out.as_bytes()).await.is_err() {
                    return;
                }
                release.notified().await;
                if cut {
                    let _ = socket.shutdown().await;
                    return;
                }
                let end = json!({"type": "response.incomplete", "response": {"id": "resp_1", "status": "incomplete", "incomplete_details": {"reason": "mcp_approval"}}});
                let _ = socket.write_all(frame(end).as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    (url, seen)
}

/// Waits until run `run` shows an ask, and says the run's status then.
async fn until_asked(api: &Api, run: &str) -> (String, String) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, shown) = api.get(&format!("/api/v1/runs/{run}")).await;
        if let Some(ask) = shown["view"]["asks"]
            .as_array()
            .and_then(|asks| asks.first())
        {
            return (
                ask["id"].as_str().unwrap().to_owned(),
                shown["run"]["status"].as_str().unwrap().to_owned(),
            );
        }
        assert!(Instant::now() < deadline, "no ask arrived: {shown}");
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
}

async fn console(url: &str) -> Api {
    let agent = format!("early={url},api=responses,model=demo-model");
    Api::start(&["--openai", &agent, "--no-demo"]).await
}

#[tokio::test]
async fn an_approval_answered_while_its_response_streams_goes_back_once_the_run_pauses() {
    let release = Arc::new(Notify::new());
    let (url, seen) = runtime(release.clone(), false).await;
    let api = console(&url).await;
    let thread = api.thread(Some("early")).await;
    let run = api.say(&thread, "read the wiki").await;
    let (ask, status) = until_asked(&api, &run).await;
    assert_eq!(status, "running", "the response still streams");
    let (answered, body) = api
        .receipt(&run, &ask, "approval_card", "once", json!({}))
        .await;
    assert_eq!(answered, 200, "{body}");
    release.notify_one();

    let resumed = api.nth_run(&thread, 1).await;
    assert_eq!(resumed["run"]["status"], "succeeded", "{resumed}");
    assert_eq!(texts(&resumed["view"]), ["Approved."]);
    let sent = seen.lock().unwrap().clone();
    assert_eq!(sent.len(), 2, "{sent:?}");
    let answers: Vec<&Value> = sent[1]["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["type"] == "mcp_approval_response")
        .collect();
    assert_eq!(answers.len(), 1, "{}", sent[1]);
    assert_eq!(answers[0]["approve"], true);
}

#[tokio::test]
async fn an_ask_of_a_run_stopped_before_it_was_answered_takes_no_answer() {
    let release = Arc::new(Notify::new());
    let (url, seen) = runtime(release, false).await;
    let api = console(&url).await;
    let thread = api.thread(Some("early")).await;
    let run = api.say(&thread, "read the wiki").await;
    let (ask, _) = until_asked(&api, &run).await;
    let (stopped, body) = api
        .post(&format!("/api/v1/runs/{run}/cancel"), json!({}))
        .await;
    assert_eq!(stopped, 200, "{body}");

    // The ask closed with its run: it leaves the inbox, and an answer finds it closed.
    let (_, shown) = api.get(&format!("/api/v1/asks/{run}:{ask}")).await;
    assert_eq!(
        shown["ask"]["ask"]["state"]["state"], "cancelled",
        "{shown}"
    );
    let (_, inbox) = api.get("/api/v1/inbox").await;
    assert_eq!(inbox["asks"].as_array().unwrap().len(), 0, "{inbox}");
    let (refused, body) = api
        .receipt(&run, &ask, "approval_card", "once", json!({}))
        .await;
    assert_eq!(refused, 409, "{body}");
    assert_eq!(body["resolution"]["state"], "cancelled", "{body}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        seen.lock().unwrap().len(),
        1,
        "nothing more reached the runtime"
    );
    assert_eq!(api.runs(&thread).await.len(), 1);
}

/// What the store says became of the answer to ask `key` on its way to the agent.
async fn delivery_of(api: &Api, key: &str) -> (String, Option<String>) {
    use sqlx::Connection;
    let url = format!(
        "sqlite:{}",
        api.server.data_dir.join("agent-os.sqlite3").display()
    );
    let mut db = sqlx::SqliteConnection::connect(&url).await.unwrap();
    sqlx::query_as("SELECT state, note FROM deliveries WHERE ask_key = $1")
        .bind(key)
        .fetch_one(&mut db)
        .await
        .unwrap()
}

#[tokio::test]
async fn an_answer_held_for_a_run_then_stopped_is_given_up_and_never_sent() {
    let release = Arc::new(Notify::new());
    let (url, seen) = runtime(release.clone(), false).await;
    let api = console(&url).await;
    let thread = api.thread(Some("early")).await;
    let run = api.say(&thread, "read the wiki").await;
    let (ask, _) = until_asked(&api, &run).await;
    let (answered, body) = api
        .receipt(&run, &ask, "approval_card", "once", json!({}))
        .await;
    assert_eq!(answered, 200, "{body}");
    let key = format!("{run}:{ask}");
    assert_eq!(delivery_of(&api, &key).await.0, "pending");

    let (stopped, body) = api
        .post(&format!("/api/v1/runs/{run}/cancel"), json!({}))
        .await;
    assert_eq!(stopped, 200, "{body}");
    assert_eq!(
        delivery_of(&api, &key).await,
        (
            "abandoned".to_owned(),
            Some("the run was stopped before its answers were carried".to_owned())
        )
    );
    release.notify_one();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(seen.lock().unwrap().len(), 1, "the answer never left");
    assert_eq!(api.runs(&thread).await.len(), 1);
}

#[tokio::test]
async fn stopping_one_run_keeps_the_answers_held_for_another() {
    let release = Arc::new(Notify::new());
    let (url, _) = runtime(release.clone(), false).await;
    let api = console(&url).await;
    let (stopped_thread, kept_thread) = (
        api.thread(Some("early")).await,
        api.thread(Some("early")).await,
    );
    let stopped = api.say(&stopped_thread, "read the wiki").await;
    let kept = api.say(&kept_thread, "read the wiki too").await;
    for run in [&stopped, &kept] {
        let (ask, _) = until_asked(&api, run).await;
        let (answered, body) = api
            .receipt(run, &ask, "approval_card", "once", json!({}))
            .await;
        assert_eq!(answered, 200, "{body}");
    }
    let (status, body) = api
        .post(&format!("/api/v1/runs/{stopped}/cancel"), json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    release.notify_waiters();

    let resumed = api.nth_run(&kept_thread, 1).await;
    assert_eq!(resumed["run"]["status"], "succeeded", "{resumed}");
    assert_eq!(texts(&resumed["view"]), ["Approved."]);
}

#[tokio::test]
async fn an_ask_of_a_run_cut_off_before_it_was_answered_closes_with_the_failure() {
    let release = Arc::new(Notify::new());
    let (url, seen) = runtime(release.clone(), true).await;
    let api = console(&url).await;
    let thread = api.thread(Some("early")).await;
    let run = api.say(&thread, "read the wiki").await;
    let (ask, _) = until_asked(&api, &run).await;
    release.notify_one();
    let failed = api.settled(&run).await;
    assert_eq!(failed["run"]["status"], "failed", "{failed}");
    assert_eq!(
        failed["view"]["asks"][0]["state"]["state"], "cancelled",
        "the run's view closes the ask: {failed}"
    );

    let (_, shown) = api.get(&format!("/api/v1/asks/{run}:{ask}")).await;
    assert_eq!(
        shown["ask"]["ask"]["state"]["reason"], "The run failed before this was answered",
        "{shown}"
    );
    let (_, inbox) = api.get("/api/v1/inbox").await;
    assert_eq!(inbox["asks"].as_array().unwrap().len(), 0, "{inbox}");
    // Nothing waits: the run's event stream says so and ends.
    let stream = tokio::time::timeout(Duration::from_secs(10), async {
        let url = api.url(&format!("/api/v1/runs/{run}/events"));
        api.client
            .get(url)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    })
    .await
    .expect("the stream of a failed run ends");
    assert!(
        stream.ends_with("event: end\ndata: the run is over\n\n"),
        "{stream}"
    );
    let (refused, body) = api
        .receipt(&run, &ask, "approval_card", "once", json!({}))
        .await;
    assert_eq!(refused, 409, "{body}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        seen.lock().unwrap().len(),
        1,
        "nothing more reached the runtime"
    );
    assert_eq!(api.runs(&thread).await.len(), 1);
}
