//! Projects on both stores, over the API a client uses: created with a checked name (one
//! per name) and a configured default agent, threads started in them talk to that agent,
//! the project lists its threads, open asks, latest runs and notes; archived projects are
//! listed apart and take no new threads; deleting keeps the threads and notes.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;
mod common;

use common::api::Api;
use serde_json::json;

#[tokio::test]
async fn a_project_groups_its_threads_asks_runs_and_notes_and_gives_threads_its_agent() {
    for backend in backends::all().await {
        let name = backend.name;
        let api = Api::start(&["--db", &backend.url]).await;
        let (status, project) = api
            .post(
                "/api/v1/projects",
                json!({"name": "  Launch ", "description": "Ship **v2**.", "default_agent": "demo"}),
            )
            .await;
        assert_eq!(status, 201, "{name}: {project}");
        assert_eq!(project["name"], "Launch");
        let id = project["id"].as_str().unwrap().to_owned();

        // Checked input: the field is named; a taken name is a conflict.
        let (status, refused) = api
            .post("/api/v1/projects", json!({"name": "Launch"}))
            .await;
        assert_eq!(status, 409, "{refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("name")
        );
        let (status, refused) = api
            .post(
                "/api/v1/projects",
                json!({"name": "Other", "default_agent": "nobody"}),
            )
            .await;
        assert_eq!(status, 400);
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("default_agent"),
            "{refused}"
        );
        let (status, _) = api
            .post("/api/v1/threads", json!({"project_id": "nope"}))
            .await;
        assert_eq!(status, 400);

        // A thread started in the project talks to its default agent.
        let (status, created) = api.post("/api/v1/threads", json!({"project_id": id})).await;
        assert_eq!(status, 201, "{created}");
        assert_eq!(created["agent"], "demo", "{name}: {created}");
        assert_eq!(created["thread"]["project_id"], id.as_str());
        let thread = created["thread"]["id"].as_str().unwrap().to_owned();
        let loose = api.thread(None).await;
        let run = api.say(&thread, "approve").await;
        let key = format!("{run}:approve-budget");
        let mut waiting = false;
        for _ in 0..200 {
            if api.get(&format!("/api/v1/asks/{key}")).await.0 == 200 {
                waiting = true;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        assert!(waiting, "{name}: the ask opened");
        let (_, note) = api
            .post(
                "/api/v1/notes",
                json!({"title": "Checklist", "project_id": id}),
            )
            .await;
        api.post("/api/v1/notes", json!({"title": "Elsewhere"}))
            .await;

        let (status, page) = api.get(&format!("/api/v1/projects/{id}")).await;
        assert_eq!(status, 200, "{page}");
        let threads: Vec<&str> = page["threads"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].as_str().unwrap())
            .collect();
        assert_eq!(
            threads,
            vec![thread.as_str()],
            "{name}: {loose} is not in it"
        );
        assert_eq!(page["open_asks"][0]["key"], key.as_str(), "{page}");
        assert_eq!(page["recent_runs"][0]["run"]["id"], run.as_str());
        let notes: Vec<&str> = page["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["title"].as_str().unwrap())
            .collect();
        assert_eq!(notes, vec!["Checklist"], "{name}");

        // Archived: listed apart, no new threads; restored: back.
        let patch = |body: serde_json::Value| {
            api.client
                .patch(api.url(&format!("/api/v1/projects/{id}")))
                .json(&body)
                .send()
        };
        let archived = patch(json!({"archived": true})).await.unwrap();
        assert_eq!(archived.status(), 200);
        let (_, active) = api.get("/api/v1/projects").await;
        assert!(
            active["projects"].as_array().unwrap().is_empty(),
            "{active}"
        );
        let (_, listed) = api.get("/api/v1/projects?archived=true").await;
        assert_eq!(listed["projects"][0]["id"], id.as_str());
        let (status, refused) = api.post("/api/v1/threads", json!({"project_id": id})).await;
        assert_eq!(status, 409, "{refused}");
        assert_eq!(
            patch(json!({"archived": false, "default_agent": null}))
                .await
                .unwrap()
                .status(),
            200
        );
        let (_, active) = api.get("/api/v1/projects").await;
        assert_eq!(
            active["projects"][0]["default_agent"],
            serde_json::Value::Null,
            "{active}"
        );
        // Searched by name or description, in any case; `%` is a character.
        let name = active["projects"][0]["name"].as_str().unwrap().to_owned();
        let word = name.split_whitespace().next().unwrap().to_uppercase();
        for (q, found) in [(word.as_str(), 1), ("no-such-project", 0), ("%25", 0)] {
            let (_, listed) = api.get(&format!("/api/v1/projects?q={q}")).await;
            assert_eq!(
                listed["projects"].as_array().map(Vec::len),
                Some(found),
                "{q}: {listed}"
            );
        }

        // Deleting keeps what was in it.
        let deleted = api
            .client
            .delete(api.url(&format!("/api/v1/projects/{id}")))
            .send()
            .await
            .unwrap();
        assert_eq!(deleted.status(), 204);
        assert_eq!(api.get(&format!("/api/v1/projects/{id}")).await.0, 404);
        let (status, thread_now) = api.get(&format!("/api/v1/threads/{thread}")).await;
        assert_eq!(status, 200);
        assert_eq!(
            thread_now["thread"]["project_id"],
            serde_json::Value::Null,
            "{thread_now}"
        );
        let (status, note_now) = api
            .get(&format!("/api/v1/notes/{}", note["id"].as_str().unwrap()))
            .await;
        assert_eq!(
            (status, &note_now["project_id"]),
            (200, &serde_json::Value::Null)
        );

        // Another tenant sees none of it.
        let eve = common::client_with(&api.server.user_with_token("eve", "evil", "owner"));
        let (status, project) = api.post("/api/v1/projects", json!({"name": "Mine"})).await;
        assert_eq!(status, 201);
        let other = eve
            .get(api.url(&format!(
                "/api/v1/projects/{}",
                project["id"].as_str().unwrap()
            )))
            .send()
            .await
            .unwrap();
        assert_eq!(other.status(), 404);
    }
}

#[tokio::test]
async fn two_edits_of_one_project_at_once_both_hold() {
    for backend in backends::all().await {
        let name = backend.name;
        let api = Api::start(&["--db", &backend.url]).await;
        for attempt in 0..10 {
            let (status, project) = api
                .post(
                    "/api/v1/projects",
                    json!({"name": format!("Before {attempt}")}),
                )
                .await;
            assert_eq!(status, 201, "{name}: {project}");
            let id = project["id"].as_str().unwrap().to_owned();
            let patch = |body: serde_json::Value| {
                api.client
                    .patch(api.url(&format!("/api/v1/projects/{id}")))
                    .json(&body)
                    .send()
            };
            // One owner renames it while another archives it: neither undoes the other.
            let (renamed, archived) = tokio::join!(
                patch(json!({"name": format!("After {attempt}")})),
                patch(json!({"archived": true})),
            );
            assert_eq!(renamed.unwrap().status(), 200, "{name}");
            assert_eq!(archived.unwrap().status(), 200, "{name}");
            let (_, now) = api.get(&format!("/api/v1/projects/{id}")).await;
            let project = &now["project"];
            assert_eq!(project["name"], format!("After {attempt}"), "{name}: {now}");
            assert!(
                project["archived_at_ms"].is_i64(),
                "{name} #{attempt}: {now}"
            );
        }
    }
}

#[tokio::test]
async fn a_name_asked_for_by_several_creations_at_once_is_given_to_one() {
    for backend in backends::all().await {
        let name = backend.name;
        let api = Api::start(&["--db", &backend.url]).await;
        for attempt in 0..5 {
            let create = || {
                api.post(
                    "/api/v1/projects",
                    json!({"name": format!("Same {attempt}")}),
                )
            };
            let (a, b, c, d) = tokio::join!(create(), create(), create(), create());
            let mut statuses = [a.0, b.0, c.0, d.0];
            statuses.sort_unstable();
            assert_eq!(
                statuses,
                [201, 409, 409, 409],
                "{name}: {a:?} {b:?} {c:?} {d:?}"
            );
            for (status, body) in [a, b, c, d] {
                if status == 409 {
                    assert_eq!(
                        body["error"]["message"],
                        format!("name: there is a project named \"Same {attempt}\" already"),
                        "{name}"
                    );
                }
            }
        }
        let (_, list) = api.get("/api/v1/projects").await;
        assert_eq!(
            list["projects"].as_array().unwrap().len(),
            5,
            "{name}: {list}"
        );
    }
}
