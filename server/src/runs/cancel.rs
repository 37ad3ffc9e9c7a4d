//! Stopping a run: the connector asks the agent to stop where its protocol can; otherwise
//! the console drops the agent's stream and records the cancellation itself.

use app::error::ApiError;
use app::protocol::channel::{EventBody, EventDraft, Level, RunOutcome};
use app::protocol::status::RunStatus;

use super::{Runs, cancel_open, notice};
use crate::clock::now_ms;
use crate::store::{DeliveryOutcome, RunRecord};

impl Runs {
    pub async fn cancel(&self, tenant_id: &str, run_id: &str) -> Result<RunRecord, ApiError> {
        let run = self.get_run(tenant_id, run_id).await?;
        if run.status != RunStatus::Running {
            return Err(ApiError::Conflict(format!(
                "run {run_id:?} is not running (it is {})",
                run.status
            )));
        }
        if let Ok(agent) = self.connector_of(&run)
            && agent.cancel(&self.host, &run).await
        {
            return self.get_run(tenant_id, run_id).await;
        }
        // In turn with the answers: one given meanwhile is either carried off before
        // the asks close or finds its ask closed, never held after the run's answers go.
        let _turn = self.answering.take(run_id).await;
        self.host.stop_stream(run_id).await;
        // What the stream handed over before it stopped is stored first; if that ended
        // the run (it finished or paused on asks just then), its own ending stands.
        self.host.flushed().await?;
        // Its open asks close with it: nothing would carry their answers.
        let mut stopped = cancel_open(
            self.host.store.run_asks(tenant_id, run_id).await?,
            "The run was stopped before this was answered",
        );
        stopped.extend([
            notice(Level::Info, "Stopped by the operator.".into()),
            EventDraft::new(
                EventBody::RunFinished {
                    outcome: RunOutcome::Cancelled,
                },
                Some(now_ms()),
                None,
            ),
        ]);
        let Some(events) = self
            .host
            .store
            .append_while_running(tenant_id, run_id, stopped, now_ms())
            .await?
        else {
            let run = self.get_run(tenant_id, run_id).await?;
            return Err(ApiError::Conflict(format!(
                "run {run_id:?} ended before it could be stopped (it is {})",
                run.status
            )));
        };
        self.host.live.publish(&events);
        self.let_go_of_answers(
            tenant_id,
            run_id,
            "the run was stopped before its answers were carried",
        )
        .await?;
        self.get_run(tenant_id, run_id).await
    }

    /// Answers held for a run that has ended (stopped, failed) go, a password among them,
    /// and their deliveries are given up: no resume will carry them. The caller holds the
    /// run's answering turn.
    pub(super) async fn let_go_of_answers(
        &self,
        tenant_id: &str,
        run_id: &str,
        why: &str,
    ) -> Result<(), ApiError> {
        if let Ok(mut held) = self.held.lock() {
            let prefix = format!("{run_id}:");
            held.retain(|key, _| !key.starts_with(&prefix));
        }
        for record in self.host.store.run_asks(tenant_id, run_id).await? {
            self.host
                .store
                .settle_delivery(
                    tenant_id,
                    &record.key,
                    DeliveryOutcome::Abandoned,
                    Some(why),
                    now_ms(),
                )
                .await?;
        }
        Ok(())
    }
}
