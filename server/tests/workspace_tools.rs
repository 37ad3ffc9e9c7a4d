//! The console's workspace tools offered to a real AG-UI agent on a loopback socket and
//! run on the server: reads at once, writes once an operator allows them (never with a
//! result the receipt made up), memory through the review queue, every change attributed
//! to the agent, its run and its approver, each tenant's policy, and bad arguments told
//! to the agent — on SQLite and PostgreSQL.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;
mod common;

use std::sync::{Arc, Mutex};

use common::api::{Api, texts};
use serde_json::{Value, json};

struct Setup {
    api: Api,
    seen: Arc<Mutex<Vec<Value>>>,
}

async fn start(backend: &backends::Backend) -> Setup {
    start_with_env(backend, &[]).await
}

async fn start_with_env(backend: &backends::Backend, env: &[(&str, &str)]) -> Setup {
    let (url, seen) = common::agent::tool_calling().await;
    let agent = format!("scripted={url}");
    let api = Api::start_with_env(&["--db", &backend.url, "--agent", &agent], env).await;
    Setup { api, seen }
}

impl Setup {
    /// A new thread whose agent calls `tool`; the run's id and the thread's.
    async fn call(&self, tool: &str, arguments: Value) -> (String, String) {
        let thread = self.api.thread(Some("scripted")).await;
        let message = json!({"tool": tool, "arguments": arguments}).to_string();
        let run = self.api.say(&thread, &message).await;
        (thread, run)
    }

    /// What the agent was last sent as a tool result.
    fn last_result(&self) -> Value {
        common::agent::last_tool_result(&self.seen)
    }

    async fn notes_titled(&self, title: &str) -> Vec<Value> {
        let (_, list) = self.api.get("/api/v1/notes?limit=200").await;
        list["notes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|note| note["title"] == title)
            .cloned()
            .collect()
    }
}

#[tokio::test]
async fn reads_run_at_once_and_their_results_reach_the_agent() {
    for backend in backends::all().await {
        let name = backend.name;
        let setup = start(&backend).await;
        let api = &setup.api;
        let (_, note) = api
            .post(
                "/api/v1/notes",
                json!({"title": "Deploy runbook", "body": "Deploys happen on Fridays."}),
            )
            .await;
        let note_id = note["id"].as_str().unwrap().to_owned();

        let (thread, run) = setup
            .call("notes_search", json!({"query": "deploying"}))
            .await;
        let resumed = api.nth_run(&thread, 1).await;
        // The agent was offered the workspace tools.
        let first = setup.seen.lock().unwrap()[0].clone();
        let offered: Vec<&str> = first["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|tool| tool["name"].as_str())
            .collect();
        for tool in ["memory", "notes_search", "note_read", "note_write"] {
            assert!(offered.contains(&tool), "{name}: {offered:?}");
        }
        assert_eq!(resumed["run"]["status"], "succeeded", "{name}: {resumed}");
        let found = setup.last_result();
        assert_eq!(found["notes"][0]["id"], note_id.as_str(), "{name}: {found}");
        assert_eq!(found["notes"][0]["title"], "Deploy runbook", "{name}");
        let paused = api.settled(&run).await;
        let answer = &paused["view"]["asks"][0]["state"]["answer"];
        assert_eq!(
            (answer["actor"].as_str(), answer["summary"].as_str()),
            (Some("console"), Some("Ran notes_search")),
            "{name}: {paused}"
        );

        let (thread, _) = setup.call("note_read", json!({"id": note_id})).await;
        api.nth_run(&thread, 1).await;
        assert_eq!(
            setup.last_result()["body"],
            "Deploys happen on Fridays.",
            "{name}"
        );

        // Bad arguments are the agent's to hear about; nothing is run.
        let (thread, _) = setup.call("notes_search", json!({"limit": 3})).await;
        let resumed = api.nth_run(&thread, 1).await;
        assert_eq!(
            setup.last_result()["error"],
            "notes_search: `query` is missing",
            "{name}"
        );
        assert!(texts(&resumed["view"])[0].contains("query"), "{name}");
        // Another tenant's note does not exist for this agent.
        let (thread, _) = setup.call("note_read", json!({"id": "no-such-note"})).await;
        api.nth_run(&thread, 1).await;
        assert!(
            setup.last_result()["error"]
                .as_str()
                .unwrap()
                .contains("does not exist"),
            "{name}"
        );
    }
}

#[tokio::test]
async fn a_note_write_waits_for_an_operator_runs_once_and_is_attributed() {
    for backend in backends::all().await {
        let name = backend.name;
        let setup = start(&backend).await;
        let api = &setup.api;
        let arguments =
            json!({"title": "Release checklist", "body": "1. Tag\n2. Ship", "tags": ["release"]});
        let (thread, run) = setup.call("note_write", arguments.clone()).await;
        let paused = api.settled(&run).await;
        assert_eq!(paused["run"]["status"], "interrupted", "{name}: {paused}");
        assert_eq!(
            paused["view"]["asks"][0]["component"], "frontend_tool",
            "{name}"
        );
        assert!(
            setup.notes_titled("Release checklist").await.is_empty(),
            "{name}: written before it was allowed"
        );

        // Allowed twice at once: it runs once, with the server's result, not the receipt's.
        let ask = paused["view"]["asks"][0]["id"].as_str().unwrap().to_owned();
        let allow = || {
            api.receipt(
                &run,
                &ask,
                "frontend_tool",
                "submit",
                json!({"result": {"forged": true}}),
            )
        };
        let ((first, _), (second, _)) = tokio::join!(allow(), allow());
        let mut statuses = [first, second];
        statuses.sort_unstable();
        assert_eq!(statuses, [200, 409], "{name}");
        let resumed = api.nth_run(&thread, 1).await;
        assert_eq!(resumed["run"]["status"], "succeeded", "{name}");
        let written = setup.notes_titled("Release checklist").await;
        let result = setup.last_result();
        assert_eq!(
            written.len(),
            1,
            "{name}: {written:?}; the agent got {result}"
        );
        assert_eq!(result["written"], written[0]["id"], "{name}: {result}");
        assert!(result.get("forged").is_none(), "{name}");
        let (_, note) = api
            .get(&format!(
                "/api/v1/notes/{}",
                written[0]["id"].as_str().unwrap()
            ))
            .await;
        let author = note["created_by"].as_str().unwrap();
        assert!(
            author.starts_with(&format!(
                "agent scripted (run {run}), approved by {}",
                common::TEST_USER
            )),
            "{name}: {author}"
        );

        // Denied: nothing is written and the agent hears it was declined.
        let (thread, run) = setup
            .call("note_write", json!({"title": "Never written", "body": "x"}))
            .await;
        let paused = api.settled(&run).await;
        let ask = paused["view"]["asks"][0]["id"].as_str().unwrap().to_owned();
        let (status, _) = api
            .receipt(&run, &ask, "frontend_tool", "cancel", Value::Null)
            .await;
        assert_eq!(status, 200, "{name}");
        api.nth_run(&thread, 1).await;
        assert!(
            setup.notes_titled("Never written").await.is_empty(),
            "{name}"
        );
    }
}

#[tokio::test]
async fn an_agents_memory_waits_in_review_and_owners_set_which_tools_run_freely() {
    for backend in backends::all().await {
        let name = backend.name;
        let setup = start(&backend).await;
        let api = &setup.api;
        let (thread, run) = setup
            .call(
                "memory",
                json!({"action": "add", "target": "memory", "content": "The CI has two cores"}),
            )
            .await;
        api.nth_run(&thread, 1).await;
        let queued = setup.last_result();
        let proposal = queued["queued"].as_str().unwrap().to_owned();
        let (_, review) = api.get("/api/v1/memory/review").await;
        let pending = &review["proposals"][0];
        assert_eq!(
            (
                pending["id"].as_str(),
                pending["proposed_by"].as_str(),
                pending["run_id"].as_str()
            ),
            (
                Some(proposal.as_str()),
                Some("agent scripted"),
                Some(run.as_str())
            ),
            "{name}: {review}"
        );
        let (_, memory) = api.get("/api/v1/memory").await;
        assert_eq!(
            memory["entries"].as_array().map(Vec::len),
            Some(0),
            "{name}: remembered before review"
        );
        let (status, _) = api
            .post(
                &format!("/api/v1/memory/review/{proposal}/accept"),
                json!({}),
            )
            .await;
        assert_eq!(status, 200, "{name}");
        let (_, memory) = api.get("/api/v1/memory").await;
        let entry = &memory["entries"][0];
        assert_eq!(entry["text"], "The CI has two cores", "{name}");
        assert!(
            entry["author"].as_str().unwrap().contains("approved by"),
            "{name}: {entry}"
        );

        // Owners choose: note_write runs freely now; operators may not choose.
        let (status, tools) = api.get("/api/v1/tools").await;
        assert_eq!(status, 200, "{name}");
        let policy = |tools: &Value, tool: &str| {
            tools["tools"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["name"] == tool)
                .unwrap()["policy"]
                .clone()
        };
        assert_eq!(policy(&tools, "note_write"), "ask", "{name}");
        assert_eq!(policy(&tools, "notes_search"), "free", "{name}");
        let put = |client: reqwest::Client, path: String, body: Value| async move {
            client
                .put(api.url(&path))
                .json(&body)
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        };
        let operator =
            common::client_with(&api.server.user_with_token("olga", "default", "operator"));
        assert_eq!(
            put(
                operator,
                "/api/v1/tools/note_write".into(),
                json!({"policy": "free"})
            )
            .await,
            403,
            "{name}"
        );
        assert_eq!(
            put(
                api.client.clone(),
                "/api/v1/tools/rm_rf".into(),
                json!({"policy": "free"})
            )
            .await,
            404,
            "{name}"
        );
        assert_eq!(
            put(
                api.client.clone(),
                "/api/v1/tools/note_write".into(),
                json!({"policy": "often"})
            )
            .await,
            400,
            "{name}"
        );
        assert_eq!(
            put(
                api.client.clone(),
                "/api/v1/tools/note_write".into(),
                json!({"policy": "free"})
            )
            .await,
            200,
            "{name}"
        );
        let (thread, run) = setup
            .call(
                "note_write",
                json!({"title": "Written freely", "body": "ok"}),
            )
            .await;
        api.nth_run(&thread, 1).await;
        let written = setup.notes_titled("Written freely").await;
        assert_eq!(written.len(), 1, "{name}");
        assert_eq!(
            written[0]["updated_by"],
            format!("agent scripted (run {run})"),
            "{name}"
        );
        let (_, audit) = api.get("/api/v1/audit").await;
        assert!(audit.to_string().contains("tools.policy"), "{name}");
    }
}

#[tokio::test]
async fn a_denial_sent_while_an_allowed_tool_starts_leaves_the_note_and_the_answer_agreeing() {
    for backend in backends::all().await {
        let name = backend.name;
        // The allowed tool is held just before it runs; the denial arrives meanwhile.
        let pause = common::Pause::at("before-tool");
        let [at, dir] = pause.env();
        let setup =
            start_with_env(&backend, &[(at.0, at.1.as_str()), (dir.0, dir.1.as_str())]).await;
        let api = &setup.api;
        let arguments = json!({"title": "Contested", "body": "written or not"});
        let (_, run) = setup.call("note_write", arguments).await;
        let paused = api.settled(&run).await;
        let ask = paused["view"]["asks"][0]["id"].as_str().unwrap().to_owned();
        let ((allowed, _), (denied, _)) = tokio::join!(
            api.receipt(
                &run,
                &ask,
                "frontend_tool",
                "submit",
                json!({"result": null})
            ),
            async {
                // Sent once the allowed tool is held, released after it went out.
                pause.reached().await;
                let denied = async {
                    api.receipt(&run, &ask, "frontend_tool", "cancel", json!({}))
                        .await
                };
                let release = async {
                    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
                    pause.release();
                };
                tokio::join!(denied, release).0
            },
        );
        // The allow came first and holds; the denial finds the ask answered.
        assert_eq!((allowed, denied), (200, 409), "{name}");
        let (_, shown) = api.get(&format!("/api/v1/asks/{run}:{ask}")).await;
        let answer = &shown["ask"]["ask"]["state"]["answer"];
        assert_eq!(answer["action"], "submit", "{name}: {shown}");
        assert_eq!(setup.notes_titled("Contested").await.len(), 1, "{name}");
    }
}

#[tokio::test]
async fn a_message_sent_before_the_console_runs_a_free_tool_rides_with_its_result() {
    for backend in backends::all().await {
        let name = backend.name;
        // The console is held before it answers the free calls of a run that paused.
        let setup = start_with_env(&backend, &[("AGENT_OS_PAUSE_AT", "before-free-tools")]).await;
        let api = &setup.api;
        api.post(
            "/api/v1/notes",
            json!({"title": "Deploy runbook", "body": "Deploys happen on Fridays."}),
        )
        .await;
        let (thread, run) = setup
            .call("notes_search", json!({"query": "deploying"}))
            .await;
        let paused = api.settled(&run).await;
        assert_eq!(
            paused["view"]["asks"][0]["state"]["state"], "pending",
            "{name}: {paused}"
        );
        let sent = api.say(&thread, "and summarize it").await;
        assert_eq!(sent, format!("{run}.resume"), "{name}");
        let follow_up = api.settled(&sent).await;
        let said = texts(&follow_up["view"]).join(" | ");
        assert!(said.contains("heard: and summarize it"), "{name}: {said}");
        assert!(
            said.contains("Deploy runbook"),
            "{name}: the search ran: {said}"
        );
        let paused = api.settled(&run).await;
        let answer = &paused["view"]["asks"][0]["state"]["answer"];
        assert_eq!(
            (answer["actor"].as_str(), answer["summary"].as_str()),
            (Some("console"), Some("Ran notes_search")),
            "{name}: {paused}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(700)).await;
        assert_eq!(api.runs(&thread).await.len(), 2, "{name}: one follow-up");
    }
}

#[tokio::test]
async fn an_agent_in_a_projects_thread_sees_that_projects_notes_and_unfiled_ones_only() {
    for backend in backends::all().await {
        let name = backend.name;
        let setup = start(&backend).await;
        let api = &setup.api;
        let mut projects = Vec::new();
        for project in ["Alpha", "Beta"] {
            let (status, made) = api.post("/api/v1/projects", json!({"name": project})).await;
            assert_eq!(status, 201, "{name}: {made}");
            projects.push(made["id"].as_str().unwrap().to_owned());
        }
        let mut notes = Vec::new();
        for (title, project) in [
            ("Alpha rollout", Some(&projects[0])),
            ("Beta rollout", Some(&projects[1])),
            ("Shared rollout", None),
        ] {
            let (status, note) = api
                .post(
                    "/api/v1/notes",
                    json!({"title": title, "body": "the rollout plan", "project_id": project}),
                )
                .await;
            assert_eq!(status, 201, "{name}: {note}");
            notes.push(note["id"].as_str().unwrap().to_owned());
        }
        let (status, thread) = api
            .post(
                "/api/v1/threads",
                json!({"agent": "scripted", "project_id": projects[0]}),
            )
            .await;
        assert_eq!(status, 201, "{name}: {thread}");
        let thread = thread["thread"]["id"].as_str().unwrap().to_owned();
        let call = |tool: &str, arguments: Value| {
            json!({"tool": tool, "arguments": arguments}).to_string()
        };

        api.say(&thread, &call("notes_search", json!({"query": "rollout"})))
            .await;
        api.nth_run(&thread, 1).await;
        let found = setup.last_result();
        let mut titles: Vec<&str> = found["notes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|note| note["title"].as_str())
            .collect();
        titles.sort_unstable();
        assert_eq!(
            titles,
            ["Alpha rollout", "Shared rollout"],
            "{name}: {found}"
        );

        api.say(&thread, &call("note_read", json!({"id": notes[1]})))
            .await;
        api.nth_run(&thread, 3).await;
        assert!(
            setup.last_result()["error"]
                .as_str()
                .unwrap()
                .contains("does not exist"),
            "{name}: another project's note was read"
        );
    }
}
