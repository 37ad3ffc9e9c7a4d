//! The passvault over the API on both stores: owners keep entries whose values go in once
//! and never come back in a listing, a read or an edit; operators and viewers only read
//! and search the list, other tenants nothing; bad input is refused naming the field; a reveal
//! needs the password again, is throttled, and is audited whether it works or not.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;
mod common;
#[path = "common/secret_agents.rs"]
mod secret_agents;

use common::api::Api;
use common::{TEST_PASSWORD, client_with};
use serde_json::{Value, json};

const SECRET: &str = "vault-value-7d1c-never-listed";

async fn send(
    client: &reqwest::Client,
    api: &Api,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value, reqwest::header::HeaderMap) {
    let mut request = client.request(method, api.url(path));
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (
        status,
        response.json().await.unwrap_or(Value::Null),
        headers,
    )
}

async fn keep(api: &Api, name: &str, env_var: &str, value: &str) -> String {
    let (status, created) = api
        .post(
            "/api/v1/passvault",
            json!({"name": name, "env_var": env_var, "value": value,
                   "description": "for the deploy agent", "metadata": {"owner": "ops"}}),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    assert!(created.get("value").is_none(), "{created}");
    created["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn owners_keep_entries_whose_values_never_come_back_and_others_read_at_most_names() {
    for backend in backends::all().await {
        let name = backend.name;
        let api = Api::start(&["--db", &backend.url]).await;
        let id = keep(&api, "Acme API key", "ACME_KEY", SECRET).await;
        let mut served = String::new();

        let (status, list) = api.get("/api/v1/passvault").await;
        assert_eq!(status, 200, "{name}: {list}");
        assert_eq!(list["entries"][0]["name"], "Acme API key", "{name}");
        assert_eq!(list["entries"][0]["metadata"]["owner"], "ops", "{name}");
        assert!(list["entries"][0]["last_used_at_ms"].is_null(), "{name}");
        served.push_str(&list.to_string());
        for (q, found) in [
            ("acme%20api", 1),
            ("DEPLOY", 1),
            ("acme_key", 1),
            ("%25", 0),
        ] {
            // By name, description or variable, in any case; `%` and `_` are characters.
            let (_, list) = api.get(&format!("/api/v1/passvault?q={q}")).await;
            assert_eq!(
                list["entries"].as_array().map(Vec::len),
                Some(found),
                "{name}: {q}"
            );
        }
        let (status, only) = api.get("/api/v1/passvault?env_var=OTHER_KEY").await;
        assert_eq!(
            (status, only["entries"].as_array().map(Vec::len)),
            (200, Some(0)),
            "{name}"
        );
        let (status, one) = api.get(&format!("/api/v1/passvault/{id}")).await;
        assert_eq!(
            (status, one["env_var"].as_str()),
            (200, Some("ACME_KEY")),
            "{name}"
        );
        served.push_str(&one.to_string());

        // An edit may replace the value, unseen; the answer carries none.
        let path = format!("/api/v1/passvault/{id}");
        let patch =
            |body: Value| send(&api.client, &api, reqwest::Method::PATCH, &path, Some(body));
        let (status, edited, _) =
            patch(json!({"name": "Acme key", "value": "rotated-value-31"})).await;
        assert_eq!(
            (status, edited["name"].as_str()),
            (200, Some("Acme key")),
            "{name}: {edited}"
        );
        assert!(!edited.to_string().contains("rotated-value-31"), "{name}");
        served.push_str(&edited.to_string());

        // Bad input, named.
        for (body, field, code) in [
            (
                json!({"name": "x", "env_var": "1BAD", "value": "v"}),
                "env_var",
                400,
            ),
            (
                json!({"name": "x", "env_var": "OK", "value": ""}),
                "value",
                400,
            ),
            (json!({"name": "x", "env_var": "OK"}), "value", 400),
            (
                json!({"name": "x", "env_var": "OK", "value": "v", "valeu": 1}),
                "valeu",
                400,
            ),
            (
                json!({"name": "Acme key", "env_var": "OK", "value": "v"}),
                "name",
                409,
            ),
        ] {
            let (status, refused) = api.post("/api/v1/passvault", body.clone()).await;
            assert_eq!(status, code, "{name}: {body} → {refused}");
            assert!(refused.to_string().contains(field), "{name}: {refused}");
        }
        let (status, _, _) = patch(json!({"metadata": {"k": "v\u{0007}"}})).await;
        assert_eq!(status, 400, "{name}");
        let (status, _) = api.get("/api/v1/passvault/no-such-entry").await;
        assert_eq!(status, 404, "{name}");

        // Operators and viewers read names only; another tenant's owner nothing.
        let operator = client_with(&api.server.user_with_token("olga", "default", "operator"));
        let viewer = client_with(&api.server.user_with_token("vic", "default", "viewer"));
        let stranger = client_with(&api.server.user_with_token("sam", "elsewhere", "owner"));
        let (status, list, _) = send(
            &operator,
            &api,
            reqwest::Method::GET,
            "/api/v1/passvault",
            None,
        )
        .await;
        assert_eq!(status, 200, "{name}");
        served.push_str(&list.to_string());
        for (client, method, path, body, code) in [
            (
                &operator,
                reqwest::Method::POST,
                "/api/v1/passvault".to_owned(),
                Some(json!({"name": "o", "env_var": "O", "value": "v"})),
                403,
            ),
            (
                &operator,
                reqwest::Method::DELETE,
                format!("/api/v1/passvault/{id}"),
                None,
                403,
            ),
            (
                &operator,
                reqwest::Method::POST,
                format!("/api/v1/passvault/{id}/reveal"),
                Some(json!({"password": TEST_PASSWORD})),
                403,
            ),
            (
                &viewer,
                reqwest::Method::GET,
                "/api/v1/passvault".to_owned(),
                None,
                200,
            ),
            (
                &viewer,
                reqwest::Method::GET,
                format!("/api/v1/passvault/{id}"),
                None,
                200,
            ),
            (
                &viewer,
                reqwest::Method::PATCH,
                format!("/api/v1/passvault/{id}"),
                Some(json!({"name": "viewed"})),
                403,
            ),
            (
                &stranger,
                reqwest::Method::GET,
                format!("/api/v1/passvault/{id}"),
                None,
                404,
            ),
            (
                &stranger,
                reqwest::Method::DELETE,
                format!("/api/v1/passvault/{id}"),
                None,
                404,
            ),
        ] {
            let (status, body, _) = send(client, &api, method.clone(), &path, body).await;
            assert_eq!(status, code, "{name}: {method} {path} → {body}");
        }
        let (status, list, _) = send(
            &stranger,
            &api,
            reqwest::Method::GET,
            "/api/v1/passvault",
            None,
        )
        .await;
        assert_eq!(
            (status, list["entries"].as_array().map(Vec::len)),
            (200, Some(0)),
            "{name}"
        );

        assert!(
            !served.contains(SECRET) && !served.contains("rotated-value-31"),
            "{name}"
        );
        let (status, _, _) = send(
            &api.client,
            &api,
            reqwest::Method::DELETE,
            &format!("/api/v1/passvault/{id}"),
            None,
        )
        .await;
        assert_eq!(status, 204, "{name}");
        let (status, _) = api.get(&format!("/api/v1/passvault/{id}")).await;
        assert_eq!(status, 404, "{name}");
    }
}

#[tokio::test]
async fn a_reveal_needs_the_password_again_is_throttled_and_audited() {
    let api = Api::start(&[]).await;
    let id = keep(&api, "Deploy token", "DEPLOY_TOKEN", SECRET).await;
    let path = format!("/api/v1/passvault/{id}/reveal");
    let reveal = |password: &'static str| {
        send(
            &api.client,
            &api,
            reqwest::Method::POST,
            &path,
            Some(json!({ "password": password })),
        )
    };
    let (status, refused, _) = reveal("not-my-password").await;
    assert_eq!(status, 403, "{refused}");
    assert!(!refused.to_string().contains(SECRET));
    let (status, shown, headers) = reveal(TEST_PASSWORD).await;
    assert_eq!(status, 200, "{shown}");
    assert_eq!(shown["value"], SECRET);
    assert_eq!(shown["name"], "Deploy token");
    assert_eq!(headers.get("cache-control").unwrap(), "no-store");
    let (status, missing, _) = send(
        &api.client,
        &api,
        reqwest::Method::POST,
        "/api/v1/passvault/no-such/reveal",
        Some(json!({ "password": TEST_PASSWORD })),
    )
    .await;
    assert_eq!(status, 404, "{missing}");

    let (_, audit) = api.get("/api/v1/audit").await;
    let actions: Vec<(&str, &str)> = audit["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry["action"].as_str().unwrap(),
                entry["target"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(
        actions.contains(&("passvault.reveal", &*format!("passvault/{id}/reveal"))),
        "{actions:?}"
    );
    assert!(
        actions.contains(&("passvault.reveal_refused", &*format!("passvault/{id}"))),
        "{actions:?}"
    );
    assert!(!audit.to_string().contains(SECRET) && !audit.to_string().contains("not-my-password"));

    // Past the limit of wrong passwords, even the right one waits.
    for _ in 0..5 {
        reveal("still-wrong").await;
    }
    let (status, blocked, _) = reveal(TEST_PASSWORD).await;
    assert_eq!(status, 429, "{blocked}");
    assert!(
        blocked.to_string().contains("try again") || blocked.to_string().contains("reveal again")
    );
}

#[tokio::test]
async fn two_edits_of_one_entry_at_once_both_hold() {
    for backend in backends::all().await {
        let name = backend.name;
        let api = Api::start(&["--db", &backend.url]).await;
        for attempt in 0..10 {
            let id = keep(&api, &format!("Key {attempt}"), "ACME_KEY", SECRET).await;
            let path = format!("/api/v1/passvault/{id}");
            let edit =
                |body: Value| send(&api.client, &api, reqwest::Method::PATCH, &path, Some(body));
            // One owner renames it while another describes it: neither undoes the other.
            let ((renamed, ..), (described, ..)) = tokio::join!(
                edit(json!({"name": format!("Renamed {attempt}")})),
                edit(json!({"description": "rotated monthly"})),
            );
            assert_eq!((renamed, described), (200, 200), "{name}");
            let (_, entry) = api.get(&path).await;
            assert_eq!(
                entry["name"],
                format!("Renamed {attempt}"),
                "{name}: {entry}"
            );
            assert_eq!(
                entry["description"], "rotated monthly",
                "{name} #{attempt}: {entry}"
            );
        }
    }
}

#[tokio::test]
async fn a_name_asked_for_by_several_new_entries_at_once_is_given_to_one() {
    for backend in backends::all().await {
        let name = backend.name;
        let api = Api::start(&["--db", &backend.url]).await;
        for attempt in 0..5 {
            let create = || {
                api.post(
                    "/api/v1/passvault",
                    json!({"name": format!("Key {attempt}"), "env_var": "ACME_KEY", "value": SECRET}),
                )
            };
            let (a, b, c, d) = tokio::join!(create(), create(), create(), create());
            let mut statuses = [a.0, b.0, c.0, d.0];
            statuses.sort_unstable();
            // The losers are told the name is taken, not that the store failed.
            assert_eq!(
                statuses,
                [201, 409, 409, 409],
                "{name}: {a:?} {b:?} {c:?} {d:?}"
            );
        }
        let (_, list) = api.get("/api/v1/passvault").await;
        assert_eq!(
            list["entries"].as_array().unwrap().len(),
            5,
            "{name}: {list}"
        );
    }
}

#[tokio::test]
async fn a_sudo_ask_answered_from_the_passvault_sends_its_sudo_password_entry() {
    const PASSWORD: &str = "vaulted-sudo-6b1d-never-shown";
    let (agent_url, seen) = common::agent::scripted(|input| {
        let mut events = vec![common::agent::of_run(input, json!({"type": "RUN_STARTED"}))];
        if input["forwardedProps"]["command"]["resume"].is_null() {
            let interrupt = json!({
                "id": "sudo-ask",
                "reason": "sudo",
                "message": "Password to install the package",
                "metadata": {"command": "apt-get install -y jq"},
            });
            events.push(
                json!({"type": "CUSTOM", "name": "on_interrupt", "value": interrupt.to_string()}),
            );
        } else {
            events.extend(common::agent::said("m1", "Installed."));
        }
        events.push(common::agent::of_run(
            input,
            json!({"type": "RUN_FINISHED"}),
        ));
        events
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let log = dir.path().join("server.log");
    let agent = format!("langgraph={agent_url}");
    let server =
        common::TestServer::start_logging(&data, &["--agent", &agent, "--no-demo"], &[], &log)
            .await;
    let api = Api {
        client: server.client(),
        server,
        _dir: None,
    };
    let (status, entry) = api
        .post(
            "/api/v1/passvault",
            json!({"name": "Build box sudo", "env_var": "SUDO_PASSWORD", "value": PASSWORD}),
        )
        .await;
    assert_eq!(status, 201, "{entry}");
    let entry = entry["id"].as_str().unwrap().to_owned();
    let thread = api.thread(Some("langgraph")).await;
    let run = api.say(&thread, "install jq").await;
    let paused = api.settled(&run).await;
    assert_eq!(
        paused["view"]["asks"][0]["component"], "sudo_prompt",
        "{paused}"
    );

    let (status, answered) = api
        .receipt(
            &run,
            "sudo-ask",
            "sudo_prompt",
            "submit",
            json!({"vaultEntry": entry}),
        )
        .await;
    assert_eq!(status, 200, "{answered}");
    let resumed = api.nth_run(&thread, 1).await;
    assert_eq!(common::api::texts(&resumed["view"]), ["Installed."]);
    let bodies = seen.lock().unwrap().clone();
    let resume = bodies
        .iter()
        .find(|body| !body["forwardedProps"]["command"]["resume"].is_null())
        .expect("a resume request");
    assert!(
        resume["forwardedProps"].to_string().contains(PASSWORD),
        "the agent gets the entry's password: {resume}"
    );
    let served = secret_agents::everything_served(&api, &thread).await;
    assert!(!served.contains(PASSWORD));
    drop(api);
    assert_eq!(
        secret_agents::found_in_files(&data, &log, PASSWORD),
        Vec::<String>::new()
    );
}
