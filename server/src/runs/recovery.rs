//! After a restart: runs that were streaming lost their agent's connection.

use app::protocol::channel::{EventBody, EventDraft};

use super::Runs;
use crate::clock::now_ms;
use crate::store::StoreError;

impl Runs {
    /// Fails every run the store still shows as running; returns how many there were.
    pub async fn recover(&self) -> Result<usize, StoreError> {
        let stale = self.host.store.running_runs().await?;
        for run in &stale {
            let failed = EventDraft::new(
                EventBody::RunFailed {
                    message: "the server restarted while this run was streaming; the agent's stream was lost".into(),
                    code: Some("server_restart".into()),
                },
                Some(now_ms()),
                None,
            );
            self.host
                .record(&run.tenant_id, &run.id, &[], vec![failed])
                .await?;
        }
        Ok(stale.len())
    }
}
