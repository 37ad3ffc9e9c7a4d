//! The Hermes bridge end to end: the server spawns the demo gateway, speaks JSON-RPC to
//! it over stdio, and answers its asks in both forms.

#![allow(clippy::unwrap_used)]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::TestServer;
use serde_json::{Value, json};

struct Bridge {
    server: TestServer,
    client: reqwest::Client,
    _dir: tempfile::TempDir,
}

impl Bridge {
    async fn start() -> Bridge {
        let dir = tempfile::tempdir().unwrap();
        let server = TestServer::start(&dir.path().join("data")).await;
        Bridge {
            client: server.client(),
            server,
            _dir: dir,
        }
    }

    async fn get(&self, path: &str) -> Value {
        self.client
            .get(self.server.url(path))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let response = self
            .client
            .post(self.server.url(path))
            .json(&body)
            .send()
            .await
            .unwrap();
        (
            response.status().as_u16(),
            response.json().await.unwrap_or(Value::Null),
        )
    }

    /// A run of a new thread of the demo gateway, saying `text`.
    async fn turn(&self, text: &str) -> String {
        self.say(&self.thread().await, text).await
    }

    /// A new thread of the demo gateway; the path its messages are posted to.
    async fn thread(&self) -> String {
        let (status, created) = self
            .post("/api/v1/threads", json!({"agent": "demo-hermes"}))
            .await;
        assert_eq!(status, 201, "{created}");
        format!(
            "/api/v1/threads/{}/messages",
            created["thread"]["id"].as_str().unwrap()
        )
    }

    /// The run that sending `text` to `messages` started.
    async fn say(&self, messages: &str, text: &str) -> String {
        let (status, started) = self.post(messages, json!({"text": text})).await;
        assert_eq!(status, 202, "{started}");
        started["run"]["id"].as_str().unwrap().to_owned()
    }

    /// Stops `run` once its items hold `words`.
    async fn stop_once_it_says(&self, run: &str, words: &str) {
        self.until(run, "streamed", |body| {
            body["view"]["items"].to_string().contains(words)
        })
        .await;
        let (status, body) = self
            .post(&format!("/api/v1/runs/{run}/cancel"), json!({}))
            .await;
        assert_eq!(status, 200, "{body}");
    }

    async fn view(&self, run: &str) -> Value {
        self.get(&format!("/api/v1/runs/{run}")).await
    }

    async fn until(&self, run: &str, what: &str, test: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let body = self.view(run).await;
            if test(&body) {
                return body;
            }
            assert!(Instant::now() < deadline, "run {run} never {what}: {body}");
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    }

    async fn settled(&self, run: &str) -> Value {
        self.until(run, "settled", |body| body["run"]["status"] != "running")
            .await
    }

    /// Waits for the run's first pending ask and returns it.
    async fn pending_ask(&self, run: &str) -> Value {
        let body = self
            .until(run, "asked", |body| {
                body["view"]["asks"]
                    .as_array()
                    .is_some_and(|asks| asks.iter().any(|a| a["state"]["state"] == "pending"))
            })
            .await;
        body["view"]["asks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["state"]["state"] == "pending")
            .unwrap()
            .clone()
    }

    async fn answer(&self, run: &str, ask: &Value, action: &str, data: Value) -> u16 {
        let id = ask["id"].as_str().unwrap();
        let (status, body) = self
            .post(
                &format!("/api/v1/asks/{run}:{id}/receipt"),
                json!({"channel": "tool-result", "receipt": {"toolCallId": id, "component": ask["component"],
                    "action": action, "data": data, "ts": "2026-12-02T20:00:00Z"}}),
            )
            .await;
        assert!(status == 200, "{status}: {body}");
        status
    }
}

fn final_text(body: &Value) -> String {
    body["view"]["final_answer"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn a_plain_turn_streams_through_the_spawned_gateway() {
    let bridge = Bridge::start().await;
    let run = bridge.turn("hello").await;
    let body = bridge.settled(&run).await;
    assert_eq!(body["run"]["status"], "succeeded");
    assert_eq!(final_text(&body), "Hello from the demo gateway.");
    let reasoning = body["view"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["type"] == "reasoning");
    assert!(reasoning);
}

#[tokio::test]
async fn approvals_in_both_forms_reach_the_gateway_once() {
    let bridge = Bridge::start().await;
    for (prompt, action, expected) in [
        ("approve", "once", "Cleaned build/."),
        ("approve", "deny", "Left build/ alone."),
        ("approve new", "session", "Cleaned build/."),
        ("approve new", "deny", "Left build/ alone."),
    ] {
        let run = bridge.turn(prompt).await;
        let ask = bridge.pending_ask(&run).await;
        assert_eq!(ask["kind"], "approval");
        assert_eq!(ask["command"], "rm -rf build/");
        assert!(ask["dangerous"].as_bool().unwrap());
        bridge.answer(&run, &ask, action, json!({})).await;
        let body = bridge.settled(&run).await;
        assert_eq!(final_text(&body), expected, "{prompt} / {action}");
        let (status, _) = bridge
            .post(
                &format!("/api/v1/asks/{run}:{}/receipt", ask["id"].as_str().unwrap()),
                json!({"channel": "tool-result", "receipt": {"toolCallId": ask["id"], "component": "approval_card",
                    "action": "once", "data": {}, "ts": 1_782_487_573_184_i64}}),
            )
            .await;
        assert_eq!(status, 409);
    }
}

#[tokio::test]
async fn clarify_in_both_forms() {
    let bridge = Bridge::start().await;
    let run = bridge.turn("clarify").await;
    let ask = bridge.pending_ask(&run).await;
    assert_eq!(ask["component"], "option_list");
    bridge
        .answer(&run, &ask, "answer", json!({"answer": "green"}))
        .await;
    assert_eq!(final_text(&bridge.settled(&run).await), "You picked green.");

    let run = bridge.turn("clarify new").await;
    let ask = bridge.pending_ask(&run).await;
    assert_eq!(ask["component"], "question_flow");
    assert_eq!(ask["questions"].as_array().unwrap().len(), 2);
    bridge
        .answer(
            &run,
            &ask,
            "answer",
            json!({"answers": {"q1": "dev", "q2": "ship it"}}),
        )
        .await;
    assert_eq!(
        final_text(&bridge.settled(&run).await),
        "Answers: {\"q1\":\"dev\",\"q2\":\"ship it\"}"
    );
}

#[tokio::test]
async fn sudo_and_secret_values_reach_the_gateway_and_nothing_else() {
    let bridge = Bridge::start().await;
    let password = "correct-horse-battery-staple";
    for prompt in ["sudo", "sudo new", "secret new"] {
        let run = bridge.turn(prompt).await;
        let ask = bridge.pending_ask(&run).await;
        let data = if prompt.starts_with("sudo") {
            json!({"password": password})
        } else {
            json!({"value": password})
        };
        let action = if prompt.starts_with("sudo") {
            "submit"
        } else {
            "save"
        };
        bridge.answer(&run, &ask, action, data).await;
        let body = bridge.settled(&run).await;
        assert_eq!(
            final_text(&body),
            "Got it (28 characters, not repeated here).",
            "{prompt}"
        );
        assert!(!body.to_string().contains(password));
    }
    let asks = bridge.get("/api/v1/asks").await;
    assert!(!asks.to_string().contains(password));
}

#[tokio::test]
async fn a_terminal_read_is_answered_with_text() {
    let bridge = Bridge::start().await;
    let run = bridge.turn("terminal").await;
    let ask = bridge.pending_ask(&run).await;
    assert_eq!(ask["kind"], "terminal_read");
    bridge
        .answer(
            &run,
            &ask,
            "answer",
            json!({"answers": {"answer": "$ ls\nsrc"}}),
        )
        .await;
    assert_eq!(
        final_text(&bridge.settled(&run).await),
        "Your terminal shows: $ ls\nsrc"
    );
}

#[tokio::test]
async fn expiry_and_cancellation_close_only_the_matching_ask() {
    let bridge = Bridge::start().await;
    for prompt in ["expire", "expire new"] {
        let run = bridge.turn(prompt).await;
        let body = bridge.settled(&run).await;
        let asks = body["view"]["asks"].as_array().unwrap();
        assert_eq!(asks.len(), 1, "{prompt}");
        assert_eq!(asks[0]["state"]["state"], "expired", "{prompt}");
    }
}

#[tokio::test]
async fn stopping_a_hermes_turn_interrupts_it_and_keeps_the_partial_text() {
    let bridge = Bridge::start().await;
    let run = bridge.turn("slow").await;
    bridge.stop_once_it_says(&run, "word2").await;
    let body = bridge.settled(&run).await;
    assert_eq!(body["run"]["status"], "cancelled");
    assert!(
        body["view"]["items"]
            .to_string()
            .contains("word0 word1 word2")
    );
}

#[tokio::test]
async fn an_inline_diff_from_the_gateway_becomes_an_edit() {
    let bridge = Bridge::start().await;
    let run = bridge.turn("edit").await;
    let body = bridge.settled(&run).await;
    let edit = &body["view"]["edits"][0];
    assert_eq!(edit["filename"], "src/lib.rs");
    assert!(
        edit["patch"]
            .as_str()
            .unwrap()
            .contains("+    println!(\"hello\");")
    );
    assert!(!edit["patch"].as_str().unwrap().contains('\u{1b}'));
}

#[tokio::test]
async fn a_gateway_over_websocket_is_driven_the_same_way() {
    let port = common::free_port();
    let mut gateway = std::process::Command::new(common::BIN)
        .args(["demo-gateway", "--ws", "--port", &port.to_string()])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "the WebSocket gateway did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let dir = tempfile::tempdir().unwrap();
    let target = format!("wsdemo=ws://127.0.0.1:{port}/api/ws");
    let server = TestServer::start_with(&dir.path().join("data"), &["--hermes", &target]).await;
    let bridge = Bridge {
        client: server.client(),
        server,
        _dir: dir,
    };
    let (_, created) = bridge
        .post("/api/v1/threads", json!({"agent": "wsdemo"}))
        .await;
    let thread = created["thread"]["id"].as_str().unwrap().to_owned();
    let (_, started) = bridge
        .post(
            &format!("/api/v1/threads/{thread}/messages"),
            json!({"text": "approve new"}),
        )
        .await;
    let run = started["run"]["id"].as_str().unwrap().to_owned();
    let ask = bridge.pending_ask(&run).await;
    bridge.answer(&run, &ask, "once", json!({})).await;
    assert_eq!(final_text(&bridge.settled(&run).await), "Cleaned build/.");
    let _ = gateway.kill();
    let _ = gateway.wait();
}

#[tokio::test]
async fn a_thread_resumes_its_gateway_session_after_a_restart() {
    let bridge = Bridge::start().await;
    let (_, created) = bridge
        .post("/api/v1/threads", json!({"agent": "demo-hermes"}))
        .await;
    let thread = created["thread"]["id"].as_str().unwrap().to_owned();
    let say = |text: &'static str| {
        let bridge = &bridge;
        let thread = thread.clone();
        async move {
            let (_, started) = bridge
                .post(
                    &format!("/api/v1/threads/{thread}/messages"),
                    json!({"text": text}),
                )
                .await;
            started["run"]["id"].as_str().unwrap().to_owned()
        }
    };
    let first = say("hello").await;
    assert_eq!(
        final_text(&bridge.settled(&first).await),
        "Hello from the demo gateway."
    );
    let Bridge {
        server,
        client,
        _dir,
    } = bridge;
    let server = server.kill_and_restart().await;
    let bridge = Bridge {
        server,
        client,
        _dir,
    };
    let (_, started) = bridge
        .post(
            &format!("/api/v1/threads/{thread}/messages"),
            json!({"text": "hello"}),
        )
        .await;
    let second = started["run"]["id"].as_str().unwrap().to_owned();
    let text = final_text(&bridge.settled(&second).await);
    assert!(
        text.starts_with("Hello again from the demo gateway (session demo_"),
        "{text}"
    );
}

#[tokio::test]
async fn a_run_stopped_while_its_session_opens_sends_no_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let command = format!(
        "slow=AGENT_OS_DEMO_SESSION_DELAY_MS=1500 exec '{}' demo-gateway",
        common::BIN
    );
    let server = TestServer::start_with(&dir.path().join("data"), &["--hermes", &command]).await;
    let bridge = Arc::new(Bridge {
        client: server.client(),
        server,
        _dir: dir,
    });
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
    let dir = tempfile::tempdir().unwrap();
    // The gateway gives up on an approval after 300 ms (and denies it), saying nothing.
    let command = format!(
        "hasty=AGENT_OS_DEMO_ASK_TIMEOUT_MS=300 exec '{}' demo-gateway",
        common::BIN
    );
    let server = TestServer::start_with(&dir.path().join("data"), &["--hermes", &command]).await;
    let bridge = Bridge {
        client: server.client(),
        server,
        _dir: dir,
    };
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
    let dir = tempfile::tempdir().unwrap();
    let server =
        TestServer::start_with(&dir.path().join("data"), &["--agent-idle-timeout", "1"]).await;
    let bridge = Bridge {
        client: server.client(),
        server,
        _dir: dir,
    };
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
    let dir = tempfile::tempdir().unwrap();
    let server =
        TestServer::start_with(&dir.path().join("data"), &["--agent-idle-timeout", "1"]).await;
    let bridge = Bridge {
        client: server.client(),
        server,
        _dir: dir,
    };
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
