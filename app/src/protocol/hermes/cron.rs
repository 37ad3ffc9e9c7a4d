//! A gateway's own scheduled jobs over `cron.manage`: the calls, and their answers read
//! as hermes-agent 0.19 sends them — pause, resume and remove take the job's id in `name`;
//! `list` leaves paused jobs out; `remove` answers with `removed_job.id`; a refusal may be
//! a JSON-RPC error or `success: false`.

use serde_json::{Value, json};

use crate::model::gateway_jobs::GatewayJob;

/// One `cron.manage` call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CronCall {
    List,
    Add {
        name: String,
        schedule: String,
        prompt: String,
    },
    Pause {
        id: String,
    },
    Resume {
        id: String,
    },
    Remove {
        id: String,
    },
}

/// The method every call goes to.
pub const CRON_METHOD: &str = "cron.manage";

impl CronCall {
    pub fn params(&self) -> Value {
        match self {
            CronCall::List => json!({"action": "list"}),
            CronCall::Add {
                name,
                schedule,
                prompt,
            } => json!({"action": "add", "name": name, "schedule": schedule, "prompt": prompt}),
            CronCall::Pause { id } => json!({"action": "pause", "name": id}),
            CronCall::Resume { id } => json!({"action": "resume", "name": id}),
            CronCall::Remove { id } => json!({"action": "remove", "name": id}),
        }
    }
}

/// The refusal a `success: false` answer carries, in the gateway's words.
fn refused(result: &Value) -> Result<(), String> {
    if result.get("success").and_then(Value::as_bool) == Some(false) {
        let words = ["error", "message"]
            .iter()
            .find_map(|key| result.get(*key).and_then(Value::as_str))
            .unwrap_or("the gateway refused without saying why");
        return Err(words.to_owned());
    }
    Ok(())
}

fn text(row: &Value, key: &str) -> Option<String> {
    row.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// One job row (`job_id` in rows, `id` in what `remove` answers).
pub fn read_row(row: &Value) -> Result<GatewayJob, String> {
    let id = text(row, "job_id")
        .or_else(|| text(row, "id"))
        .filter(|id| !id.is_empty())
        .ok_or_else(|| format!("a gateway job without an id: {row}"))?;
    let repeat = match row.get("repeat") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    };
    let enabled = row.get("enabled").and_then(Value::as_bool).unwrap_or(true);
    Ok(GatewayJob {
        name: text(row, "name").unwrap_or_else(|| id.clone()),
        id,
        schedule: text(row, "schedule").unwrap_or_default(),
        prompt_preview: text(row, "prompt_preview").unwrap_or_default(),
        repeat,
        deliver: text(row, "deliver").unwrap_or_default(),
        next_run_at: text(row, "next_run_at"),
        last_run_at: text(row, "last_run_at"),
        last_status: text(row, "last_status"),
        last_delivery_error: text(row, "last_delivery_error"),
        enabled,
        state: text(row, "state")
            .unwrap_or_else(|| if enabled { "scheduled" } else { "paused" }.to_owned()),
        paused_at: text(row, "paused_at"),
        paused_reason: text(row, "paused_reason"),
    })
}

/// What `list` answered: the jobs it lists (never the paused ones).
pub fn read_list(result: &Value) -> Result<Vec<GatewayJob>, String> {
    refused(result)?;
    result
        .get("jobs")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("a cron list without jobs: {result}"))?
        .iter()
        .map(read_row)
        .collect()
}

/// What `add`, `pause` or `resume` answered: the job as it now is.
pub fn read_job(result: &Value) -> Result<GatewayJob, String> {
    refused(result)?;
    read_row(
        result
            .get("job")
            .ok_or_else(|| format!("a cron answer without its job: {result}"))?,
    )
}

/// What `remove` answered: the id of the job removed.
pub fn read_removed(result: &Value) -> Result<String, String> {
    refused(result)?;
    result
        .get("removed_job")
        .map(read_row)
        .transpose()?
        .map(|job| job.id)
        .ok_or_else(|| format!("a cron remove without the job removed: {result}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRANSCRIPT: &str = include_str!("../../../../fixtures/peers/hermes/cron_manage.jsonl");

    /// Each call of the recorded exchange with the answer the gateway gave it.
    fn exchange() -> Vec<(Value, Value)> {
        let lines: Vec<Value> = TRANSCRIPT
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let mut pairs = Vec::new();
        for call in lines.iter().filter(|line| line["dir"] == "ui->gw") {
            let id = &call["msg"]["id"];
            let answer = lines
                .iter()
                .find(|line| line["dir"] == "gw->ui" && &line["msg"]["id"] == id)
                .unwrap();
            pairs.push((call["msg"].clone(), answer["msg"].clone()));
        }
        pairs
    }

    #[test]
    fn the_calls_are_the_bytes_the_gateway_was_sent() {
        let sent: Vec<Value> = exchange()
            .into_iter()
            .map(|(call, _)| call["params"].clone())
            .collect();
        assert_eq!(sent[0], CronCall::List.params());
        let add = CronCall::Add {
            name: "morning-digest".into(),
            schedule: "0 9 * * 1-5".into(),
            prompt: "Summarise yesterday's deploys".into(),
        };
        assert_eq!(sent[1], add.params());
        let id = "088f6f94f158".to_owned();
        assert_eq!(sent[4], CronCall::Pause { id: id.clone() }.params());
        assert_eq!(sent[6], CronCall::Resume { id: id.clone() }.params());
        assert_eq!(sent[7], CronCall::Remove { id }.params());
    }

    #[test]
    fn the_recorded_answers_read_as_the_gateway_meant_them() {
        let pairs = exchange();
        let result = |n: usize| pairs[n].1["result"].clone();
        assert_eq!(read_list(&result(0)), Ok(Vec::new()));
        let added = read_job(&result(1)).unwrap();
        assert_eq!(added.id, "088f6f94f158");
        assert_eq!(
            added.next_run_at.as_deref(),
            Some("2026-12-07T09:00:00+00:00")
        );
        assert_eq!(read_job(&result(2)).unwrap().schedule, "every 120m");
        assert_eq!(read_list(&result(3)).unwrap().len(), 2);
        let paused = read_job(&result(4)).unwrap();
        assert!(!paused.enabled);
        assert_eq!(paused.state, "paused");
        assert!(paused.paused_at.is_some());
        // The paused job is not listed any more.
        let listed = read_list(&result(5)).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].name, "every-2h");
        assert!(read_job(&result(6)).unwrap().enabled);
        assert_eq!(read_removed(&result(7)), Ok("088f6f94f158".to_owned()));
        assert_eq!(read_list(&result(8)).unwrap().len(), 1);
        let unknown = &pairs[9].1["error"];
        assert_eq!(unknown["code"], 4016);
    }

    #[test]
    fn a_refusal_is_read_in_the_gateways_words() {
        let refusal = json!({"success": false, "error": "Job 'nope' not found"});
        assert_eq!(read_job(&refusal), Err("Job 'nope' not found".to_owned()));
        assert!(read_list(&json!({"success": true})).is_err());
        assert!(read_row(&json!({"name": "no id"})).is_err());
    }
}
