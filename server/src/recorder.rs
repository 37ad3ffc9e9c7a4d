//! Durable first, live second: every writer of run events goes through here.

use std::sync::Arc;

use app::protocol::channel::EventDraft;

use crate::live::Live;
use crate::store::{Store, StoreError, UpstreamEvent};
use crate::workspace::now_ms;

#[derive(Clone)]
pub struct Recorder {
    pub store: Arc<dyn Store>,
    pub live: Live,
}

impl Recorder {
    /// Stores drafts (and their raw upstream events) in one transaction, then hands the
    /// committed events to the run's subscribers.
    pub async fn record(
        &self,
        tenant_id: &str,
        run_id: &str,
        upstream: &[UpstreamEvent],
        drafts: Vec<EventDraft>,
    ) -> Result<(), StoreError> {
        let events = self
            .store
            .append(tenant_id, run_id, upstream, drafts, now_ms())
            .await?;
        self.live.publish(&events);
        Ok(())
    }
}
