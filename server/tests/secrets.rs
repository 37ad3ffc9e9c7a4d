//! Where a secret may go: to the agent that asked for it, and nowhere else — not the
//! store's files, not the server's log at debug level, not any response or event stream.
//! Each test scans all three for the value.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;
mod common;
#[path = "common/secret_agents.rs"]
mod secret_agents;

use std::path::Path;

use common::TestServer;
use common::api::{Api, texts};
use secret_agents::{everything_served, found_in_files, langgraph_agent, two_ask_agent};
use serde_json::{Value, json};
use sqlx::Connection;

#[tokio::test]
async fn a_secret_answered_to_a_custom_interrupt_reaches_the_agent_and_nothing_else() {
    const SECRET: &str = "acme-key-51f0-never-store-me";
    let (agent_url, seen) = langgraph_agent().await;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let log = dir.path().join("server.log");
    let agent = format!("langgraph={agent_url}");
    let server =
        TestServer::start_logging(&data, &["--agent", &agent, "--no-demo"], &[], &log).await;
    let api = Api {
        client: server.client(),
        server,
        _dir: None,
    };
    let thread = api.thread(Some("langgraph")).await;
    let run = api.say(&thread, "store my key").await;
    let paused = api.settled(&run).await;
    assert_eq!(paused["run"]["status"], "interrupted", "{paused}");
    assert_eq!(paused["view"]["asks"][0]["component"], "secret_prompt");

    let (status, answered) = api
        .receipt(
            &run,
            "key-ask",
            "secret_prompt",
            "save",
            json!({"value": SECRET}),
        )
        .await;
    assert_eq!(status, 200, "{answered}");
    let resumed = api.nth_run(&thread, 1).await;
    assert_eq!(texts(&resumed["view"]), ["Key saved."]);

    // The agent has it, where LangGraph reads a resume value.
    let bodies = seen.lock().unwrap().clone();
    let resume = bodies
        .iter()
        .find(|body| !body["forwardedProps"]["command"]["resume"].is_null())
        .expect("a resume request");
    assert!(
        resume["forwardedProps"].to_string().contains(SECRET),
        "{resume}"
    );

    // Nothing else does.
    assert!(!answered.to_string().contains(SECRET));
    let served = everything_served(&api, &thread).await;
    assert!(!served.contains(SECRET), "a response carries the secret");
    assert!(
        served.contains("redacted"),
        "the stored copy says what was there"
    );
    drop(api);
    assert_eq!(found_in_files(&data, &log, SECRET), Vec::<String>::new());
}

/// Where in a store `needle` is: the SQLite files, or the PostgreSQL tables whose rows
/// hold it as text.
async fn stored_in(backend: &backends::Backend, needle: &str) -> Vec<String> {
    if let Some(path) = backend.url.strip_prefix("sqlite:") {
        return common::files_holding(Path::new(path).parent().unwrap(), needle);
    }
    let mut db = sqlx::PgConnection::connect(&backend.url).await.unwrap();
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public'",
    )
    .fetch_all(&mut db)
    .await
    .unwrap();
    let mut found = Vec::new();
    for table in tables {
        let count: i64 = sqlx::query_scalar(&format!(
            "SELECT count(*) FROM \"{table}\" AS row WHERE row::text LIKE '%' || $1 || '%'"
        ))
        .bind(needle)
        .fetch_one(&mut db)
        .await
        .unwrap();
        if count > 0 {
            found.push(table);
        }
    }
    found
}

#[tokio::test]
async fn a_secret_ask_answered_from_the_passvault_reaches_the_agent_and_nothing_else() {
    const SECRET: &str = "vaulted-acme-key-93e2-never-shown";
    for backend in backends::all().await {
        let name = backend.name;
        let (agent_url, seen) = langgraph_agent().await;
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let log = dir.path().join("server.log");
        let agent = format!("langgraph={agent_url}");
        let args = ["--db", &backend.url, "--agent", &agent, "--no-demo"];
        let server = TestServer::start_logging(&data, &args, &[], &log).await;
        let api = Api {
            client: server.client(),
            server,
            _dir: None,
        };
        let keep = |entry_name: &'static str, env_var: &'static str, value: &'static str| {
            api.post(
                "/api/v1/passvault",
                json!({"name": entry_name, "env_var": env_var, "value": value}),
            )
        };
        let (status, entry) = keep("Acme key", "ACME_KEY", SECRET).await;
        assert_eq!(status, 201, "{name}: {entry}");
        let entry = entry["id"].as_str().unwrap().to_owned();
        let (_, other) = keep("Other key", "OTHER_KEY", "other-value-1").await;
        let other = other["id"].as_str().unwrap().to_owned();

        let thread = api.thread(Some("langgraph")).await;
        let run = api.say(&thread, "store my key").await;
        let paused = api.settled(&run).await;
        assert_eq!(
            paused["view"]["asks"][0]["env_var"], "ACME_KEY",
            "{name}: {paused}"
        );

        // An entry for another variable, or none at all, is refused by name; the ask waits.
        for (id, expected) in [
            (other.as_str(), "OTHER_KEY"),
            ("no-such-entry", "no passvault entry"),
        ] {
            let (status, refused) = api
                .receipt(
                    &run,
                    "key-ask",
                    "secret_prompt",
                    "save",
                    json!({"vaultEntry": id}),
                )
                .await;
            assert_eq!(status, 400, "{name}: {refused}");
            let message = refused.to_string();
            assert!(
                message.contains("vaultEntry") && message.contains(expected),
                "{name}: {message}"
            );
        }
        let (status, answered) = api
            .receipt(
                &run,
                "key-ask",
                "secret_prompt",
                "save",
                json!({"vaultEntry": entry}),
            )
            .await;
        assert_eq!(status, 200, "{name}: {answered}");
        assert_eq!(
            answered["ask"]["ask"]["state"]["answer"]["summary"],
            "Sent from the passvault: Acme key",
            "{name}: {answered}"
        );
        let resumed = api.nth_run(&thread, 1).await;
        assert_eq!(texts(&resumed["view"]), ["Key saved."], "{name}");

        // The agent has the value, where LangGraph reads a resume value.
        let bodies = seen.lock().unwrap().clone();
        let resume = bodies
            .iter()
            .find(|body| !body["forwardedProps"]["command"]["resume"].is_null())
            .expect("a resume request");
        assert!(
            resume["forwardedProps"].to_string().contains(SECRET),
            "{name}: {resume}"
        );

        // The entry says it was used, and by whom.
        let (_, used) = api.get(&format!("/api/v1/passvault/{entry}")).await;
        let by = used["last_used_by"].as_str().unwrap_or_default();
        assert!(by.starts_with(common::TEST_USER), "{name}: {used}");

        // Nothing else has it: no response, the store only sealed, the log not at all.
        let mut served = everything_served(&api, &thread).await;
        served.push_str(&answered.to_string());
        served.push_str(&used.to_string());
        assert!(
            !served.contains(SECRET),
            "{name}: a response carries the secret"
        );
        assert!(
            served.contains("vaultEntry"),
            "{name}: the record names the entry"
        );
        drop(api);
        assert_eq!(
            stored_in(&backend, SECRET).await,
            Vec::<String>::new(),
            "{name}"
        );
        assert_eq!(
            stored_in(&backend, &hex::encode(SECRET)).await,
            Vec::<String>::new(),
            "{name}"
        );
        assert!(
            !stored_in(&backend, "xc20p1.").await.is_empty(),
            "{name}: the sealed value is kept"
        );
        assert_eq!(
            common::files_holding(&data, SECRET),
            Vec::<String>::new(),
            "{name}"
        );
        assert_eq!(
            common::files_holding(&log, SECRET),
            Vec::<String>::new(),
            "{name}"
        );
    }
}

#[tokio::test]
async fn credentials_in_an_agents_address_reach_no_run_response_or_log() {
    let closed = common::free_port();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let log = dir.path().join("server.log");
    let agent = format!("leaky=http://ada:hunter2-pw@127.0.0.1:{closed}/agent?token=query-tok-9");
    let gateway = format!("ws-leaky=ws://bot:ws-pw-4@127.0.0.1:{closed}/api/ws?token=ws-tok-3");
    let command = "cmd-leaky=/nonexistent/hermes-gateway --api-key cmd-key-7";
    let server = TestServer::start_logging(
        &data,
        &[
            "--agent",
            &agent,
            "--hermes",
            &gateway,
            "--hermes",
            command,
            "--no-demo",
        ],
        &[],
        &log,
    )
    .await;
    let api = Api {
        client: server.client(),
        server,
        _dir: None,
    };
    let mut served = String::new();
    for name in ["leaky", "ws-leaky", "cmd-leaky"] {
        let thread = api.thread(Some(name)).await;
        let (status, started) = api
            .post(
                &format!("/api/v1/threads/{thread}/messages"),
                json!({"text": "hello"}),
            )
            .await;
        served.push_str(&started.to_string());
        if status == 202 {
            let run = started["run"]["id"].as_str().unwrap();
            let settled = api.settled(run).await;
            assert_eq!(settled["run"]["status"], "failed", "{settled}");
        } else {
            assert!(status >= 400, "{status}: {started}");
        }
        served.push_str(&everything_served(&api, &thread).await);
    }
    let (_, agents) = api.get("/api/v1/agents").await;
    served.push_str(&agents.to_string());
    // The failures are told, with where the agent is, but without its credentials.
    assert!(served.contains(&format!("127.0.0.1:{closed}")), "{served}");
    drop(api);
    for secret in [
        "hunter2-pw",
        "query-tok-9",
        "ws-pw-4",
        "ws-tok-3",
        "cmd-key-7",
    ] {
        assert!(
            !served.contains(secret),
            "a response carries {secret}: {served}"
        );
        assert_eq!(
            found_in_files(&data, &log, secret),
            Vec::<String>::new(),
            "{secret}"
        );
    }
}

#[tokio::test]
async fn a_spawned_gateway_sees_neither_the_servers_secrets_nor_its_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    let spy = dir.path().display().to_string();
    let command = format!(
        "spy=env > '{spy}/env.txt'; pwd > '{spy}/cwd.txt'; exec '{}' demo-gateway",
        common::BIN
    );
    let server = TestServer::start_with_env(
        &dir.path().join("data"),
        &["--hermes", &command, "--hermes-env", "KEEP_ME"],
        &[
            ("ACME_DATABASE_URL", "postgres://app:env-leak-pw@db/acme"),
            ("KEEP_ME", "passed-on-purpose"),
        ],
    )
    .await;
    let api = Api {
        client: server.client(),
        server,
        _dir: None,
    };
    let thread = api.thread(Some("spy")).await;
    let run = api.say(&thread, "hello").await;
    let settled = api.settled(&run).await;
    assert_eq!(settled["run"]["status"], "succeeded", "{settled}");

    let env = std::fs::read_to_string(dir.path().join("env.txt")).unwrap();
    assert!(!env.contains("env-leak-pw"), "{env}");
    assert!(!env.contains("ACME_DATABASE_URL"), "{env}");
    assert!(env.contains("KEEP_ME=passed-on-purpose"), "{env}");
    assert!(env.lines().any(|line| line.starts_with("PATH=")), "{env}");
    let cwd = std::fs::read_to_string(dir.path().join("cwd.txt")).unwrap();
    let server_cwd = std::env::current_dir().unwrap();
    assert_ne!(
        Path::new(cwd.trim()),
        server_cwd,
        "the gateway runs where the server does"
    );
    let home = std::env::var("HOME").unwrap_or_else(|_| "/".into());
    assert_eq!(
        std::fs::canonicalize(cwd.trim()).unwrap(),
        std::fs::canonicalize(home).unwrap(),
        "the gateway starts in the user's home"
    );
}

#[tokio::test]
async fn a_secret_and_another_answer_sent_at_once_both_reach_the_agent_in_one_resume() {
    const SECRET: &str = "deploy-token-7c1e";
    let (agent_url, inputs) = two_ask_agent().await;
    let agent = format!("deployer={agent_url}");
    // The secret's receipt is held just after its ask closes; the other arrives meanwhile.
    let pause = common::Pause::at("after-close");
    let [at, dir] = pause.env();
    let api = Api::start_with_env(
        &["--agent", &agent, "--no-demo"],
        &[(at.0, at.1.as_str()), (dir.0, dir.1.as_str())],
    )
    .await;
    let thread = api.thread(Some("deployer")).await;
    let run = api.say(&thread, "deploy").await;
    let paused = api.settled(&run).await;
    assert_eq!(
        paused["view"]["asks"].as_array().unwrap().len(),
        2,
        "{paused}"
    );
    let ((secret, answered_secret), (approval, answered_approval)) = tokio::join!(
        api.receipt(
            &run,
            "token",
            "secret_prompt",
            "save",
            json!({"value": SECRET})
        ),
        async {
            // Sent once the secret's answer is held in its window, released after.
            pause.reached().await;
            let answered = async {
                api.receipt(&run, "deploy", "approval_card", "once", json!({}))
                    .await
            };
            let release = async {
                tokio::time::sleep(std::time::Duration::from_millis(300)).await;
                pause.release();
            };
            tokio::join!(answered, release).0
        },
    );
    assert_eq!(
        (secret, approval),
        (200, 200),
        "{answered_secret} {answered_approval}"
    );
    // Neither answer was lost to the other: the secret was not asked for again, and the
    // one resume carries it.
    let (_, ask) = api.get(&format!("/api/v1/asks/{run}:token")).await;
    assert_eq!(ask["ask"]["ask"]["state"]["state"], "resolved", "{ask}");
    api.nth_run(&thread, 1).await;
    let sent: Vec<Value> = inputs
        .lock()
        .unwrap()
        .iter()
        .filter(|input| !input["resume"].is_null())
        .cloned()
        .collect();
    assert_eq!(sent.len(), 1, "one resume: {sent:?}");
    assert!(
        sent[0]["resume"].to_string().contains(SECRET),
        "{}",
        sent[0]["resume"]
    );
}

#[tokio::test]
async fn an_entry_for_one_agent_sent_by_owners_is_offered_and_sent_to_no_one_else() {
    const SECRET: &str = "deploy-key-only-for-langgraph-71c0";
    let (agent_url, seen) = langgraph_agent().await;
    let (other_url, _) = langgraph_agent().await;
    let agents = [
        format!("langgraph={agent_url}"),
        format!("elsewhere={other_url}"),
    ];
    let api = Api::start(&["--agent", &agents[0], "--agent", &agents[1], "--no-demo"]).await;
    let (status, entry) = api
        .post(
            "/api/v1/passvault",
            json!({"name": "Deploy key", "env_var": "ACME_KEY", "value": SECRET,
                   "use_policy": {"agents": ["langgraph"], "sent_by": "owner"}}),
        )
        .await;
    assert_eq!(status, 201, "{entry}");
    assert_eq!(
        entry["use_policy"],
        json!({"agents": ["langgraph"], "sent_by": "owner"})
    );
    let entry = entry["id"].as_str().unwrap().to_owned();
    let operator = common::client_with(&api.server.user_with_token("otto", "default", "operator"));
    let offered = |client: reqwest::Client, run: String| {
        let api = &api;
        async move {
            let response = client
                .post(api.url("/fn/vault_matches"))
                .header("content-type", "application/x-www-form-urlencoded")
                .body(format!("env_var=ACME_KEY&run_id={run}"))
                .send()
                .await
                .unwrap();
            let found: Value = response.json().await.unwrap();
            found
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|entry| entry["name"].as_str().map(str::to_owned))
                .collect::<Vec<_>>()
        }
    };
    let answer = |client: reqwest::Client, run: String| {
        let api = &api;
        let entry = entry.clone();
        async move {
            client
                .post(api.url(&format!("/api/v1/asks/{run}:key-ask/receipt")))
                .json(
                    &json!({"channel": "tool-result", "receipt": {"toolCallId": "key-ask",
                    "component": "secret_prompt", "action": "save", "data": {"vaultEntry": entry},
                    "ts": 1_782_487_573_184_i64}}),
                )
                .send()
                .await
                .unwrap()
        }
    };

    // Another agent's ask is neither offered the entry nor answered from it, by anyone.
    let thread = api.thread(Some("elsewhere")).await;
    let elsewhere = api.say(&thread, "store my key").await;
    api.settled(&elsewhere).await;
    assert!(
        offered(api.client.clone(), elsewhere.clone())
            .await
            .is_empty()
    );
    let refused = answer(api.client.clone(), elsewhere.clone()).await;
    assert_eq!(refused.status(), 403);
    let said = refused.text().await.unwrap();
    assert!(
        said.contains("may be sent to langgraph only, not to elsewhere"),
        "{said}"
    );

    // The agent it is for: an operator is neither offered it nor may send it; an owner is.
    let thread = api.thread(Some("langgraph")).await;
    let run = api.say(&thread, "store my key").await;
    api.settled(&run).await;
    assert!(offered(operator.clone(), run.clone()).await.is_empty());
    let refused = answer(operator, run.clone()).await;
    assert_eq!(refused.status(), 403);
    let said = refused.text().await.unwrap();
    assert!(said.contains("only an owner may send"), "{said}");
    let (_, ask) = api.get(&format!("/api/v1/asks/{run}:key-ask")).await;
    assert_eq!(ask["ask"]["ask"]["state"]["state"], "pending", "{ask}");
    assert!(
        seen.lock()
            .unwrap()
            .iter()
            .all(|input| !input.to_string().contains(SECRET))
    );

    assert_eq!(
        offered(api.client.clone(), run.clone()).await,
        ["Deploy key"]
    );
    let sent = answer(api.client.clone(), run.clone()).await;
    assert_eq!(sent.status(), 200);
    api.nth_run(&thread, 1).await;
    assert!(
        seen.lock()
            .unwrap()
            .iter()
            .any(|input| input.to_string().contains(SECRET)),
        "the agent it is for got the value"
    );
}

#[tokio::test]
async fn stopping_one_run_keeps_the_secret_held_for_another() {
    const SECRET: &str = "deploy-token-held-4f2a";
    let (agent_url, inputs) = two_ask_agent().await;
    let agent = format!("deployer={agent_url}");
    let api = Api::start(&["--agent", &agent]).await;
    let thread = api.thread(Some("deployer")).await;
    let run = api.say(&thread, "deploy").await;
    api.settled(&run).await;
    // Held in memory only, until the run's other ask is answered.
    let (status, body) = api
        .receipt(
            &run,
            "token",
            "secret_prompt",
            "save",
            json!({"value": SECRET}),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    let busy = api.thread(Some("demo")).await;
    let streaming = api.say(&busy, "long 100 30").await;
    let (stopped, body) = api
        .post(&format!("/api/v1/runs/{streaming}/cancel"), json!({}))
        .await;
    assert_eq!(stopped, 200, "{body}");

    let (status, body) = api
        .receipt(&run, "deploy", "approval_card", "once", json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    let resumed = api.nth_run(&thread, 1).await;
    assert_eq!(resumed["run"]["status"], "succeeded", "{resumed}");
    let sent = inputs.lock().unwrap().clone();
    let resume = sent
        .iter()
        .find(|input| !input["resume"].is_null())
        .expect("a resume");
    assert!(
        resume["resume"].to_string().contains(SECRET),
        "the secret held for this run went with it: {resume}"
    );
}
