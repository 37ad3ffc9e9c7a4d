//! An attempt at a card, run as a job: the card sent to its agent as a real run in a new
//! thread (in the board's project), followed to its end through any asks it waits on.
//! When the run ends and the card is still this attempt's — the agent neither completed
//! nor blocked it — the attempt failed: the card goes back to ready, or blocks at the
//! board's failure limit. A second attempt of the job after a crash follows the run the
//! first started instead of starting another.

use std::sync::Arc;

use app::api::service::WorkspaceService;
use app::kanban::{Lane, after_failed_attempt};
use app::model::jobs::Job;
use app::model::kanban::{Attempt, Card};
use app::model::schedules::AskPolicy;
use app::protocol::status::RunStatus;
use serde_json::{Value, json};

use super::Dispatcher;
use crate::clock::{now_ms, stamp_after};
use crate::jobs::{JobError, JobKind, Work};
use crate::runs::Runs;
use crate::runs::follow::RunFollower;
use crate::store::Store;
use crate::store::kanban::NewEvent;

pub const CARD_KIND: &str = "card.work";

pub struct CardWorkKind {
    store: Arc<dyn Store>,
    threads: Arc<dyn WorkspaceService>,
    follower: RunFollower,
    dispatcher: Arc<Dispatcher>,
}

/// What the agent is told in the card's thread.
fn prompt(card: &Card) -> String {
    if card.body.trim().is_empty() {
        card.title.clone()
    } else {
        format!("{}\n\n{}", card.title, card.body)
    }
}

impl CardWorkKind {
    pub fn new(
        store: Arc<dyn Store>,
        threads: Arc<dyn WorkspaceService>,
        runs: Arc<Runs>,
        dispatcher: Arc<Dispatcher>,
    ) -> Self {
        Self {
            follower: RunFollower::new(store.clone(), runs),
            store,
            threads,
            dispatcher,
        }
    }

    /// The attempt's thread and run: the ones an earlier try of this job started, or new.
    async fn start(
        &self,
        tenant_id: &str,
        card: &Card,
        attempt: &mut Attempt,
        work: &Work,
    ) -> Result<(String, String), JobError> {
        if let (Some(thread), Some(run)) = (&attempt.thread_id, &attempt.run_id) {
            work.log("info", &format!("following run {run} started earlier"))
                .await;
            return Ok((thread.clone(), run.clone()));
        }
        let project = self
            .store
            .board(tenant_id, &card.board_id)
            .await
            .map_err(JobError::retry)?
            .and_then(|board| board.project_id);
        let thread = self
            .threads
            .create_thread(tenant_id, Some(&attempt.agent), project.as_deref())
            .await
            .map_err(|error| JobError::Fatal(format!("no thread could be made: {error}")))?;
        let title = format!("{} · attempt {}", card.title, attempt.number);
        if let Err(error) = self
            .threads
            .rename_thread(tenant_id, &thread.id, &title)
            .await
        {
            tracing::warn!(%error, "a card's thread kept its first title");
        }
        attempt.thread_id = Some(thread.id.clone());
        self.store
            .write_attempt(tenant_id, attempt)
            .await
            .map_err(JobError::retry)?;
        let run = self
            .threads
            .send_message(tenant_id, &thread.id, &prompt(card))
            .await
            .map_err(|error| JobError::Retry(format!("the run did not start: {error}")))?;
        attempt.run_id = Some(run.id.clone());
        attempt.last_sign_ms = now_ms();
        self.store
            .write_attempt(tenant_id, attempt)
            .await
            .map_err(JobError::retry)?;
        work.log(
            "info",
            &format!("started run {} in thread {}", run.id, thread.id),
        )
        .await;
        Ok((thread.id, run.id))
    }

    /// Records that the attempt ended without the agent's word on the card: the card
    /// goes back to ready, or blocks at the failure limit.
    pub async fn fail(
        store: &dyn Store,
        tenant_id: &str,
        attempt: &mut Attempt,
        (state, note): (&str, String),
    ) -> Result<(), crate::store::StoreError> {
        // Settled once: by whoever comes first of the job, the dispatcher and the agent.
        match store.attempt(tenant_id, &attempt.id).await? {
            Some(current) if current.state == "running" => *attempt = current,
            Some(current) => {
                *attempt = current;
                return Ok(());
            }
            None => return Ok(()),
        }
        let Some(card) = store.card(tenant_id, &attempt.card_id).await? else {
            return Ok(());
        };
        attempt.state = state.to_owned();
        attempt.ended_at_ms = Some(now_ms());
        attempt.note = Some(note.clone());
        store.write_attempt(tenant_id, attempt).await?;
        if card.attempt_id.as_deref() != Some(attempt.id.as_str()) {
            return Ok(());
        }
        let limits = store
            .board(tenant_id, &card.board_id)
            .await?
            .map(|board| board.limits)
            .unwrap_or_default();
        let mut failed = card.clone();
        failed.failures += 1;
        failed.attempt_id = None;
        failed.lane = after_failed_attempt(failed.failures, limits);
        if failed.lane == Lane::Blocked {
            let reason = format!("{} attempts failed; the last: {note}", failed.failures);
            failed.blocked_reason = Some(reason.clone());
            failed.last_block = Some(reason);
        }
        failed.updated_at_ms = stamp_after(card.updated_at_ms);
        let event = NewEvent {
            attempt_id: Some(attempt.id.clone()),
            ..NewEvent::new(
                state_event(state),
                "the dispatcher",
                json!({"note": note, "failures": failed.failures, "to": failed.lane}),
            )
        };
        store
            .write_card(tenant_id, &failed, card.updated_at_ms, &event)
            .await?;
        Ok(())
    }
}

fn state_event(state: &str) -> &'static str {
    match state {
        "reclaimed" => "reclaimed",
        _ => "failed",
    }
}

#[async_trait::async_trait]
impl JobKind for CardWorkKind {
    fn kind(&self) -> &'static str {
        CARD_KIND
    }

    async fn run(&self, tenant_id: &str, job: &Job, work: &Work) -> Result<Value, JobError> {
        let Some(attempt_id) = job.payload["attempt_id"].as_str() else {
            return Err(JobError::Fatal(format!(
                "a card's job names no attempt: {}",
                job.payload
            )));
        };
        let Some(mut attempt) = self
            .store
            .attempt(tenant_id, attempt_id)
            .await
            .map_err(JobError::retry)?
        else {
            return Err(JobError::Fatal("the attempt is gone with its card".into()));
        };
        let Some(card) = self
            .store
            .card(tenant_id, &attempt.card_id)
            .await
            .map_err(JobError::retry)?
        else {
            return Err(JobError::Fatal("the card was deleted".into()));
        };
        if attempt.state != "running" || card.attempt_id.as_deref() != Some(attempt_id) {
            return Ok(json!({"outcome": "taken back before it started"}));
        }
        let (thread, run) = self.start(tenant_id, &card, &mut attempt, work).await?;
        let deny = self
            .store
            .board(tenant_id, &card.board_id)
            .await
            .map_err(JobError::retry)?
            .is_some_and(|board| board.asks == AskPolicy::Deny);
        let refuse_as = deny.then(|| format!("board:{}", card.board_id));
        let followed = self
            .follower
            .follow(tenant_id, &thread, &run, refuse_as.as_deref(), work)
            .await;
        let status = match followed {
            Ok(status) => status,
            Err(JobError::Cancelled) => {
                let note = "the attempt was cancelled".to_owned();
                Self::fail(
                    self.store.as_ref(),
                    tenant_id,
                    &mut attempt,
                    ("cancelled", note),
                )
                .await
                .map_err(JobError::retry)?;
                self.dispatcher.wake();
                return Err(JobError::Cancelled);
            }
            Err(error) => return Err(error),
        };
        // `fail` settles the attempt only if nobody (the agent, the dispatcher, a person)
        // settled it first.
        let note = match status {
            RunStatus::Succeeded => {
                "the run ended without completing or blocking the card".to_owned()
            }
            other => format!("the run ended {}", other.label()),
        };
        Self::fail(
            self.store.as_ref(),
            tenant_id,
            &mut attempt,
            ("failed", note),
        )
        .await
        .map_err(JobError::retry)?;
        self.dispatcher.wake();
        Ok(json!({"thread_id": thread, "run_id": run, "attempt": attempt.state}))
    }
}
