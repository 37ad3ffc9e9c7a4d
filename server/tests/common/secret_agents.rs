//! Agents that ask for secrets, and where a secret may be found: the store's files, the
//! log, and every response a client can read about a thread.

#![allow(dead_code)]

use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::common::agent::{of_run, said};
use crate::common::api::Api;

/// The store's files and the log file holding `needle`.
pub fn found_in_files(dir: &Path, log: &Path, needle: &str) -> Vec<String> {
    let mut places = crate::common::files_holding(dir, needle);
    places.extend(crate::common::files_holding(log, needle));
    places
}

/// An AG-UI agent in the LangGraph style: its first run asks for a secret with a CUSTOM
/// `on_interrupt` event; the run that carries the answer (in
/// `forwardedProps.command.resume`) says it saved the key. Every request body is kept.
pub async fn langgraph_agent() -> (String, Arc<Mutex<Vec<Value>>>) {
    crate::common::agent::scripted(|input| {
        let mut events = vec![of_run(input, json!({"type": "RUN_STARTED"}))];
        if input["forwardedProps"]["command"]["resume"].is_null() {
            let interrupt = json!({
                "id": "key-ask",
                "reason": "secret",
                "message": "Paste the Acme API key",
                "metadata": {"envVar": "ACME_KEY"},
            });
            events.push(
                json!({"type": "CUSTOM", "name": "on_interrupt", "value": interrupt.to_string()}),
            );
        } else {
            events.extend(said("m1", "Key saved."));
        }
        events.push(of_run(input, json!({"type": "RUN_FINISHED"})));
        events
    })
    .await
}

/// Every response a client can read about the thread: the thread, each run's view and
/// its whole event stream, and the asks.
pub async fn everything_served(api: &Api, thread: &str) -> String {
    let mut served = String::new();
    let (_, body) = api.get(&format!("/api/v1/threads/{thread}")).await;
    served.push_str(&body.to_string());
    let (_, asks) = api.get("/api/v1/asks").await;
    served.push_str(&asks.to_string());
    for run in api.runs(thread).await {
        let id = run["id"].as_str().unwrap();
        let (_, view) = api
            .get(&format!("/api/v1/runs/{id}?show_reasoning=true"))
            .await;
        served.push_str(&view.to_string());
        let events = api
            .client
            .get(api.url(&format!("/api/v1/runs/{id}/events?after=0")))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        served.push_str(&events);
    }
    served
}

/// An AG-UI agent whose first run pauses on two interrupts, a secret and an approval;
/// every input is kept.
pub async fn two_ask_agent() -> (String, Arc<Mutex<Vec<Value>>>) {
    crate::common::agent::scripted(|input| {
        let ending = if input["resume"].is_null() {
            json!({"type": "RUN_FINISHED", "outcome": {"type": "interrupt", "interrupts": [
                {"id": "token", "reason": "agent-os:secret", "message": "Paste the deploy token",
                 "metadata": {"envVar": "DEPLOY_TOKEN"}},
                {"id": "deploy", "reason": "tool_approval", "message": "Deploy now?",
                 "metadata": {"choices": ["once", "deny"], "command": "deploy web"}},
            ]}})
        } else {
            json!({"type": "RUN_FINISHED"})
        };
        vec![
            of_run(input, json!({"type": "RUN_STARTED"})),
            of_run(input, ending),
        ]
    })
    .await
}
