//! The AG-UI connector: a run is one POST of RunAgentInput to the agent's URL, answered
//! with Server-Sent Events; a paused run's answers go back in one follow-up run.

mod resume;
pub(crate) mod stream;

use std::sync::Arc;

use app::a2ui::action::UserAction;
use app::error::ApiError;
use app::model::{AgentEnvironment, Starter};
use app::projection::history::{latest_state, messages_from_views};
use app::protocol::channel::{EventBody, EventDraft};
use app::workspace_tools::definitions;
use serde_json::{Value, json};

use super::{
    AnswerRoute, Connector, GivenContext, Host, Launch, Paused, Prepared, Turn, tool_names,
    url_without_credentials, with_console_tools,
};

pub struct AgUiConnector {
    name: String,
    url: String,
    /// What the console offers the agent to call back (AG-UI has no tool discovery).
    tools: Vec<Value>,
    suggestions: Vec<Starter>,
    /// Sent as `Authorization: Bearer …` with each run.
    bearer: Option<String>,
}

impl AgUiConnector {
    pub fn new(name: &str, url: &str, tools: Vec<Value>, suggestions: Vec<Starter>) -> Self {
        Self {
            name: name.to_owned(),
            url: url.to_owned(),
            tools,
            suggestions,
            bearer: None,
        }
    }

    /// The connector sending `bearer` as its key.
    pub fn with_bearer(mut self, bearer: Option<String>) -> Self {
        self.bearer = bearer;
        self
    }

    /// The tools configured for the agent, then the console's workspace tools and the
    /// catalog components the operator answers.
    fn offered_tools(&self) -> Vec<Value> {
        with_console_tools(
            &self.tools,
            definitions()
                .into_iter()
                .chain(app::catalog::answer_tool_definitions()),
        )
    }

    /// The RunAgentInput of run `run_id`, carrying the conversation and state so far.
    fn run_input(
        &self,
        thread_id: &str,
        run_id: &str,
        parent_run_id: Option<&str>,
        messages: Vec<Value>,
        state: Value,
        context: &GivenContext,
    ) -> Value {
        let mut input = json!({
            "threadId": thread_id,
            "runId": run_id,
            "protocolVersion": "1.0",
            "messages": messages,
            "state": state,
            "tools": self.offered_tools(),
            "context": context.agui(),
            "forwardedProps": {},
        });
        if let Some(parent) = parent_run_id {
            input["parentRunId"] = json!(parent);
        }
        input
    }
}

#[async_trait::async_trait]
impl Connector for AgUiConnector {
    fn name(&self) -> &str {
        &self.name
    }

    fn environment(&self) -> AgentEnvironment {
        AgentEnvironment {
            agent: self.name.clone(),
            protocol: "AG-UI".into(),
            transport: "HTTP + SSE".into(),
            endpoint: url_without_credentials(&self.url),
            tools: tool_names(&self.offered_tools()),
            chosen_because: None,
        }
    }

    fn suggestions(&self) -> Vec<Starter> {
        self.suggestions.clone()
    }

    fn answer_route(&self) -> AnswerRoute {
        AnswerRoute::OneResumeRun
    }

    async fn prepare_turn(&self, host: &Arc<Host>, turn: &Turn) -> Result<Prepared, ApiError> {
        let views = host.thread_views(&turn.tenant_id, &turn.thread_id).await?;
        let mut messages = messages_from_views(&views, Some(&turn.message_id));
        messages.push(turn.as_message());
        let input = self.run_input(
            &turn.thread_id,
            &turn.run_id,
            None,
            messages,
            latest_state(&views),
            &turn.context,
        );
        Ok(Prepared {
            recorded: input.clone(),
            input,
            first: vec![turn.user_message()],
        })
    }

    async fn prepare_surface_action(
        &self,
        host: &Arc<Host>,
        turn: &Turn,
        action: &UserAction,
    ) -> Result<Prepared, ApiError> {
        let views = host.thread_views(&turn.tenant_id, &turn.thread_id).await?;
        let mut input = self.run_input(
            &turn.thread_id,
            &turn.run_id,
            None,
            messages_from_views(&views, None),
            latest_state(&views),
            &turn.context,
        );
        input["forwardedProps"] = action.forwarded_props();
        let first = EventDraft::new(
            EventBody::SurfaceAction {
                action: action.clone(),
            },
            Some(crate::clock::now_ms()),
            None,
        );
        Ok(Prepared {
            recorded: input.clone(),
            input,
            first: vec![first],
        })
    }

    async fn prepare_resume(
        &self,
        host: &Arc<Host>,
        paused: &Paused,
    ) -> Result<Prepared, ApiError> {
        let views = host
            .thread_views(&paused.run.tenant_id, &paused.run.thread_id)
            .await?;
        let mut messages = messages_from_views(&views, None);
        messages.extend(paused.message.as_ref().map(Turn::as_message));
        let input = self.run_input(
            &paused.run.thread_id,
            &paused.next_run_id,
            Some(&paused.run.id),
            messages,
            latest_state(&views),
            &paused.context,
        );
        let mut prepared = resume::with_answers(input, paused)?;
        if let Some(turn) = &paused.message {
            prepared.first.insert(0, turn.user_message());
        }
        Ok(prepared)
    }

    async fn launch(&self, host: &Arc<Host>, launch: Launch) -> Result<(), String> {
        let streaming = Arc::clone(host);
        let (url, bearer) = (self.url.clone(), self.bearer.clone());
        let (tenant_id, run_id) = (launch.tenant_id.clone(), launch.run_id.clone());
        host.stream(&launch.tenant_id, &launch.run_id, async move {
            stream::drive(
                &streaming,
                &tenant_id,
                &run_id,
                (&url, bearer.as_deref()),
                launch.input,
                launch.options,
            )
            .await;
        });
        Ok(())
    }
}
