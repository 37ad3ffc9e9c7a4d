//! The OpenAI-compatible connector: a run is one streamed `POST /responses` or
//! `/chat/completions` carrying the thread's conversation. The model's function calls
//! become asks (the console runs its own tools, the operator answers the rest) and their
//! results go back in a follow-up run, until the model stops calling; a Responses MCP
//! approval request is answered the same way. A runtime whose bootstrap document offers
//! AG-UI is spoken to over AG-UI instead, as long as its runs start.

pub(crate) mod bootstrap;
mod continuation;
mod ksadk;
mod negotiate;
mod runtime;
mod spec;

use std::sync::Arc;

use app::error::ApiError;
use app::model::passvault::SecretText;
use app::model::{AgentEnvironment, Starter};
use app::projection::history::messages_from_views;
use app::protocol::ask::AskOrigin;
use app::protocol::channel::{EventBody, EventDraft, Level};
use app::protocol::openai::request::{ApprovalAnswer, Conversation, chat_body, responses_body};
use app::protocol::openai::{OpenAiApi, OpenAiNormalizer};
use app::workspace_tools::definitions;
use serde_json::Value;

pub use negotiate::Negotiation;
pub use spec::{ApiChoice, ApiKey, OpenAiSpec};

use super::sse_stream::{self, SendError, StreamRequest};
use super::{
    AnswerRoute, Connector, GivenContext, Host, Launch, Paused, Prepared, Turn, tool_names,
    with_console_tools,
};
use crate::clock::now_ms;

/// How often a busy endpoint (429, 5xx) is tried again before a run gives up.
const RETRIES: u32 = 3;

pub struct OpenAiConnector {
    inner: Arc<Inner>,
    suggestions: Vec<Starter>,
}

struct Inner {
    spec: OpenAiSpec,
    /// Sent as a bearer token; never in an event, a log line or a response.
    key: ApiKey,
    /// What the model is offered: the configured tools, the console's own, the workspace
    /// tools and the catalog components the operator answers.
    tools: Vec<Value>,
    negotiation: Negotiation,
    /// What the runtime's bootstrap document offers (read on first use).
    runtime: runtime::Runtime,
}

impl OpenAiConnector {
    /// An agent from its spec and where its API key comes from.
    pub fn new(spec: OpenAiSpec, key: ApiKey, tools: Vec<Value>) -> Self {
        let tools = with_console_tools(
            &tools,
            app::console_tools::definitions()
                .into_iter()
                .chain(definitions())
                .chain(app::catalog::answer_tool_definitions()),
        );
        let negotiation = Negotiation::new(spec.api, spec.model.clone());
        // An operator who named the API asked for it: no bootstrap document is read. Nor
        // with a key per tenant: the runtime's AG-UI side is one for every tenant, and one
        // tenant's key must never carry another's runs.
        let per_tenant = matches!(key, ApiKey::Passvault(_));
        let runtime = runtime::Runtime::new(spec.api == ApiChoice::Negotiate && !per_tenant);
        Self {
            inner: Arc::new(Inner {
                spec,
                key,
                tools,
                negotiation,
                runtime,
            }),
            suggestions: Vec::new(),
        }
    }

    pub fn with_suggestions(mut self, suggestions: Vec<Starter>) -> Self {
        self.suggestions = suggestions;
        self
    }
}

/// The system text carrying what the run is given besides the conversation.
fn instructions(context: &GivenContext) -> Option<String> {
    context.sections(str::to_owned).map(|sections| {
        format!("Context from the operator's workspace, for reference:\n{sections}")
    })
}

/// A note from the console at the start of a run.
pub(super) fn console_notice(text: String) -> EventDraft {
    EventDraft::new(
        EventBody::Notice {
            level: Level::Info,
            text,
            source: "console".into(),
        },
        Some(now_ms()),
        None,
    )
}

fn prepared(conversation: &Conversation, first: Vec<EventDraft>) -> Prepared {
    let input = serde_json::to_value(conversation).unwrap_or(Value::Null);
    Prepared {
        recorded: input.clone(),
        input,
        first,
    }
}

/// The operator's answers to the paused run's MCP approval requests.
fn approval_answers(paused: &Paused) -> Vec<ApprovalAnswer> {
    paused
        .asks
        .iter()
        .filter_map(|record| {
            let AskOrigin::OpenAiApproval {
                approval_request_id,
                ksadk: None,
            } = &record.ask.origin
            else {
                return None;
            };
            let answer = paused.answers.get(&record.ask.id)?;
            let tool = record.ask.tool.as_ref();
            Some(ApprovalAnswer {
                request_id: approval_request_id.clone(),
                server_label: record
                    .ask
                    .metadata
                    .iter()
                    .find(|(key, _)| key == "server")
                    .map(|(_, value)| value.clone()),
                name: tool.map_or_else(|| "tool".to_owned(), |tool| tool.name.clone()),
                arguments: tool.map_or_else(
                    || "{}".to_owned(),
                    |tool| match &tool.arguments {
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    },
                ),
                approve: approves(&answer.action),
            })
        })
        .collect()
}

/// Whether an approval's answer lets the call go ahead.
fn approves(action: &str) -> bool {
    matches!(action, "once" | "session" | "always" | "approve" | "allow")
}

#[async_trait::async_trait]
impl Connector for OpenAiConnector {
    fn name(&self) -> &str {
        &self.inner.spec.name
    }

    fn environment(&self) -> AgentEnvironment {
        let (protocol, because) = self
            .inner
            .runtime
            .shown(self.inner.negotiation.shown(), self.inner.negotiation.api());
        AgentEnvironment {
            agent: self.inner.spec.name.clone(),
            protocol,
            transport: "HTTP + SSE".into(),
            endpoint: self.inner.negotiation.shown_base(&self.inner.spec),
            tools: tool_names(&self.inner.tools),
            chosen_because: Some(because),
        }
    }

    fn suggestions(&self) -> Vec<Starter> {
        self.suggestions.clone()
    }

    fn answer_route(&self) -> AnswerRoute {
        AnswerRoute::OneResumeRun
    }

    async fn prepare_turn(&self, host: &Arc<Host>, turn: &Turn) -> Result<Prepared, ApiError> {
        let agui = self.inner.agui(host).await;
        if self.inner.runtime.is_ksadk() {
            let runs = host
                .store
                .list_runs(&turn.tenant_id, &turn.thread_id)
                .await?;
            let history = match agui {
                Some(_) => Vec::new(),
                None => {
                    let views = host.thread_views(&turn.tenant_id, &turn.thread_id).await?;
                    messages_from_views(&views, Some(&turn.message_id))
                }
            };
            if let Some((conversation, first)) =
                ksadk::session_turn(&runs, turn, agui.is_some(), history)
            {
                return Ok(prepared(&conversation, first));
            }
        }
        if let Some(agui) = agui {
            return agui.prepare_turn(host, turn).await;
        }
        let views = host.thread_views(&turn.tenant_id, &turn.thread_id).await?;
        let mut messages = messages_from_views(&views, Some(&turn.message_id));
        messages.push(turn.as_message());
        let conversation = Conversation {
            messages,
            instructions: instructions(&turn.context),
            ..Conversation::default()
        };
        Ok(prepared(&conversation, vec![turn.user_message()]))
    }

    async fn prepare_resume(
        &self,
        host: &Arc<Host>,
        paused: &Paused,
    ) -> Result<Prepared, ApiError> {
        if runtime::sent_over_agui(&paused.run.input) {
            let agui = self.inner.agui(host).await;
            // KsADK's interrupts are answered on its Responses API even when its AG-UI
            // side has since refused a run.
            if self.inner.runtime.is_ksadk()
                && let Some(conversation) = ksadk::resume_agui(paused)?
            {
                let said = format!(
                    "KsADK cannot resume an interrupt over AG-UI (its resume ends in RUN_ERROR \"Runtime execution failed\"): the answer goes once to its Responses API, in session {}, which holds the same interrupt",
                    conversation.session_id.as_deref().unwrap_or_default()
                );
                return Ok(prepared(&conversation, ksadk::first_events(paused, said)));
            }
            if let Some(agui) = agui {
                return agui.prepare_resume(host, paused).await;
            }
        }
        if let Some(conversation) = ksadk::resume(paused)? {
            let said = "Answering the runtime's approvals in its session (KsADK's own resume form, sent once)";
            return Ok(prepared(
                &conversation,
                ksadk::first_events(paused, said.into()),
            ));
        }
        let views = host
            .thread_views(&paused.run.tenant_id, &paused.run.thread_id)
            .await?;
        let approvals = approval_answers(paused);
        // Negotiated Chat Completions (after a failing Responses API, say) does not stop
        // them: a conversation with approvals is always asked with Responses, which
        // raised them. Only the configuration can rule that out for good.
        if !approvals.is_empty() && self.inner.spec.api == ApiChoice::Chat {
            return Err(ApiError::Conflict(format!(
                "agent {:?} is configured to speak Chat Completions (api=chat), which has no MCP approvals to answer",
                self.inner.spec.name
            )));
        }
        // A pause on MCP approvals alone, of a runtime whose document offers its own
        // resume form and that kept the paused response, is resumed in that form: the
        // response, continued. (A proxy may say it keeps responses and drop an unknown
        // one silently: only the runtime's word in its document is taken.)
        let approvals_only = !approvals.is_empty() && approvals.len() == paused.asks.len();
        let continues = approvals_only && {
            self.inner.agui(host).await;
            self.inner.runtime.continues_responses()
        };
        let previous_response_id = if continues {
            let upstream = host
                .store
                .upstream_events(
                    &paused.run.tenant_id,
                    &paused.run.id,
                    Some(continuation::KEPT_RESPONSE_WITHIN),
                )
                .await?;
            continuation::kept_response(&upstream)
        } else {
            None
        };
        let said = match &previous_response_id {
            Some(id) => format!(
                "Continuing the runtime's response {id} with the answers given (it keeps its responses)"
            ),
            None => "Continuing with the results and answers given".into(),
        };
        let mut first = Vec::new();
        first.extend(paused.message.as_ref().map(|turn| turn.user_message()));
        let conversation = Conversation {
            messages: messages_from_views(&views, None),
            instructions: instructions(&paused.context),
            approvals,
            follow_up: paused.message.as_ref().map(|turn| turn.text.clone()),
            previous_response_id,
            ..Conversation::default()
        };
        first.push(console_notice(said));
        Ok(prepared(&conversation, first))
    }

    async fn prepare_surface_action(
        &self,
        host: &Arc<Host>,
        turn: &Turn,
        action: &app::a2ui::action::UserAction,
    ) -> Result<Prepared, ApiError> {
        match self.inner.agui(host).await {
            Some(agui) => agui.prepare_surface_action(host, turn, action).await,
            None => Err(ApiError::Conflict(format!(
                "agent {:?} speaks the OpenAI APIs, which carry no actions on A2UI surfaces",
                self.inner.spec.name
            ))),
        }
    }

    async fn launch(&self, host: &Arc<Host>, launch: Launch) -> Result<(), String> {
        // A RunAgentInput goes to the runtime's AG-UI side; anything else is a conversation.
        let conversation = if runtime::sent_over_agui(&launch.input) {
            None
        } else {
            let mut conversation: Conversation = serde_json::from_value(launch.input.clone())
                .map_err(|error| format!("the run's input is not a conversation: {error}"))?;
            conversation.tools = self.inner.tools.clone();
            Some(conversation)
        };
        let (inner, streaming) = (Arc::clone(&self.inner), Arc::clone(host));
        let (tenant_id, run_id) = (launch.tenant_id.clone(), launch.run_id.clone());
        host.stream(&launch.tenant_id, &launch.run_id, async move {
            let outcome = match conversation {
                Some(conversation) => {
                    inner
                        .run(&streaming, &tenant_id, &run_id, &conversation)
                        .await
                }
                None => {
                    inner
                        .run_over_agui(
                            &streaming,
                            &tenant_id,
                            &run_id,
                            &launch.input,
                            launch.options,
                        )
                        .await
                }
            };
            if let Err(message) = outcome {
                sse_stream::fail(
                    &streaming,
                    &tenant_id,
                    &run_id,
                    message,
                    "agent_unreachable",
                )
                .await;
            }
        });
        Ok(())
    }
}

impl Inner {
    /// Sends a RunAgentInput to the runtime's AG-UI side; if it does not start there
    /// (nothing began on the runtime's side), the OpenAI APIs carry the run.
    async fn run_over_agui(
        &self,
        host: &Host,
        tenant_id: &str,
        run_id: &str,
        input: &Value,
        options: super::RunOptions,
    ) -> Result<(), String> {
        match self
            .runtime
            .send(host, tenant_id, run_id, input, options)
            .await
        {
            runtime::Sent::Read(outcome) => outcome,
            runtime::Sent::Refused(refused) => {
                let mut conversation = runtime::conversation_of_run_input(input);
                conversation.tools = self.tools.clone();
                self.say(host, tenant_id, run_id, refused).await?;
                self.run(host, tenant_id, run_id, &conversation).await
            }
        }
    }

    /// The runtime's AG-UI side, when its bootstrap document offers one that works.
    async fn agui(&self, host: &Host) -> Option<Arc<super::agui::AgUiConnector>> {
        let key = match &self.key {
            ApiKey::Fixed(key) => Some(key.as_str()),
            ApiKey::None | ApiKey::Passvault(_) => None,
        };
        self.runtime.agui(host, &self.spec, key, &self.tools).await
    }

    /// The key a run of `tenant_id` sends: the configured one, or the tenant's passvault
    /// entry for the variable, said in words when there is none.
    async fn key_for(&self, host: &Host, tenant_id: &str) -> Result<Option<SecretText>, String> {
        match &self.key {
            ApiKey::None => Ok(None),
            ApiKey::Fixed(key) => Ok(Some(SecretText::new(key.clone()))),
            ApiKey::Passvault(var) => {
                match host.tenant_secret(tenant_id, var, &self.spec.name).await {
                    Ok(Some(key)) => Ok(Some(key)),
                    Ok(None) => Err(format!(
                        "no API key for this agent: the server's environment does not set {var} \
                     (api_key_env) and this tenant's passvault has no entry for {var}; an \
                     owner can add one in the Passvault"
                    )),
                    Err(error) => Err(format!(
                        "the API key could not be read from the passvault: {error}"
                    )),
                }
            }
        }
    }

    /// A note in the run.
    async fn say(
        &self,
        host: &Host,
        tenant_id: &str,
        run_id: &str,
        text: String,
    ) -> Result<(), String> {
        host.record(tenant_id, run_id, &[], vec![console_notice(text)])
            .await
            .map_err(|error| format!("the run could not be stored: {error}"))
    }

    /// A request tried again when the endpoint is busy — except KsADK's: a POST there
    /// starts the agent's work (its tools among it), which a retry would start twice.
    fn request<'a>(
        &self,
        url: &'a str,
        body: &'a Value,
        bearer: Option<&'a str>,
    ) -> StreamRequest<'a> {
        StreamRequest {
            url,
            body,
            bearer,
            retries: if self.runtime.is_ksadk() { 0 } else { RETRIES },
        }
    }

    /// Sends the conversation in the API the endpoint speaks (finding out which on the
    /// first run) and reads the answer into the store.
    async fn run(
        &self,
        host: &Host,
        tenant_id: &str,
        run_id: &str,
        conversation: &Conversation,
    ) -> Result<(), String> {
        let key = self.key_for(host, tenant_id).await?;
        let bearer = key.as_ref().map(SecretText::expose);
        let (base, note) = self.negotiation.base(host, &self.spec, bearer).await;
        if let Some(note) = note {
            self.say(host, tenant_id, run_id, note).await?;
        }
        let base = base.as_str();
        let model = self
            .negotiation
            .model(host, &self.spec, base, bearer)
            .await?;
        if !conversation.ksadk_resumes.is_empty() {
            let url = endpoint(base, OpenAiApi::Responses);
            return ksadk::answer(host, tenant_id, run_id, &url, &model, conversation, bearer)
                .await;
        }
        // Approvals' answers exist only in the Responses API, which raised them.
        let approvals = !conversation.approvals.is_empty();
        let mut api = if approvals {
            OpenAiApi::Responses
        } else {
            self.negotiation.api().unwrap_or(OpenAiApi::Responses)
        };
        let mut body = responses_or_chat(api, &model, conversation);
        let mut url = endpoint(base, api);
        let mut sent = sse_stream::send(host, &self.request(&url, &body, bearer)).await;
        if let (Some(previous), Err(SendError::Status { status, detail })) =
            (&conversation.previous_response_id, &sent)
            && continuation::refused(*status)
        {
            self.say(
                host,
                tenant_id,
                run_id,
                format!(
                    "The runtime did not continue response {previous} (it answered {status}: {detail}); the whole conversation is sent instead"
                ),
            )
            .await?;
            body = responses_or_chat(api, &model, &conversation.whole());
            sent = sse_stream::send(host, &self.request(&url, &body, bearer)).await;
        }
        if self.negotiation.api().is_none() && !approvals {
            match &sent {
                Err(SendError::Status { status, .. }) if matches!(status, 404 | 405 | 501) => {
                    self.negotiation.settle(
                        OpenAiApi::Chat,
                        format!("the endpoint has no Responses API (POST /responses answered {status}); it is asked with Chat Completions"),
                    );
                    api = OpenAiApi::Chat;
                    body = responses_or_chat(api, &model, conversation);
                    url = endpoint(base, api);
                    sent = sse_stream::send(host, &self.request(&url, &body, bearer)).await;
                }
                // A proxy may route /responses yet fail it for a model it only serves
                // through Chat Completions: Chat is tried once before the run fails.
                Err(SendError::Status { status, .. }) if *status >= 500 => {
                    let failed = *status;
                    let chat_body = responses_or_chat(OpenAiApi::Chat, &model, conversation);
                    let chat_url = endpoint(base, OpenAiApi::Chat);
                    let chat =
                        sse_stream::send(host, &self.request(&chat_url, &chat_body, bearer)).await;
                    if chat.is_ok() {
                        self.negotiation.settle(
                            OpenAiApi::Chat,
                            format!("the endpoint's Responses API failed (POST /responses answered {failed} on every try) and Chat Completions answered; it is asked with Chat Completions"),
                        );
                        (api, url, sent) = (OpenAiApi::Chat, chat_url, chat);
                    }
                }
                Ok(_) => self.negotiation.settle(
                    OpenAiApi::Responses,
                    "the endpoint answers the Responses API, which the console prefers".into(),
                ),
                Err(_) => {}
            }
            if sent.is_ok() {
                let (protocol, because) = self.negotiation.shown();
                self.say(
                    host,
                    tenant_id,
                    run_id,
                    format!("Speaking {protocol}: {because}"),
                )
                .await?;
            }
        }
        let response = sent.map_err(|error| negotiate::worded(error, api, bearer.is_some()))?;
        let mut normalizer = OpenAiNormalizer::new(api)
            .in_session(conversation.session_id.clone())
            .for_user(conversation.user.clone());
        sse_stream::read(host, tenant_id, run_id, &url, response, &mut normalizer).await
    }
}

fn endpoint(base: &str, api: OpenAiApi) -> String {
    match api {
        OpenAiApi::Responses => format!("{base}/responses"),
        OpenAiApi::Chat => format!("{base}/chat/completions"),
    }
}

fn responses_or_chat(api: OpenAiApi, model: &str, conversation: &Conversation) -> Value {
    match api {
        OpenAiApi::Responses => responses_body(model, conversation),
        OpenAiApi::Chat => chat_body(model, conversation),
    }
}
