//! The knowledge curator: a pass over a seeded workspace reports and proposes what it
//! should (a dry run proposes nothing, a later pass does not propose it twice), accepting
//! a proposal writes the ledger, and undo puts the entry back exactly — over the API, and
//! in the store on SQLite and PostgreSQL. The weekly pass waits for an idle tenant.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;
mod common;

use std::sync::Arc;
use std::time::Duration;

use app::memory::{Change, Current, ScopeKind};
use common::api::Api;
use common::curator::finished_pass;
use serde_json::{Value, json};
use server::store::curator::Undo;
use server::store::memory::{LedgerMark, ScopeRef, Writer};
use server::store::pins::{Holder, Pinned};

async fn remember(api: &Api, scope: Value, fact: &str) -> String {
    let mut body = json!({"operations": [{"action": "add", "content": fact}]});
    body.as_object_mut()
        .unwrap()
        .extend(scope.as_object().unwrap().clone());
    let (status, scope) = api.post("/api/v1/memory", body).await;
    assert_eq!(status, 200, "{scope}");
    scope["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["text"] == fact)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn pass(api: &Api, dry_run: bool) -> Value {
    let (status, started) = api
        .post("/api/v1/curator/passes", json!({"dry_run": dry_run}))
        .await;
    assert_eq!(status, 202, "{started}");
    let pass = finished_pass(api, started["pass_id"].as_str().unwrap()).await;
    assert_eq!(pass["state"], "completed", "{pass}");
    pass
}

/// (kind, subject, proposed) of each finding.
fn summary(pass: &Value) -> Vec<(String, String, bool)> {
    pass["report"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| {
            (
                finding["kind"].as_str().unwrap().to_owned(),
                finding["subject"].as_str().unwrap().to_owned(),
                finding["proposal_id"].is_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_seeded_workspace_pass_proposes_the_expected_merges_and_undo_restores_an_entry_exactly() {
    let api = Api::start(&[]).await;
    let (_, project) = api
        .post("/api/v1/projects", json!({"name": "Curated"}))
        .await;
    let project = project["id"].as_str().unwrap().to_owned();
    let tenant = json!({"scope": "tenant"});
    remember(&api, tenant.clone(), "Deploys happen on Fridays.").await;
    let short = remember(&api, tenant.clone(), "CI has two cores and 24 GiB").await;
    remember(
        &api,
        tenant.clone(),
        "CI has two cores and 24 GiB of memory",
    )
    .await;
    remember(&api, tenant.clone(), "The staging database is Postgres 17").await;
    remember(
        &api,
        json!({"scope": "project", "project_id": project}),
        "deploys happen on  fridays",
    )
    .await;
    let thread = api.thread(None).await;
    let (status, _) = api
        .client
        .put(api.url(&format!("/api/v1/threads/{thread}/context")))
        .json(&json!({"notes": [], "memory": [short]}))
        .send()
        .await
        .map(|response| (response.status().as_u16(), ()))
        .unwrap();
    assert_eq!(status, 200);
    // A run of the thread is given the pinned entry, which counts as its use.
    let run = api.say(&thread, "hello").await;
    api.settled(&run).await;
    let store = server::store::open(&server::store::database_url(None, &api.server.data_dir))
        .await
        .unwrap();
    let used: Vec<(String, bool)> = store
        .curated_memory("default")
        .await
        .unwrap()
        .into_iter()
        .map(|curated| (curated.entry.id, curated.used_at_ms.is_some()))
        .filter(|(_, used)| *used)
        .collect();
    assert_eq!(used, [(short.clone(), true)]);
    let linked = api.note("Runbook").await;
    let (status, _) = api
        .client
        .patch(api.url(&format!("/api/v1/notes/{linked}")))
        .json(&json!({"body": "See https://example.org/runbook"}))
        .send()
        .await
        .map(|response| (response.status().as_u16(), ()))
        .unwrap();
    assert_eq!(status, 200);
    api.note("Loose ends").await;

    let dry = pass(&api, true).await;
    let found = vec![
        (
            "duplicate".to_owned(),
            "deploys happen on  fridays".to_owned(),
            false,
        ),
        (
            "near_duplicate".to_owned(),
            "CI has two cores and 24 GiB".to_owned(),
            false,
        ),
        ("orphan_note".to_owned(), "Loose ends".to_owned(), false),
    ];
    assert_eq!(summary(&dry), found, "{dry}");
    assert_eq!(dry["dry_run"], true);
    assert_eq!(dry["report"]["proposed"], 0);
    let (_, review) = api.get("/api/v1/memory/review?state=pending").await;
    assert_eq!(review["proposals"], json!([]), "a dry run proposes nothing");

    let real = pass(&api, false).await;
    let proposed: Vec<(String, String, bool)> = found
        .iter()
        .map(|(kind, subject, _)| (kind.clone(), subject.clone(), kind != "orphan_note"))
        .collect();
    assert_eq!(summary(&real), proposed, "{real}");
    assert_eq!(real["report"]["proposed"], 2);
    let (_, review) = api.get("/api/v1/memory/review?state=pending").await;
    let review = review["proposals"].as_array().unwrap().clone();
    assert_eq!(review.len(), 2, "{review:?}");
    for proposal in &review {
        assert_eq!(proposal["pass_id"], real["id"]);
        assert!(
            proposal["reason"].as_str().unwrap().contains("kept:"),
            "{proposal}"
        );
        assert_eq!(proposal["operations"][0]["action"], "remove");
    }

    // What waits for review is not proposed again.
    let again = pass(&api, false).await;
    assert_eq!(again["report"]["proposed"], 0, "{again}");
    assert!(
        again["report"]["findings"][0]["not_proposed"]
            .as_str()
            .unwrap()
            .contains("earlier pass"),
        "{again}"
    );

    let (_, before) = api.get("/api/v1/memory?scope=tenant").await;
    let near = real["report"]["findings"][1]["proposal_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, accepted) = api
        .post(&format!("/api/v1/memory/review/{near}/accept"), json!({}))
        .await;
    assert_eq!((status, &accepted["state"]), (200, &json!("accepted")));
    let (_, after) = api.get("/api/v1/memory?scope=tenant").await;
    assert_eq!(after["entries"].as_array().unwrap().len(), 3, "{after}");
    let (_, context) = api.get(&format!("/api/v1/threads/{thread}/context")).await;
    assert_eq!(context["pinned"]["memory"], json!([]), "{context}");

    let (_, ledger) = api.get("/api/v1/curator/changes").await;
    let changes = ledger["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{ledger}");
    let change = &changes[0];
    assert_eq!(change["entry_id"], short.as_str());
    assert_eq!(change["before"], before["entries"][1]);
    assert!(change.get("after").is_none(), "{change}");
    assert!(
        change["actor"].as_str().unwrap().contains("approved by"),
        "{change}"
    );

    let id = change["id"].as_str().unwrap();
    let (status, undo) = api
        .post(&format!("/api/v1/curator/changes/{id}/undo"), json!({}))
        .await;
    assert_eq!(status, 200, "{undo}");
    assert_eq!(undo["undoes"], id);
    let (_, restored) = api.get("/api/v1/memory?scope=tenant").await;
    assert_eq!(restored, before, "the entry is back exactly, in its place");
    let (_, context) = api.get(&format!("/api/v1/threads/{thread}/context")).await;
    assert_eq!(
        context["pinned"]["memory"][0]["id"],
        short.as_str(),
        "{context}"
    );

    let (status, twice) = api
        .post(&format!("/api/v1/curator/changes/{id}/undo"), json!({}))
        .await;
    assert_eq!(status, 409, "{twice}");
    let (status, _) = api
        .post("/api/v1/curator/changes/chg-none/undo", json!({}))
        .await;
    assert_eq!(status, 404);
    let (_, ledger) = api.get("/api/v1/curator/changes").await;
    assert_eq!(ledger["changes"][1]["undone_by"], undo["id"], "{ledger}");
}

#[tokio::test]
async fn a_pass_is_refused_while_another_waits_and_bad_settings_name_the_field() {
    let api = Api::start(&[]).await;
    let (status, settings) = api.get("/api/v1/curator/settings").await;
    assert_eq!(status, 200);
    assert_eq!(
        settings,
        json!({"weekly": true, "idle_minutes": 30, "near_percent": 80, "unused_days": 90})
    );
    let response = api
        .client
        .put(api.url("/api/v1/curator/settings"))
        .json(&json!({"weekly": false, "idle_minutes": 30, "near_percent": 20, "unused_days": 90}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    let refused: Value = response.json().await.unwrap();
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("near_percent:"),
        "{refused}"
    );
    let mut statuses = Vec::new();
    for _ in 0..2 {
        let (status, _) = api
            .post("/api/v1/curator/passes", json!({"dry_run": true}))
            .await;
        statuses.push(status);
    }
    // The second asks while the first waits or runs, unless the first was that quick.
    assert_eq!(statuses[0], 202);
    assert!(matches!(statuses[1], 202 | 409), "{statuses:?}");
    let (_, passes) = api.get("/api/v1/curator/passes").await;
    let count = passes["passes"].as_array().unwrap().len();
    assert_eq!(count, statuses.iter().filter(|s| **s == 202).count());
}

fn writer(mark: Option<LedgerMark>) -> Writer {
    Writer {
        source: "operator",
        author: "ada".into(),
        ledger: mark,
    }
}

#[tokio::test]
async fn the_store_keeps_the_ledger_and_undoes_a_change_exactly_or_refuses_in_words() {
    for backend in backends::all().await {
        let name = backend.name;
        let store = backend.store.clone();
        let scope = ScopeRef {
            kind: ScopeKind::Tenant,
            id: String::new(),
        };
        let adds: Vec<Change> = ["first", "middle", "last"]
            .iter()
            .enumerate()
            .map(|(index, text)| Change::Add {
                index,
                text: (*text).to_owned(),
            })
            .collect();
        assert!(
            store
                .apply_memory("default", &scope, &[], &adds, &writer(None), 5)
                .await
                .unwrap()
        );
        let entries = store.memory_entries("default", &scope).await.unwrap();
        let current: Vec<Current> = entries
            .iter()
            .map(|entry| Current {
                id: entry.id.clone(),
                text: entry.text.clone(),
            })
            .collect();
        let middle = entries[1].id.clone();
        store
            .set_pins(
                "default",
                Holder::Thread,
                "th",
                Pinned::Memory,
                std::slice::from_ref(&middle),
            )
            .await
            .unwrap();
        store
            .mark_memory_used("default", std::slice::from_ref(&middle), 50)
            .await
            .unwrap();
        let mark = LedgerMark {
            pass_id: "pass-1".into(),
            proposal_id: "prop-1".into(),
        };
        let removal = [Change::Remove { id: middle.clone() }];
        assert!(
            store
                .apply_memory(
                    "default",
                    &scope,
                    &current,
                    &removal,
                    &writer(Some(mark.clone())),
                    9
                )
                .await
                .unwrap()
        );
        let ledger = store.ledger("default", 10).await.unwrap();
        assert_eq!(ledger.len(), 1, "{name}");
        assert_eq!(ledger[0].before.as_ref(), Some(&entries[1]), "{name}");
        assert_eq!(ledger[0].after, None, "{name}");
        // Another tenant has no such change.
        store.create_tenant("other", 1).await.unwrap();
        assert_eq!(
            store
                .undo_change("other", &ledger[0].id, "eve", 10)
                .await
                .unwrap(),
            Undo::Missing,
            "{name}"
        );
        let Undo::Done(undo) = store
            .undo_change("default", &ledger[0].id, "ada", 10)
            .await
            .unwrap()
        else {
            panic!("{name}: not undone");
        };
        assert_eq!(
            undo.undoes.as_deref(),
            Some(ledger[0].id.as_str()),
            "{name}"
        );
        assert_eq!(
            store.memory_entries("default", &scope).await.unwrap(),
            entries,
            "{name}: back exactly, in its place"
        );
        assert_eq!(
            store
                .pins("default", Holder::Thread, "th", Pinned::Memory)
                .await
                .unwrap(),
            std::slice::from_ref(&middle),
            "{name}"
        );
        let curated = store.curated_memory("default").await.unwrap();
        assert_eq!(curated[1].used_at_ms, Some(50), "{name}: its last use too");
        assert!(
            matches!(
                store.undo_change("default", &ledger[0].id, "ada", 11).await.unwrap(),
                Undo::Refused(reason) if reason.contains("undone already")
            ),
            "{name}"
        );
        // A change whose entry was edited since is not undone over the edit.
        let current: Vec<Current> = entries
            .iter()
            .map(|entry| Current {
                id: entry.id.clone(),
                text: entry.text.clone(),
            })
            .collect();
        let replace = [Change::Replace {
            id: entries[0].id.clone(),
            text: "first, merged".into(),
        }];
        store
            .apply_memory(
                "default",
                &scope,
                &current,
                &replace,
                &writer(Some(mark)),
                12,
            )
            .await
            .unwrap();
        let mut current = current;
        current[0].text = "first, merged".into();
        let edit = [Change::Replace {
            id: entries[0].id.clone(),
            text: "first, edited by hand".into(),
        }];
        store
            .apply_memory("default", &scope, &current, &edit, &writer(None), 13)
            .await
            .unwrap();
        let replaced = store.ledger("default", 10).await.unwrap()[0].clone();
        assert_eq!(
            replaced.after.as_ref().unwrap().text,
            "first, merged",
            "{name}"
        );
        assert!(
            matches!(
                store.undo_change("default", &replaced.id, "ada", 14).await.unwrap(),
                Undo::Refused(reason) if reason.contains("changed since")
            ),
            "{name}"
        );
        assert_eq!(
            store.ledger("default", 10).await.unwrap().len(),
            3,
            "{name}"
        );
    }
}

#[tokio::test]
async fn a_weekly_pass_is_added_once_a_week_and_only_while_the_tenant_is_idle() {
    for backend in backends::all().await {
        let name = backend.name;
        let store = backend.store.clone();
        let engine = Arc::new(server::jobs::Engine::new(
            store.clone(),
            Vec::new(),
            server::jobs::EngineConfig::default(),
        ));
        let weekly = server::curator::CuratorWeekly::new(engine, Duration::ZERO);
        let now = server::clock::now_ms();
        backends::new_run(&*store, "default", "busy").await;
        assert_eq!(weekly.look(now).await, 0, "{name}: a run is running");
        let finished = app::protocol::recorded::normalize_recorded(
            b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n",
            Default::default(),
        );
        store
            .append("default", "busy", &[], finished, 7)
            .await
            .unwrap();
        assert_eq!(weekly.look(now).await, 1, "{name}: idle now");
        assert_eq!(weekly.look(now + 60_000).await, 0, "{name}: once a week");
        let week = server::curator::weekly::WEEK_MS;
        assert_eq!(
            weekly.look(now + week + 86_400_000).await,
            1,
            "{name}: a week on"
        );
        store
            .set_tenant_setting(
                "default",
                "curator",
                r#"{"weekly":false,"idle_minutes":30,"near_percent":80,"unused_days":90}"#,
            )
            .await
            .unwrap();
        assert_eq!(weekly.look(now + 3 * week).await, 0, "{name}: turned off");
    }
}
