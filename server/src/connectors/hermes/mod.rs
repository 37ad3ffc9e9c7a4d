//! The Hermes connector: a gateway speaking newline-delimited JSON-RPC, over a child
//! process's stdio or a WebSocket. The gateway keeps the conversation, so a turn is the
//! prompt alone; each answer is sent as it is given.

pub mod gateway;
pub mod lines;
mod turns;

use std::sync::Arc;

use app::error::ApiError;
use app::model::{AgentEnvironment, Starter};
use app::protocol::receipts::{ValidatedAnswer, hermes_answer};
use serde_json::{Value, json};

use self::gateway::HermesGateway;
use super::{
    AnswerRoute, Connector, Host, Launch, OwnJobs, Prepared, Turn, program_of,
    url_without_credentials,
};
use crate::store::{AskRecord, RunRecord};

pub struct HermesConnector {
    name: String,
    /// A `ws://` URL, or a command run by `sh -c`.
    target: String,
    suggestions: Vec<Starter>,
    /// Variables of the server's environment a spawned gateway may see.
    passed_env: Vec<String>,
    /// One gateway for each tenant, rather than one for all.
    per_tenant: bool,
    /// The running gateways (under `""` when one serves every tenant), each started
    /// (again) when needed.
    gateways: tokio::sync::Mutex<std::collections::HashMap<String, Arc<HermesGateway>>>,
}

impl HermesConnector {
    pub fn new(name: &str, target: &str, suggestions: Vec<Starter>) -> Self {
        Self {
            name: name.to_owned(),
            target: target.to_owned(),
            suggestions,
            passed_env: Vec::new(),
            per_tenant: false,
            gateways: tokio::sync::Mutex::default(),
        }
    }

    /// Runs a gateway of its own for each tenant (told its tenant in `AGENT_OS_TENANT`),
    /// so one tenant's agent never shares a process, a session store or a working
    /// directory with another's.
    pub fn per_tenant(mut self, per_tenant: bool) -> Self {
        self.per_tenant = per_tenant;
        self
    }

    /// Lets a spawned gateway see these variables too (see [`HermesGateway::spawn`]).
    pub fn passing_env(mut self, names: &[String]) -> Self {
        self.passed_env.extend(names.iter().cloned());
        self
    }

    fn is_websocket(&self) -> bool {
        self.target.starts_with("ws://") || self.target.starts_with("wss://")
    }

    /// The gateway serving `tenant`, started if none runs.
    async fn gateway(&self, host: &Arc<Host>, tenant: &str) -> Result<Arc<HermesGateway>, String> {
        let key = if self.per_tenant { tenant } else { "" };
        let mut gateways = self.gateways.lock().await;
        if let Some(running) = gateways.get(key)
            && running.is_alive()
        {
            return Ok(Arc::clone(running));
        }
        let started = HermesGateway::spawn(
            &self.name,
            &self.target,
            (&self.passed_env, self.per_tenant.then_some(tenant)),
            host.recorder.clone(),
            host.store.clone(),
        )
        .await?;
        started.fail_silent_turns_after(host.timeouts.idle);
        gateways.insert(key.to_owned(), Arc::clone(&started));
        Ok(started)
    }
}

#[async_trait::async_trait]
impl Connector for HermesConnector {
    fn name(&self) -> &str {
        &self.name
    }

    fn environment(&self) -> AgentEnvironment {
        let (transport, endpoint) = match (self.is_websocket(), self.per_tenant) {
            (true, false) => ("WebSocket", url_without_credentials(&self.target)),
            (true, true) => (
                "WebSocket, a connection per tenant",
                url_without_credentials(&self.target),
            ),
            (false, false) => ("stdio", program_of(&self.target)),
            (false, true) => ("stdio, a process per tenant", program_of(&self.target)),
        };
        AgentEnvironment {
            agent: self.name.clone(),
            protocol: "Hermes gateway (JSON-RPC)".into(),
            transport: transport.into(),
            endpoint,
            tools: Vec::new(),
            chosen_because: None,
        }
    }

    fn suggestions(&self) -> Vec<Starter> {
        self.suggestions.clone()
    }

    fn answer_route(&self) -> AnswerRoute {
        AnswerRoute::EachAsk
    }

    async fn prepare_turn(&self, _host: &Arc<Host>, turn: &Turn) -> Result<Prepared, ApiError> {
        let input = json!({ "prompt": prompt_with_context(&turn.text, &turn.context) });
        Ok(Prepared {
            recorded: input.clone(),
            input,
            first: vec![turn.user_message()],
        })
    }

    async fn launch(&self, host: &Arc<Host>, launch: Launch) -> Result<(), String> {
        let prompt = launch
            .input
            .get("prompt")
            .and_then(Value::as_str)
            .unwrap_or_default();
        self.gateway(host, &launch.tenant_id)
            .await?
            .start_turn(&launch.tenant_id, &launch.thread_id, &launch.run_id, prompt)
            .await
    }

    async fn answer(
        &self,
        host: &Arc<Host>,
        record: &AskRecord,
        answer: ValidatedAnswer,
    ) -> Result<(), String> {
        let mapped = hermes_answer(&record.ask, &answer).ok_or("the answer has no Hermes form")?;
        self.gateway(host, &record.tenant_id)
            .await?
            .answer(&record.run_id, &record.ask.id, mapped)
            .await
    }

    async fn cancel(&self, host: &Arc<Host>, run: &RunRecord) -> bool {
        match self.gateway(host, &run.tenant_id).await {
            // The gateway ends the turn itself (status "interrupted") and it is recorded
            // from its frames; if it does not within its grace, the console records it.
            Ok(gateway) => gateway.interrupt(&run.id).await.unwrap_or(false),
            Err(_) => false,
        }
    }

    fn own_jobs(&self) -> Option<&dyn OwnJobs> {
        Some(self)
    }
}

#[async_trait::async_trait]
impl OwnJobs for HermesConnector {
    fn shared(&self) -> bool {
        !self.per_tenant
    }

    async fn call(
        &self,
        host: &Arc<Host>,
        tenant: &str,
        call: &app::protocol::hermes::cron::CronCall,
    ) -> Result<Value, String> {
        self.gateway(host, tenant)
            .await?
            .request(app::protocol::hermes::cron::CRON_METHOD, call.params())
            .await
    }
}

/// A Hermes prompt carries no separate context: what the run is given goes before the
/// message, marked as context. Hermes reads `@name` in a prompt as a reference to load,
/// so an `@` inside a note is followed by a word joiner and stays text.
fn prompt_with_context(text: &str, context: &super::GivenContext) -> String {
    let Some(sections) = context.sections(|value| value.replace('@', "@\u{2060}")) else {
        return text.to_owned();
    };
    let mut prompt = String::from("[Context from the operator's workspace, for reference]\n");
    prompt.push_str(&sections);
    prompt.push_str("[End of context]\n\n");
    prompt.push_str(text);
    prompt
}

#[cfg(test)]
mod context_tests {
    use super::*;
    use crate::connectors::{ContextEntry, GivenContext};

    #[test]
    fn a_prompt_carries_its_context_first_with_no_reference_hermes_would_load() {
        assert_eq!(prompt_with_context("hi", &GivenContext::default()), "hi");
        let context = GivenContext {
            entries: vec![ContextEntry {
                description: "Note “Runbook” (version 2)".into(),
                value: "Mail @ops, see @file.md".into(),
            }],
            items: Vec::new(),
        };
        let prompt = prompt_with_context("deploy it", &context);
        assert!(
            prompt.starts_with("[Context from the operator's workspace"),
            "{prompt}"
        );
        assert!(
            prompt.ends_with("[End of context]\n\ndeploy it"),
            "{prompt}"
        );
        assert!(prompt.contains("Note “Runbook” (version 2)"));
        assert!(
            !prompt.contains("@ops") && !prompt.contains("@file"),
            "{prompt}"
        );
    }
}
