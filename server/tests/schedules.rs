//! Schedules over the API a client uses, against real servers on both stores: a schedule
//! fires at its time as a real run in a real thread, once per instant — across a restart
//! in the middle and with two servers on one PostgreSQL; bad schedules are refused naming
//! the field; pause, resume, run now and delete; the jobs behind the fires listed and
//! retried by filter.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;
mod common;

use std::collections::HashSet;
use std::time::Duration;

use common::TestServer;
use common::api::Api;
use common::events::Stream;
use serde_json::{Value, json};

/// Short clocks, set the way an operator sets them.
const QUICK: &[&str] = &[
    "--schedule-shortest",
    "1",
    "--schedule-grace",
    "10",
    "--job-poll",
    "0.5",
    "--job-lease",
    "3",
];

fn with_db(url: &str) -> Vec<&str> {
    let mut args = vec!["--db", url];
    args.extend_from_slice(QUICK);
    args
}

fn every(name: &str, seconds: u32) -> Value {
    json!({
        "name": name,
        "agent": "demo",
        "prompt": "hello",
        "when": {"kind": "every", "interval": format!("every {seconds}s")},
        "timezone": "Europe/Berlin",
        "overlap": "allow",
    })
}

async fn patch(api: &Api, path: &str, body: Value) -> (u16, Value) {
    let response = api
        .client
        .patch(api.url(path))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// The schedule's fires once `enough` holds of them (or after 40 s).
async fn fires_when(api: &Api, id: &str, enough: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let mut fires = Vec::new();
    for _ in 0..400 {
        let (status, detail) = api.get(&format!("/api/v1/schedules/{id}")).await;
        assert_eq!(status, 200, "{detail}");
        fires = detail["fires"].as_array().unwrap().clone();
        if enough(&fires) {
            return fires;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the fires never got there: {fires:#?}");
}

fn completed(fires: &[Value]) -> usize {
    fires
        .iter()
        .filter(|fire| fire["outcome"] == "completed")
        .count()
}

#[tokio::test]
async fn a_schedule_fires_on_time_as_a_real_run_in_a_new_thread() {
    for backend in backends::all().await {
        let name = backend.name;
        let api = Api::start(&with_db(&backend.url)).await;
        let (status, schedule) = api
            .post("/api/v1/schedules", every("Standup digest", 2))
            .await;
        assert_eq!(status, 201, "{name}: {schedule}");
        let id = schedule["id"].as_str().unwrap().to_owned();
        assert_eq!(schedule["created_by"], "user:tester");
        let fires = fires_when(&api, &id, |fires| completed(fires) >= 2).await;
        let fire = fires
            .iter()
            .find(|fire| fire["outcome"] == "completed")
            .unwrap();
        let late = fire["fired_at_ms"].as_i64().unwrap() - fire["slot_ms"].as_i64().unwrap();
        assert!(late < 2_000, "{name}: fired {late} ms late");
        let thread = fire["thread_id"].as_str().unwrap();
        let (status, page) = api.get(&format!("/api/v1/threads/{thread}")).await;
        assert_eq!(status, 200, "{page}");
        assert!(
            page["thread"]["title"]
                .as_str()
                .unwrap()
                .starts_with("Standup digest · "),
            "{name}: {}",
            page["thread"]["title"]
        );
        let run = &page["runs"][0];
        assert_eq!(run["id"], fire["run_id"]);
        assert_eq!(run["status"], "succeeded", "{name}: {run}");
        each_instant_once(&fires);

        // The jobs behind the fires, each run once, and their creator.
        let (status, jobs) = api
            .get("/api/v1/jobs?kind=schedule.fire&state=completed")
            .await;
        assert_eq!(status, 200, "{jobs}");
        let listed = jobs["jobs"].as_array().unwrap();
        assert!(listed.len() >= 2, "{name}: {jobs}");
        assert!(listed.iter().all(|job| job["attempts"] == 1));
        assert_eq!(listed[0]["created_by"], format!("schedule:{id}"));
        let job = listed[0]["id"].as_str().unwrap();
        let (status, detail) = api.get(&format!("/api/v1/jobs/{job}")).await;
        assert_eq!(status, 200);
        assert_eq!(detail["attempts"][0]["outcome"], "completed");
        assert!(
            detail["log"][0]["message"]
                .as_str()
                .unwrap()
                .starts_with("started run")
        );

        // Paused, it stops firing; the next 10 times are listed only while it runs.
        let (status, paused) = patch(
            &api,
            &format!("/api/v1/schedules/{id}"),
            json!({"pause": "holiday"}),
        )
        .await;
        assert_eq!(status, 200, "{paused}");
        assert_eq!(paused["paused_reason"], "holiday");
        tokio::time::sleep(Duration::from_millis(500)).await;
        let (_, before) = api.get(&format!("/api/v1/schedules/{id}")).await;
        assert!(before["next"].as_array().unwrap().is_empty());
        tokio::time::sleep(Duration::from_secs(4)).await;
        let (_, after) = api.get(&format!("/api/v1/schedules/{id}")).await;
        assert_eq!(
            before["fires"], after["fires"],
            "{name}: a paused schedule fired"
        );
        let (status, resumed) = patch(
            &api,
            &format!("/api/v1/schedules/{id}"),
            json!({"resume": true}),
        )
        .await;
        assert_eq!(status, 200, "{resumed}");
        let (_, detail) = api.get(&format!("/api/v1/schedules/{id}")).await;
        let next = detail["next"].as_array().unwrap();
        assert_eq!(next.len(), 10);
        assert!(
            next[0]["local"].as_str().unwrap().ends_with("CET"),
            "{next:?}"
        );

        // Run now, then delete.
        let (status, ran) = api
            .post(&format!("/api/v1/schedules/{id}/run"), json!({}))
            .await;
        assert_eq!(status, 202, "{ran}");
        assert_eq!(ran["fires"][0]["manual"], true);
        let response = api
            .client
            .delete(api.url(&format!("/api/v1/schedules/{id}")))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 204);
        let (status, _) = api.get(&format!("/api/v1/schedules/{id}")).await;
        assert_eq!(status, 404);
    }
}

#[tokio::test]
async fn bad_schedules_are_refused_naming_the_field() {
    let api = Api::start(QUICK).await;
    let cases = [
        (json!({"timezone": "Mars/Olympus"}), "timezone"),
        (
            json!({"when": {"kind": "cron", "expression": "61 * * * *"}}),
            "when.expression",
        ),
        (
            json!({"when": {"kind": "every", "interval": "every tuesday"}}),
            "when.interval",
        ),
        (json!({"agent": "nobody"}), "agent"),
        (json!({"name": "   "}), "name"),
        (json!({"project_id": "nope"}), "project_id"),
    ];
    for (change, field) in cases {
        let mut body = every("Refused", 60);
        for (key, value) in change.as_object().unwrap() {
            body[key] = value.clone();
        }
        let (status, refused) = api.post("/api/v1/schedules", body).await;
        assert_eq!(status, 400, "{field}: {refused}");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.starts_with(field), "{field}: {message}");
    }
    let (status, _) = api.get("/api/v1/schedules/sch-none").await;
    assert_eq!(status, 404);
    let (status, again) = api
        .post("/api/v1/schedules", json!({"name": "x", "agent": "demo", "prompt": "p", "when": {"kind": "every", "interval": "every 1m"}, "timezone": "UTC", "surprise": 1}))
        .await;
    assert_eq!(status, 400, "{again}");
}

#[tokio::test]
async fn a_schedules_project_is_changed_and_its_next_fire_runs_in_a_thread_of_the_new_project() {
    let api = Api::start(QUICK).await;
    let (_, project) = api
        .post("/api/v1/projects", json!({"name": "Moved here"}))
        .await;
    let project = project["id"].as_str().unwrap().to_owned();
    let mut body = every("Moving", 3600);
    body["target"] = json!("one_thread");
    body["paused_reason"] = json!("fired by hand");
    let (status, schedule) = api.post("/api/v1/schedules", body).await;
    assert_eq!(status, 201, "{schedule}");
    let id = schedule["id"].as_str().unwrap().to_owned();
    // The project each fire's thread is in, after `count` fires completed.
    let fire_thread_project = |count: usize| {
        let (api, id) = (&api, id.clone());
        async move {
            let (status, _) = api
                .post(&format!("/api/v1/schedules/{id}/run"), json!({}))
                .await;
            assert_eq!(status, 202);
            let fires = fires_when(api, &id, |fires| completed(fires) >= count).await;
            let thread = fires[0]["thread_id"].as_str().unwrap().to_owned();
            let (_, read) = api.get(&format!("/api/v1/threads/{thread}")).await;
            (thread, read["thread"]["project_id"].clone())
        }
    };
    let (first, none) = fire_thread_project(1).await;
    assert_eq!(none, Value::Null);
    let (status, moved) = patch(
        &api,
        &format!("/api/v1/schedules/{id}"),
        json!({"project_id": project}),
    )
    .await;
    assert_eq!(status, 200, "{moved}");
    assert_eq!(moved["project_id"], project.as_str());
    let (second, into) = fire_thread_project(2).await;
    assert_ne!(second, first, "a thread of the new project");
    assert_eq!(into, project.as_str());
    let (status, refused) = patch(
        &api,
        &format!("/api/v1/schedules/{id}"),
        json!({"project_id": "nope"}),
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("project_id"),
        "{refused}"
    );
    let (status, cleared) = patch(
        &api,
        &format!("/api/v1/schedules/{id}"),
        json!({"project_id": ""}),
    )
    .await;
    assert_eq!(status, 200);
    assert!(
        cleared.get("project_id").is_none() || cleared["project_id"].is_null(),
        "{cleared}"
    );
}

#[tokio::test]
async fn a_schedule_made_twice_with_one_key_is_one_schedule() {
    let api = Api::start(QUICK).await;
    let mut body = every("Weekly review", 3600);
    body["idempotency_key"] = json!("proposal-42");
    let (status, first) = api.post("/api/v1/schedules", body.clone()).await;
    assert_eq!(status, 201, "{first}");
    let (status, again) = api.post("/api/v1/schedules", body).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(first["id"], again["id"]);
    let (_, list) = api.get("/api/v1/schedules").await;
    assert_eq!(list["schedules"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn a_schedule_keeps_firing_once_per_instant_across_a_restart() {
    let api = Api::start(QUICK).await;
    let (_, schedule) = api
        .post("/api/v1/schedules", every("Across a restart", 2))
        .await;
    let id = schedule["id"].as_str().unwrap().to_owned();
    fires_when(&api, &id, |fires| completed(fires) >= 1).await;
    let api = api.restarted(TestServer::kill_and_restart).await;
    let fires = fires_when(&api, &id, |fires| completed(fires) >= 3).await;
    each_instant_once(&fires);
}

/// Every fire has an instant of its own and a run of its own.
fn each_instant_once(fires: &[Value]) {
    let slots: HashSet<i64> = fires
        .iter()
        .map(|fire| fire["slot_ms"].as_i64().unwrap())
        .collect();
    assert_eq!(
        slots.len(),
        fires.len(),
        "an instant fired twice: {fires:#?}"
    );
    let runs: Vec<&str> = fires
        .iter()
        .filter_map(|fire| fire["run_id"].as_str())
        .collect();
    let distinct: HashSet<&&str> = runs.iter().collect();
    assert_eq!(distinct.len(), runs.len(), "a fire ran twice: {fires:#?}");
}

#[tokio::test]
async fn two_servers_on_one_postgresql_fire_each_instant_once() {
    let Some(backend) = backends::postgres().await else {
        return;
    };
    let first = Api::start(&with_db(&backend.url)).await;
    let second_dir = tempfile::tempdir().unwrap();
    let second =
        TestServer::start_with(&second_dir.path().join("data"), &with_db(&backend.url)).await;
    let (status, schedule) = first
        .post("/api/v1/schedules", every("Two servers", 1))
        .await;
    assert_eq!(status, 201, "{schedule}");
    let id = schedule["id"].as_str().unwrap().to_owned();
    let fires = fires_when(&first, &id, |fires| completed(fires) >= 6).await;
    each_instant_once(&fires);
    let (_, jobs) = first.get("/api/v1/jobs?kind=schedule.fire").await;
    let jobs = jobs["jobs"].as_array().unwrap();
    assert!(
        jobs.iter().all(|job| job["attempts"] == 1),
        "a job was claimed twice: {jobs:#?}"
    );
    drop(second);
}

#[tokio::test]
async fn a_fire_that_cannot_start_fails_in_words_and_does_not_hold_up_the_next() {
    let api = Api::start(QUICK).await;
    let (_, project) = api
        .post("/api/v1/projects", json!({"name": "Shelved"}))
        .await;
    let project = project["id"].as_str().unwrap().to_owned();
    let response = api
        .client
        .patch(api.url(&format!("/api/v1/projects/{project}")))
        .json(&json!({"archived": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let mut body = every("Into an archived project", 1);
    body["project_id"] = json!(project);
    body["overlap"] = json!("skip");
    let (status, schedule) = api.post("/api/v1/schedules", body).await;
    assert_eq!(status, 201, "{schedule}");
    let id = schedule["id"].as_str().unwrap().to_owned();
    let failed = |fires: &[Value]| {
        fires
            .iter()
            .filter(|fire| fire["outcome"] == "failed")
            .count()
    };
    let fires = fires_when(&api, &id, |fires| failed(fires) >= 3).await;
    assert!(
        fires.iter().all(|fire| fire["outcome"] != "skipped"),
        "a failed fire held up the next: {fires:#?}"
    );
    let error = fires
        .iter()
        .find(|fire| fire["outcome"] == "failed")
        .unwrap()["error"]
        .as_str()
        .unwrap();
    assert!(error.contains("no thread could be made"), "{error}");
    let (_, detail) = api.get(&format!("/api/v1/schedules/{id}")).await;
    assert!(
        detail["schedule"]["last_error"]
            .as_str()
            .unwrap()
            .contains("archived"),
        "{detail}"
    );
}

#[tokio::test]
async fn every_open_page_hears_a_schedule_and_its_jobs_change_on_the_tenant_stream() {
    for backend in backends::all().await {
        let name = backend.name;
        let api = Api::start(&with_db(&backend.url)).await;
        let (_, inbox) = api.get("/api/v1/inbox").await;
        let cursor = inbox["cursor"].as_u64().unwrap();
        let mut stream = Stream::open(
            &api.client,
            api.url(&format!("/api/v1/inbox/events?after={cursor}")),
            None,
        )
        .await;
        let (status, schedule) = api.post("/api/v1/schedules", every("Heard", 1)).await;
        assert_eq!(status, 201, "{name}: {schedule}");
        let id = schedule["id"].as_str().unwrap().to_owned();
        let about = |change: &str| {
            let id = id.clone();
            let change = change.to_owned();
            move |message: &common::events::Message| {
                message.data["change"] == change.as_str()
                    && (change == "job" || message.data["schedule_id"] == id.as_str())
            }
        };
        stream.until(about("schedule")).await;
        let heard = stream.until(about("job")).await;
        let job = heard.last().unwrap().data["job_id"]
            .as_str()
            .unwrap()
            .to_owned();
        let (status, detail) = api.get(&format!("/api/v1/jobs/{job}")).await;
        assert_eq!(status, 200, "{name}: {detail}");
        assert_eq!(detail["job"]["created_by"], format!("schedule:{id}"));

        let (_, inbox) = api.get("/api/v1/inbox").await;
        let before = inbox["cursor"].as_u64().unwrap();
        let (status, _) = api
            .client
            .delete(api.url(&format!("/api/v1/schedules/{id}")))
            .send()
            .await
            .map(|response| (response.status().as_u16(), ()))
            .unwrap();
        assert_eq!(status, 204, "{name}");
        let gone = about("schedule");
        stream
            .until(|message| gone(message) && message.id.is_some_and(|id| id > before))
            .await;
    }
}
