//! What a due schedule does now: which of its times fires (the latest due, if it is not
//! too late or the missed policy catches it up), how many were missed, and what the
//! overlap policy makes of a fire while the last one still runs. Pure: the store writes
//! the plan, or finds that another process already did.

use app::model::schedules::{Fire, Missed, Overlap, Schedule};

use super::when::Timing;
use crate::store::jobs::NewJob;
use crate::store::schedules::{FirePlan, PlannedFire};

/// The job kind a fire runs as.
pub const FIRE_KIND: &str = "schedule.fire";

/// The most due times counted in one decision (a long outage of a fast schedule).
const MOST_COUNTED: usize = 100_000;

/// The job that runs the fire of `schedule` at `slot_ms`.
pub fn fire_job(tenant_id: &str, schedule: &Schedule, slot_ms: i64, now_ms: i64) -> NewJob {
    NewJob {
        id: format!("job-{}", uuid::Uuid::new_v4().simple()),
        tenant_id: tenant_id.to_owned(),
        kind: FIRE_KIND.to_owned(),
        payload: serde_json::json!({"schedule_id": schedule.id, "slot_ms": slot_ms}),
        run_at_ms: now_ms,
        max_attempts: 3,
        idempotency_key: Some(format!("fire:{}:{slot_ms}", schedule.id)),
        created_by: format!("schedule:{}", schedule.id),
        created_at_ms: now_ms,
        agent: Some(schedule.agent.clone()),
        project_id: schedule.project_id.clone(),
    }
}

/// Every time of `timing` from `first_ms` through `now_ms` (at most [`MOST_COUNTED`]).
fn due_times(timing: &Timing, first_ms: i64, now_ms: i64) -> Vec<i64> {
    let mut times = vec![first_ms];
    let mut cursor = first_ms;
    while times.len() < MOST_COUNTED {
        match timing.next_after(cursor) {
            Some(next) if next <= now_ms => {
                times.push(next);
                cursor = next;
            }
            _ => break,
        }
    }
    times
}

/// The decision for `schedule`, due at `now_ms`: `live` are its fires still queued or
/// running, `waiting` how many wait behind them; a fire more than `grace_ms` after its time
/// counts as missed.
pub fn plan(
    tenant_id: &str,
    schedule: &Schedule,
    timing: &Timing,
    now_ms: i64,
    live: &[Fire],
    waiting: usize,
    grace_ms: i64,
) -> Option<FirePlan> {
    let first = schedule.next_fire_ms.filter(|first| *first <= now_ms)?;
    let due = due_times(timing, first, now_ms);
    let latest = *due.last().unwrap_or(&first);
    let earlier = u64::try_from(due.len() - 1).unwrap_or(u64::MAX);
    let window_ms =
        i64::try_from(schedule.catch_up_window_s.saturating_mul(1000)).unwrap_or(i64::MAX);
    let late = now_ms - latest;
    let (fire, catch_up, missed) = if late <= grace_ms {
        (true, false, earlier)
    } else if schedule.missed == Missed::CatchUp && late <= window_ms {
        (true, true, earlier)
    } else {
        (false, false, earlier + 1)
    };
    let mut plan = FirePlan {
        tenant_id: tenant_id.to_owned(),
        schedule_id: schedule.id.clone(),
        expected_next_fire_ms: Some(first),
        next_fire_ms: timing.next_after(now_ms.max(latest)),
        missed,
        skipped: 0,
        fires: Vec::new(),
        cancel_job: None,
        now_ms,
    };
    if !fire {
        plan.fires.push(PlannedFire {
            slot_ms: latest,
            fired_at_ms: None,
            outcome: "missed",
            manual: false,
            catch_up: false,
            job: None,
            error: Some(missed_words(missed, late)),
        });
        return Some(plan);
    }
    plan.fires.push(overlapped(
        tenant_id,
        schedule,
        latest,
        now_ms,
        live,
        waiting,
        &mut plan.skipped,
        &mut plan.cancel_job,
        catch_up,
        false,
    ));
    Some(plan)
}

/// A fire on the operator's request: now, whatever the clock says; the overlap policy
/// still applies.
pub fn on_request(
    tenant_id: &str,
    schedule: &Schedule,
    now_ms: i64,
    live: &[Fire],
    waiting: usize,
) -> FirePlan {
    let mut plan = FirePlan {
        tenant_id: tenant_id.to_owned(),
        schedule_id: schedule.id.clone(),
        expected_next_fire_ms: None,
        next_fire_ms: schedule.next_fire_ms,
        missed: 0,
        skipped: 0,
        fires: Vec::new(),
        cancel_job: None,
        now_ms,
    };
    let fire = overlapped(
        tenant_id,
        schedule,
        now_ms,
        now_ms,
        live,
        waiting,
        &mut plan.skipped,
        &mut plan.cancel_job,
        false,
        true,
    );
    plan.fires.push(fire);
    plan
}

#[allow(clippy::too_many_arguments)]
fn overlapped(
    tenant_id: &str,
    schedule: &Schedule,
    slot_ms: i64,
    now_ms: i64,
    live: &[Fire],
    waiting: usize,
    skipped: &mut u64,
    cancel_job: &mut Option<String>,
    catch_up: bool,
    manual: bool,
) -> PlannedFire {
    let runs = |job: bool| PlannedFire {
        slot_ms,
        fired_at_ms: Some(now_ms),
        outcome: if job { "queued" } else { "waiting" },
        manual,
        catch_up,
        job: job.then(|| fire_job(tenant_id, schedule, slot_ms, now_ms)),
        error: None,
    };
    let skip = |skipped: &mut u64, why: &str| {
        *skipped += 1;
        PlannedFire {
            slot_ms,
            fired_at_ms: None,
            outcome: "skipped",
            manual,
            catch_up,
            job: None,
            error: Some(why.to_owned()),
        }
    };
    if live.is_empty() {
        return runs(true);
    }
    match schedule.overlap {
        Overlap::Allow => runs(true),
        Overlap::Skip => skip(skipped, "the previous fire was still running"),
        Overlap::Queue if waiting == 0 => runs(false),
        Overlap::Queue => skip(skipped, "a fire was already waiting for the running one"),
        Overlap::Cancel => {
            *cancel_job = live.last().and_then(|fire| fire.job_id.clone());
            runs(true)
        }
    }
}

fn missed_words(count: u64, late_ms: i64) -> String {
    let minutes = late_ms / 60_000;
    let late = if minutes >= 1 {
        format!("{minutes} min")
    } else {
        format!("{} s", late_ms / 1000)
    };
    match count {
        1 => format!("missed: nothing could fire it until {late} after its time"),
        n => format!("{n} fires missed: nothing could fire them until {late} after the latest"),
    }
}

#[cfg(test)]
mod tests;
