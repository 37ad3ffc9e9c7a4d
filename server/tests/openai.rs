//! OpenAI-compatible agents over real HTTP to the demo model on loopback: both APIs and
//! the negotiation between them (a missing or failing Responses API), the tool loop, MCP approvals answered once, Stop, a
//! refused key that reaches no event or log, a key kept per tenant in the passvault, a busy
//! endpoint tried again, and streams that stop or fail mid-way.

#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::TestServer;
use common::api::{Api, errors, notices, texts, tool_calls};
use serde_json::{Value, json};

/// The requests the demo model was sent, oldest first.
async fn sent(api: &Api) -> Vec<Value> {
    let (_, seen) = api.demo_get("/demo/openai/v1/requests").await;
    seen.as_array().unwrap().clone()
}

/// A run that ended waiting on asks (and may have been carried on already).
fn paused_or_resumed(shown: &Value) -> bool {
    matches!(
        shown["run"]["status"].as_str(),
        Some("interrupted" | "resumed")
    )
}

async fn environment(api: &Api, agent: &str) -> Value {
    let (_, agents) = api.get("/api/v1/agents").await;
    agents["environments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|environment| environment["agent"] == agent)
        .cloned()
        .unwrap()
}

#[tokio::test]
async fn a_responses_agent_calls_a_workspace_tool_and_answers_with_its_result() {
    let api = Api::start(&[]).await;
    api.post(
        "/api/v1/notes",
        json!({"title": "Release plan", "body": "The release goes out on Friday."}),
    )
    .await;
    let thread = api.thread(Some("demo-openai")).await;
    let run = api.say(&thread, "Find my note about the release").await;
    let paused = api.settled(&run).await;
    assert!(paused_or_resumed(&paused), "{paused}");
    let said = notices(&paused["view"]).join(" | ");
    assert!(
        said.contains(
            "Speaking OpenAI Responses (model demo-model): the endpoint answers the Responses API"
        ),
        "{said}"
    );
    assert!(
        said.contains("Tokens: 42 in, 17 out (5 reasoning)"),
        "{said}"
    );
    let calls = tool_calls(&paused["view"]);
    assert_eq!(calls[0]["name"], "notes_search");
    let answered = api.nth_run(&thread, 1).await;
    assert_eq!(answered["run"]["status"], "succeeded", "{answered}");
    let reply = texts(&answered["view"]).join(" ");
    assert!(
        reply.contains("The tools answered: notes_search gave"),
        "{reply}"
    );
    assert!(reply.contains("\"title\":\"Release plan\""), "{reply}");

    let requests = sent(&api).await;
    assert_eq!(requests.len(), 2, "{requests:?}");
    let first = &requests[0]["body"];
    assert_eq!(requests[0]["api"], "responses");
    assert_eq!(first["model"], "demo-model");
    let offered: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    for tool in ["change_background", "notes_search", "note_write"] {
        assert!(offered.contains(&tool), "{offered:?}");
    }
    let input = requests[1]["body"]["input"].as_array().unwrap();
    let kinds: Vec<&str> = input
        .iter()
        .map(|item| item["type"].as_str().unwrap_or("message"))
        .collect();
    assert_eq!(
        kinds,
        ["message", "function_call", "function_call_output"],
        "{input:?}"
    );
    assert_eq!(input[1]["call_id"], input[2]["call_id"]);
    let environment = environment(&api, "demo-openai").await;
    assert_eq!(
        environment["protocol"],
        "OpenAI Responses (model demo-model)"
    );
    assert!(
        environment["chosen_because"]
            .as_str()
            .unwrap()
            .contains("answers the Responses API")
    );
}

#[tokio::test]
async fn an_endpoint_without_responses_is_asked_with_chat_completions_and_says_why() {
    let api = Api::start_with_env(
        &[
            "--openai",
            "chatty=http://127.0.0.1:{port}/demo/openai-chat/v1,api_key_env=CHATTY_KEY",
        ],
        &[("CHATTY_KEY", "demo-key")],
    )
    .await;
    let thread = api.thread(Some("chatty")).await;
    let run = api.say(&thread, "run the parallel search").await;
    let paused = api.settled(&run).await;
    assert!(paused_or_resumed(&paused), "{paused}");
    let said = notices(&paused["view"]).join(" | ");
    assert!(
        said.contains("the endpoint has no Responses API (POST /responses answered 404)"),
        "{said}"
    );
    let names: Vec<&str> = tool_calls(&paused["view"])
        .iter()
        .map(|call| call["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["notes_search", "change_background"]);
    // The workspace tool ran by itself; the console's own tool waits for the browser
    // (or, here, for its receipt).
    let asks = paused["view"]["asks"].as_array().unwrap();
    let colour = asks
        .iter()
        .find(|ask| ask["tool"]["name"] == "change_background")
        .unwrap();
    let (status, _) = api
        .receipt(
            &run,
            colour["id"].as_str().unwrap(),
            "frontend_tool",
            "submit",
            json!({"result": {"applied": "#e6f4f1"}}),
        )
        .await;
    assert_eq!(status, 200);
    let answered = api.nth_run(&thread, 1).await;
    let reply = texts(&answered["view"]).join(" ");
    assert!(
        reply.contains("notes_search gave {\"notes\":[]}"),
        "{reply}"
    );
    assert!(
        reply.contains("change_background gave {\"applied\":\"#e6f4f1\"}"),
        "{reply}"
    );
    let environment = environment(&api, "chatty").await;
    assert_eq!(
        environment["protocol"],
        "OpenAI Chat Completions (model demo-model)"
    );
}

/// Approves `ask` of paused run `run` once; the follow-up, which read the wiki.
async fn approved(api: &Api, thread: &str, run: &str, ask: &str) -> Value {
    let (status, body) = api
        .receipt(run, ask, "approval_card", "once", json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    let answered = api.nth_run(thread, 1).await;
    assert_eq!(answered["run"]["status"], "succeeded", "{answered}");
    assert!(
        texts(&answered["view"])
            .join(" ")
            .contains("Approved, so I read the release checklist"),
        "{answered}"
    );
    answered
}

#[tokio::test]
async fn an_mcp_approval_pauses_the_run_and_its_answer_goes_back_once() {
    let api = Api::start(&[]).await;
    let thread = api.thread(Some("demo-openai")).await;
    let run = api.say(&thread, "approve reading the wiki").await;
    let paused = api.settled(&run).await;
    assert!(paused_or_resumed(&paused), "{paused}");
    let ask = &paused["view"]["asks"][0];
    assert_eq!(ask["origin"]["type"], "open_ai_approval", "{ask}");
    assert_eq!(ask["title"], "Read wiki “Release checklist” on wiki?");
    let ask_id = ask["id"].as_str().unwrap();
    let answered = approved(&api, &thread, &run, ask_id).await;
    let wiki = tool_calls(&answered["view"])[0];
    assert_eq!(wiki["name"], "read_wiki");
    assert!(
        wiki["result"]["content"]
            .as_str()
            .unwrap()
            .contains("Tag the release")
    );

    let (again, _) = api
        .receipt(&run, ask_id, "approval_card", "once", json!({}))
        .await;
    assert_eq!(again, 409, "a second answer is refused");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let responses: Vec<Value> = sent(&api)
        .await
        .into_iter()
        .flat_map(|request| {
            request["body"]["input"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter(|item| item["type"] == "mcp_approval_response")
        .collect();
    assert_eq!(responses.len(), 1, "{responses:?}");
    assert_eq!(responses[0]["approve"], true);
    assert_eq!(api.runs(&thread).await.len(), 2);
    // The demo endpoint says it keeps its responses, but offers no resume form of its
    // own: the answer goes with the whole conversation, which needs nothing kept.
    let requests = sent(&api).await;
    let follow_up = &requests.last().unwrap()["body"];
    assert!(
        follow_up.get("previous_response_id").is_none(),
        "{follow_up}"
    );
    let kinds: Vec<&str> = follow_up["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|item| item["type"].as_str())
        .collect();
    assert!(
        kinds.ends_with(&["mcp_approval_request", "mcp_approval_response"]),
        "{follow_up}"
    );
}

const STATEFUL: &str = "stateful=http://127.0.0.1:{port}/demo/stateful/v1,api_key_env=ST_KEY";

/// A server with the demo runtime whose bootstrap document offers its own resume form,
/// as agent `stateful`, and a thread of it paused on an MCP approval: (api, thread, run, ask).
async fn paused_on_a_stateful_runtime() -> (Api, String, String, String) {
    let api = Api::start_with_env(&["--openai", STATEFUL], &[("ST_KEY", "demo-key")]).await;
    let thread = api.thread(Some("stateful")).await;
    let run = api.say(&thread, "approve reading the wiki").await;
    let paused = api.settled(&run).await;
    assert!(paused_or_resumed(&paused), "{paused}");
    let ask = paused["view"]["asks"][0]["id"].as_str().unwrap().to_owned();
    (api, thread, run, ask)
}

#[tokio::test]
async fn a_runtime_that_offers_its_own_resume_form_continues_the_paused_response() {
    let (api, thread, run, ask) = paused_on_a_stateful_runtime().await;
    let environment = environment(&api, "stateful").await;
    assert!(
        environment["chosen_because"]
            .as_str()
            .unwrap_or_default()
            .contains("continues its own responses"),
        "{environment}"
    );
    let answered = approved(&api, &thread, &run, &ask).await;
    assert!(
        notices(&answered["view"])
            .iter()
            .any(|notice| notice.contains("Continuing the runtime's response")),
        "{answered}"
    );
    // It names the paused response and carries only the answer.
    let requests = sent(&api).await;
    assert_eq!(requests.len(), 2, "{requests:?}");
    let follow_up = &requests[1]["body"];
    assert_eq!(
        follow_up["previous_response_id"], requests[0]["response_id"],
        "{requests:?}"
    );
    assert_eq!(
        follow_up["input"],
        json!([{"type": "mcp_approval_response", "approval_request_id": follow_up["input"][0]["approval_request_id"], "approve": true}]),
        "{follow_up}"
    );
}

#[tokio::test]
async fn a_runtime_that_lost_the_paused_response_is_sent_the_whole_conversation() {
    let (api, thread, run, ask) = paused_on_a_stateful_runtime().await;
    // The runtime (the demo, inside the server) restarts and forgets its responses.
    let api = api
        .restarted(|server| server.restart_with(&["--openai", STATEFUL], &[("ST_KEY", "demo-key")]))
        .await;
    let answered = approved(&api, &thread, &run, &ask).await;
    assert!(
        notices(&answered["view"])
            .iter()
            .any(|notice| notice.contains("did not continue response")
                && notice.contains("the whole conversation is sent instead")),
        "{answered}"
    );
    let requests = sent(&api).await;
    let [refused, whole] = &requests[..] else {
        panic!("two requests after the restart: {requests:?}");
    };
    assert!(
        refused["body"]["previous_response_id"].is_string(),
        "{refused}"
    );
    assert!(
        whole["body"].get("previous_response_id").is_none(),
        "{whole}"
    );
    let kinds: Vec<&str> = whole["body"]["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|item| item["type"].as_str())
        .collect();
    assert!(
        kinds.ends_with(&["mcp_approval_request", "mcp_approval_response"]),
        "{whole}"
    );
}

#[tokio::test]
async fn a_refused_key_fails_the_run_in_words_and_reaches_no_event_or_log() {
    let secret = "sk-test-not-the-demo-key-5f2c";
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    let data = dir.path().join("data");
    let server = TestServer::start_logging(
        &data,
        &[
            "--openai",
            "locked=http://127.0.0.1:{port}/demo/openai/v1,model=demo-model,api_key_env=LOCKED_KEY",
        ],
        &[("LOCKED_KEY", secret)],
        &log,
    )
    .await;
    let api = Api::over(server, dir);
    let thread = api.thread(Some("locked")).await;
    let run = api.say(&thread, "hello").await;
    let failed = api.settled(&run).await;
    assert_eq!(failed["run"]["status"], "failed", "{failed}");
    assert_eq!(
        errors(&failed["view"]),
        ["the endpoint refused the API key (401)"]
    );
    // The event stream as sent, frame by frame (it is not JSON as a whole).
    let events = api.text(&format!("/api/v1/runs/{run}/events")).await;
    assert!(events.contains("event: end"), "{events}");
    assert!(
        events.contains("the endpoint refused the API key"),
        "{events}"
    );
    let (_, page) = api.get(&format!("/api/v1/threads/{thread}")).await;
    for shown in [events, page.to_string(), failed.to_string()] {
        assert!(!shown.contains(secret));
    }
    for entry in std::fs::read_dir(&data).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        assert!(
            !bytes
                .windows(secret.len())
                .any(|window| window == secret.as_bytes()),
            "the key is in the data directory"
        );
    }
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(!logged.contains(secret), "the key is in the log");
}

#[tokio::test]
async fn a_busy_endpoint_is_tried_again_and_the_run_succeeds() {
    let api = Api::start(&[]).await;
    let thread = api.thread(Some("demo-openai")).await;
    let run = api.say(&thread, "busy afternoon").await;
    let done = api.settled(&run).await;
    assert_eq!(done["run"]["status"], "succeeded", "{done}");
    assert!(
        texts(&done["view"])
            .join(" ")
            .contains("You said: **busy afternoon**")
    );
    assert_eq!(sent(&api).await.len(), 2, "one 429, then the answer");
}

#[tokio::test]
async fn a_stream_that_stops_or_fails_midway_fails_the_run_and_keeps_what_arrived() {
    let api = Api::start(&[]).await;
    let thread = api.thread(Some("demo-openai")).await;
    let run = api.say(&thread, "cut it short").await;
    let cut = api.settled(&run).await;
    assert_eq!(cut["run"]["status"], "failed", "{cut}");
    assert!(
        texts(&cut["view"])
            .join(" ")
            .contains("This answer will stop half")
    );
    assert_eq!(
        errors(&cut["view"]),
        ["the stream stopped before the response was complete"]
    );
    let run = api.say(&thread, "fail now").await;
    let failed = api.settled(&run).await;
    assert_eq!(failed["run"]["status"], "failed", "{failed}");
    assert!(texts(&failed["view"]).join(" ").contains("Starting, then"));
    assert_eq!(
        errors(&failed["view"]),
        ["the endpoint reported an error: The model crashed while answering."]
    );
}

#[tokio::test]
async fn stop_ends_a_run_that_is_still_streaming() {
    let api = Api::start(&[]).await;
    let thread = api.thread(Some("demo-openai")).await;
    let run = api.say(&thread, "slow answer please").await;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (_, shown) = api.get(&format!("/api/v1/runs/{run}")).await;
        if texts(&shown["view"]).join(" ").contains("long time") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{shown}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (status, stopped) = api
        .post(&format!("/api/v1/runs/{run}/cancel"), json!({}))
        .await;
    assert_eq!(status, 200, "{stopped}");
    let settled = api.settled(&run).await;
    assert_eq!(settled["run"]["status"], "cancelled", "{settled}");
}

#[tokio::test]
async fn a_runtime_that_offers_ag_ui_is_spoken_to_over_it_and_its_asks_still_show() {
    let api = Api::start(&[
        "--openai",
        "rt=http://127.0.0.1:{port}/demo/runtime/v1,api_key_env=AGENT_OS_DEMO_KEY",
    ])
    .await;
    let before = environment(&api, "rt").await;
    assert!(
        before["chosen_because"]
            .as_str()
            .unwrap()
            .contains("bootstrap document")
    );
    let thread = api.thread(Some("rt")).await;
    let run = api.say(&thread, "approve").await;
    let paused = api.settled(&run).await;
    // The demo AG-UI agent's approvals, though the runtime reports having none.
    assert!(paused_or_resumed(&paused), "{paused}");
    let asks = paused["view"]["asks"].as_array().unwrap();
    assert_eq!(asks.len(), 2, "{paused}");
    assert_eq!(asks[0]["origin"]["type"], "ag_ui_interrupt");
    let environment = environment(&api, "rt").await;
    assert_eq!(environment["protocol"], "AG-UI");
    let because = environment["chosen_because"].as_str().unwrap();
    assert!(
        because.contains("bootstrap document offers it"),
        "{because}"
    );
    assert!(
        because.contains("it reports no approvals, and asks that arrive are shown all the same"),
        "{because}"
    );
    assert!(
        environment["endpoint"]
            .as_str()
            .unwrap()
            .ends_with("/demo/runtime/v1")
    );
    assert!(
        sent(&api).await.is_empty(),
        "nothing went to the OpenAI APIs"
    );
}

#[tokio::test]
async fn a_runtime_whose_ag_ui_does_not_start_is_spoken_to_over_responses_from_then_on() {
    let api = Api::start_with_env(
        &[
            "--openai",
            "broken=http://127.0.0.1:{port}/demo/runtime-broken/v1,api_key_env=BROKEN_KEY",
        ],
        &[("BROKEN_KEY", "demo-key")],
    )
    .await;
    let thread = api.thread(Some("broken")).await;
    let run = api.say(&thread, "hello there").await;
    let done = api.settled(&run).await;
    assert_eq!(done["run"]["status"], "succeeded", "{done}");
    assert!(
        texts(&done["view"])
            .join(" ")
            .contains("You said: **hello there**")
    );
    let said = notices(&done["view"]).join(" | ");
    assert!(
        said.contains("The runtime offers AG-UI at http://127.0.0.1:"),
        "{said}"
    );
    assert!(said.contains("/demo/runtime-broken/agui-gone, but the run could not start there (HTTP 404: AG-UI moved away)"), "{said}");
    let run = api.say(&thread, "and again").await;
    let again = api.settled(&run).await;
    assert_eq!(again["run"]["status"], "succeeded", "{again}");
    assert!(!notices(&again["view"]).join(" ").contains("AG-UI"));
    let environment = environment(&api, "broken").await;
    assert_eq!(
        environment["protocol"],
        "OpenAI Responses (model demo-model)"
    );
    assert!(
        environment["chosen_because"]
            .as_str()
            .unwrap()
            .contains("the runtime offers AG-UI at"),
        "{environment}"
    );
    assert_eq!(sent(&api).await.len(), 2);
}

#[tokio::test]
async fn a_key_kept_in_a_tenants_passvault_carries_that_tenants_runs_and_no_others() {
    let var = "AGENT_OS_TEST_VAULTED_KEY";
    let api = Api::start(&[
        "--openai",
        &format!(
            "vaulted=http://127.0.0.1:{{port}}/demo/openai/v1,model=demo-model,api_key_env={var}"
        ),
    ])
    .await;
    let thread = api.thread(Some("vaulted")).await;
    let failed = api.settled(&api.say(&thread, "hello").await).await;
    assert_eq!(failed["run"]["status"], "failed", "{failed}");
    let said = errors(&failed["view"]).join(" ");
    assert!(
        said.contains(&format!("passvault has no entry for {var}")),
        "{said}"
    );

    let (status, created) = api
        .post(
            "/api/v1/passvault",
            json!({ "name": "Model key", "env_var": var, "value": "demo-key" }),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let done = api.settled(&api.say(&thread, "hello").await).await;
    assert_eq!(done["run"]["status"], "succeeded", "{done}");
    assert!(!texts(&done["view"]).is_empty());
    let id = created["id"].as_str().unwrap().to_owned();
    let (_, entry) = api.get(&format!("/api/v1/passvault/{id}")).await;
    assert_eq!(entry["last_used_by"], "agent vaulted", "{entry}");
    for shown in [done.to_string(), entry.to_string()] {
        assert!(!shown.contains("demo-key"), "the key is in a response");
    }

    // Another tenant keeps no key: its runs are refused, never sent with this one's.
    let token = api.server.user_with_token("tess", "elsewhere", "owner");
    let other = common::client_with(&token);
    let created = answer(
        other
            .post(api.url("/api/v1/threads"))
            .json(&json!({ "agent": "vaulted" })),
    )
    .await;
    let their_thread = created["thread"]["id"].as_str().unwrap();
    let started = answer(
        other
            .post(api.url(&format!("/api/v1/threads/{their_thread}/messages")))
            .json(&json!({ "text": "hello" })),
    )
    .await;
    let their_run = started["run"]["id"].as_str().unwrap().to_owned();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let theirs = loop {
        let shown = answer(other.get(api.url(&format!("/api/v1/runs/{their_run}")))).await;
        if shown["run"]["status"] != "running" {
            break shown;
        }
        assert!(std::time::Instant::now() < deadline, "{shown}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(theirs["run"]["status"], "failed", "{theirs}");
    assert!(
        errors(&theirs["view"])
            .join(" ")
            .contains("passvault has no entry")
    );
}

/// The JSON a request is answered with.
async fn answer(request: reqwest::RequestBuilder) -> Value {
    request.send().await.unwrap().json().await.unwrap()
}

#[tokio::test]
async fn an_endpoint_whose_responses_api_fails_is_asked_with_chat_completions_and_says_why() {
    let api = Api::start_with_env(
        &[
            "--openai",
            "proxy=http://127.0.0.1:{port}/demo/openai-chat-500/v1,api_key_env=PROXY_KEY",
        ],
        &[("PROXY_KEY", "demo-key")],
    )
    .await;
    let thread = api.thread(Some("proxy")).await;
    let done = api.settled(&api.say(&thread, "hello there").await).await;
    assert_eq!(done["run"]["status"], "succeeded", "{done}");
    let said = notices(&done["view"]).join(" | ");
    assert!(
        said.contains(
            "the endpoint's Responses API failed (POST /responses answered 500 on every try)"
        ),
        "{said}"
    );
    assert!(!texts(&done["view"]).is_empty());
    let environment = environment(&api, "proxy").await;
    assert_eq!(
        environment["protocol"],
        "OpenAI Chat Completions (model demo-model)"
    );
    // Settled: the next run goes straight to Chat Completions.
    let again = api.settled(&api.say(&thread, "and again").await).await;
    assert_eq!(again["run"]["status"], "succeeded", "{again}");
    assert!(
        !notices(&again["view"])
            .join(" ")
            .contains("Responses API failed")
    );
}
