//! Hermes turns and sessions end to end: stops that race the gateway, prompts it queues,
//! sessions it lets go, gateways that die or go silent, answers it no longer waits for.

#![allow(clippy::unwrap_used)]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::bridge::{Bridge, final_text};
use serde_json::json;

#[tokio::test]
async fn a_run_stopped_while_its_session_opens_sends_no_prompt() {
    let command = format!(
        "slow=AGENT_OS_DEMO_SESSION_DELAY_MS=1500 exec '{}' demo-gateway",
        common::BIN
    );
    let bridge = Arc::new(Bridge::start_with(&["--hermes", &command]).await);
    let (_, created) = bridge
        .post("/api/v1/threads", json!({"agent": "slow"}))
        .await;
    let thread = created["thread"]["id"].as_str().unwrap().to_owned();
    let sending = {
        let (bridge, thread) = (bridge.clone(), thread.clone());
        tokio::spawn(async move {
            bridge
                .post(
                    &format!("/api/v1/threads/{thread}/messages"),
                    json!({"text": "hello"}),
                )
                .await
        })
    };
    // The run exists before its session has opened.
    let deadline = Instant::now() + Duration::from_secs(10);
    let run = loop {
        let shown = bridge.get(&format!("/api/v1/threads/{thread}")).await;
        if let Some(id) = shown["runs"][0]["id"].as_str() {
            break id.to_owned();
        }
        assert!(Instant::now() < deadline, "no run appeared: {shown}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let (stopped, body) = bridge
        .post(&format!("/api/v1/runs/{run}/cancel"), json!({}))
        .await;
    assert_eq!(stopped, 200, "{body}");
    let (sent, body) = sending.await.unwrap();
    assert_eq!(sent, 202, "{body}");

    // Had the prompt gone out, the gateway's reply would land in the stopped run.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let shown = bridge.settled(&run).await;
    assert_eq!(shown["run"]["status"], "cancelled", "{shown}");
    assert_eq!(final_text(&shown), "", "{shown}");
    // The session it opened serves the next message, and that run alone.
    let (_, next) = bridge
        .post(
            &format!("/api/v1/threads/{thread}/messages"),
            json!({"text": "hello"}),
        )
        .await;
    let next = next["run"]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        final_text(&bridge.settled(&next).await),
        "Hello from the demo gateway."
    );
}

#[tokio::test]
async fn a_turn_that_ends_late_after_its_stop_sends_nothing_into_the_threads_next_run() {
    let bridge = Bridge::start().await;
    let messages = bridge.thread().await;
    let run = bridge.say(&messages, "stubborn").await;
    // The gateway goes on for seven seconds after the interrupt; the console waits five.
    bridge.stop_once_it_says(&run, "word2").await;
    assert_eq!(bridge.settled(&run).await["run"]["status"], "cancelled");

    // The next message goes out while the stopped turn still streams; the gateway queues it.
    let next = bridge.say(&messages, "hello").await;
    let shown = bridge.settled(&next).await;
    assert_eq!(shown["run"]["status"], "succeeded", "{shown}");
    let items = shown["view"]["items"].to_string();
    assert!(!items.contains("late"), "the stopped turn's words: {items}");
    assert!(!final_text(&shown).is_empty(), "{shown}");
}

#[tokio::test]
async fn a_turn_that_never_completed_does_not_hide_the_next_runs_frames() {
    let bridge = Bridge::start().await;
    let messages = bridge.thread().await;
    // The gateway ends this turn without its message.complete: the run waits, and is stopped.
    let run = bridge.say(&messages, "vanish").await;
    bridge.stop_once_it_says(&run, "gone before").await;

    // The gateway runs the next prompt at once ("streaming"): nothing is skipped.
    let next = bridge.say(&messages, "hello").await;
    let shown = bridge.settled(&next).await;
    assert_eq!(shown["run"]["status"], "succeeded", "{shown}");
    assert!(!final_text(&shown).is_empty(), "{shown}");
}

#[tokio::test]
async fn a_turn_stopped_while_it_waits_on_an_approval_lets_the_next_message_through() {
    let bridge = Bridge::start().await;
    let messages = bridge.thread().await;
    let run = bridge.say(&messages, "approve").await;
    bridge.pending_ask(&run).await;
    let (status, body) = bridge
        .post(&format!("/api/v1/runs/{run}/cancel"), json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(bridge.settled(&run).await["run"]["status"], "cancelled");

    // The gateway ended the stopped turn: the next prompt runs, and is answered.
    let next = bridge.say(&messages, "hello").await;
    let shown = bridge.settled(&next).await;
    assert_eq!(shown["run"]["status"], "succeeded", "{shown}");
    assert!(!final_text(&shown).is_empty(), "{shown}");
    let items = shown["view"]["items"].to_string();
    assert!(
        !items.contains("build/"),
        "the stopped turn's words: {items}"
    );
}

#[tokio::test]
async fn a_run_stopped_while_its_prompt_waits_in_the_gateways_queue_never_streams() {
    let bridge = Bridge::start().await;
    let messages = bridge.thread().await;
    let stubborn = bridge.say(&messages, "stubborn").await;
    bridge.stop_once_it_says(&stubborn, "word2").await;
    assert_eq!(
        bridge.settled(&stubborn).await["run"]["status"],
        "cancelled"
    );

    // Queued behind the stopped turn, which still streams; stopped before it starts.
    let queued = bridge.say(&messages, "slow").await;
    let (status, body) = bridge
        .post(&format!("/api/v1/runs/{queued}/cancel"), json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(bridge.settled(&queued).await["run"]["status"], "cancelled");

    // Had the queued turn started anyway, it would hold the session for a minute.
    let next = bridge.say(&messages, "hello").await;
    let shown = bridge.settled(&next).await;
    assert_eq!(shown["run"]["status"], "succeeded", "{shown}");
    let items = shown["view"]["items"].to_string();
    assert!(!items.contains("word"), "the stopped turns' words: {items}");
}

#[tokio::test]
async fn a_thread_whose_live_session_the_gateway_let_go_resumes_it_and_is_answered() {
    let bridge = Bridge::start().await;
    let messages = bridge.thread().await;
    // The turn ends, then the gateway reclaims the session without a word.
    let idle = bridge.say(&messages, "idle").await;
    assert_eq!(bridge.settled(&idle).await["run"]["status"], "succeeded");

    // The prompt to the stale live id is refused (4001): the stored session is resumed
    // and the prompt goes to it, once.
    let next = bridge.say(&messages, "hello").await;
    let shown = bridge.settled(&next).await;
    assert_eq!(shown["run"]["status"], "succeeded", "{shown}");
    assert!(final_text(&shown).contains("resumed"), "{shown}");
}

#[tokio::test]
async fn a_gateway_that_dies_before_the_turn_begins_fails_the_run_and_the_thread_goes_on() {
    let bridge = Bridge::start().await;
    let messages = bridge.thread().await;
    let died = bridge.say(&messages, "exit").await;
    let shown = bridge.settled(&died).await;
    assert_eq!(shown["run"]["status"], "failed", "{shown}");
    assert!(
        shown.to_string().contains("exited before the turn began"),
        "{shown}"
    );

    // A new gateway takes the thread's next message.
    let next = bridge.say(&messages, "hello").await;
    let shown = bridge.settled(&next).await;
    assert_eq!(shown["run"]["status"], "succeeded", "{shown}");
}

#[tokio::test]
async fn an_answer_the_gateway_no_longer_waits_for_is_recorded_but_not_counted_as_delivered() {
    // The gateway gives up on an approval after 300 ms (and denies it), saying nothing.
    let command = format!(
        "hasty=AGENT_OS_DEMO_ASK_TIMEOUT_MS=300 exec '{}' demo-gateway",
        common::BIN
    );
    let bridge = Bridge::start_with(&["--hermes", &command]).await;
    let (_, created) = bridge
        .post("/api/v1/threads", json!({"agent": "hasty"}))
        .await;
    let messages = format!(
        "/api/v1/threads/{}/messages",
        created["thread"]["id"].as_str().unwrap()
    );
    let run = bridge.say(&messages, "approve").await;
    let ask = bridge.pending_ask(&run).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    bridge.answer(&run, &ask, "once", json!({})).await;
    let shown = bridge
        .until(&run, "said the answer was not taken", |body| {
            body.to_string().contains("no longer waited for it")
        })
        .await;
    assert!(
        shown.to_string().contains("could not be sent to the agent"),
        "{shown}"
    );
}

#[tokio::test]
async fn a_turn_the_gateway_goes_silent_on_fails_after_the_idle_timeout_and_the_thread_goes_on() {
    let bridge = Bridge::start_with(&["--agent-idle-timeout", "1"]).await;
    let messages = bridge.thread().await;
    let hung = bridge.say(&messages, "hang").await;
    let shown = bridge.settled(&hung).await;
    assert_eq!(shown["run"]["status"], "failed", "{shown}");
    assert!(
        shown.to_string().contains("sent nothing for 1 s"),
        "{shown}"
    );
    assert!(
        shown.to_string().contains("Thinking hard"),
        "what it said is kept: {shown}"
    );

    // The console told the gateway to stop it: the next message is answered.
    let next = bridge.say(&messages, "hello").await;
    let shown = bridge.settled(&next).await;
    assert_eq!(shown["run"]["status"], "succeeded", "{shown}");
    assert!(!final_text(&shown).is_empty(), "{shown}");
}

#[tokio::test]
async fn a_turn_waiting_on_an_answer_is_not_silent() {
    let bridge = Bridge::start_with(&["--agent-idle-timeout", "1"]).await;
    let messages = bridge.thread().await;
    let run = bridge.say(&messages, "approve").await;
    let ask = bridge.pending_ask(&run).await;
    // Longer than the idle timeout, waiting on the operator.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(bridge.view(&run).await["run"]["status"], "running");
    bridge.answer(&run, &ask, "once", json!({})).await;
    let shown = bridge.settled(&run).await;
    assert_eq!(shown["run"]["status"], "succeeded", "{shown}");
}
