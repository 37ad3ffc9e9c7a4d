//! Retention in the store, on SQLite and on PostgreSQL: raw frames older than the cutoff
//! go unless their run still runs, their normalized events stay; jobs that ended before the
//! cutoff go with their attempts and logs, waiting and recent ones stay; another tenant's
//! are not touched. And the tenant's settings over the API, refused out of bounds.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;
mod common;

use backends::text;
use serde_json::json;
use server::store::UpstreamEvent;
use server::store::jobs::{Finish, Lease, NewJob};

fn frames(count: u64) -> Vec<UpstreamEvent> {
    (0..count)
        .map(|position| UpstreamEvent {
            position,
            body: format!("{{\"n\":{position}}}"),
        })
        .collect()
}

fn job(id: &str, tenant: &str) -> NewJob {
    NewJob {
        id: id.to_owned(),
        tenant_id: tenant.to_owned(),
        kind: "test.kept".to_owned(),
        payload: json!({}),
        run_at_ms: 1,
        max_attempts: 1,
        idempotency_key: None,
        created_by: "system".to_owned(),
        created_at_ms: 1,
        agent: None,
        project_id: None,
    }
}

#[tokio::test]
async fn retention_removes_old_raw_frames_and_finished_jobs_of_the_tenant_only() {
    for backend in backends::all().await {
        let name = backend.name;
        let store = backend.store.clone();
        store.create_tenant("other", 1).await.unwrap();
        for (tenant, run) in [
            ("default", "ended"),
            ("default", "running"),
            ("other", "theirs"),
        ] {
            backends::new_run(&*store, tenant, run).await;
        }
        // Frames that arrived at t = 7; one run ended, one still runs.
        let finished = app::protocol::recorded::normalize_recorded(
            b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n",
            Default::default(),
        );
        store
            .append("default", "ended", &frames(3), finished.clone(), 7)
            .await
            .unwrap();
        store
            .append(
                "default",
                "running",
                &frames(2),
                vec![text("still going")],
                7,
            )
            .await
            .unwrap();
        store
            .append("other", "theirs", &frames(2), finished, 7)
            .await
            .unwrap();
        let events_before = store.events("default", "ended", 0, None).await.unwrap();

        let removed = store.prune_raw_events("default", 1_000).await.unwrap();
        assert_eq!(removed, 3, "{name}");
        let raw = |tenant: &'static str, run: &'static str| {
            let store = store.clone();
            async move { store.upstream_events(tenant, run, None).await.unwrap() }
        };
        assert!(raw("default", "ended").await.is_empty(), "{name}");
        assert_eq!(
            raw("default", "running").await.len(),
            2,
            "{name}: a running run keeps its frames"
        );
        assert_eq!(
            raw("other", "theirs").await.len(),
            2,
            "{name}: another tenant's stay"
        );
        assert_eq!(
            store.events("default", "ended", 0, None).await.unwrap(),
            events_before,
            "{name}: the normalized events stay"
        );

        // Jobs: one that ended long ago, one that ended now, one still waiting, and
        // another tenant's that ended long ago.
        for (id, tenant) in [
            ("old", "default"),
            ("recent", "default"),
            ("theirs", "other"),
        ] {
            store.enqueue_job(&job(id, tenant), 1).await.unwrap();
        }
        for claimed in store.claim_jobs("w", 10, 60_000, 10).await.unwrap() {
            let lease = Lease {
                job_id: &claimed.job.id,
                worker: "w",
                attempt: 1,
            };
            let at = if claimed.job.id == "recent" {
                5_000
            } else {
                20
            };
            store
                .log_job(&claimed.job.id, 1, "info", "worked", at)
                .await
                .unwrap();
            store
                .finish_job(lease, &Finish::Completed(json!({})), at)
                .await
                .unwrap();
        }
        store
            .enqueue_job(&job("waiting", "default"), 1)
            .await
            .unwrap();
        let removed = store.prune_jobs("default", 1_000).await.unwrap();
        assert_eq!(removed, 1, "{name}");
        assert!(
            store.job_detail("default", "old").await.unwrap().is_none(),
            "{name}"
        );
        for kept in ["recent", "waiting"] {
            assert!(
                store.job_detail("default", kept).await.unwrap().is_some(),
                "{name}: {kept}"
            );
        }
        assert!(
            store.job_detail("other", "theirs").await.unwrap().is_some(),
            "{name}"
        );
    }
}

#[tokio::test]
async fn retention_settings_are_read_by_all_set_by_owners_and_refused_out_of_bounds() {
    let api = common::api::Api::start(&[]).await;
    let (status, settings) = api.get("/api/v1/retention").await;
    assert_eq!(status, 200);
    assert_eq!(settings, json!({"raw_events_days": 30, "jobs_days": 30}));
    let put = |body: serde_json::Value| {
        api.client
            .put(api.url("/api/v1/retention"))
            .json(&body)
            .send()
    };
    let response = put(json!({"raw_events_days": 7, "jobs_days": 90}))
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let (_, settings) = api.get("/api/v1/retention").await;
    assert_eq!(settings, json!({"raw_events_days": 7, "jobs_days": 90}));
    let response = put(json!({"raw_events_days": 0, "jobs_days": 90}))
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    let refused: serde_json::Value = response.json().await.unwrap();
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("raw_events_days:"),
        "{refused}"
    );
    // The daily job was added for the tenant when the server started.
    let (_, jobs) = api.get("/api/v1/jobs?kind=retention").await;
    assert_eq!(jobs["jobs"].as_array().unwrap().len(), 1, "{jobs}");
}
