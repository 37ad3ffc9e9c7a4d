//! Asks past their deadline (an AG-UI interrupt's `expiresAt`) close by themselves, as a
//! late receipt would close them: expired, and a paused run whose asks are then all
//! closed resumes, telling the agent the ask was abandoned.

use std::sync::Arc;
use std::time::Duration;

use app::error::ApiError;

use super::Runs;
use crate::clock::now_ms;
use crate::store::AskRecord;

/// How often the store is asked for asks past their deadline: an ask closes at most this
/// long after it.
const EVERY: Duration = Duration::from_secs(1);
/// Asks closed in one round at most; the next round takes the rest.
const ROUND: u32 = 100;

impl Runs {
    /// Closes the pending asks past their deadline; how many it closed.
    pub async fn expire_overdue(self: &Arc<Self>) -> Result<usize, ApiError> {
        let overdue = self.host.store.asks_past_deadline(now_ms(), ROUND).await?;
        let mut closed = 0;
        for record in overdue {
            match self.expire_overdue_ask(&record).await {
                Ok(true) => closed += 1,
                Ok(false) => {}
                Err(error) => {
                    tracing::error!(%error, ask = %record.key, "could not close an ask past its deadline");
                }
            }
        }
        Ok(closed)
    }

    /// In the run's answering turn, so an answer given just before the deadline is
    /// either carried or finds the ask closed.
    async fn expire_overdue_ask(self: &Arc<Self>, record: &AskRecord) -> Result<bool, ApiError> {
        let (tenant_id, run_id) = (record.tenant_id.as_str(), record.run_id.as_str());
        let _turn = self.answering.take(run_id).await;
        let Some(current) = self.host.store.get_ask(tenant_id, &record.key).await? else {
            return Ok(false);
        };
        let due = current.ask.expires_at_ms.is_some_and(|at| at <= now_ms());
        if !current.ask.state.is_pending() || !due {
            return Ok(false);
        }
        self.expire(tenant_id, &current).await?;
        self.resume_if_all_closed(tenant_id, run_id).await?;
        Ok(true)
    }

    /// Closes asks as their deadlines pass, for as long as the server runs.
    pub fn expire_asks_on_time(self: &Arc<Self>) {
        super::repeat(
            self,
            EVERY,
            "could not look for asks past their deadline",
            |runs| async move { runs.expire_overdue().await },
        );
    }
}
