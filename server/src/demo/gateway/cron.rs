//! The demo gateway's own scheduled jobs, answering `cron.manage` as hermes-agent 0.19
//! does (fixtures/peers/hermes/cron_manage.jsonl): `list` leaves paused jobs out; pause,
//! resume and remove take the id in `name`; `every 2h` is kept as `every 120m`; an unknown
//! action is error 4016. The jobs belong to the process, not to one connection, and with
//! `AGENT_OS_DEMO_GATEWAY_CRON` set they are kept in that file across restarts. It never
//! runs them: the demo has no model to give their prompts to.

use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use app::model::schedules::When;
use serde_json::{Value, json};

use crate::clock::now_ms;
use crate::schedules::when::read;

/// The variable naming the file the demo gateway keeps its jobs in.
pub const CRON_FILE_ENV: &str = "AGENT_OS_DEMO_GATEWAY_CRON";

/// The code hermes-agent answers an unknown action with.
const UNKNOWN_ACTION: i64 = 4016;

static BOOK: LazyLock<Mutex<Vec<Value>>> = LazyLock::new(|| Mutex::new(load()));

fn load() -> Vec<Value> {
    std::env::var(CRON_FILE_ENV)
        .ok()
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

fn save(jobs: &[Value]) {
    if let Ok(path) = std::env::var(CRON_FILE_ENV)
        && let Err(error) = std::fs::write(&path, Value::from(jobs.to_vec()).to_string())
    {
        eprintln!("demo gateway: could not keep its cron jobs in {path}: {error}");
    }
}

/// An ISO 8601 time with an offset, as the gateway writes times.
fn iso(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|at| at.format("%Y-%m-%dT%H:%M:%S%.6f+00:00").to_string())
        .unwrap_or_default()
}

/// The schedule as the gateway keeps it, and when it next runs; none when unreadable.
fn schedule_of(text: &str) -> Option<(String, Option<i64>)> {
    let text = text.trim();
    let (when, kept) = match text.strip_prefix("every ") {
        Some(interval) => {
            let period = humantime::parse_duration(interval.trim()).ok()?;
            let kept = format!("every {}m", period.as_secs() / 60);
            (
                When::Every {
                    interval: text.to_owned(),
                },
                kept,
            )
        }
        None => (
            When::Cron {
                expression: text.to_owned(),
            },
            text.to_owned(),
        ),
    };
    let now = now_ms();
    let timing = read(&when, "UTC", now, Duration::from_secs(60)).ok()?;
    Some((kept, timing.next_after(now)))
}

fn removed_view(job: &Value) -> Value {
    json!({"id": job["job_id"], "name": job["name"], "schedule": job["schedule"]})
}

/// Answers one `cron.manage` call: its result, or a JSON-RPC error (code, message).
pub fn manage(params: &Value) -> Result<Value, (i64, String)> {
    let action = params
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let mut book = BOOK.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let find = |book: &[Value]| book.iter().position(|job| job["job_id"] == name.as_str());
    let not_found = || json!({"success": false, "error": format!("Job '{name}' not found")});
    let answer = match action {
        "list" => {
            let jobs: Vec<Value> = book
                .iter()
                .filter(|job| job["enabled"] == true)
                .cloned()
                .collect();
            json!({"success": true, "count": jobs.len(), "jobs": jobs})
        }
        "add" => {
            let text = params
                .get("schedule")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let Some((schedule, next)) = schedule_of(text) else {
                return Ok(
                    json!({"success": false, "error": format!("Invalid schedule '{text}'")}),
                );
            };
            let prompt = params
                .get("prompt")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let id = &uuid::Uuid::new_v4().simple().to_string()[..12];
            let job = json!({
                "job_id": id, "name": name, "skill": null, "skills": [],
                "prompt_preview": prompt.chars().take(100).collect::<String>(),
                "model": null, "provider": null, "base_url": null,
                "schedule": schedule, "repeat": "forever", "deliver": "local",
                "next_run_at": next.map(iso), "last_run_at": null, "last_status": null,
                "last_delivery_error": null, "enabled": true, "state": "scheduled",
                "paused_at": null, "paused_reason": null,
            });
            book.push(job.clone());
            let mut answer = json!({"success": true, "job_id": id, "message": format!("Cron job '{name}' created.")});
            for key in [
                "name",
                "skill",
                "skills",
                "schedule",
                "repeat",
                "deliver",
                "next_run_at",
            ] {
                answer[key] = job[key].clone();
            }
            answer["job"] = job;
            answer
        }
        "pause" | "resume" => {
            let Some(at) = find(&book) else {
                return Ok(not_found());
            };
            let job = &mut book[at];
            let pausing = action == "pause";
            job["enabled"] = json!(!pausing);
            job["state"] = json!(if pausing { "paused" } else { "scheduled" });
            job["paused_at"] = if pausing {
                json!(iso(now_ms()))
            } else {
                Value::Null
            };
            json!({"success": true, "job": job.clone()})
        }
        "remove" => {
            let Some(at) = find(&book) else {
                return Ok(not_found());
            };
            let job = book.remove(at);
            json!({"success": true, "message": format!("Cron job '{}' removed.", job["name"].as_str().unwrap_or_default()), "removed_job": removed_view(&job)})
        }
        other => {
            return Err((UNKNOWN_ACTION, format!("unknown cron action: {other}")));
        }
    };
    if action != "list" {
        save(&book);
    }
    Ok(answer)
}
