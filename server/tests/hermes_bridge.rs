//! The Hermes bridge end to end: the server spawns the demo gateway, speaks JSON-RPC to
//! it over stdio, and answers its asks in both forms.

#![allow(clippy::unwrap_used)]

mod common;

use common::TestServer;
use common::bridge::{Bridge, final_text};
use serde_json::json;

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
        // The gateway denies an approval left 60 s unanswered: the ask says until when.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64;
        let deadline = ask["expires_at_ms"].as_i64().expect("a deadline");
        assert!(
            (now + 50_000..=now + 60_000).contains(&deadline),
            "{deadline} is not about 60 s after {now}"
        );
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
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("journal");
    let log = dir.path().join("server.log");
    let journal_text = journal.display().to_string();
    let bridge = Bridge::start_logging(
        tempfile::tempdir().unwrap(),
        &[("AGENT_OS_DEMO_GATEWAY_JOURNAL", journal_text.as_str())],
        &log,
    )
    .await;
    let password = "correct-horse-battery-staple";
    let mut streams = String::new();
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
        assert_eq!(final_text(&body), "Got it.", "{prompt}");
        assert!(!body.to_string().contains(password));
        streams.push_str(&bridge.events(&run).await);
    }
    // The gateway got exactly the value, each time.
    let digest = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(password.as_bytes()));
    let received = std::fs::read_to_string(&journal).unwrap();
    assert_eq!(received.lines().collect::<Vec<_>>(), [digest.as_str(); 3]);
    // And it is nowhere else: not in what the API answers, the event streams, the
    // server's debug log, or any byte the store wrote.
    let asks = bridge.get("/api/v1/asks").await;
    assert!(!asks.to_string().contains(password));
    assert!(streams.contains("event: end"), "{streams}");
    assert!(
        !streams.contains(password),
        "a password is in an event stream"
    );
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains("DEBUG"),
        "the log was written at debug level"
    );
    assert!(!logged.contains(password), "a password is in the log");
    assert_eq!(
        common::files_holding(&bridge.server.data_dir, password),
        Vec::<String>::new()
    );
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
    let (port, mut gateway) = common::ws_demo_gateway();
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
async fn a_gateway_per_tenant_serves_one_tenant_alone_and_a_shared_one_every_tenant() {
    let command = format!("gw=exec '{}' demo-gateway", common::BIN);
    let bridge = Bridge::start_with(&["--hermes", &command, "--hermes-per-tenant", "gw"]).await;
    let (status, _) = bridge
        .post("/api/v1/tenants", json!({"name": "acme"}))
        .await;
    assert_eq!(status, 201);
    let acme = common::client_with(&common::new_token(
        &bridge.server.data_dir,
        &bridge.server.args,
        common::TEST_USER,
        "acme",
        None,
    ));
    let said_in = |client: reqwest::Client| {
        let bridge = &bridge;
        async move {
            let created = bridge
                .post_as(&client, "/api/v1/threads", json!({"agent": "gw"}))
                .await;
            let thread = created["thread"]["id"].as_str().unwrap();
            let started = bridge
                .post_as(
                    &client,
                    &format!("/api/v1/threads/{thread}/messages"),
                    json!({"text": "whoami"}),
                )
                .await;
            let run = started["run"]["id"].as_str().unwrap().to_owned();
            let done = bridge
                .until_as(&client, &run, "succeeded", |body| {
                    body["run"]["status"] == "succeeded"
                })
                .await;
            final_text(&done)
        }
    };
    assert_eq!(
        said_in(bridge.client.clone()).await,
        "This gateway serves tenant default alone."
    );
    assert_eq!(
        said_in(acme).await,
        "This gateway serves tenant acme alone."
    );
    let environments = bridge.get("/api/v1/agents").await;
    let gw = environments["environments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|environment| environment["agent"] == "gw")
        .unwrap()
        .clone();
    assert_eq!(gw["transport"], "stdio, a process per tenant");

    // The demo gateway the console offers serves every tenant from one process.
    let shared = bridge.turn("whoami").await;
    assert_eq!(
        final_text(&bridge.settled(&shared).await),
        "This gateway serves every tenant."
    );
}

#[tokio::test]
async fn a_message_sent_while_an_ask_waits_stops_the_turn_and_starts_the_next() {
    let bridge = Bridge::start().await;
    let messages = bridge.thread().await;
    let waiting = bridge.say(&messages, "approve").await;
    let ask = bridge.pending_ask(&waiting).await;
    assert_eq!(ask["kind"], "approval");

    // As the gateway's own busy-input policy does: the waiting turn is interrupted (its
    // ask released unanswered) and the message is the next turn.
    let next = bridge.say(&messages, "hello").await;
    assert_ne!(next, waiting);
    let stopped = bridge.settled(&waiting).await;
    assert_eq!(stopped["run"]["status"], "cancelled", "{stopped}");
    assert_ne!(stopped["view"]["asks"][0]["state"]["state"], "pending");
    let answered = bridge.settled(&next).await;
    assert_eq!(answered["run"]["status"], "succeeded", "{answered}");
    assert_eq!(final_text(&answered), "Hello from the demo gateway.");

    // A turn that waits on nothing is not stopped by a message: that is still refused.
    let slow = bridge.say(&messages, "slow").await;
    let (status, refused) = bridge.post(&messages, json!({"text": "hello"})).await;
    assert_eq!(status, 409, "{refused}");
    bridge.stop_once_it_says(&slow, "word2").await;
    assert_eq!(bridge.settled(&slow).await["run"]["status"], "cancelled");
}
