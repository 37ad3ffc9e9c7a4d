//! What the store keeps of an agent's own scheduled jobs: only the paused ones, which a
//! Hermes gateway stops listing once paused (so the console keeps what pausing answered).

use app::model::gateway_jobs::GatewayJob;

use super::StoreError;

#[async_trait::async_trait]
pub trait GatewayJobStore {
    /// Keeps a job paused through the console, for the agent's scheduler `scope` (a
    /// tenant, or `""` for one that serves every tenant).
    async fn keep_paused_gateway_job(
        &self,
        scope: &str,
        agent: &str,
        job: &GatewayJob,
        now_ms: i64,
    ) -> Result<(), StoreError>;
    /// Forgets it (resumed or removed).
    async fn forget_paused_gateway_job(
        &self,
        scope: &str,
        agent: &str,
        job_id: &str,
    ) -> Result<(), StoreError>;
    /// The jobs kept paused, oldest pause first.
    async fn paused_gateway_jobs(
        &self,
        scope: &str,
        agent: &str,
    ) -> Result<Vec<GatewayJob>, StoreError>;
}
