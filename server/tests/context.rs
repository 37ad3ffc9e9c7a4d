//! What a run is given besides the conversation, on both stores: notes and memory pinned
//! to a thread and to its project reach a real AG-UI agent as `RunAgentInput.context`
//! entries, each run keeps which versions it was given, and pins take only the tenant's
//! notes and memory — never a user's own.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;
mod common;

use common::api::Api;
use serde_json::{Value, json};

async fn put(api: &Api, path: &str, body: Value) -> (u16, Value) {
    let response = api
        .client
        .put(api.url(path))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn pinned_notes_reach_the_agent_as_context_and_each_run_keeps_the_versions_it_was_given() {
    for backend in backends::all().await {
        let name = backend.name;
        let (agent_url, seen) = common::agent::recording("Noted.").await;
        let agent = format!("recorder={agent_url}");
        let api = Api::start(&["--db", &backend.url, "--agent", &agent]).await;

        let (_, project) = api
            .post("/api/v1/projects", json!({"name": "Launch"}))
            .await;
        let project = project["id"].as_str().unwrap().to_owned();
        let (_, created) = api
            .post(
                "/api/v1/threads",
                json!({"agent": "recorder", "project_id": project}),
            )
            .await;
        let thread = created["thread"]["id"].as_str().unwrap().to_owned();
        let (_, frame) = api
            .post(
                "/api/v1/notes",
                json!({"title": "Frame", "body": "We ship on Fridays."}),
            )
            .await;
        let (_, runbook) = api
            .post(
                "/api/v1/notes",
                json!({"title": "Runbook", "body": "Deploy with `make ship`."}),
            )
            .await;
        let (frame, runbook) = (
            frame["id"].as_str().unwrap(),
            runbook["id"].as_str().unwrap(),
        );

        let (status, pinned) = put(
            &api,
            &format!("/api/v1/projects/{project}/context"),
            json!({"notes": [frame]}),
        )
        .await;
        assert_eq!(status, 200, "{pinned}");
        let (status, context) = put(
            &api,
            &format!("/api/v1/threads/{thread}/context"),
            json!({"notes": [runbook, frame, runbook]}),
        )
        .await;
        assert_eq!(status, 200, "{context}");
        let ids: Vec<&str> = context["pinned"]["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, vec![runbook, frame], "{name}: each once, in order");
        assert_eq!(context["project"]["pinned"]["notes"][0]["id"], frame);
        let (_, read) = api.get(&format!("/api/v1/threads/{thread}/context")).await;
        assert_eq!(read, context, "{name}");

        // The agent receives the project's note, then the thread's, each once.
        let run = api.say(&thread, "deploy?").await;
        api.settled(&run).await;
        let received = seen.lock().unwrap().last().cloned().unwrap();
        let given = received["context"].as_array().unwrap();
        assert_eq!(given.len(), 2, "{name}: {received}");
        assert_eq!(given[0]["value"], "We ship on Fridays.");
        assert_eq!(given[1]["value"], "Deploy with `make ship`.");
        assert!(
            given[1]["description"]
                .as_str()
                .unwrap()
                .contains("Runbook")
                && given[1]["description"]
                    .as_str()
                    .unwrap()
                    .contains("version 1"),
            "{given:?}"
        );
        let (_, view) = api.get(&format!("/api/v1/runs/{run}")).await;
        let recorded = &view["view"]["given"];
        assert_eq!(recorded[1]["id"], runbook, "{name}: {view}");
        assert_eq!(
            (
                recorded[1]["version"].as_u64(),
                recorded[1]["pinned_by"].as_str()
            ),
            (Some(1), Some("thread"))
        );
        assert_eq!(recorded[0]["pinned_by"], "project");

        // The next run gets the note as edited; the first keeps what it was given.
        let edited = api
            .client
            .patch(api.url(&format!("/api/v1/notes/{runbook}")))
            .json(&json!({"body": "Deploy with `make ship-v2`."}))
            .send()
            .await
            .unwrap();
        assert_eq!(edited.status(), 200);
        let second = api.say(&thread, "and now?").await;
        api.settled(&second).await;
        let received = seen.lock().unwrap().last().cloned().unwrap();
        assert_eq!(
            received["context"][1]["value"], "Deploy with `make ship-v2`.",
            "{name}"
        );
        let (_, view) = api.get(&format!("/api/v1/runs/{second}")).await;
        assert_eq!(view["view"]["given"][1]["version"], 2);
        let (_, view) = api.get(&format!("/api/v1/runs/{run}")).await;
        assert_eq!(
            view["view"]["given"][1]["version"], 1,
            "{name}: kept for replay"
        );

        // Unpinned: the next run is given nothing of the thread's own.
        put(
            &api,
            &format!("/api/v1/threads/{thread}/context"),
            json!({"notes": []}),
        )
        .await;
        let third = api.say(&thread, "bare?").await;
        api.settled(&third).await;
        let received = seen.lock().unwrap().last().cloned().unwrap();
        assert_eq!(
            received["context"].as_array().unwrap().len(),
            1,
            "{name}: only the project's"
        );

        // Only the tenant's notes, and the fields are named.
        let (status, refused) = put(
            &api,
            &format!("/api/v1/threads/{thread}/context"),
            json!({"notes": ["nope"]}),
        )
        .await;
        assert_eq!(status, 400);
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("notes"),
            "{refused}"
        );
        let (status, refused) = put(
            &api,
            &format!("/api/v1/threads/{thread}/context"),
            json!({"memory": ["m1"]}),
        )
        .await;
        assert_eq!(status, 400);
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("memory"),
            "{refused}"
        );
        let (status, _) = put(
            &api,
            &format!("/api/v1/threads/{thread}/context"),
            json!({"note": []}),
        )
        .await;
        assert_eq!(status, 400);
        assert_eq!(
            put(&api, "/api/v1/threads/nope/context", json!({})).await.0,
            404
        );
        let eve = common::client_with(&api.server.user_with_token("eve", "evil", "owner"));
        let (_, evil_thread) = {
            let response = eve
                .post(api.url("/api/v1/threads"))
                .json(&json!({}))
                .send()
                .await
                .unwrap();
            (response.status(), response.json::<Value>().await.unwrap())
        };
        let smuggled = eve
            .put(api.url(&format!(
                "/api/v1/threads/{}/context",
                evil_thread["thread"]["id"].as_str().unwrap()
            )))
            .json(&json!({"notes": [runbook]}))
            .send()
            .await
            .unwrap();
        assert_eq!(
            smuggled.status(),
            400,
            "{name}: another tenant's note cannot be pinned"
        );
    }
}

#[tokio::test]
async fn pinned_memory_reaches_the_agent_and_a_users_own_memory_is_never_pinned() {
    for backend in backends::all().await {
        let name = backend.name;
        let (agent_url, seen) = common::agent::recording("Noted.").await;
        let agent = format!("recorder={agent_url}");
        let api = Api::start(&["--db", &backend.url, "--agent", &agent]).await;
        let thread = api.thread(Some("recorder")).await;
        let remember = |scope: &'static str, text: &'static str| {
            api.post(
                "/api/v1/memory",
                json!({"scope": scope, "operations": [{"action": "add", "content": text}]}),
            )
        };
        let (_, tenant) = remember("tenant", "Deploys happen on Fridays").await;
        let fact = tenant["entries"][0]["id"].as_str().unwrap().to_owned();
        let (_, mine) = remember("user", "I prefer dark mode").await;
        let private = mine["entries"][0]["id"].as_str().unwrap().to_owned();
        let (_, note) = api
            .post("/api/v1/notes", json!({"title": "Runbook", "body": "b"}))
            .await;
        let note = note["id"].as_str().unwrap().to_owned();

        let (status, context) = put(
            &api,
            &format!("/api/v1/threads/{thread}/context"),
            json!({"notes": [note], "memory": [fact, fact]}),
        )
        .await;
        assert_eq!(status, 200, "{name}: {context}");
        assert_eq!(
            context["pinned"]["memory"].as_array().map(Vec::len),
            Some(1),
            "{name}"
        );
        assert_eq!(
            context["pinned"]["memory"][0]["text"], "Deploys happen on Fridays",
            "{name}"
        );
        assert_eq!(context["pinned"]["memory"][0]["scope"], "tenant", "{name}");

        let run = api.say(&thread, "when?").await;
        api.settled(&run).await;
        let received = seen.lock().unwrap().last().cloned().unwrap();
        let given = received["context"].as_array().unwrap();
        assert_eq!(given.len(), 2, "{name}: {received}");
        assert_eq!(given[1]["value"], "Deploys happen on Fridays", "{name}");
        assert_eq!(
            given[1]["description"], "A fact from the tenant's memory",
            "{name}"
        );
        let (_, view) = api.get(&format!("/api/v1/runs/{run}")).await;
        assert_eq!(view["view"]["given"][1]["kind"], "memory", "{name}: {view}");
        assert_eq!(view["view"]["given"][1]["id"], fact.as_str(), "{name}");

        // Pinning notes from the console keeps the memory pinned, and the other way round.
        let (status, _) = common::call_server_fn(
            &api.server,
            "pin_notes",
            &[("thread_id", thread.as_str()), ("note_ids", "")],
        )
        .await;
        assert_eq!(status.as_u16(), 200, "{name}");
        let (_, read) = api.get(&format!("/api/v1/threads/{thread}/context")).await;
        assert_eq!(
            read["pinned"]["notes"].as_array().map(Vec::len),
            Some(0),
            "{name}"
        );
        assert_eq!(read["pinned"]["memory"][0]["id"], fact.as_str(), "{name}");
        let (status, _) = common::call_server_fn(
            &api.server,
            "pin_memory",
            &[("thread_id", thread.as_str()), ("entry_ids", "")],
        )
        .await;
        assert_eq!(status.as_u16(), 200, "{name}");
        let (_, read) = api.get(&format!("/api/v1/threads/{thread}/context")).await;
        assert_eq!(
            read["pinned"]["memory"].as_array().map(Vec::len),
            Some(0),
            "{name}"
        );

        // A user's own memory is refused in the same words as no entry at all.
        for id in [private.as_str(), "no-such-entry"] {
            let (status, refused) = put(
                &api,
                &format!("/api/v1/threads/{thread}/context"),
                json!({"memory": [id]}),
            )
            .await;
            assert_eq!(status, 400, "{name}");
            assert_eq!(
                refused["error"]["message"],
                format!("memory: there is no tenant or project memory entry {id:?}"),
                "{name}"
            );
        }

        // A removed entry is no longer pinned or given.
        put(
            &api,
            &format!("/api/v1/threads/{thread}/context"),
            json!({"memory": [fact]}),
        )
        .await;
        let removed = api
            .client
            .delete(api.url(&format!("/api/v1/memory/{fact}")))
            .send()
            .await
            .unwrap();
        assert_eq!(removed.status(), 204, "{name}");
        let (_, read) = api.get(&format!("/api/v1/threads/{thread}/context")).await;
        assert_eq!(
            read["pinned"]["memory"].as_array().map(Vec::len),
            Some(0),
            "{name}"
        );
    }
}
