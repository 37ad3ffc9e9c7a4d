//! KsADK's hosted runtime end to end, on a loopback runtime that answers with the bytes
//! KsADK 0.8.5 sent: its streams read to their answers, its own tools shown as run, and
//! its approvals answered with its `ksadk_resume` item in its session — once.

#![allow(clippy::unwrap_used)]

mod common;
#[path = "common/ksadk.rs"]
mod ksadk;

use std::time::Duration;

use common::api::{Api, texts, tool_calls};
use ksadk::Approval;
use serde_json::{Value, json};

async fn console(runtime: &ksadk::Runtime) -> Api {
    let agent = format!("ks={},api=responses,model=agent", runtime.url);
    Api::start(&["--openai", &agent, "--no-demo"]).await
}

/// A run that paused on the runtime's approval, and the ask's id.
async fn paused_on_approval(api: &Api, thread: &str) -> (String, String) {
    let run = api.say(thread, "del [[scenario:ks_approval]]").await;
    let paused = api.settled(&run).await;
    assert_eq!(paused["run"]["status"], "interrupted", "{paused}");
    let ask = &paused["view"]["asks"][0];
    assert_eq!(
        ask["title"], "Delete file “/tmp/ksadk-accept/victim.txt”?",
        "{ask}"
    );
    (run, ask["id"].as_str().unwrap().to_owned())
}

#[tokio::test]
async fn a_ksadk_text_and_tool_turn_reads_to_the_answer() {
    let runtime = ksadk::start(Approval::First).await;
    let api = console(&runtime).await;
    let thread = api.thread(Some("ks")).await;
    let run = api.say(&thread, "say hi [[scenario:text]]").await;
    let done = api.settled(&run).await;
    assert_eq!(done["run"]["status"], "succeeded", "{done}");
    assert_eq!(
        texts(&done["view"]).last().unwrap(),
        "Hello from the fake model. This reply arrives in several chunks."
    );

    let run = api.say(&thread, "weather [[scenario:ks_tool]]").await;
    let done = api.settled(&run).await;
    assert_eq!(done["run"]["status"], "succeeded", "{done}");
    let calls = tool_calls(&done["view"]);
    assert_eq!(calls.len(), 1, "{done}");
    assert_eq!(calls[0]["name"], "get_weather");
    assert!(
        done["view"]["asks"].as_array().unwrap().is_empty(),
        "the runtime ran its tool itself: {done}"
    );
}

#[tokio::test]
async fn an_approved_ksadk_interrupt_is_answered_once_in_its_session() {
    let runtime = ksadk::start(Approval::First).await;
    let api = console(&runtime).await;
    let thread = api.thread(Some("ks")).await;
    let (run, ask) = paused_on_approval(&api, &thread).await;

    let (status, body) = api
        .receipt(&run, &ask, "approval_card", "once", json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    let resumed = api.nth_run(&thread, 1).await;
    assert_eq!(resumed["run"]["status"], "succeeded", "{resumed}");
    assert!(
        texts(&resumed["view"])
            .concat()
            .starts_with("Done. delete_file said: pretend-deleted"),
        "{resumed}"
    );

    // The answer went as KsADK took it when it was recorded: its resume item, alone, in
    // the session that holds the interrupt.
    let posts = runtime.requests_to("/v1/responses");
    assert_eq!(posts.len(), 2, "{posts:?}");
    let recorded = ksadk::recorded_request("15_responses_approval_resume_stream");
    for field in ["session_id", "stream", "input"] {
        assert_eq!(
            posts[1].body[field], recorded[field],
            "{field}: {:?}",
            posts[1].body
        );
    }

    // A second answer is refused by the console, never sent.
    let (again, body) = api
        .receipt(&run, &ask, "approval_card", "deny", json!({}))
        .await;
    assert_ne!(again, 500, "{body}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(runtime.requests_to("/v1/responses").len(), 2);
}

#[tokio::test]
async fn a_rejected_ksadk_interrupt_carries_the_operators_reason() {
    let runtime = ksadk::start(Approval::Second).await;
    let api = console(&runtime).await;
    let thread = api.thread(Some("ks")).await;
    let (run, ask) = paused_on_approval(&api, &thread).await;

    let (status, body) = api
        .receipt(
            &run,
            &ask,
            "approval_card",
            "deny",
            json!({"reason": "not allowed"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let resumed = api.nth_run(&thread, 1).await;
    assert_eq!(resumed["run"]["status"], "succeeded", "{resumed}");
    assert!(
        texts(&resumed["view"]).concat().contains("not allowed"),
        "{resumed}"
    );
    let posts = runtime.requests_to("/v1/responses");
    let recorded = ksadk::recorded_request("19_responses_approval2_reject_stream");
    assert_eq!(posts[1].body["input"], recorded["input"]);
    assert_eq!(posts[1].body["session_id"], recorded["session_id"]);
}

#[tokio::test]
async fn an_interrupt_the_runtime_no_longer_holds_fails_the_answer_in_words_without_a_retry() {
    let runtime = ksadk::start(Approval::First).await;
    let api = console(&runtime).await;
    let thread = api.thread(Some("ks")).await;
    let (run, ask) = paused_on_approval(&api, &thread).await;
    // Someone answered it on the runtime's own page meanwhile.
    runtime
        .answered
        .lock()
        .unwrap()
        .insert("48fd13277ac62321f2cb999bab2898da".into());

    let (status, body) = api
        .receipt(&run, &ask, "approval_card", "once", json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    let resumed = api.nth_run(&thread, 1).await;
    assert_eq!(resumed["run"]["status"], "failed", "{resumed}");
    let failure: Value = resumed["view"]["failure"].clone();
    assert!(
        failure
            .as_str()
            .unwrap()
            .contains("no longer holds this approval"),
        "{resumed}"
    );
    assert_eq!(
        runtime.requests_to("/v1/responses").len(),
        2,
        "the answer is sent once"
    );
}

async fn environment(api: &Api) -> Value {
    let (_, agents) = api.get("/api/v1/agents").await;
    agents["environments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|environment| environment["agent"] == "ks")
        .cloned()
        .unwrap()
}

#[tokio::test]
async fn a_ksadk_runtime_listing_ag_ui_is_spoken_to_over_it_and_its_interrupt_answered_once_on_responses()
 {
    let runtime = ksadk::start(Approval::First).await;
    let agent = format!("ks={}", runtime.url);
    let api = Api::start(&["--openai", &agent, "--no-demo"]).await;
    let thread = api.thread(Some("ks")).await;
    let run = api.say(&thread, "hi [[scenario:text]]").await;
    let done = api.settled(&run).await;
    assert_eq!(done["run"]["status"], "succeeded", "{done}");
    let shown = environment(&api).await;
    assert_eq!(shown["protocol"], "AG-UI", "{shown}");
    assert!(
        shown["chosen_because"]
            .as_str()
            .unwrap()
            .contains("KsADK's bootstrap (POST …/agentengine/api/v1/GetAgentUiBootstrap) lists it"),
        "{shown}"
    );
    assert_eq!(runtime.requests_to("/agentengine/agui").len(), 1);

    let run = api.say(&thread, "delete [[scenario:ks_approval]]").await;
    let paused = api.settled(&run).await;
    assert_eq!(paused["run"]["status"], "interrupted", "{paused}");
    let ask = &paused["view"]["asks"][0];
    assert_eq!(
        ask["title"], "Delete file “/tmp/ksadk-accept/victim.txt”?",
        "{ask}"
    );
    let ask = ask["id"].as_str().unwrap().to_owned();
    let (status, body) = api
        .receipt(&run, &ask, "approval_card", "once", json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    let resumed = api.nth_run(&thread, 2).await;
    assert_eq!(resumed["run"]["status"], "succeeded", "{resumed}");
    assert!(
        texts(&resumed["view"])
            .concat()
            .contains("Done. delete_file said: pretend-deleted"),
        "{resumed}"
    );
    assert!(
        common::api::notices(&resumed["view"])
            .concat()
            .contains("cannot resume an interrupt over AG-UI"),
        "{resumed}"
    );

    // The answer went once, on the Responses API, in the session that is the thread.
    let agui = runtime.requests_to("/agentengine/agui");
    assert!(agui.iter().all(|request| request.body["resume"].is_null()));
    let posts = runtime.requests_to("/v1/responses");
    assert_eq!(posts.len(), 1, "{posts:?}");
    let recorded = ksadk::recorded_request("37_agui_interrupt_resumed_via_responses");
    assert_eq!(posts[0].body["input"], recorded["input"]);
    assert_eq!(posts[0].body["user"], "agui-user");
    assert_eq!(posts[0].body["session_id"], agui[1].body["threadId"]);

    // Its AG-UI side would refuse the thread's next run (KsADK 0.8.5 still counts the
    // answered one as active, as tried by hand): the thread goes on in that session over
    // the Responses API, with the new message alone — the session holds the rest.
    let run = api.say(&thread, "and now? [[scenario:text]]").await;
    let next = api.settled(&run).await;
    assert_eq!(next["run"]["status"], "succeeded", "{next}");
    assert!(
        common::api::notices(&next["view"])
            .concat()
            .contains("goes on over its Responses API"),
        "{next}"
    );
    assert_eq!(
        runtime.requests_to("/agentengine/agui").len(),
        2,
        "no AG-UI run"
    );
    let posts = runtime.requests_to("/v1/responses");
    assert_eq!(posts.len(), 2);
    assert_eq!(posts[1].body["session_id"], agui[1].body["threadId"]);
    assert_eq!(posts[1].body["user"], "agui-user");
    assert_eq!(
        posts[1].body["input"],
        json!([{"role": "user", "content": "and now? [[scenario:text]]"}])
    );
    // Said once: the turn after it goes the same way without saying it again.
    let run = api.say(&thread, "once more [[scenario:text]]").await;
    let after = api.settled(&run).await;
    assert_eq!(after["run"]["status"], "succeeded", "{after}");
    assert!(common::api::notices(&after["view"]).is_empty(), "{after}");
    assert_eq!(runtime.requests_to("/v1/responses").len(), 3);
}

#[tokio::test]
async fn a_ksadk_runtime_listing_only_responses_is_asked_there_and_says_why() {
    let runtime = ksadk::start_listing(Approval::First, ksadk::Listed::ResponsesOnly).await;
    let agent = format!("ks={}", runtime.url);
    let api = Api::start(&["--openai", &agent, "--no-demo"]).await;
    let thread = api.thread(Some("ks")).await;
    let run = api.say(&thread, "hi [[scenario:text]]").await;
    let done = api.settled(&run).await;
    assert_eq!(done["run"]["status"], "succeeded", "{done}");
    assert!(runtime.requests_to("/agentengine/agui").is_empty());
    let shown = environment(&api).await;
    assert!(
        shown["protocol"]
            .as_str()
            .unwrap()
            .starts_with("OpenAI Responses"),
        "{shown}"
    );
    assert!(
        shown["chosen_because"]
            .as_str()
            .unwrap()
            .contains("lists no AG-UI"),
        "{shown}"
    );

    // The thread is one of its sessions, which keeps the conversation: each turn names it
    // and carries its new message alone.
    let run = api.say(&thread, "again [[scenario:text]]").await;
    assert_eq!(api.settled(&run).await["run"]["status"], "succeeded");
    let posts = runtime.requests_to("/v1/responses");
    assert_eq!(posts.len(), 2);
    for post in &posts {
        assert_eq!(post.body["session_id"], thread.as_str(), "{:?}", post.body);
        assert!(post.body.get("user").is_none(), "{:?}", post.body);
    }
    assert_eq!(
        posts[1].body["input"],
        json!([{"role": "user", "content": "again [[scenario:text]]"}])
    );
}

#[tokio::test]
async fn a_message_sent_instead_of_answering_goes_as_the_rejections_reason() {
    let runtime = ksadk::start(Approval::Second).await;
    let api = console(&runtime).await;
    let thread = api.thread(Some("ks")).await;
    let (run, _) = paused_on_approval(&api, &thread).await;

    let sent = api.say(&thread, "not allowed").await;
    assert_eq!(
        sent,
        format!("{run}.resume"),
        "the message rides the answer"
    );
    let resumed = api.settled(&sent).await;
    assert_eq!(resumed["run"]["status"], "succeeded", "{resumed}");
    let said = texts(&resumed["view"]).join(" | ");
    assert!(said.starts_with("not allowed"), "{said}");
    assert!(said.contains("with reason: not allowed"), "{said}");
    let posts = runtime.requests_to("/v1/responses");
    assert_eq!(posts.len(), 2, "{posts:?}");
    let recorded = ksadk::recorded_request("19_responses_approval2_reject_stream");
    assert_eq!(posts[1].body["input"], recorded["input"]);
}

#[tokio::test]
async fn a_base_url_given_without_v1_is_found_under_v1_and_said_once() {
    let runtime = ksadk::start(Approval::First).await;
    let origin = runtime.url.trim_end_matches("/v1").to_owned();
    // No model named: the one the runtime lists under /v1 is asked.
    let api = Api::start(&[
        "--openai",
        &format!("ks={origin},api=responses"),
        "--no-demo",
    ])
    .await;
    let thread = api.thread(Some("ks")).await;
    let run = api.say(&thread, "say hi [[scenario:text]]").await;
    let done = api.settled(&run).await;
    assert_eq!(done["run"]["status"], "succeeded", "{done}");
    let notes = common::api::notices(&done["view"]);
    assert!(
        notes
            .iter()
            .any(|note| note.starts_with("The endpoint answers under /v1: runs go to")),
        "{notes:?}"
    );
    let posts = runtime.requests_to("/v1/responses");
    assert_eq!(posts.len(), 1);
    assert_eq!(posts[0].body["model"], "fake-model", "{:?}", posts[0].body);

    let run = api.say(&thread, "again [[scenario:text]]").await;
    let done = api.settled(&run).await;
    assert_eq!(done["run"]["status"], "succeeded", "{done}");
    assert!(
        !common::api::notices(&done["view"])
            .iter()
            .any(|note| note.contains("/v1")),
        "said once"
    );
    // The origin's own /models is its web page, asked once, not a model list.
    assert_eq!(runtime.requests_to("/models").len(), 1);
    assert_eq!(
        runtime.requests_to("/v1/models").len(),
        2,
        "probed, then listed"
    );
}

#[tokio::test]
async fn a_base_not_found_while_the_runtime_was_down_is_looked_for_again() {
    let port = common::free_port();
    let origin = format!("http://127.0.0.1:{port}");
    let api = Api::start(&[
        "--openai",
        &format!("ks={origin},api=responses"),
        "--no-demo",
    ])
    .await;
    let thread = api.thread(Some("ks")).await;
    let run = api.say(&thread, "say hi [[scenario:text]]").await;
    let down = api.settled(&run).await;
    assert_eq!(down["run"]["status"], "failed", "{down}");

    let runtime = ksadk::start_on(port).await;
    let run = api.say(&thread, "say hi [[scenario:text]]").await;
    let up = api.settled(&run).await;
    assert_eq!(up["run"]["status"], "succeeded", "{up}");
    assert!(
        common::api::notices(&up["view"])
            .concat()
            .contains("The endpoint answers under /v1"),
        "{up}"
    );
    assert_eq!(runtime.requests_to("/v1/responses").len(), 1);
}
