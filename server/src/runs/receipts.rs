//! Receipts: each is checked against the persisted ask it names; the first valid one
//! closes the ask atomically (every receipt, accepted or not, is kept for the audit, its
//! secrets redacted), and the accepted answer goes on to the agent.

use std::sync::Arc;

use app::error::ApiError;
use app::model::Role;
use app::model::passvault::SUDO_ENV_VAR;
use app::protocol::ask::{Ask, AskState, Component};
use app::protocol::channel::{EventBody, EventDraft, Level};
use app::protocol::receipts::{ReceiptEnvelope, ValidatedAnswer, resolved_state, validate};
use app::protocol::status::RunStatus;
use serde_json::{Value, json};

use super::resume::resume_run_id;
use super::start::to_the_end;
use super::{Runs, notice};
use crate::clock::now_ms;
use crate::connectors::AnswerRoute;
use crate::fault::{crash_point, pause_point};
use crate::store::{AskRecord, DeliveryOutcome, Resolution};

/// A receipt checked in the run's answering turn: the ask closed with its answer, still
/// to be delivered, or what became of the receipt instead.
pub(super) enum Closing {
    Won {
        record: Box<AskRecord>,
        answer: Box<ValidatedAnswer>,
    },
    Lost(ReceiptOutcome),
    /// Past its deadline, the ask closed as expired: its run may now resume.
    Expired(Box<AskRecord>),
}

/// What became of a receipt.
#[derive(Debug)]
pub enum ReceiptOutcome {
    /// This receipt answered the ask.
    Accepted(Box<AskRecord>),
    /// Someone answered first (or the ask expired): here is how it was closed.
    AlreadyClosed(Box<AskRecord>),
}

/// Who answers an ask: the name the answer is recorded under, and the role they hold
/// (what a passvault entry's use policy is checked against).
#[derive(Clone, Debug)]
pub struct Answerer {
    pub name: String,
    pub role: Role,
}

impl Answerer {
    /// The request's user, as the audit names them.
    pub fn of(context: &app::model::RequestContext) -> Self {
        Self {
            name: context.acted_by(),
            role: context.role,
        }
    }
}

impl Runs {
    /// A receipt for the ask `key`. Validated against the stored ask; the first valid
    /// receipt closes it atomically and its answer goes to the agent once. Carried to its
    /// end even if the request goes away: an ask closed is an answer on its way.
    pub async fn answer(
        self: &Arc<Self>,
        tenant_id: &str,
        key: &str,
        by: &Answerer,
        envelope: &ReceiptEnvelope,
    ) -> Result<ReceiptOutcome, ApiError> {
        let runs = Arc::clone(self);
        let (tenant_id, key, by, envelope) = (
            tenant_id.to_owned(),
            key.to_owned(),
            by.clone(),
            envelope.clone(),
        );
        to_the_end(async move { runs.take_receipt(&tenant_id, &key, &by, &envelope).await }).await
    }

    async fn take_receipt(
        self: &Arc<Self>,
        tenant_id: &str,
        key: &str,
        by: &Answerer,
        envelope: &ReceiptEnvelope,
    ) -> Result<ReceiptOutcome, ApiError> {
        let run_id = self
            .host
            .store
            .get_ask(tenant_id, key)
            .await?
            .ok_or_else(|| missing_ask(key))?
            .run_id;
        // One answer to the run at a time, from reading its ask to holding or sending the
        // answer: a workspace tool an allow runs cannot run for an ask a denial closed
        // meanwhile, and the resume the last answer starts finds every answer held.
        let _turn = self.answering.take(&run_id).await;
        let (record, answer) = match self.close_in_turn(tenant_id, key, by, envelope).await? {
            Closing::Won { record, answer } => (record, answer),
            Closing::Lost(outcome) => return Ok(outcome),
            Closing::Expired(expired) => {
                self.resume_if_all_closed(tenant_id, &expired.run_id)
                    .await?;
                return Ok(ReceiptOutcome::AlreadyClosed(expired));
            }
        };
        self.deliver(tenant_id, &record, *answer).await?;
        let updated = self
            .host
            .store
            .get_ask(tenant_id, key)
            .await?
            .ok_or_else(|| missing_ask(key))?;
        Ok(ReceiptOutcome::Accepted(Box::new(updated)))
    }

    /// Checks a receipt against its stored ask and, when it is the first valid one, closes
    /// the ask with its answer (a workspace tool it allows has run). The caller holds the
    /// run's answering turn, and delivers the answer.
    pub(super) async fn close_in_turn(
        self: &Arc<Self>,
        tenant_id: &str,
        key: &str,
        by: &Answerer,
        envelope: &ReceiptEnvelope,
    ) -> Result<Closing, ApiError> {
        let actor = by.name.as_str();
        let record = self
            .host
            .store
            .get_ask(tenant_id, key)
            .await?
            .ok_or_else(|| missing_ask(key))?;
        let refused = |why: &'static str| self.keep_refused(tenant_id, key, actor, why, envelope);
        if !record.ask.state.is_pending() {
            refused("late").await?;
            return Ok(Closing::Lost(ReceiptOutcome::AlreadyClosed(Box::new(
                record,
            ))));
        }
        // A run that failed or was stopped takes no more answers: nothing would carry them.
        let run = self.get_run(tenant_id, &record.run_id).await?;
        if matches!(run.status, RunStatus::Failed | RunStatus::Cancelled) {
            refused("ended").await?;
            return Err(ApiError::Conflict(format!(
                "ask {key:?} can no longer be answered: its run ended ({}) before it was",
                run.status
            )));
        }
        // Past its deadline (an AG-UI interrupt's `expiresAt`) the agent would refuse the
        // answer: the ask closes as expired, and a paused run whose asks are all closed
        // now resumes, telling the agent this one was abandoned.
        if record.ask.expires_at_ms.is_some_and(|at| at <= now_ms()) {
            refused("expired").await?;
            let expired = self.expire(tenant_id, &record).await?;
            return Ok(Closing::Expired(Box::new(expired)));
        }
        let checked = match validate(&record.ask, &envelope.receipt) {
            Ok(answer) => match self
                .fill_from_vault(tenant_id, &record.ask, answer, (&run.agent, by.role))
                .await
            {
                Ok(answer) => {
                    self.run_workspace_tool(tenant_id, &record, answer, actor)
                        .await
                }
                Err(error) => Err(error),
            },
            Err(error) => Err(ApiError::BadRequest(error.to_string())),
        };
        let answer = match checked {
            Ok(answer) => answer,
            Err(error) => {
                refused("invalid").await?;
                return Err(error);
            }
        };
        // A password or secret exists only in memory until it reaches the agent.
        let secret = matches!(
            record.ask.component,
            Component::SudoPrompt | Component::SecretPrompt
        ) && answer.action != "skip";
        let mut state = resolved_state(&answer);
        if let AskState::Resolved { answer: recorded } = &mut state {
            recorded.actor = Some(actor.to_owned());
        }
        let resolution = self
            .host
            .store
            .close_ask(
                tenant_id,
                key,
                actor,
                state,
                &redacted(envelope, &answer.recorded.data),
                secret,
                now_ms(),
            )
            .await?;
        match resolution {
            Resolution::AlreadyClosed(current) => {
                Ok(Closing::Lost(ReceiptOutcome::AlreadyClosed(current)))
            }
            Resolution::Won(event) => {
                self.host.live.publish(std::slice::from_ref(&event));
                // The answer goes on even when its entry's "last used" cannot be noted.
                if let Some(entry_id) = &answer.from_vault
                    && let Err(error) = self
                        .host
                        .store
                        .mark_vault_entry_used(tenant_id, entry_id, actor, now_ms())
                        .await
                {
                    tracing::error!(%error, entry = entry_id, "could not note a passvault entry's use");
                }
                // Held first, so a test can let the closing reach the pages, then crash.
                pause_point("after-close").await;
                crash_point("after-close");
                Ok(Closing::Won {
                    record: Box::new(record),
                    answer: Box::new(answer),
                })
            }
        }
    }

    /// Resumes run `run_id` if its agent takes all answers in one follow-up and none of
    /// its asks is open any more. The caller holds the run's answering turn.
    pub(super) async fn resume_if_all_closed(
        self: &Arc<Self>,
        tenant_id: &str,
        run_id: &str,
    ) -> Result<(), ApiError> {
        let run = self.get_run(tenant_id, run_id).await?;
        // An agent no longer configured takes no follow-up.
        if self
            .connector_of(&run)
            .is_ok_and(|agent| agent.answer_route() == AnswerRoute::OneResumeRun)
        {
            self.resume_when_answered(tenant_id, run_id).await?;
        }
        Ok(())
    }

    /// Closes a pending ask as expired; the ask as it now stands.
    pub(super) async fn expire(
        &self,
        tenant_id: &str,
        record: &AskRecord,
    ) -> Result<AskRecord, ApiError> {
        let closed = EventDraft::new(
            EventBody::AskClosed {
                ask_id: record.ask.id.clone(),
                ask_kind: record.ask.kind,
                state: Box::new(AskState::Expired),
            },
            Some(now_ms()),
            None,
        );
        self.host
            .record(tenant_id, &record.run_id, &[], vec![closed])
            .await?;
        self.host
            .store
            .get_ask(tenant_id, &record.key)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("ask {:?} does not exist", record.key)))
    }

    /// Keeps a refused receipt for the audit, saying why (`late`, `ended`, `invalid`);
    /// what it carried is not kept.
    async fn keep_refused(
        &self,
        tenant_id: &str,
        key: &str,
        actor: &str,
        why: &str,
        envelope: &ReceiptEnvelope,
    ) -> Result<(), ApiError> {
        self.host
            .store
            .record_refused_receipt(
                tenant_id,
                key,
                actor,
                why,
                &redacted(envelope, &json!("not kept")),
                now_ms(),
            )
            .await?;
        Ok(())
    }

    /// An answer "from the passvault" with the entry's value in it: only an entry of the
    /// tenant for the environment variable the ask names (`SUDO_PASSWORD` for sudo), whose
    /// use policy lets someone of `role` send it to `agent`.
    async fn fill_from_vault(
        &self,
        tenant_id: &str,
        ask: &Ask,
        mut answer: ValidatedAnswer,
        (agent, role): (&str, Role),
    ) -> Result<ValidatedAnswer, ApiError> {
        let Some(entry_id) = answer.from_vault.clone() else {
            return Ok(answer);
        };
        let refused =
            |problem: String| ApiError::BadRequest(format!("receipt.data.vaultEntry: {problem}"));
        let wanted = match ask.component {
            Component::SudoPrompt => Some(SUDO_ENV_VAR.to_owned()),
            _ => ask.env_var.clone(),
        };
        let Some(wanted) = wanted else {
            return Err(refused(
                "this ask names no environment variable, so no passvault entry answers it".into(),
            ));
        };
        let (entry, value) = match self.vault.open(tenant_id, &entry_id).await {
            Ok(opened) => opened,
            Err(ApiError::NotFound(_)) => {
                return Err(refused(format!("there is no passvault entry {entry_id:?}")));
            }
            Err(error) => return Err(error),
        };
        if entry.env_var != wanted {
            return Err(refused(format!(
                "entry {:?} is for {}, and this ask wants {wanted}",
                entry.name, entry.env_var
            )));
        }
        if let Err(why) = entry.use_policy.allows(agent, role) {
            return Err(ApiError::Forbidden(format!(
                "receipt.data.vaultEntry: {:?}: {why}",
                entry.name
            )));
        }
        answer.fill_from_vault(ask.component, value.expose(), &entry.name);
        Ok(answer)
    }

    /// Sends an accepted answer on to the agent, in the form its protocol wants: at once,
    /// or held until the paused run's other asks are closed too.
    async fn deliver(
        self: &Arc<Self>,
        tenant_id: &str,
        record: &AskRecord,
        answer: ValidatedAnswer,
    ) -> Result<(), ApiError> {
        let run = self.get_run(tenant_id, &record.run_id).await?;
        let agent = self.connector_of(&run)?;
        match agent.answer_route() {
            AnswerRoute::OneResumeRun => {
                if let Ok(mut held) = self.held.lock() {
                    held.insert(record.key.clone(), answer);
                }
                let Err(error) = self.resume_when_answered(tenant_id, &record.run_id).await else {
                    return Ok(());
                };
                // Given up on record (its answers can never be carried): the receipt says
                // why. Otherwise the answer stands, and the resume is tried again.
                if self.get_run(tenant_id, &record.run_id).await?.status == RunStatus::Failed {
                    return Err(error);
                }
                let follow_up = resume_run_id(&record.run_id);
                if self
                    .host
                    .store
                    .get_run(tenant_id, &follow_up)
                    .await?
                    .is_some()
                {
                    // Resumed; only counting the answers as delivered failed, which the
                    // start-up sweep settles.
                    tracing::error!(%error, run_id = %record.run_id, "a resumed run's answers could not be counted as delivered");
                    return Ok(());
                }
                tracing::warn!(%error, run_id = %record.run_id, "a paused run could not be resumed yet; it is tried again");
                let note = notice(
                    Level::Warning,
                    "The answers are in, but the agent could not be resumed yet; the console tries again shortly.".into(),
                );
                self.host
                    .record(tenant_id, &record.run_id, &[], vec![note])
                    .await?;
                Ok(())
            }
            AnswerRoute::EachAsk => {
                let sent = agent.answer(&self.host, record, answer).await;
                let (outcome, note) = match &sent {
                    Ok(()) => (DeliveryOutcome::Delivered, None),
                    Err(error) => (DeliveryOutcome::Abandoned, Some(error.as_str())),
                };
                self.host
                    .store
                    .settle_delivery(tenant_id, &record.key, outcome, note, now_ms())
                    .await?;
                if let Err(error) = sent {
                    let note = notice(
                        Level::Error,
                        format!(
                            "The answer was recorded but could not be sent to the agent: {error}"
                        ),
                    );
                    self.host
                        .record(tenant_id, &record.run_id, &[], vec![note])
                        .await?;
                }
                Ok(())
            }
        }
    }
}

fn missing_ask(key: &str) -> ApiError {
    ApiError::NotFound(format!("ask {key:?} does not exist"))
}

/// The receipt as the audit keeps it: its data replaced by `data` (the answer as recorded,
/// secrets redacted, or nothing).
fn redacted(envelope: &ReceiptEnvelope, data: &Value) -> Value {
    let mut receipt = serde_json::to_value(&envelope.receipt).unwrap_or(Value::Null);
    receipt["data"] = data.clone();
    json!({ "channel": envelope.channel, "receipt": receipt })
}
