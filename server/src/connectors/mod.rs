//! Connectors: how the console talks to one kind of agent backend, behind one trait. A
//! connector prepares a run's request from the thread, launches it (streaming what the
//! agent sends into the store through the [`Host`]), delivers answers and cancels. A new
//! kind of agent is a new module here and a line where the configuration builds it.

pub mod agui;
pub mod hermes;
pub mod openai;
mod reach;
pub mod sse_stream;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use app::a2ui::action::UserAction;
use app::error::ApiError;
use app::model::{AgentEnvironment, Starter};
use app::projection::{RunView, ViewPolicy};
use app::protocol::channel::EventDraft;
use app::protocol::receipts::ValidatedAnswer;
use serde_json::Value;

pub use reach::{program_of, url_without_credentials};

use crate::live::Live;
use crate::recorder::Recorder;
use crate::store::{AskRecord, RunRecord, Store, StoreError, UpstreamEvent};

/// How long the console waits on an agent over HTTP before it gives up on the run, so a
/// silent agent never holds its thread forever.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentTimeouts {
    /// To open the connection.
    pub connect: std::time::Duration,
    /// From the request to the response's status line.
    pub first_byte: std::time::Duration,
    /// Between two reads of the response body.
    pub idle: std::time::Duration,
}

impl Default for AgentTimeouts {
    fn default() -> Self {
        Self {
            connect: std::time::Duration::from_secs(10),
            first_byte: std::time::Duration::from_secs(60),
            idle: std::time::Duration::from_secs(300),
        }
    }
}

/// What a connector may use of the console: the store, the recorder (durable first,
/// then live), an HTTP client, and the table of runs streaming right now.
pub struct Host {
    pub store: Arc<dyn Store>,
    pub live: Live,
    pub recorder: Recorder,
    pub http: reqwest::Client,
    pub timeouts: AgentTimeouts,
    streaming: Mutex<HashMap<String, tokio::task::JoinHandle<()>>>,
    /// Called with the tenant and run once a run's stream has ended by itself.
    stream_end: std::sync::OnceLock<StreamEnd>,
    /// Where an agent's per-tenant credentials are kept (set once at start).
    vault: std::sync::OnceLock<Arc<crate::vault::Vault>>,
}

/// What happens once a run's stream has ended: see [`Host::on_stream_end`].
pub type StreamEnd = Arc<dyn Fn(String, String) + Send + Sync>;

impl Host {
    pub fn new(store: Arc<dyn Store>, live: Live, timeouts: AgentTimeouts) -> Arc<Self> {
        let http = reqwest::Client::builder()
            .connect_timeout(timeouts.connect)
            .build()
            .unwrap_or_else(|error| {
                tracing::error!(%error, "cannot configure the HTTP client; using the defaults");
                reqwest::Client::new()
            });
        Arc::new(Self {
            recorder: Recorder::new(store.clone(), live.clone()),
            store,
            live,
            http,
            timeouts,
            streaming: Mutex::new(HashMap::new()),
            stream_end: std::sync::OnceLock::new(),
            vault: std::sync::OnceLock::new(),
        })
    }

    /// Stores events (and the raw upstream ones they came from), then publishes them.
    pub async fn record(
        &self,
        tenant_id: &str,
        run_id: &str,
        upstream: &[UpstreamEvent],
        drafts: Vec<EventDraft>,
    ) -> Result<(), StoreError> {
        self.recorder
            .record(tenant_id, run_id, upstream, drafts)
            .await
    }

    /// Returns once every event handed over before this call is stored.
    pub async fn flushed(&self) -> Result<(), StoreError> {
        self.recorder.flushed().await
    }

    /// Sets what is done when a run's stream ends by itself (not when it is stopped); the
    /// first one set stays.
    pub fn on_stream_end(&self, hook: StreamEnd) {
        let _ = self.stream_end.set(hook);
    }

    /// Sets the passvault agents' per-tenant credentials come from; the first one stays.
    pub fn use_vault(&self, vault: Arc<crate::vault::Vault>) {
        let _ = self.vault.set(vault);
    }

    /// The tenant's passvault value for environment variable `env_var`, for agent
    /// `agent`; none when the tenant keeps none (or no passvault is set).
    pub async fn tenant_secret(
        &self,
        tenant_id: &str,
        env_var: &str,
        agent: &str,
    ) -> Result<Option<app::model::passvault::SecretText>, ApiError> {
        match self.vault.get() {
            Some(vault) => {
                vault
                    .value_for_variable(tenant_id, env_var, &format!("agent {agent}"))
                    .await
            }
            None => Ok(None),
        }
    }

    /// Runs `task` as run `run_id`'s stream until it ends or the run is stopped.
    pub fn stream<F>(self: &Arc<Self>, tenant_id: &str, run_id: &str, task: F)
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        let host = Arc::clone(self);
        let (tenant, key) = (tenant_id.to_owned(), run_id.to_owned());
        // Spawned under the lock, so a stream that ends at once forgets itself only after
        // it was noted.
        let mut streaming = self
            .streaming
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let handle = tokio::spawn(async move {
            task.await;
            host.forget_stream(&key);
            if let Some(hook) = host.stream_end.get() {
                hook(tenant, key);
            }
        });
        streaming.insert(run_id.to_owned(), handle);
    }

    fn forget_stream(&self, run_id: &str) {
        if let Ok(mut streaming) = self.streaming.lock() {
            streaming.remove(run_id);
        }
    }

    /// Drops run `run_id`'s stream, if it has one (the agent sees its connection close),
    /// and returns once its task is gone: a task in the middle of a step on another
    /// thread finishes that step first, so nothing it read is handed over afterwards.
    pub async fn stop_stream(&self, run_id: &str) -> bool {
        let handle = self
            .streaming
            .lock()
            .ok()
            .and_then(|mut streaming| streaming.remove(run_id));
        let Some(handle) = handle else {
            return false;
        };
        handle.abort();
        // Cancelled is the expected outcome; a panic in the stream was logged where it
        // happened.
        let _ = handle.await;
        true
    }

    /// The views of a thread's runs so far, oldest first.
    pub async fn thread_views(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Vec<RunView>, StoreError> {
        let mut views = Vec::new();
        for run in self.store.list_runs(tenant_id, thread_id).await? {
            let events = self.store.events(tenant_id, &run.id, 0, None).await?;
            views.push(RunView::from_events(ViewPolicy::default(), &events));
        }
        Ok(views)
    }
}

/// One thing the agent is given besides the conversation: AG-UI's `{description, value}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextEntry {
    pub description: String,
    pub value: String,
}

/// What the console gives the agent with a run besides the conversation (pinned notes
/// and memory), for the agent and for the record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GivenContext {
    pub entries: Vec<ContextEntry>,
    pub items: Vec<app::protocol::channel::GivenItem>,
}

impl GivenContext {
    /// Each entry as a `## description` section, its value passed through `value`; `None`
    /// when nothing is given.
    pub fn sections(&self, value: impl Fn(&str) -> String) -> Option<String> {
        if self.entries.is_empty() {
            return None;
        }
        let mut text = String::new();
        for entry in &self.entries {
            text.push_str(&format!(
                "\n## {}\n{}\n",
                entry.description,
                value(&entry.value)
            ));
        }
        Some(text)
    }

    /// AG-UI `RunAgentInput.context`.
    pub fn agui(&self) -> Value {
        Value::Array(
            self.entries
                .iter()
                .map(|entry| serde_json::json!({"description": entry.description, "value": entry.value}))
                .collect(),
        )
    }
}

/// A user message to turn into a run.
#[derive(Clone, Debug)]
pub struct Turn {
    pub tenant_id: String,
    pub thread_id: String,
    pub run_id: String,
    pub message_id: String,
    pub text: String,
    /// What the run is given besides the conversation.
    pub context: GivenContext,
}

impl Turn {
    /// The turn as the conversation's next entry (an AG-UI user message).
    pub fn as_message(&self) -> Value {
        serde_json::json!({ "id": self.message_id, "role": "user", "content": self.text })
    }

    /// The event a turn's run begins with: the user's message.
    pub fn user_message(&self) -> EventDraft {
        EventDraft::new(
            app::protocol::channel::EventBody::UserMessage {
                message_id: self.message_id.clone(),
                text: self.text.clone(),
            },
            Some(crate::clock::now_ms()),
            None,
        )
    }
}

/// A paused run whose asks are all closed, with the answer to each (by ask id).
pub struct Paused {
    pub run: RunRecord,
    pub asks: Vec<AskRecord>,
    pub answers: BTreeMap<String, ValidatedAnswer>,
    /// The id of the run that carries the answers.
    pub next_run_id: String,
    /// What the run that carries the answers is given besides the conversation.
    pub context: GivenContext,
    /// A message the operator sent instead of answering the rest: the run that carries
    /// the answers (those left unanswered cancelled) carries it too, after the answers.
    pub message: Option<Turn>,
}

/// A run's request, ready to send.
pub struct Prepared {
    /// What goes to the agent; may carry a secret.
    pub input: Value,
    /// What the store keeps of it: `input` with any secret replaced.
    pub recorded: Value,
    /// Events the run begins with (the user's message, a note on the answers).
    pub first: Vec<EventDraft>,
}

/// A run the store has created, for the connector to send.
pub struct Launch {
    pub tenant_id: String,
    pub thread_id: String,
    pub run_id: String,
    pub input: Value,
    pub options: RunOptions,
}

/// Options of a new run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Decline the protocol diagnosis: apply every event as it comes.
    pub skip_verification: bool,
}

/// How answers reach an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnswerRoute {
    /// Each answer is sent as it is given (Hermes: a reply per request).
    EachAsk,
    /// A paused run's answers all go together in one follow-up run (AG-UI resume).
    OneResumeRun,
}

#[async_trait::async_trait]
pub trait Connector: Send + Sync + 'static {
    /// The name operators and threads use for this agent.
    fn name(&self) -> &str;
    /// How the console reaches it, with no credential in it.
    fn environment(&self) -> AgentEnvironment;
    /// What to try with the agent, offered on a new thread.
    fn suggestions(&self) -> Vec<Starter> {
        Vec::new()
    }
    fn answer_route(&self) -> AnswerRoute;
    /// The request for a user message, from the thread so far.
    async fn prepare_turn(&self, host: &Arc<Host>, turn: &Turn) -> Result<Prepared, ApiError>;
    /// The request that carries a paused run's answers ([`AnswerRoute::OneResumeRun`]).
    async fn prepare_resume(
        &self,
        _host: &Arc<Host>,
        paused: &Paused,
    ) -> Result<Prepared, ApiError> {
        Err(ApiError::Conflict(format!(
            "agent {:?} does not resume runs (run {:?})",
            self.name(),
            paused.run.id
        )))
    }
    /// The request that carries an operator's action on one of the agent's A2UI surfaces
    /// (already checked against the surface) as turn `turn`, whose text is empty.
    async fn prepare_surface_action(
        &self,
        _host: &Arc<Host>,
        _turn: &Turn,
        _action: &UserAction,
    ) -> Result<Prepared, ApiError> {
        Err(ApiError::Conflict(format!(
            "agent {:?} does not take actions on A2UI surfaces",
            self.name()
        )))
    }
    /// Sends a run the store has created; the agent's events reach the store through
    /// `host`. An error is the reason the run failed to start.
    async fn launch(&self, host: &Arc<Host>, launch: Launch) -> Result<(), String>;
    /// Sends one accepted answer ([`AnswerRoute::EachAsk`]).
    async fn answer(
        &self,
        _host: &Arc<Host>,
        _record: &AskRecord,
        _answer: ValidatedAnswer,
    ) -> Result<(), String> {
        Err(format!(
            "agent {:?} takes answers only by resuming",
            self.name()
        ))
    }
    /// Asks the agent to stop run `run`; true when the agent ended (and recorded) it.
    async fn cancel(&self, _host: &Arc<Host>, _run: &RunRecord) -> bool {
        false
    }
    /// The agent's own scheduler, when it keeps one (a Hermes gateway's `cron.manage`).
    fn own_jobs(&self) -> Option<&dyn OwnJobs> {
        None
    }
}

/// An agent's own scheduled jobs, kept by the agent rather than the console.
#[async_trait::async_trait]
pub trait OwnJobs: Send + Sync {
    /// One scheduler serves every tenant (so its jobs are every tenant's).
    fn shared(&self) -> bool;
    /// Sends one call for `tenant`; the agent's answer, or why there is none.
    async fn call(
        &self,
        host: &Arc<Host>,
        tenant: &str,
        call: &app::protocol::hermes::cron::CronCall,
    ) -> Result<serde_json::Value, String>;
}

/// The configured agents; the first is the default for new threads.
#[derive(Clone, Default)]
pub struct Connectors {
    list: Vec<Arc<dyn Connector>>,
}

impl Connectors {
    pub fn new(list: Vec<Arc<dyn Connector>>) -> Self {
        Self { list }
    }

    pub fn get(&self, name: &str) -> Option<&Arc<dyn Connector>> {
        self.list.iter().find(|agent| agent.name() == name)
    }

    pub fn default_agent(&self) -> Option<&Arc<dyn Connector>> {
        self.list.first()
    }

    /// Refuses an agent that is not configured, naming those that are; `field` is the
    /// request field that named it.
    pub fn check(&self, field: &str, name: &str) -> Result<(), ApiError> {
        if self.get(name).is_some() {
            return Ok(());
        }
        Err(ApiError::BadRequest(format!(
            "{field}: {name:?} is not configured; configured: {}",
            self.names().join(", ")
        )))
    }

    pub fn names(&self) -> Vec<String> {
        self.list
            .iter()
            .map(|agent| agent.name().to_owned())
            .collect()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Connector>> {
        self.list.iter()
    }
}

/// An agent's own tools, then each of the console's that the agent has none of the name of.
pub fn with_console_tools(own: &[Value], console: impl IntoIterator<Item = Value>) -> Vec<Value> {
    let mut tools = own.to_vec();
    for tool in console {
        if !own.iter().any(|mine| mine.get("name") == tool.get("name")) {
            tools.push(tool);
        }
    }
    tools
}

/// The names of `tools`, in order.
pub fn tool_names(tools: &[Value]) -> Vec<String> {
    tools
        .iter()
        .filter_map(|tool| tool.get("name")?.as_str().map(str::to_owned))
        .collect()
}

/// Reads a tools file: a JSON array of `{name, description, parameters}`.
pub fn read_tools(path: &std::path::Path) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read tools file {}: {error}", path.display()))?;
    parse_tools(&text).map_err(|error| format!("tools file {}: {error}", path.display()))
}

pub fn parse_tools(text: &str) -> Result<Vec<Value>, String> {
    let tools: Vec<Value> = serde_json::from_str(text)
        .map_err(|error| format!("not a JSON array of tools: {error}"))?;
    for (position, tool) in tools.iter().enumerate() {
        // A tool of another type (a Responses `mcp` server, say) is named its own way.
        let function = tool
            .get("type")
            .and_then(Value::as_str)
            .is_none_or(|kind| kind == "function");
        if function && tool.get("name").and_then(Value::as_str).is_none() {
            return Err(format!("tool {position} has no `name`"));
        }
    }
    Ok(tools)
}
