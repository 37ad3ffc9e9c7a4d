//! A thread whose last run waits on asks: a message sent instead of the remaining answers
//! closes them as cancelled and rides the one follow-up with the answers already given;
//! a message and an answer at once start one follow-up; nothing else starts past the wait;
//! answers whose follow-up failed to start are carried by a later try.

#![allow(clippy::unwrap_used)]

mod common;

use common::api::{Api, errors, notices, resume_statuses, texts};
use serde_json::{Value, json};

/// A thread whose "approve" run waits on its two approvals; returns (thread, run).
async fn paused(api: &Api) -> (String, String) {
    let thread = api.thread(None).await;
    let run = api.say(&thread, "approve").await;
    let shown = api.settled(&run).await;
    assert_eq!(shown["run"]["status"], "interrupted", "{shown}");
    (thread, run)
}

/// The resumes the demo agent received for run `run_id`.
async fn resumes_for(api: &Api, run_id: &str) -> Vec<Value> {
    let (_, all) = api.demo_get("/demo/resumes").await;
    all.as_array()
        .unwrap()
        .iter()
        .filter(|resume| resume["runId"] == run_id)
        .cloned()
        .collect()
}

#[tokio::test]
async fn a_message_sent_instead_of_the_last_answer_cancels_it_and_rides_the_resume() {
    let api = Api::start(&[]).await;
    let (thread, run) = paused(&api).await;
    let (answered, body) = api
        .receipt(&run, "approve-budget", "approval_card", "once", json!({}))
        .await;
    assert_eq!(answered, 200, "{body}");

    let sent = api.say(&thread, "what about the budget?").await;
    assert_eq!(
        sent,
        format!("{run}.resume"),
        "the follow-up carries the message"
    );
    let follow_up = api.settled(&sent).await;
    assert_eq!(follow_up["run"]["status"], "succeeded", "{follow_up}");
    let said = texts(&follow_up["view"]).join(" | ");
    assert!(said.contains("what about the budget?"), "{said}");
    assert!(
        said.contains("Declined: confirm-date. Nothing booked."),
        "{said}"
    );
    assert!(
        said.contains("And to your message \u{201c}what about the budget?\u{201d}"),
        "the agent got the message after the answers: {said}"
    );
    let resumes = resumes_for(&api, &sent).await;
    assert_eq!(resumes.len(), 1, "{resumes:?}");
    let statuses = resume_statuses(&resumes[0]["interrupts"]);
    assert_eq!(
        statuses,
        [
            ("approve-budget", "resolved"),
            ("confirm-date", "cancelled")
        ]
    );

    // The ask left closed as cancelled, saying why; an answer to it now is too late.
    let (_, left) = api.get(&format!("/api/v1/asks/{run}:confirm-date")).await;
    assert_eq!(
        left["ask"]["ask"]["state"]["reason"], "A new message was sent instead of an answer",
        "{left}"
    );
    let (late, body) = api
        .receipt(&run, "confirm-date", "approval_card", "once", json!({}))
        .await;
    assert_eq!(late, 409, "{body}");
    let runs = api.runs(&thread).await;
    let statuses: Vec<&str> = runs
        .iter()
        .map(|run| run["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["resumed", "succeeded"]);
    let (_, inbox) = api.get("/api/v1/inbox").await;
    assert_eq!(inbox["asks"].as_array().unwrap().len(), 0, "{inbox}");
}

#[tokio::test]
async fn an_answer_and_a_message_at_once_start_one_follow_up_that_carries_both_or_the_answer() {
    let api = Api::start(&[]).await;
    for round in 0..6 {
        let (thread, run) = paused(&api).await;
        api.receipt(&run, "approve-budget", "approval_card", "once", json!({}))
            .await;
        let answer = api.receipt(&run, "confirm-date", "approval_card", "once", json!({}));
        let path = format!("/api/v1/threads/{thread}/messages");
        let message = api.post(&path, json!({ "text": "book it for two" }));
        let ((answered, answer_body), (sent, sent_body)) = tokio::join!(answer, message);
        let follow_up = api.nth_run(&thread, 1).await;
        let said = texts(&follow_up["view"]).join(" | ");
        match (answered, sent) {
            // The answer first: the resume carries both approvals; the message waits.
            (200, 409) => assert!(said.contains("Both approved. Booked."), "{round}: {said}"),
            // The message first: the date goes unanswered, the message rides along.
            (409, 202) => {
                assert_eq!(answer_body["resolution"]["state"], "cancelled");
                assert!(said.contains("book it for two"), "{round}: {said}");
                assert!(said.contains("Declined: confirm-date."), "{round}: {said}");
            }
            other => panic!("{round}: {other:?} {answer_body} {sent_body}"),
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        assert_eq!(api.runs(&thread).await.len(), 2, "{round}: one follow-up");
        assert_eq!(resumes_for(&api, &format!("{run}.resume")).await.len(), 1);
    }
}

#[tokio::test]
async fn a_retry_waits_for_the_answers_of_a_paused_run() {
    let api = Api::start(&[]).await;
    let (thread, run) = paused(&api).await;
    let (refused, body) = api
        .post(&format!("/api/v1/runs/{run}/retry"), json!({}))
        .await;
    assert_eq!(refused, 409, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("is waiting for answers"),
        "{body}"
    );
    assert_eq!(api.runs(&thread).await.len(), 1);
}

#[tokio::test]
async fn a_message_refused_because_the_answers_already_resume_the_run_is_not_indexed() {
    // The answer is held just after it closes its ask, in the run's answering turn; the
    // message arrives meanwhile and finds the run already resuming once it gets its turn.
    let api = Api::start_with_env(&[], &[("AGENT_OS_PAUSE_AT", "after-close")]).await;
    let thread = api.thread(None).await;
    let run = api.say(&thread, "clarify").await;
    api.settled(&run).await;
    let answer = api.receipt(
        &run,
        "clarify-color",
        "option_list",
        "answer",
        json!({"answer": "green"}),
    );
    let path = format!("/api/v1/threads/{thread}/messages");
    let message = async {
        tokio::time::sleep(std::time::Duration::from_millis(150)).await;
        api.post(&path, json!({ "text": "paint it zanzibar instead" }))
            .await
    };
    let ((answered, answer_body), (sent, body)) = tokio::join!(answer, message);
    assert_eq!((answered, sent), (200, 409), "{answer_body} {body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already resuming"),
        "{body}"
    );
    api.settled(&format!("{run}.resume")).await;
    let (status, listed) = api.get("/api/v1/threads?q=zanzibar").await;
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["threads"], json!([]), "the refused message's words");
    let (_, listed) = api.get("/api/v1/threads?q=clarify").await;
    assert_eq!(listed["threads"].as_array().unwrap().len(), 1, "{listed}");
}

/// The paused run's status and its view's error lines.
async fn status_and_errors(api: &Api, run: &str) -> (String, Vec<String>) {
    let (_, shown) = api.get(&format!("/api/v1/runs/{run}")).await;
    (
        shown["run"]["status"].as_str().unwrap().to_owned(),
        errors(&shown["view"]),
    )
}

/// A thread whose Responses run waits on an MCP approval, on a server then configured
/// anew to ask that endpoint with Chat Completions, which has no approvals to answer.
async fn paused_past_its_api() -> (Api, String, String) {
    let agent = "rt=http://127.0.0.1:{port}/demo/openai/v1,api_key_env=RT_KEY";
    let key = [("RT_KEY", "demo-key")];
    let api = Api::start_with_env(&["--openai", agent], &key).await;
    let thread = api.thread(Some("rt")).await;
    let run = api.say(&thread, "approve reading the wiki").await;
    let paused = api.settled(&run).await;
    assert_eq!(paused["run"]["status"], "interrupted", "{paused}");
    let chat = format!("{agent},api=chat");
    let flags = ["--openai", chat.as_str()];
    let api = api
        .restarted(|server| server.restart_with(&flags, &key))
        .await;
    (api, thread, run)
}

#[tokio::test]
async fn a_pause_whose_answers_can_never_be_carried_fails_saying_why_and_the_thread_goes_on() {
    // Answered: the answer is taken, the pause fails on record.
    let (api, thread, run) = paused_past_its_api().await;
    let (_, shown) = api.get(&format!("/api/v1/runs/{run}")).await;
    let ask = shown["view"]["asks"][0]["id"].as_str().unwrap().to_owned();
    let (status, body) = api
        .receipt(&run, &ask, "approval_card", "once", json!({}))
        .await;
    assert_eq!(status, 409, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("could not be resumed"),
        "{body}"
    );
    let (status, said) = status_and_errors(&api, &run).await;
    assert_eq!(status, "failed");
    assert!(
        said.iter()
            .any(|error| error.contains("The answers could not be carried to the agent")),
        "{said:?}"
    );
    let next = api.say(&thread, "then just summarize the wiki").await;
    assert_ne!(next, format!("{run}.resume"), "a turn of its own");
    let replied = api.settled(&next).await;
    assert_eq!(replied["run"]["status"], "succeeded", "{replied}");

    // A message sent in the answer's place: the pause fails the same way, and the
    // message starts the thread's next turn at once.
    let (api, thread, run) = paused_past_its_api().await;
    let next = api.say(&thread, "forget the wiki, just say hello").await;
    assert_ne!(next, format!("{run}.resume"));
    let replied = api.settled(&next).await;
    assert_eq!(replied["run"]["status"], "succeeded", "{replied}");
    let (status, said) = status_and_errors(&api, &run).await;
    assert_eq!(status, "failed");
    assert!(
        said.iter().any(|error| error.contains("Chat Completions")),
        "{said:?}"
    );
    let (_, shown) = api.get(&format!("/api/v1/runs/{run}")).await;
    assert_eq!(
        shown["view"]["asks"][0]["state"]["state"], "cancelled",
        "{shown}"
    );
    assert_eq!(api.runs(&thread).await.len(), 2);
}

#[tokio::test]
async fn answers_whose_resume_failed_to_start_stand_and_a_retry_carries_them_once() {
    // The first follow-up start fails, as a store refusing for a moment would.
    a_retry_carries_the_answers_once("start-resume", "interrupted").await;
}

#[tokio::test]
async fn a_resume_left_claimed_by_a_failed_start_is_carried_by_the_retry() {
    // The start fails, and so does letting its claim go: the run stays claimed with no
    // follow-up, as if its claimant were gone.
    a_retry_carries_the_answers_once("start-resume,unclaim-resume", "resumed").await;
}

/// Fails the last answer's resume at `fail_at`, which leaves the run `left_as`.
async fn a_retry_carries_the_answers_once(fail_at: &str, left_as: &str) {
    let api = Api::start_with_env(&[], &[("AGENT_OS_FAIL_AT", fail_at)]).await;
    let (thread, run) = paused(&api).await;
    api.receipt(&run, "approve-budget", "approval_card", "once", json!({}))
        .await;
    let (answered, body) = api
        .receipt(&run, "confirm-date", "approval_card", "once", json!({}))
        .await;
    assert_eq!(answered, 200, "the answer stands: {body}");
    let (_, shown) = api.get(&format!("/api/v1/runs/{run}")).await;
    assert_eq!(shown["run"]["status"], left_as, "{shown}");
    let said = notices(&shown["view"]);
    assert!(
        said.iter()
            .any(|text| text.contains("could not be resumed yet")),
        "{said:?}"
    );

    // Nobody answers or writes again: the console tries once more by itself.
    let follow_up = format!("{run}.resume");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while api.get(&format!("/api/v1/runs/{follow_up}")).await.0 != 200 {
        assert!(
            std::time::Instant::now() < deadline,
            "the answers were never carried"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let replied = api.settled(&follow_up).await;
    assert_eq!(replied["run"]["status"], "succeeded", "{replied}");
    assert!(
        texts(&replied["view"])
            .join(" | ")
            .contains("Both approved. Booked."),
        "{replied}"
    );
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    assert_eq!(resumes_for(&api, &follow_up).await.len(), 1, "carried once");
    assert_eq!(api.runs(&thread).await.len(), 2);
}
