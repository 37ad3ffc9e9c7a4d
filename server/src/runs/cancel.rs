//! Stopping a run: the connector asks the agent to stop where its protocol can; otherwise
//! the console drops the agent's stream and records the cancellation itself.

use app::error::ApiError;
use app::protocol::channel::{EventBody, EventDraft, Level, RunOutcome};
use app::protocol::status::RunStatus;

use super::{Runs, notice};
use crate::clock::now_ms;
use crate::store::RunRecord;

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
        self.host.stop_stream(run_id);
        self.host
            .record(
                tenant_id,
                run_id,
                &[],
                vec![
                    notice(Level::Warning, "Stopped by the operator".into()),
                    EventDraft::new(
                        EventBody::RunFinished {
                            outcome: RunOutcome::Cancelled,
                        },
                        Some(now_ms()),
                        None,
                    ),
                ],
            )
            .await?;
        self.get_run(tenant_id, run_id).await
    }
}
