//! Resuming a paused run: once every ask it raised is closed, exactly one caller claims
//! it and starts the follow-up run its connector prepares with all the answers. The
//! follow-up's id is derived from the paused run, so a retry after a crash finds the run
//! already started instead of starting a second one.

use std::collections::BTreeMap;
use std::sync::Arc;

use app::error::ApiError;
use app::protocol::ask::{AskState, Component};
use app::protocol::channel::{EventBody, EventDraft};
use app::protocol::receipts::{ValidatedAnswer, credential_field};
use app::protocol::status::RunStatus;

use super::{Runs, cancel_open};
use crate::clock::now_ms;
use crate::connectors::{Paused, RunOptions, Turn};
use crate::fault::{crash_point, fail_point};
use crate::store::{AskRecord, DeliveryOutcome, RunRecord};

/// The id of the run that carries run `paused`'s answers.
pub fn resume_run_id(paused: &str) -> String {
    format!("{paused}.resume")
}

/// Why an ask left open when a message was sent in place of its answer closed.
pub(super) const MESSAGE_INSTEAD: &str = "A new message was sent instead of an answer";

/// What the sweep after a restart tells the ask whose password was lost.
pub(super) const LOST_SECRET: &str = "The server restarted before this answer reached the agent, and a password or secret is \
     never stored: it must be entered again.";

impl Runs {
    /// Resumes run `run_id` if all its asks are closed. The caller holds the run's
    /// answering turn, as every claimant of a resume does until its follow-up exists or
    /// the claim is let go: a run found claimed is finished here (its follow-up started,
    /// or its deliveries settled), since whoever claimed it is gone (a crash, a dropped
    /// request).
    pub(super) async fn resume_when_answered(
        self: &Arc<Self>,
        tenant_id: &str,
        run_id: &str,
    ) -> Result<(), ApiError> {
        let store = &self.host.store;
        let asks = store.run_asks(tenant_id, run_id).await?;
        if asks.is_empty() || asks.iter().any(|record| record.ask.state.is_pending()) {
            return Ok(());
        }
        if !store.claim_resume(tenant_id, run_id).await?
            && self.get_run(tenant_id, run_id).await?.status != RunStatus::Resumed
        {
            return Ok(());
        }
        self.carry_answers(tenant_id, run_id, asks, None, RunOptions::default())
            .await
            .map(|_| ())
    }

    /// A message sent while the thread's last run waits on answers: the asks still open
    /// close as cancelled, and the follow-up that carries the answers given so far
    /// carries the message after them. The protocols want every open ask answered before
    /// the agent takes anything new (AG-UI's agents refuse other input meanwhile).
    pub(super) async fn send_instead_of_answers(
        self: &Arc<Self>,
        paused: &RunRecord,
        mut message: Turn,
        options: RunOptions,
    ) -> Result<RunRecord, ApiError> {
        let (tenant_id, run_id) = (paused.tenant_id.as_str(), paused.id.as_str());
        let own_turn = message.clone();
        // The message belongs to the run that carries it.
        message.run_id = resume_run_id(run_id);
        message.message_id = format!("user-{}", message.run_id);
        // In turn with the answers: one given just before is carried, one given just
        // after finds its ask closed.
        let _turn = self.answering.take(run_id).await;
        let store = &self.host.store;
        // Found claimed with no follow-up, it was left so by a claimant that is gone
        // (see `resume_when_answered`): the claim passes to this message.
        let claimed = store.claim_resume(tenant_id, run_id).await?
            || (self.get_run(tenant_id, run_id).await?.status == RunStatus::Resumed
                && store
                    .get_run(tenant_id, &resume_run_id(run_id))
                    .await?
                    .is_none());
        if !claimed {
            // Ended meanwhile (its pause given up), the run waits on nothing: the message
            // starts the thread's next turn.
            let status = self.get_run(tenant_id, run_id).await?.status;
            if matches!(
                status,
                RunStatus::Failed | RunStatus::Cancelled | RunStatus::Succeeded
            ) {
                return self.start_turn(own_turn, options).await;
            }
            return Err(ApiError::Conflict(format!(
                "run {run_id:?} is already resuming with the answers given; send the message once it has replied"
            )));
        }
        crash_point("after-message-claim");
        // The tools the tenant lets run freely are answered, not cancelled: the console
        // would have answered them itself had the message come a moment later.
        if let Err(error) = self.answer_free_tools_in_turn(tenant_id, run_id).await {
            store.unclaim_resume(tenant_id, run_id).await?;
            return Err(error);
        }
        let closes = cancel_open(store.run_asks(tenant_id, run_id).await?, MESSAGE_INSTEAD);
        let closed = self.host.record(tenant_id, run_id, &[], closes).await;
        if let Err(error) = closed {
            store.unclaim_resume(tenant_id, run_id).await?;
            return Err(error.into());
        }
        let asks = store.run_asks(tenant_id, run_id).await?;
        let carried = self
            .carry_answers(tenant_id, run_id, asks, Some(message), options.clone())
            .await;
        match carried {
            // The pause was given up (its answers can never be carried; it says why): the
            // message starts the thread's next turn instead.
            Err(error) if self.get_run(tenant_id, run_id).await?.status == RunStatus::Failed => {
                tracing::info!(%error, run_id, "a message starts a new turn past a pause given up");
                self.start_turn(own_turn, options).await
            }
            carried => carried?
                .ok_or_else(|| ApiError::Conflict(format!("run {run_id:?} could not be resumed"))),
        }
    }

    /// Starts the follow-up of claimed run `run_id` (unless a retry after a crash finds it
    /// started), then counts every answer it carries as delivered. None when a password
    /// was lost: its ask is open again and the claim let go.
    async fn carry_answers(
        self: &Arc<Self>,
        tenant_id: &str,
        run_id: &str,
        asks: Vec<AskRecord>,
        message: Option<Turn>,
        options: RunOptions,
    ) -> Result<Option<RunRecord>, ApiError> {
        let store = &self.host.store;
        let next_run_id = resume_run_id(run_id);
        // The follow-up run's existence is the delivery: once it is there (started now, or
        // before a crash), every answer it carries counts as delivered.
        let keys: Vec<String> = asks.iter().map(|record| record.key.clone()).collect();
        let follow_up = match store.get_run(tenant_id, &next_run_id).await? {
            Some(run) => run,
            None => match self
                .start_resume(tenant_id, run_id, asks, message, options)
                .await
            {
                Ok(Some(run)) => run,
                Ok(None) => return Ok(None),
                Err(error) => {
                    // Nothing carries the answers: the run goes back to waiting for its
                    // resume, and the answers wait in memory for it.
                    if store.get_run(tenant_id, &next_run_id).await?.is_none() {
                        fail_point("unclaim-resume").map_err(ApiError::Internal)?;
                        store.unclaim_resume(tenant_id, run_id).await?;
                    }
                    return Err(error);
                }
            },
        };
        for key in &keys {
            store
                .settle_delivery(tenant_id, key, DeliveryOutcome::Delivered, None, now_ms())
                .await?;
        }
        Ok(Some(follow_up))
    }

    /// Once a run's stream has ended by itself: asks it raised while still streaming (a
    /// Responses runtime's approval request arrives mid-stream) may all be answered by
    /// now, their answers held, and the resume their last answer tried found the run
    /// still running; the run, paused now, is resumed with them. A run that failed
    /// instead lets its answers go.
    pub(super) async fn resume_answered_while_streaming(
        self: &Arc<Self>,
        tenant_id: &str,
        run_id: &str,
    ) {
        let _turn = self.answering.take(run_id).await;
        let settled = match self.get_run(tenant_id, run_id).await {
            Ok(run) if run.status == RunStatus::Failed => {
                self.let_go_of_answers(
                    tenant_id,
                    run_id,
                    "the run failed before its answers were carried",
                )
                .await
            }
            Ok(_) => self.resume_when_answered(tenant_id, run_id).await,
            Err(error) => Err(error),
        };
        if let Err(error) = settled {
            tracing::error!(%error, run_id, "could not settle the answers of a run whose stream ended");
        }
    }

    /// Starts the follow-up run of claimed run `run_id` with its asks' answers (and the
    /// message sent in place of the rest); None when a password was lost (its ask is open
    /// again, the claim let go). On a failure before the follow-up exists, the answers
    /// taken for it are held again.
    async fn start_resume(
        self: &Arc<Self>,
        tenant_id: &str,
        run_id: &str,
        asks: Vec<AskRecord>,
        message: Option<Turn>,
        options: RunOptions,
    ) -> Result<Option<RunRecord>, ApiError> {
        fail_point("start-resume").map_err(ApiError::Internal)?;
        let run = self.get_run(tenant_id, run_id).await?;
        let agent = self.thread_agent(tenant_id, &run.thread_id).await?;
        let (context, answers) = match &message {
            // A password lost meanwhile goes as not answered: the message replaces it.
            Some(turn) => (
                turn.context.clone(),
                asks.iter()
                    .map(|record| {
                        let answer = self
                            .answer_for(record)
                            .unwrap_or_else(|| ValidatedAnswer::not_answered(&record.ask));
                        (record.ask.id.clone(), answer)
                    })
                    .collect(),
            ),
            None => {
                let context = self.given_context(tenant_id, &run.thread_id).await?;
                let Some(answers) = self.answers_of(tenant_id, &asks).await? else {
                    self.host.store.unclaim_resume(tenant_id, run_id).await?;
                    return Ok(None);
                };
                (context, answers)
            }
        };
        let paused = Paused {
            next_run_id: resume_run_id(run_id),
            context,
            run,
            asks,
            answers,
            message,
        };
        let prepared = match agent.prepare_resume(&self.host, &paused).await {
            Ok(mut prepared) => {
                prepared.first.extend(paused.context.event());
                prepared
            }
            // The agent can never take these answers as they are (a Responses runtime's
            // approvals, its endpoint now asked with Chat Completions): the pause fails
            // on record, so its thread goes on with the next message.
            Err(ApiError::Conflict(reason)) => {
                self.give_up_pause(tenant_id, run_id, &reason).await?;
                return Err(ApiError::Conflict(format!(
                    "run {run_id:?} could not be resumed: {reason}"
                )));
            }
            Err(error) => {
                self.hold_again(&paused.asks, paused.answers);
                return Err(error);
            }
        };
        let started = self
            .start(
                &agent,
                tenant_id,
                &paused.run.thread_id,
                &paused.next_run_id,
                prepared,
                options,
            )
            .await;
        match started {
            Ok(run) => Ok(Some(run)),
            Err(error) => {
                if self
                    .host
                    .store
                    .get_run(tenant_id, &paused.next_run_id)
                    .await?
                    .is_none()
                {
                    self.hold_again(&paused.asks, paused.answers);
                }
                Err(error)
            }
        }
    }

    /// Fails claimed paused run `run_id`, whose answers can never be carried, and lets
    /// them go. The caller holds the run's answering turn.
    async fn give_up_pause(
        &self,
        tenant_id: &str,
        run_id: &str,
        reason: &str,
    ) -> Result<(), ApiError> {
        let failed = EventDraft::new(
            EventBody::RunFailed {
                message: format!("The answers could not be carried to the agent: {reason}"),
                code: Some("resume_failed".into()),
            },
            Some(now_ms()),
            None,
        );
        // The event alone moves no paused run (a late failure from its stream must not):
        // the claimant moves its own, with the event.
        let given_up = self
            .host
            .store
            .give_up_resume(tenant_id, run_id, vec![failed], now_ms())
            .await?;
        if let Some(events) = given_up {
            self.host.live.publish(&events);
        }
        self.let_go_of_answers(tenant_id, run_id, "the answers could not be carried")
            .await
    }

    /// Puts answers taken for a resume back, for the resume that will carry them.
    fn hold_again(&self, asks: &[AskRecord], mut answers: BTreeMap<String, ValidatedAnswer>) {
        if let Ok(mut held) = self.held.lock() {
            for record in asks {
                if let Some(answer) = answers.remove(&record.ask.id) {
                    held.insert(record.key.clone(), answer);
                }
            }
        }
    }

    /// The answers to a paused run's asks. A password or secret is only in memory; one
    /// lost (in a restart) is never sent as an empty string: its ask is opened again and
    /// there are no answers yet.
    async fn answers_of(
        &self,
        tenant_id: &str,
        asks: &[AskRecord],
    ) -> Result<Option<BTreeMap<String, ValidatedAnswer>>, ApiError> {
        let mut answers = BTreeMap::new();
        let mut lost = Vec::new();
        for record in asks {
            match self.answer_for(record) {
                Some(answer) => {
                    answers.insert(record.ask.id.clone(), answer);
                }
                None => lost.push(record),
            }
        }
        if lost.is_empty() {
            return Ok(Some(answers));
        }
        // What was taken from the held answers goes back, for when the asks are answered.
        self.hold_again(asks, answers);
        for record in lost {
            self.reopen(tenant_id, record, LOST_SECRET).await?;
        }
        Ok(None)
    }

    /// The validated answer for a closed ask: the one held in memory (with any secret),
    /// or rebuilt from the record; `None` for a password or secret no longer held.
    fn answer_for(&self, record: &AskRecord) -> Option<ValidatedAnswer> {
        if let Some(answer) = self
            .held
            .lock()
            .ok()
            .and_then(|mut held| held.remove(&record.key))
        {
            return Some(answer);
        }
        let AskState::Resolved { answer: recorded } = &record.ask.state else {
            return Some(ValidatedAnswer::not_answered(&record.ask));
        };
        let holds_secret = matches!(
            record.ask.component,
            Component::SudoPrompt | Component::SecretPrompt
        ) && recorded.action != "skip";
        if holds_secret {
            return None;
        }
        let data = match record.ask.component {
            Component::SudoPrompt | Component::SecretPrompt => {
                serde_json::json!({ credential_field(record.ask.component): "" })
            }
            _ => recorded.data.clone(),
        };
        Some(ValidatedAnswer {
            ask_id: record.ask.id.clone(),
            action: recorded.action.clone(),
            data,
            from_vault: None,
            recorded: recorded.clone(),
        })
    }
}
