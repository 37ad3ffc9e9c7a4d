//! The Hermes bridge end to end: the server spawns the demo gateway, speaks JSON-RPC to
//! it over stdio, and answers its asks in both forms.

#![allow(clippy::unwrap_used)]

mod common;

use std::time::{Duration, Instant};

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
        assert_eq!(final_text(&body), "Got it.", "{prompt}");
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
