//! Starting runs: a user message (or the last one, sent again) becomes a run of the
//! thread's agent (bound on first use); the store creates the run and its first events
//! before the connector sends it.

use std::sync::Arc;

use app::error::ApiError;
use app::projection::history::user_message;
use app::protocol::channel::{EventBody, EventDraft};
use app::protocol::status::RunStatus;

use super::Runs;
use super::claims::Claim;
use crate::clock::now_ms;
use crate::connectors::{AnswerRoute, Connector, Launch, Prepared, RunOptions, Turn};
use crate::store::{NewRun, RunRecord};

impl Runs {
    /// The agent a thread talks to, binding the default one on first use.
    pub(super) async fn thread_agent(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Arc<dyn Connector>, ApiError> {
        let store = &self.host.store;
        if store.get_thread(tenant_id, thread_id).await?.is_none() {
            return Err(ApiError::NotFound(format!(
                "thread {thread_id:?} does not exist"
            )));
        }
        match store.thread_agent(tenant_id, thread_id).await? {
            Some(name) => self.connectors.get(&name).cloned().ok_or_else(|| {
                ApiError::Conflict(format!(
                    "thread {thread_id:?} is bound to agent {name:?}, which is not configured"
                ))
            }),
            None => {
                let agent = self.connectors.default_agent().cloned().ok_or_else(|| {
                    ApiError::Conflict(
                        "no agent is configured: start the server with --agent".into(),
                    )
                })?;
                store
                    .bind_thread_agent(tenant_id, thread_id, agent.name())
                    .await?;
                Ok(agent)
            }
        }
    }

    /// Binds the thread to `agent` while it has no runs; a start under way holds the
    /// thread, so the agent a first message is sent to is the one its run talks to.
    pub async fn bind_agent(
        &self,
        tenant_id: &str,
        thread_id: &str,
        agent: &str,
    ) -> Result<(), ApiError> {
        let keeps = || ApiError::Conflict("a thread keeps its agent once it has runs".into());
        let _starting = self
            .starting
            .claim(&thread_key(tenant_id, thread_id))
            .ok_or_else(keeps)?;
        if !self
            .host
            .store
            .list_runs(tenant_id, thread_id)
            .await?
            .is_empty()
        {
            return Err(keeps());
        }
        Ok(self
            .host
            .store
            .bind_thread_agent(tenant_id, thread_id, agent)
            .await?)
    }

    /// A user message: starts a run of the thread's agent carrying the thread so far (or,
    /// while its last run waits on asks, the run that resumes it with the answers given).
    /// Carried to its end even if the request goes away.
    pub async fn send_message(
        self: &Arc<Self>,
        tenant_id: &str,
        thread_id: &str,
        text: &str,
        options: RunOptions,
    ) -> Result<RunRecord, ApiError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(ApiError::BadRequest("the message is empty".into()));
        }
        let runs = Arc::clone(self);
        let (tenant_id, thread_id, text) =
            (tenant_id.to_owned(), thread_id.to_owned(), text.to_owned());
        to_the_end(async move {
            runs.start_message(&tenant_id, &thread_id, &text, options)
                .await
        })
        .await
    }

    async fn start_message(
        self: &Arc<Self>,
        tenant_id: &str,
        thread_id: &str,
        text: &str,
        options: RunOptions,
    ) -> Result<RunRecord, ApiError> {
        self.stop_turn_waiting_on_asks(tenant_id, thread_id).await?;
        let _starting = self.claim_thread(tenant_id, thread_id).await?;
        let waiting = self.waiting_run(tenant_id, thread_id).await?;
        let run_id = uuid::Uuid::new_v4().to_string();
        let turn = Turn {
            tenant_id: tenant_id.to_owned(),
            thread_id: thread_id.to_owned(),
            message_id: format!("user-{run_id}"),
            context: self.given_context(tenant_id, thread_id).await?,
            run_id,
            text: text.to_owned(),
        };
        let run = match waiting {
            Some(paused) => self.send_instead_of_answers(&paused, turn, options).await,
            None => self.start_turn(turn, options).await,
        }?;
        // Only a message the thread took is something it is found by; the run stands even
        // when its words cannot be indexed.
        if let Err(error) = self
            .host
            .store
            .add_thread_words(tenant_id, thread_id, text)
            .await
        {
            tracing::warn!(%error, run_id = %run.id, "a message's words could not be indexed for search");
        }
        Ok(run)
    }

    /// A message sent while the thread's turn is still running and waits on asks of an
    /// agent answered ask by ask (a Hermes gateway): the turn is stopped, as the gateway's
    /// own busy-input policy stops it (its asks released unanswered), and the message
    /// starts the next turn once that one has ended.
    async fn stop_turn_waiting_on_asks(
        self: &Arc<Self>,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<(), ApiError> {
        let runs = self.host.store.list_runs(tenant_id, thread_id).await?;
        let Some(last) = runs.last().filter(|run| run.status == RunStatus::Running) else {
            return Ok(());
        };
        let each_ask = self
            .connector_of(last)
            .is_ok_and(|agent| agent.answer_route() == AnswerRoute::EachAsk);
        let asks = self.host.store.run_asks(tenant_id, &last.id).await?;
        if !each_ask || !asks.iter().any(|record| record.ask.state.is_pending()) {
            return Ok(());
        }
        let stopped = self.cancel(tenant_id, &last.id).await;
        let deadline = std::time::Instant::now() + TURN_STOPS_WITHIN;
        loop {
            if self.get_run(tenant_id, &last.id).await?.status != RunStatus::Running {
                return Ok(());
            }
            stopped.as_ref().map_err(Clone::clone)?;
            if std::time::Instant::now() >= deadline {
                return Err(ApiError::Conflict(format!(
                    "the agent did not end its turn within {} s of being stopped for this message; the message was not sent",
                    TURN_STOPS_WITHIN.as_secs()
                )));
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    /// Sends the thread's last message again, as the same message, in place of the turn
    /// that answered it: the agent hears it once, without the reply it is asked to redo,
    /// and the timeline shows it once. `run_id` is any run of that last turn.
    pub async fn retry(
        self: &Arc<Self>,
        tenant_id: &str,
        run_id: &str,
        options: RunOptions,
    ) -> Result<RunRecord, ApiError> {
        let run = self.get_run(tenant_id, run_id).await?;
        let thread_id = run.thread_id.clone();
        let _starting = self.claim_thread(tenant_id, &thread_id).await?;
        self.refuse_if_waiting(tenant_id, &thread_id).await?;
        let records = self.host.store.list_runs(tenant_id, &thread_id).await?;
        let views = self.host.thread_views(tenant_id, &thread_id).await?;
        let last_turn = views.iter().zip(&records).rev().find_map(|(view, record)| {
            let (id, text) = user_message(view)?;
            Some((record.id.clone(), id.to_owned(), text.to_owned()))
        });
        let Some((turn_run, message_id, text)) = last_turn else {
            return Err(ApiError::Conflict(
                "this thread has no message to send again".into(),
            ));
        };
        let in_last_turn = records
            .iter()
            .skip_while(|record| record.id != turn_run)
            .any(|record| record.id == run_id);
        if !in_last_turn {
            return Err(ApiError::Conflict(format!(
                "run {run_id:?} is not the thread's last turn: only the last message can be sent again"
            )));
        }
        let turn = Turn {
            tenant_id: tenant_id.to_owned(),
            context: self.given_context(tenant_id, &thread_id).await?,
            thread_id,
            run_id: uuid::Uuid::new_v4().to_string(),
            message_id,
            text,
        };
        self.start_turn(turn, options).await
    }

    /// The right to start the thread's next run, held until that run exists: refused
    /// while another start is under way or a run is in progress, so two messages sent
    /// at once (a double click, two tabs) start one run.
    pub(super) async fn claim_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Claim<'_>, ApiError> {
        let claim = self
            .starting
            .claim(&thread_key(tenant_id, thread_id))
            .ok_or_else(|| busy(thread_id))?;
        let runs = self.host.store.list_runs(tenant_id, thread_id).await?;
        if runs.iter().any(|run| run.status == RunStatus::Running) {
            return Err(busy(thread_id));
        }
        Ok(claim)
    }

    /// The thread's last run when it waits on answers: paused on asks, or claimed for
    /// the follow-up that carries them and not yet followed. Refused (409) when the last
    /// run is running: a resume, which takes no thread claim, may have started since the
    /// claim was taken.
    pub(super) async fn waiting_run(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Option<RunRecord>, ApiError> {
        let last = self
            .host
            .store
            .list_runs(tenant_id, thread_id)
            .await?
            .into_iter()
            .last();
        match last {
            Some(run) if run.status == RunStatus::Running => Err(busy(thread_id)),
            Some(run) if matches!(run.status, RunStatus::Interrupted | RunStatus::Resumed) => {
                Ok(Some(run))
            }
            _ => Ok(None),
        }
    }

    /// Refuses what only a message may do in place of the answers a run waits on.
    pub(super) async fn refuse_if_waiting(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<(), ApiError> {
        match self.waiting_run(tenant_id, thread_id).await? {
            Some(run) => Err(ApiError::Conflict(format!(
                "run {:?} is waiting for answers: answer its asks, or send a new message in their place",
                run.id
            ))),
            None => Ok(()),
        }
    }

    pub(super) async fn start_turn(
        self: &Arc<Self>,
        turn: Turn,
        options: RunOptions,
    ) -> Result<RunRecord, ApiError> {
        let (tenant_id, thread_id) = (turn.tenant_id.as_str(), turn.thread_id.as_str());
        let agent = self.thread_agent(tenant_id, thread_id).await?;
        let mut prepared = agent.prepare_turn(&self.host, &turn).await?;
        prepared.first.extend(turn.context.event());
        // Titled once the message is taken, and before its run exists, so whoever hears
        // of the run (the inbox's running list) reads the thread by its title.
        if let Some(title) = app::thread_title::from_first_message(&turn.text) {
            self.host
                .store
                .title_from_first_message(tenant_id, thread_id, &title)
                .await?;
        }
        self.start(
            &agent,
            tenant_id,
            thread_id,
            &turn.run_id,
            prepared,
            options,
        )
        .await
    }

    /// Creates the run with what the store may keep of its request and its first events,
    /// then has the connector send it. A launch that fails fails the run, on record.
    pub(super) async fn start(
        &self,
        agent: &Arc<dyn Connector>,
        tenant_id: &str,
        thread_id: &str,
        run_id: &str,
        prepared: Prepared,
        options: RunOptions,
    ) -> Result<RunRecord, ApiError> {
        let run = self
            .host
            .store
            .create_run(&NewRun {
                id: run_id.to_owned(),
                tenant_id: tenant_id.to_owned(),
                thread_id: thread_id.to_owned(),
                agent: agent.name().to_owned(),
                input: prepared.recorded,
                created_at_ms: now_ms(),
            })
            .await?;
        self.host
            .record(tenant_id, run_id, &[], prepared.first)
            .await?;
        let launch = Launch {
            tenant_id: tenant_id.to_owned(),
            thread_id: thread_id.to_owned(),
            run_id: run_id.to_owned(),
            input: prepared.input,
            options,
        };
        if let Err(message) = agent.launch(&self.host, launch).await {
            let failed = EventDraft::new(
                EventBody::RunFailed {
                    message,
                    code: Some("launch_failed".into()),
                },
                Some(now_ms()),
                None,
            );
            self.host
                .record(tenant_id, run_id, &[], vec![failed])
                .await?;
        }
        Ok(run)
    }
}

/// How long a turn stopped for a message may take to end before the message is refused.
const TURN_STOPS_WITHIN: std::time::Duration = std::time::Duration::from_secs(10);

fn busy(thread_id: &str) -> ApiError {
    ApiError::Conflict(format!(
        "thread {thread_id:?} already has a run in progress; stop it or wait for it"
    ))
}

/// Runs `work` to its end even if the request that asked for it goes away (the client
/// disconnects and the server drops the request): a claimed resume or a closed ask is
/// never left half done.
pub(super) async fn to_the_end<T: Send + 'static>(
    work: impl std::future::Future<Output = Result<T, ApiError>> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::spawn(work).await.unwrap_or_else(|error| {
        tracing::error!(%error, "a run's change stopped before its end");
        Err(ApiError::Internal(
            "the change stopped before its end".into(),
        ))
    })
}

/// What a thread's start is claimed by.
fn thread_key(tenant_id: &str, thread_id: &str) -> String {
    format!("{tenant_id}/{thread_id}")
}
