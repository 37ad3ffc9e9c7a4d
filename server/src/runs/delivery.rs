//! Answers on their way to the agent. Closing an ask records its delivery as pending work
//! in the same transaction; it is settled once the agent has the answer. At start, what a
//! crash left pending is delivered once — or, when it was a password or secret (never
//! stored), its ask is opened again with a notice, so nothing is ever sent as `""`.

use std::collections::BTreeSet;
use std::sync::Arc;

use app::error::ApiError;
use app::protocol::ask::{AskKind, AskState};
use app::protocol::channel::{EventBody, EventDraft, Level};
use app::protocol::status::RunStatus;

use super::resume::{LOST_SECRET, resume_run_id};
use super::{Runs, notice};
use crate::clock::now_ms;
use crate::connectors::AnswerRoute;
use crate::store::{AskRecord, DeliveryOutcome, DeliveryRecord};

impl Runs {
    /// Delivers (or settles) every answer a crash left pending; returns how many there were.
    pub async fn sweep_deliveries(self: &Arc<Self>) -> Result<usize, ApiError> {
        let store = &self.host.store;
        let pending = store.pending_deliveries().await?;
        let mut to_resume = BTreeSet::new();
        for delivery in &pending {
            let Some(record) = store
                .get_ask(&delivery.tenant_id, &delivery.ask_key)
                .await?
            else {
                self.abandon(delivery, "the ask no longer exists").await?;
                continue;
            };
            let run = self.get_run(&delivery.tenant_id, &delivery.run_id).await?;
            if matches!(run.status, RunStatus::Failed | RunStatus::Cancelled) {
                self.abandon(delivery, "the run ended before the answer was carried")
                    .await?;
                continue;
            }
            let Ok(agent) = self.connector_of(&run) else {
                self.abandon(delivery, "the run's agent is not configured")
                    .await?;
                continue;
            };
            match agent.answer_route() {
                AnswerRoute::EachAsk => {
                    // The turn the answer was for ended with the restart; sending it again
                    // might answer twice.
                    self.abandon(
                        delivery,
                        "the server restarted before the answer was confirmed sent",
                    )
                    .await?;
                    let note = notice(
                        Level::Warning,
                        format!(
                            "The answer to \u{201c}{}\u{201d} may not have reached the agent: the server restarted.",
                            record.ask.title
                        ),
                    );
                    self.host
                        .record(&delivery.tenant_id, &delivery.run_id, &[], vec![note])
                        .await?;
                }
                AnswerRoute::OneResumeRun => {
                    let started = store
                        .get_run(&delivery.tenant_id, &resume_run_id(&delivery.run_id))
                        .await?
                        .is_some();
                    if delivery.secret && !started {
                        self.reopen(&delivery.tenant_id, &record, LOST_SECRET)
                            .await?;
                        store
                            .unclaim_resume(&delivery.tenant_id, &delivery.run_id)
                            .await?;
                    } else {
                        to_resume.insert((delivery.tenant_id.clone(), delivery.run_id.clone()));
                    }
                }
            }
        }
        for (tenant_id, run_id) in to_resume {
            let _turn = self.answering.take(&run_id).await;
            self.resume_when_answered(&tenant_id, &run_id).await?;
        }
        Ok(pending.len())
    }

    async fn abandon(&self, delivery: &DeliveryRecord, why: &str) -> Result<(), ApiError> {
        self.host
            .store
            .settle_delivery(
                &delivery.tenant_id,
                &delivery.ask_key,
                DeliveryOutcome::Abandoned,
                Some(why),
                now_ms(),
            )
            .await?;
        Ok(())
    }

    /// Opens a closed ask again, saying why, and gives up its lost delivery.
    pub(super) async fn reopen(
        &self,
        tenant_id: &str,
        record: &AskRecord,
        why: &str,
    ) -> Result<(), ApiError> {
        let reopened = EventDraft::new(
            EventBody::AskClosed {
                ask_id: record.ask.id.clone(),
                ask_kind: record.ask.kind,
                state: Box::new(AskState::Pending),
            },
            Some(now_ms()),
            None,
        );
        let what = match record.ask.kind {
            AskKind::Sudo => "password",
            _ => "secret",
        };
        let note = notice(
            Level::Warning,
            format!(
                "{why} (the {what} for \u{201c}{}\u{201d})",
                record.ask.title
            ),
        );
        self.host
            .record(tenant_id, &record.run_id, &[], vec![reopened, note])
            .await?;
        self.host
            .store
            .settle_delivery(
                tenant_id,
                &record.key,
                DeliveryOutcome::Abandoned,
                Some("lost in a restart; the ask is open again"),
                now_ms(),
            )
            .await?;
        Ok(())
    }
}
