//! Schedules in the store, on both backends: one fire per scheduled instant however many
//! deciders race for it, idempotent creates, a queued fire started when the running one
//! ends.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;

use std::time::Duration;

use app::model::jobs::{JobFilter, JobState};
use app::model::schedules::{AskPolicy, Missed, Overlap, Schedule, Target, When};
use server::schedules::plan::{fire_job, plan};
use server::schedules::when::read;
use server::store::schedules::FireUpdate;

const HOUR: i64 = 3_600_000;

fn hourly(id: &str) -> Schedule {
    Schedule {
        id: id.into(),
        name: "Hourly digest".into(),
        agent: "demo".into(),
        prompt: "Summarise the inbox".into(),
        project_id: None,
        target: Target::NewThread,
        thread_id: None,
        when: When::Cron {
            expression: "0 * * * *".into(),
        },
        timezone: "UTC".into(),
        missed: Missed::Skip,
        catch_up_window_s: 3600,
        overlap: Overlap::Queue,
        asks: AskPolicy::Wait,
        paused_at_ms: None,
        paused_reason: None,
        next_fire_ms: Some(10 * HOUR),
        missed_count: 0,
        skipped_count: 0,
        last_error: None,
        created_by: "user:ada".into(),
        created_at_ms: 1,
        updated_at_ms: 1,
    }
}

#[tokio::test]
async fn racing_deciders_fire_each_scheduled_instant_once() {
    for backend in backends::all().await {
        let store = backend.store.clone();
        let schedule = hourly("s1");
        store
            .create_schedule("default", &schedule, None)
            .await
            .unwrap();
        let timing = read(&schedule.when, "UTC", 0, Duration::from_secs(60)).unwrap();
        let mut deciders = Vec::new();
        for _ in 0..8 {
            let store = store.clone();
            let timing = timing.clone();
            deciders.push(tokio::spawn(async move {
                let due = store.due_schedules(10 * HOUR + 50, 10).await.unwrap();
                let mut won = 0;
                for (tenant, schedule) in due {
                    let decided = plan(&tenant, &schedule, &timing, 10 * HOUR + 50, &[], 0, 60_000);
                    if store.apply_fire_plan(&decided.unwrap()).await.unwrap() {
                        won += 1;
                    }
                }
                won
            }));
        }
        let mut won = 0;
        for decider in deciders {
            won += decider.await.unwrap();
        }
        assert_eq!(won, 1, "{}", backend.name);
        let fires = store.fires("default", "s1", 10).await.unwrap();
        assert_eq!(fires.len(), 1);
        assert_eq!(fires[0].outcome, "queued");
        let jobs = store
            .list_jobs("default", &JobFilter::default(), 0, 10)
            .await
            .unwrap();
        assert_eq!(jobs.jobs.len(), 1, "{}", backend.name);
        assert_eq!(jobs.jobs[0].state, JobState::Available);
        let moved = store.get_schedule("default", "s1").await.unwrap().unwrap();
        assert_eq!(moved.next_fire_ms, Some(11 * HOUR));
        assert!(
            store
                .due_schedules(10 * HOUR + 60, 10)
                .await
                .unwrap()
                .is_empty()
        );
        assert_eq!(store.next_schedule_due().await.unwrap(), Some(11 * HOUR));
    }
}

#[tokio::test]
async fn a_schedule_made_twice_with_one_key_is_made_once() {
    for backend in backends::all().await {
        let store = backend.store.clone();
        let (first, made) = store
            .create_schedule("default", &hourly("s1"), Some("agent-proposal-7"))
            .await
            .unwrap();
        assert!(made);
        let (again, made) = store
            .create_schedule("default", &hourly("s2"), Some("agent-proposal-7"))
            .await
            .unwrap();
        assert!(!made, "{}", backend.name);
        assert_eq!(again.id, first.id);
        assert_eq!(
            store
                .list_schedules("default", 0, 50)
                .await
                .unwrap()
                .schedules
                .len(),
            1
        );
    }
}

#[tokio::test]
async fn a_queued_fire_waits_for_the_running_one_then_starts() {
    for backend in backends::all().await {
        let store = backend.store.clone();
        let schedule = hourly("s1");
        store
            .create_schedule("default", &schedule, None)
            .await
            .unwrap();
        let timing = read(&schedule.when, "UTC", 0, Duration::from_secs(60)).unwrap();
        let first = plan("default", &schedule, &timing, 10 * HOUR, &[], 0, 60_000).unwrap();
        assert!(store.apply_fire_plan(&first).await.unwrap());
        store
            .update_fire(
                "s1",
                10 * HOUR,
                &FireUpdate {
                    outcome: Some("running"),
                    ..FireUpdate::default()
                },
            )
            .await
            .unwrap();
        let schedule = store.get_schedule("default", "s1").await.unwrap().unwrap();
        let live = store.live_fires("s1").await.unwrap();
        assert_eq!(live.len(), 1);
        let second = plan("default", &schedule, &timing, 11 * HOUR, &live, 0, 60_000).unwrap();
        assert_eq!(second.fires[0].outcome, "waiting");
        assert!(store.apply_fire_plan(&second).await.unwrap());
        store
            .update_fire(
                "s1",
                10 * HOUR,
                &FireUpdate {
                    outcome: Some("completed"),
                    ..FireUpdate::default()
                },
            )
            .await
            .unwrap();
        let started = store
            .start_waiting_fire(
                "s1",
                &|slot| fire_job("default", &schedule, slot, 11 * HOUR + 5),
                11 * HOUR + 5,
            )
            .await
            .unwrap();
        assert_eq!(started, Some(11 * HOUR), "{}", backend.name);
        let fire = store.get_fire("s1", 11 * HOUR).await.unwrap().unwrap();
        assert_eq!(fire.outcome, "queued");
        let jobs = store
            .list_jobs("default", &JobFilter::default(), 0, 10)
            .await
            .unwrap();
        assert_eq!(jobs.jobs.len(), 2);
        assert!(
            jobs.jobs
                .iter()
                .any(|job| job.payload["slot_ms"] == 11 * HOUR)
        );
        assert_eq!(
            store
                .start_waiting_fire("s1", &|slot| fire_job("default", &schedule, slot, 1), 1)
                .await
                .unwrap(),
            None
        );
    }
}
