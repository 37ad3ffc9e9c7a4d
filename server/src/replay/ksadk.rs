//! KsADK session records for replay: a saved `ListSessionEvents` answer, or the session
//! asked of the runtime page by page, windowed by `SeqId` with both cursors exclusive (as
//! KsADK's own API, whose replay tool ignores them), and projected one run per invocation.

use std::collections::HashSet;

use app::projection::{RunView, ViewPolicy};
use app::protocol::channel::RunRef;
use app::protocol::ksadk_record::{read_page, runs_of, seq_of};
use app::protocol::recorded::place_all;
use serde_json::{Value, json};

use super::{ReplayError, Replayed, Request};
use crate::store::UpstreamEvent;

/// KsADK's session events endpoint, on the runtime's root.
const LIST_SESSION_EVENTS: &str = "agentengine/api/v1/ListSessionEvents";
/// Rows asked for at a time (KsADK allows up to 2000).
const PAGE: u64 = 500;
/// The most rows one replay reads, so a runtime that pages forever cannot exhaust memory.
const MOST_ROWS: usize = 1_000_000;

/// Where the record comes from.
pub struct Source {
    /// The runtime's origin or its OpenAI base (`…/v1`).
    pub url: String,
    pub session_id: String,
    pub agent_id: Option<String>,
    pub api_key: Option<String>,
}

/// Every row of the session between the cursors, asked of the runtime.
pub async fn fetch(
    source: &Source,
    after: u64,
    before: Option<u64>,
) -> Result<Vec<Value>, ReplayError> {
    let endpoint = crate::connectors::openai::bootstrap::root_of(&source.url)
        .and_then(|root| root.join(LIST_SESSION_EVENTS).ok())
        .ok_or_else(|| ReplayError::Runtime {
            url: source.url.clone(),
            error: "not an http(s) URL".into(),
        })?;
    let http = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(60))
        .build()
        .map_err(|error| ReplayError::Runtime {
            url: source.url.clone(),
            error: error.to_string(),
        })?;
    let failed = |error: String| ReplayError::Runtime {
        url: endpoint.to_string(),
        error,
    };
    let mut rows = Vec::new();
    loop {
        let mut body = json!({
            "SessionId": source.session_id,
            "Offset": rows.len(),
            "Limit": PAGE,
        });
        if let Some(agent_id) = &source.agent_id {
            body["AgentId"] = json!(agent_id);
        }
        if after > 0 {
            body["AfterSeqId"] = json!(after);
        }
        if let Some(before) = before {
            body["BeforeSeqId"] = json!(before);
        }
        let mut request = http.post(endpoint.clone()).json(&body);
        if let Some(key) = &source.api_key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.map_err(|e| failed(e.to_string()))?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(|e| failed(e.to_string()))?;
        if !status.is_success() {
            return Err(failed(format!(
                "HTTP {status}: {}",
                app::protocol::limits::excerpt(&String::from_utf8_lossy(&bytes), 200)
            )));
        }
        let page = read_page(&bytes)?;
        let got = page.rows.len();
        rows.extend(page.rows);
        if got == 0 || rows.len() as u64 >= page.total {
            break;
        }
        if rows.len() > MOST_ROWS {
            return Err(failed(format!(
                "the session holds more than {MOST_ROWS} events"
            )));
        }
    }
    Ok(rows)
}

/// The runs the rows within the cursors hold, each with the rows none of its events cite.
pub fn replay(
    rows: Vec<Value>,
    session_hint: &str,
    request: &Request,
    policy: ViewPolicy,
) -> Vec<Replayed> {
    let mut rows: Vec<Value> = rows
        .into_iter()
        .filter(|row| {
            seq_of(row).is_some_and(|seq| {
                seq > request.after && request.before.is_none_or(|before| seq < before)
            })
        })
        .collect();
    rows.sort_by_key(seq_of);
    let session = rows
        .iter()
        .find_map(|row| row.get("SessionId").and_then(Value::as_str))
        .unwrap_or(session_hint)
        .to_owned();
    let thread = format!("ksadk:{session}");
    let runs: Vec<(String, Vec<_>)> = runs_of(&rows)
        .into_iter()
        .map(|run| {
            let events = place_all(
                RunRef::new(&request.tenant, &thread, &run.invocation_id),
                run.drafts,
                0,
            );
            (run.invocation_id, events)
        })
        .collect();
    // An answer closes its ask in the run that opened it, so a row is cited by any run.
    let cited: HashSet<u64> = runs
        .iter()
        .flat_map(|(_, events)| events.iter().filter_map(|event| event.upstream))
        .collect();
    runs.into_iter()
        .map(|(invocation_id, events)| {
            let extras = rows
                .iter()
                .filter(|row| {
                    row.get("InvocationId").and_then(Value::as_str) == Some(&invocation_id)
                })
                .filter_map(|row| seq_of(row).map(|seq| (seq, row)))
                .filter(|(seq, _)| !cited.contains(seq))
                .map(|(seq, row)| UpstreamEvent {
                    position: seq,
                    body: row.to_string(),
                })
                .collect();
            Replayed {
                run_id: invocation_id,
                view: RunView::from_events(policy, &events),
                extras,
                events,
            }
        })
        .collect()
}
