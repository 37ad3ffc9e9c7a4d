use std::time::Duration;

use app::model::schedules::{AskPolicy, Target, When};

use super::*;
use crate::schedules::when::read;

const HOUR: i64 = 3_600_000;
const GRACE: i64 = 60_000;

fn hourly(missed: Missed, overlap: Overlap) -> (Schedule, Timing) {
    let when = When::Cron {
        expression: "0 * * * *".into(),
    };
    let timing = read(&when, "UTC", 0, Duration::from_secs(60)).unwrap();
    let schedule = Schedule {
        id: "s1".into(),
        name: "Hourly digest".into(),
        agent: "demo".into(),
        prompt: "Summarise".into(),
        project_id: None,
        target: Target::NewThread,
        thread_id: None,
        when,
        timezone: "UTC".into(),
        missed,
        catch_up_window_s: 2 * 3600,
        overlap,
        asks: AskPolicy::Wait,
        paused_at_ms: None,
        paused_reason: None,
        next_fire_ms: Some(10 * HOUR),
        missed_count: 0,
        skipped_count: 0,
        last_error: None,
        created_by: "user:ada".into(),
        created_at_ms: 0,
        updated_at_ms: 0,
    };
    (schedule, timing)
}

fn running() -> Fire {
    Fire {
        slot_ms: 9 * HOUR,
        fired_at_ms: Some(9 * HOUR),
        outcome: "running".into(),
        manual: false,
        catch_up: false,
        job_id: Some("job-old".into()),
        thread_id: None,
        run_id: None,
        error: None,
    }
}

#[test]
fn a_fire_on_time_queues_its_job_and_moves_to_the_next_hour() {
    let (schedule, timing) = hourly(Missed::Skip, Overlap::Skip);
    let plan = plan("acme", &schedule, &timing, 10 * HOUR + 300, &[], 0, GRACE).unwrap();
    assert_eq!(plan.expected_next_fire_ms, Some(10 * HOUR));
    assert_eq!(plan.next_fire_ms, Some(11 * HOUR));
    assert_eq!(plan.missed, 0);
    let fire = &plan.fires[0];
    assert_eq!((fire.slot_ms, fire.outcome), (10 * HOUR, "queued"));
    let job = fire.job.as_ref().unwrap();
    assert_eq!(job.kind, FIRE_KIND);
    assert_eq!(job.idempotency_key.as_deref(), Some("fire:s1:36000000"));
    assert_eq!(job.payload["slot_ms"], 10 * HOUR);
}

#[test]
fn nothing_is_planned_before_the_time() {
    let (schedule, timing) = hourly(Missed::Skip, Overlap::Skip);
    assert!(plan("acme", &schedule, &timing, 10 * HOUR - 1, &[], 0, GRACE).is_none());
}

#[test]
fn after_an_outage_skip_counts_every_missed_time_and_fires_none() {
    let (schedule, timing) = hourly(Missed::Skip, Overlap::Skip);
    let now = 13 * HOUR + 20 * 60_000;
    let plan = plan("acme", &schedule, &timing, now, &[], 0, GRACE).unwrap();
    assert_eq!(plan.missed, 4, "10:00, 11:00, 12:00 and 13:00");
    assert_eq!(plan.next_fire_ms, Some(14 * HOUR));
    assert_eq!(plan.fires.len(), 1);
    assert_eq!(plan.fires[0].outcome, "missed");
    assert_eq!(plan.fires[0].slot_ms, 13 * HOUR);
    assert!(plan.fires[0].job.is_none());
    assert!(
        plan.fires[0]
            .error
            .as_deref()
            .unwrap()
            .starts_with("4 fires missed")
    );
}

#[test]
fn catch_up_fires_the_latest_missed_time_once_within_its_window() {
    let (schedule, timing) = hourly(Missed::CatchUp, Overlap::Skip);
    let now = 13 * HOUR + 20 * 60_000;
    let plan = plan("acme", &schedule, &timing, now, &[], 0, GRACE).unwrap();
    assert_eq!(plan.missed, 3);
    assert_eq!(plan.fires.len(), 1);
    let fire = &plan.fires[0];
    assert!(fire.catch_up);
    assert_eq!((fire.slot_ms, fire.outcome), (13 * HOUR, "queued"));
    assert_eq!(plan.next_fire_ms, Some(14 * HOUR));
}

#[test]
fn catch_up_beyond_its_window_is_a_miss() {
    let (mut schedule, timing) = hourly(Missed::CatchUp, Overlap::Skip);
    schedule.catch_up_window_s = 600;
    let plan = plan(
        "acme",
        &schedule,
        &timing,
        10 * HOUR + 1_800_000,
        &[],
        0,
        GRACE,
    )
    .unwrap();
    assert_eq!(plan.missed, 1);
    assert_eq!(plan.fires[0].outcome, "missed");
}

#[test]
fn while_the_last_fire_runs_each_overlap_policy_does_its_own_thing() {
    let now = 10 * HOUR + 100;
    let live = [running()];
    let decided = |overlap, waiting| {
        let (schedule, timing) = hourly(Missed::Skip, overlap);
        plan("acme", &schedule, &timing, now, &live, waiting, GRACE).unwrap()
    };
    let skip = decided(Overlap::Skip, 0);
    assert_eq!((skip.fires[0].outcome, skip.skipped), ("skipped", 1));
    assert!(skip.fires[0].job.is_none());
    let queue = decided(Overlap::Queue, 0);
    assert_eq!(queue.fires[0].outcome, "waiting");
    assert!(queue.fires[0].job.is_none());
    let full = decided(Overlap::Queue, 1);
    assert_eq!((full.fires[0].outcome, full.skipped), ("skipped", 1));
    let allow = decided(Overlap::Allow, 0);
    assert_eq!(allow.fires[0].outcome, "queued");
    let cancel = decided(Overlap::Cancel, 0);
    assert_eq!(cancel.fires[0].outcome, "queued");
    assert_eq!(cancel.cancel_job.as_deref(), Some("job-old"));
}

#[test]
fn run_now_fires_at_once_and_leaves_the_clock_alone() {
    let (schedule, _) = hourly(Missed::Skip, Overlap::Skip);
    let plan = on_request("acme", &schedule, 9 * HOUR + 5, &[], 0);
    assert_eq!(plan.expected_next_fire_ms, None);
    assert_eq!(plan.next_fire_ms, Some(10 * HOUR));
    assert!(plan.fires[0].manual);
    assert_eq!(plan.fires[0].slot_ms, 9 * HOUR + 5);
}
