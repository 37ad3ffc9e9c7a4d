//! Answers reach the agent exactly once across crashes: the server is stopped at a crash
//! point between closing an ask and delivering its answer, or between sending a resume
//! and storing its first event, and started again. The agent is a separate demo-agent
//! process that outlives the console and counts every resume it receives.

#![allow(clippy::unwrap_used)]

mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::api::Api;
use common::{BIN, TestServer, free_port};
use serde_json::{Value, json};

/// `agent-os demo-agent` on its own port, killed when dropped.
struct Agent {
    child: Child,
    base: String,
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Agent {
    async fn start() -> Agent {
        let port = free_port();
        let child = Command::new(BIN)
            .args(["demo-agent", "--port", &port.to_string()])
            .env("AGENT_OS_DEMO_DELAY_MS", "0")
            .env("AGENT_OS_DEMO_KEY", common::DEMO_KEY)
            .env("RUST_LOG", "error")
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let agent = Agent {
            child,
            base: format!("http://127.0.0.1:{port}"),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while reqwest::Client::new()
            .get(format!("{}/health", agent.base))
            .bearer_auth(common::DEMO_KEY)
            .send()
            .await
            .is_err()
        {
            assert!(Instant::now() < deadline, "the demo agent did not start");
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        agent
    }

    /// Every resume the agent received.
    async fn resumes(&self) -> Vec<Value> {
        reqwest::Client::new()
            .get(format!("{}/resumes", self.base))
            .bearer_auth(common::DEMO_KEY)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }
}

/// A console whose one agent is `agent`, stopping at `crash_at`.
async fn console(agent: &Agent, crash_at: &str) -> Api {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("ext={}/agent,api_key_env=AGENT_OS_DEMO_KEY", agent.base);
    let server = TestServer::start_with_env(
        &dir.path().join("data"),
        &["--agent", &url, "--no-demo"],
        &[("AGENT_OS_CRASH_AT", crash_at)],
    )
    .await;
    Api {
        client: server.client(),
        server,
        _dir: Some(dir),
    }
}

/// Posts a receipt to a server that stops while handling it, before it answers.
async fn answer_and_crash(api: &Api, key: &str, receipt: Value) {
    let sent = answer(api, key, receipt).await;
    assert!(
        sent.is_err() || !sent.unwrap().status().is_success(),
        "the server was to stop at its crash point"
    );
}

async fn answer(api: &Api, key: &str, receipt: Value) -> reqwest::Result<reqwest::Response> {
    api.client
        .post(api.url(&format!("/api/v1/asks/{key}/receipt")))
        .json(&json!({"channel": "tool-result", "receipt": receipt}))
        .timeout(Duration::from_secs(20))
        .send()
        .await
}

async fn restart(api: Api) -> Api {
    api.restarted(TestServer::restart_after_exit).await
}

/// Waits until `check` holds for the thread's runs.
async fn until_runs(api: &Api, thread: &str, what: &str, check: impl Fn(&[Value]) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let runs = api.runs(thread).await;
        if check(&runs) {
            return;
        }
        assert!(Instant::now() < deadline, "{what}: {runs:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn clarify_receipt() -> Value {
    json!({"toolCallId": "clarify-free", "component": "question_flow", "action": "answer",
           "data": {"answers": {"answer": "water the plants"}}, "ts": 1_782_487_573_184_i64})
}

#[tokio::test]
async fn an_answer_accepted_just_before_a_crash_is_delivered_once_after_the_restart() {
    let agent = Agent::start().await;
    let api = console(&agent, "after-close").await;
    let thread = api.thread(Some("ext")).await;
    let paused = api.say(&thread, "clarify free").await;
    assert_eq!(api.settled(&paused).await["run"]["status"], "interrupted");
    answer_and_crash(&api, &format!("{paused}:clarify-free"), clarify_receipt()).await;
    assert!(
        agent.resumes().await.is_empty(),
        "nothing was delivered before the crash"
    );

    let api = restart(api).await;
    until_runs(&api, &thread, "the resume after the restart", |runs| {
        runs.len() == 2 && runs[1]["status"] == "succeeded"
    })
    .await;
    let resumes = agent.resumes().await;
    assert_eq!(resumes.len(), 1, "{resumes:?}");
    assert_eq!(resumes[0]["interrupts"][0]["interruptId"], "clarify-free");
    let (_, ask) = api
        .get(&format!("/api/v1/asks/{paused}:clarify-free"))
        .await;
    assert_eq!(ask["ask"]["ask"]["state"]["state"], "resolved", "{ask}");
    // A second restart finds nothing left to deliver.
    let api = Api {
        server: api.server.kill_and_restart().await,
        ..api
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(agent.resumes().await.len(), 1);
    assert_eq!(api.runs(&thread).await.len(), 2);
}

#[tokio::test]
async fn a_crash_after_the_resume_was_sent_does_not_send_it_again() {
    let agent = Agent::start().await;
    let api = console(&agent, "after-resume-sent").await;
    let thread = api.thread(Some("ext")).await;
    let paused = api.say(&thread, "clarify free").await;
    api.settled(&paused).await;
    // The resume is sent after the receipt's answer, so the crash may come after it too.
    let _ = answer(&api, &format!("{paused}:clarify-free"), clarify_receipt()).await;

    let api = restart(api).await;
    until_runs(
        &api,
        &thread,
        "the resume run ended by the restart",
        |runs| runs.len() == 2 && runs[1]["status"] != "running",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        agent.resumes().await.len(),
        1,
        "the agent got the answer once"
    );
    assert_eq!(api.runs(&thread).await.len(), 2, "no second resume run");
}

#[tokio::test]
async fn a_password_lost_in_a_crash_is_asked_for_again_and_never_sent_empty() {
    let agent = Agent::start().await;
    let api = console(&agent, "after-close").await;
    let thread = api.thread(Some("ext")).await;
    let paused = api.say(&thread, "sudo").await;
    api.settled(&paused).await;
    let key = format!("{paused}:sudo-restart");
    let receipt = |password: &str| {
        json!({"toolCallId": "sudo-restart", "component": "sudo_prompt", "action": "submit",
               "data": {"password": password}, "ts": 1_782_487_573_184_i64})
    };
    answer_and_crash(&api, &key, receipt("hunter2")).await;

    let api = restart(api).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, ask) = api.get(&format!("/api/v1/asks/{key}")).await;
        if ask["ask"]["ask"]["state"]["state"] == "pending" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the ask was not opened again: {ask}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (_, run) = api.get(&format!("/api/v1/runs/{paused}")).await;
    assert!(
        run.to_string().contains("must be entered again"),
        "the run says why: {run}"
    );
    assert!(
        run.to_string().contains("(the password for "),
        "and that it was a password: {run}"
    );
    assert!(agent.resumes().await.is_empty(), "nothing was sent for it");

    let (status, _) = api
        .post(
            &format!("/api/v1/asks/{key}/receipt"),
            json!({"channel": "tool-result", "receipt": receipt("hunter2")}),
        )
        .await;
    assert_eq!(status, 200);
    until_runs(&api, &thread, "the resume with the password", |runs| {
        runs.len() == 2
    })
    .await;
    let resumes = agent.resumes().await;
    assert_eq!(resumes.len(), 1, "{resumes:?}");
    assert_eq!(resumes[0]["interrupts"][0]["secret"], "given");
}

#[tokio::test]
async fn a_paused_run_claimed_by_a_message_when_the_server_stopped_is_not_stuck_after_it() {
    let agent = Agent::start().await;
    let api = console(&agent, "after-message-claim").await;
    let thread = api.thread(None).await;
    let run = api.say(&thread, "approve").await;
    assert_eq!(api.settled(&run).await["run"]["status"], "interrupted");
    // The message claims the paused run, and the server stops right there.
    let sent = api
        .client
        .post(api.url(&format!("/api/v1/threads/{thread}/messages")))
        .json(&json!({"text": "what about the budget?"}))
        .timeout(Duration::from_secs(20))
        .send()
        .await;
    assert!(
        sent.is_err() || !sent.unwrap().status().is_success(),
        "the server was to stop at its crash point"
    );
    let api = restart(api).await;

    // Claimed with no follow-up: the next message takes the claim over, once.
    let follow_up = api.say(&thread, "what about the budget?").await;
    assert_eq!(follow_up, format!("{run}.resume"));
    let shown = api.settled(&follow_up).await;
    assert_eq!(shown["run"]["status"], "succeeded", "{shown}");
    let resumes = agent.resumes().await;
    assert_eq!(resumes.len(), 1, "{resumes:?}");
    let statuses: Vec<&str> = resumes[0]["interrupts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["cancelled", "cancelled"]);
    assert_eq!(api.runs(&thread).await.len(), 2);
}
