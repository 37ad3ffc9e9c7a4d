//! Who gets what, route by route: every REST route, server function, live stream, page and
//! form of a real `agent-os serve`, probed as nobody, as the owner of another tenant (by
//! session and by token), as a viewer, an operator and an owner. Nobody is let in, nothing
//! leaks across tenants, and nothing changes for someone not allowed to change it.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;
#[path = "access/background_probes.rs"]
mod background_probes;
mod common;
#[path = "access/objects.rs"]
mod objects;
#[path = "access/probes.rs"]
mod probes;

use app::model::Role;
use common::api::Api;
use common::client_with;
use objects::{board, curated_change, paused_schedule, remembered, secret};
use probes::{Body, Probe, RECEIPT, probes};
use reqwest::{Client, Method};
use serde_json::{Value, json};

/// Who probes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Persona {
    Nobody,
    OtherTenantSession,
    OtherTenantToken,
    Viewer,
    Operator,
    Owner,
}

fn is_page(probe: &Probe) -> bool {
    probe.method == Method::GET && !probe.path.starts_with("/api/")
}

/// The status `persona` must get, or `None` where the call is allowed (any success, or
/// 409 when the object's state forbids it — but never 401, 403 or 404).
fn expected(persona: Persona, probe: &Probe) -> Option<u16> {
    let role = match persona {
        Persona::Nobody => return Some(if is_page(probe) { 303 } else { 401 }),
        Persona::OtherTenantSession | Persona::OtherTenantToken => {
            return probe.names_object.then_some(404);
        }
        Persona::Viewer => Role::Viewer,
        Persona::Operator => Role::Operator,
        Persona::Owner => Role::Owner,
    };
    (!role.allows(probe.needs)).then_some(403)
}

struct Objects {
    thread: String,
    run: String,
    key: String,
    /// A spare token of the tenant's, for its owners to revoke.
    token: String,
    note: String,
    memory: String,
    /// A memory change proposed for review.
    proposal: String,
    secret: String,
    /// Objects for each persona to delete, one of each by REST and one by server function.
    doomed: std::collections::HashMap<String, Doomed>,
    project: String,
    schedule: String,
    /// The job of a fire of `schedule`.
    job: String,
    /// A curator pass, and a change made on its proposal.
    pass: String,
    change: String,
    /// A board and a card on it.
    board: String,
    card: String,
}

struct Doomed {
    notes: (String, String),
    projects: (String, String),
    secrets: (String, String),
    memory: (String, String),
    schedules: (String, String),
    board: String,
}

impl Objects {
    /// The ids of this tenant's probed objects, each named.
    fn ids(&self) -> [(&'static str, &str); 14] {
        [
            ("thread", &self.thread),
            ("run", &self.run),
            ("ask", &self.key),
            ("note", &self.note),
            ("memory entry", &self.memory),
            ("proposal", &self.proposal),
            ("passvault entry", &self.secret),
            ("project", &self.project),
            ("schedule", &self.schedule),
            ("job", &self.job),
            ("curator pass", &self.pass),
            ("curator change", &self.change),
            ("board", &self.board),
            ("card", &self.card),
        ]
    }
}

fn fill(text: &str, objects: &Objects, persona: Persona) -> String {
    let own = &objects.doomed[&format!("{persona:?}")];
    text.replace("{T}", &objects.thread)
        .replace("{N}", &objects.note)
        .replace("{D}", &own.notes.0)
        .replace("{E}", &own.notes.1)
        .replace("{Q}", &own.projects.0)
        .replace("{W}", &own.projects.1)
        .replace("{Y}", &own.secrets.0)
        .replace("{Z}", &own.secrets.1)
        .replace("{G}", &own.memory.0)
        .replace("{H}", &own.memory.1)
        .replace("{O}", &own.schedules.0)
        .replace("{U}", &own.schedules.1)
        .replace("{S}", &objects.schedule)
        .replace("{B}", &objects.job)
        .replace("{A}", &objects.pass)
        .replace("{BD}", &own.board)
        .replace("{F}", &objects.board)
        .replace("{I}", &objects.card)
        .replace("{C}", &objects.change)
        .replace("{L}", &objects.proposal)
        .replace(
            "{TENANT}",
            match persona {
                Persona::OtherTenantSession | Persona::OtherTenantToken => "evil",
                _ => "default",
            },
        )
        .replace("{V}", &objects.secret)
        .replace("{J}", &objects.project)
        .replace("{M}", &objects.memory)
        .replace("{R}", &objects.run)
        .replace("{K}", &objects.key)
        .replace("{X}", &objects.token)
        .replace("{P}", &format!("{persona:?}").to_lowercase())
        .replace("{RECEIPT}", &common::urlencode(RECEIPT))
}

async fn call(
    client: &Client,
    api: &Api,
    probe: &Probe,
    objects: &Objects,
    persona: Persona,
) -> (u16, String) {
    let url = api.url(&fill(probe.path, objects, persona));
    let request = client.request(probe.method.clone(), url);
    let request = match probe.body {
        Body::None => request,
        Body::Json(body) => request
            .header("content-type", "application/json")
            .body(fill(body, objects, persona)),
        Body::Form(body) => request
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept", "application/json")
            .body(fill(body, objects, persona)),
    };
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    // A live stream stays open: its status is what counts.
    let body = if probe.path.ends_with("/events") {
        String::new()
    } else {
        response.text().await.unwrap_or_default()
    };
    (status, body)
}

/// A client that never follows redirects (a page's 303 is what is checked), signed in
/// by session cookie when given one.
fn client_with_cookie(cookie: Option<&str>) -> Client {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(cookie) = cookie {
        headers.insert("cookie", cookie.parse().unwrap());
    }
    Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .default_headers(headers)
        .build()
        .unwrap()
}

/// What a change by someone not allowed would have touched.
async fn state(api: &Api, objects: &Objects) -> Value {
    let (_, thread) = api
        .get(&format!("/api/v1/threads/{}", objects.thread))
        .await;
    let (_, run) = api.get(&format!("/api/v1/runs/{}", objects.run)).await;
    let (_, ask) = api.get(&format!("/api/v1/asks/{}", objects.key)).await;
    let (_, threads) = api.get("/api/v1/threads").await;
    let (_, tenants) = api.get("/api/v1/tenants").await;
    let (_, members) = common::call_server_fn(&api.server, "members", &[]).await;
    let (_, notes) = api.get("/api/v1/notes?limit=200").await;
    let (_, note) = api.get(&format!("/api/v1/notes/{}", objects.note)).await;
    let (_, projects) = api.get("/api/v1/projects?limit=200").await;
    let (_, memory) = api.get("/api/v1/memory").await;
    let (_, memory_settings) = api.get("/api/v1/memory/settings").await;
    let (_, review) = api.get("/api/v1/memory/review").await;
    let (_, pins) = api
        .get(&format!("/api/v1/threads/{}/context", objects.thread))
        .await;
    let (_, project) = api
        .get(&format!("/api/v1/projects/{}", objects.project))
        .await;
    let (_, tokens) = common::call_server_fn(&api.server, "tokens", &[]).await;
    let (_, passvault) = api.get("/api/v1/passvault?limit=200").await;
    let (_, tools) = api.get("/api/v1/tools").await;
    let (_, boards) = api.get("/api/v1/boards").await;
    let (_, board) = api.get(&format!("/api/v1/boards/{}", objects.board)).await;
    let (_, card) = api.get(&format!("/api/v1/cards/{}", objects.card)).await;
    json!({
        "boards": boards,
        "board": board,
        "card": card,
        "tools": tools,
        "passvault": passvault,
        "members": members,
        "tokens": tokens,
        "title": thread["thread"]["title"],
        "runs": thread["runs"].as_array().map(Vec::len),
        "run_status": run["run"]["status"],
        "ask": ask["ask"]["ask"]["state"],
        "threads": threads["threads"].as_array().map(Vec::len),
        "tenants": tenants["tenants"],
        "notes": notes["notes"].as_array().map(Vec::len),
        "note": [&note["title"], &note["version"]],
        "projects": projects["projects"].as_array().map(Vec::len),
        "pins": pins,
        "memory": memory["entries"],
        "memory_settings": memory_settings,
        "review": review,
        "project": [&project["project"], project["threads"].as_array().map(Vec::len)],
    })
}

#[tokio::test]
async fn every_route_answers_each_persona_as_its_role_and_tenant_allow() {
    for backend in backends::all().await {
        let api = Api::start(&["--db", &backend.url]).await;
        probe_every_route(&api).await;
    }
}

async fn probe_every_route(api: &Api) {
    let thread = api.thread(None).await;
    let run = api.say(&thread, "approve").await;
    let key = format!("{run}:approve-budget");
    for _ in 0..200 {
        if api.get(&format!("/api/v1/asks/{key}")).await.0 == 200 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    let spare = common::new_token(
        &api.server.data_dir,
        &api.server.args,
        common::TEST_USER,
        "default",
        None,
    );
    let token = spare.split('_').nth(1).unwrap().to_owned();
    let mut doomed = std::collections::HashMap::new();
    for persona in [
        Persona::Nobody,
        Persona::OtherTenantSession,
        Persona::OtherTenantToken,
        Persona::Viewer,
        Persona::Operator,
        Persona::Owner,
    ] {
        let (_, project) = api
            .post(
                "/api/v1/projects",
                json!({ "name": format!("doomed {persona:?}") }),
            )
            .await;
        let (_, other) = api
            .post(
                "/api/v1/projects",
                json!({ "name": format!("doomed too {persona:?}") }),
            )
            .await;
        let own = Doomed {
            notes: (api.note("doomed").await, api.note("doomed too").await),
            projects: (
                project["id"].as_str().unwrap().to_owned(),
                other["id"].as_str().unwrap().to_owned(),
            ),
            secrets: (
                secret(api, &format!("doomed {persona:?}")).await,
                secret(api, &format!("doomed too {persona:?}")).await,
            ),
            memory: (
                remembered(api, &format!("doomed {persona:?}")).await,
                remembered(api, &format!("doomed too {persona:?}")).await,
            ),
            schedules: (paused_schedule(api).await, paused_schedule(api).await),
            board: board(api, &format!("doomed {persona:?}")).await,
        };
        doomed.insert(format!("{persona:?}"), own);
    }
    let schedule = paused_schedule(api).await;
    let (_, fired) = api
        .post(&format!("/api/v1/schedules/{schedule}/run"), json!({}))
        .await;
    let job = fired["fires"][0]["job_id"].as_str().unwrap().to_owned();
    let (pass, change) = curated_change(api).await;
    let probed_board = board(api, "probed").await;
    let (status, card) = api
        .post(
            &format!("/api/v1/boards/{probed_board}/cards"),
            json!({"title": "probed card"}),
        )
        .await;
    assert_eq!(status, 201, "{card}");
    let objects = Objects {
        board: probed_board,
        card: card["id"].as_str().unwrap().to_owned(),
        pass,
        change,
        schedule,
        job,
        thread,
        run,
        key,
        token,
        note: api.note("probed").await,
        secret: secret(api, "probed").await,
        doomed,
        memory: remembered(api, "probed fact").await,
        proposal: api
            .post(
                "/api/v1/memory/proposals",
                json!({"scope": "tenant", "operations": [{"action": "add", "content": "a proposed fact"}],
                       "proposed_by": "the probe"}),
            )
            .await
            .1["proposal"]["id"]
            .as_str()
            .unwrap()
            .to_owned(),
        project: api
            .post("/api/v1/projects", json!({ "name": "probed" }))
            .await
            .1["id"]
            .as_str()
            .unwrap()
            .to_owned(),
    };

    let eve_token = api.server.user_with_token("eve", "evil", "owner");
    let viewer_token = api.server.user_with_token("vic", "default", "viewer");
    common::add_user(
        &api.server.data_dir,
        &api.server.args,
        "otto",
        "default",
        "operator",
    );
    let eve_cookie = common::session_cookie(&api.server, "eve").await;
    let otto_cookie = common::session_cookie(&api.server, "otto").await;
    let personas = [
        (Persona::Nobody, client_with_cookie(None)),
        (
            Persona::OtherTenantSession,
            client_with_cookie(Some(&eve_cookie)),
        ),
        (Persona::OtherTenantToken, client_with(&eve_token)),
        (Persona::Viewer, client_with(&viewer_token)),
        (Persona::Operator, client_with_cookie(Some(&otto_cookie))),
        (Persona::Owner, api.server.client()),
    ];

    let before = state(api, &objects).await;
    assert_eq!(before["ask"]["state"], "pending", "{before}");
    let mut wrong = Vec::new();
    for (persona, client) in &personas {
        for probe in probes() {
            // Ending a session's sessions is probed with a session of its own each time,
            // so the second such probe is not refused for the first one's doing.
            let fresh = match (persona, probe.path.contains("logout")) {
                (Persona::OtherTenantSession, true) => Some(client_with_cookie(Some(
                    &common::session_cookie(&api.server, "eve").await,
                ))),
                (Persona::Operator, true) => Some(client_with_cookie(Some(
                    &common::session_cookie(&api.server, "otto").await,
                ))),
                _ => None,
            };
            let client = fresh.as_ref().unwrap_or(client);
            let (status, body) = call(client, api, &probe, &objects, *persona).await;
            let fine = match expected(*persona, &probe) {
                Some(wanted) => status == wanted,
                None => !matches!(status, 401 | 403 | 404) && status < 500,
            };
            if !fine {
                wrong.push(format!(
                    "{persona:?} {} {} -> {status} (expected {:?}): {}",
                    probe.method,
                    probe.path,
                    expected(*persona, &probe),
                    body.chars().take(160).collect::<String>()
                ));
            }
            // Whatever another tenant is answered names none of this tenant's objects:
            // a list is of its own tenant, never filtered after the fact.
            if matches!(
                persona,
                Persona::OtherTenantSession | Persona::OtherTenantToken
            ) && status < 300
                && !probe.names_object
            {
                for (what, id) in objects.ids() {
                    if body.contains(id) {
                        wrong.push(format!(
                            "{persona:?} {} {} was answered this tenant's {what} {id}",
                            probe.method, probe.path
                        ));
                    }
                }
            }
            // A server function's client reads a refusal as the function's own error.
            if probe.path.starts_with("/fn/") && matches!(status, 401 | 403) {
                let kind = serde_json::from_str::<Value>(&body)
                    .ok()
                    .map(|body| body["kind"].clone());
                let wanted = if status == 401 {
                    "unauthorized"
                } else {
                    "forbidden"
                };
                if kind != Some(json!(wanted)) {
                    wrong.push(format!("{persona:?} {}: refused as {body}", probe.path));
                }
            }
            // Those not allowed to change the tenant's objects changed nothing.
            if matches!(
                persona,
                Persona::Nobody
                    | Persona::OtherTenantSession
                    | Persona::OtherTenantToken
                    | Persona::Viewer
            ) {
                let now = state(api, &objects).await;
                if now != before {
                    wrong.push(format!(
                        "{persona:?} {} {} changed {before} to {now}",
                        probe.method, probe.path
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let after = state(api, &objects).await;
    assert_ne!(
        after["ask"]["state"], "pending",
        "the operator's answer landed: {after}"
    );
}

#[tokio::test]
async fn a_token_cannot_name_a_tenant_its_user_is_not_in_and_a_page_never_leaks_another_tenants_thread()
 {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let eve = client_with(&api.server.user_with_token("eve", "evil", "owner"));
    let named = eve
        .get(api.url("/api/v1/threads"))
        .header("x-agent-os-tenant", "default")
        .send()
        .await
        .unwrap();
    assert_eq!(named.status(), 403);
    let page = eve
        .get(api.url(&format!("/threads/{thread}")))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 404);
    let html = page.text().await.unwrap();
    assert!(!html.contains("Thread 1"), "the title leaked: {html}");

    // A page a role may not open says so as a page, with a way back.
    let viewer = client_with(&api.server.user_with_token("vic", "default", "viewer"));
    let members = viewer.get(api.url("/members")).send().await.unwrap();
    assert_eq!(members.status(), 403);
    assert!(
        members.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let html = members.text().await.unwrap();
    assert!(
        html.contains("your role in &quot;default&quot; is viewer; this needs owner")
            && html.contains("href=\"/\""),
        "{html}"
    );
}

#[tokio::test]
async fn an_open_live_stream_ends_once_its_token_is_revoked() {
    use futures_util::StreamExt;
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    // A run waiting for an answer: its stream stays open.
    let run = api.say(&thread, "approve").await;
    let viewer_token = api.server.user_with_token("vic", "default", "viewer");
    let response = client_with(&viewer_token)
        .get(api.url(&format!("/api/v1/runs/{run}/events")))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut stream = response.bytes_stream();
    assert!(
        stream.next().await.is_some(),
        "the stream sends its backlog"
    );

    let id = viewer_token.split('_').nth(1).unwrap();
    let revoked = common::accounts_command(
        &api.server.data_dir,
        &api.server.args,
        &["token", "revoke", id],
    );
    assert!(revoked.status.success());
    let ended = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        while let Some(chunk) = stream.next().await {
            if chunk.is_err() {
                break;
            }
        }
    })
    .await;
    assert!(
        ended.is_ok(),
        "the stream went on after its token was revoked"
    );
    // The ask still waits for someone allowed to answer it.
    let (_, ask) = api.get(&format!("/api/v1/asks/{run}:approve-budget")).await;
    assert_eq!(ask["ask"]["ask"]["state"]["state"], "pending", "{ask}");
}
