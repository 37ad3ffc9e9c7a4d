//! The paused jobs of agents' own schedulers, in SQL.

use app::model::gateway_jobs::GatewayJob;
use sqlx::Row;

use super::SqlStore;
use super::rows::parse_json;
use crate::store::StoreError;
use crate::store::gateway_jobs::GatewayJobStore;

#[async_trait::async_trait]
impl GatewayJobStore for SqlStore {
    async fn keep_paused_gateway_job(
        &self,
        scope: &str,
        agent: &str,
        job: &GatewayJob,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let row = serde_json::to_string(job)
            .map_err(|error| StoreError::Corrupt(format!("a gateway job: {error}")))?;
        sqlx::query(
            "INSERT INTO gateway_paused_jobs (scope, agent, job_id, job, paused_at_ms) \
             VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (scope, agent, job_id) DO UPDATE SET job = $4, paused_at_ms = $5",
        )
        .bind(scope)
        .bind(agent)
        .bind(&job.id)
        .bind(row)
        .bind(now_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn forget_paused_gateway_job(
        &self,
        scope: &str,
        agent: &str,
        job_id: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "DELETE FROM gateway_paused_jobs WHERE scope = $1 AND agent = $2 AND job_id = $3",
        )
        .bind(scope)
        .bind(agent)
        .bind(job_id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn paused_gateway_jobs(
        &self,
        scope: &str,
        agent: &str,
    ) -> Result<Vec<GatewayJob>, StoreError> {
        let rows = sqlx::query(
            "SELECT job FROM gateway_paused_jobs WHERE scope = $1 AND agent = $2 \
             ORDER BY paused_at_ms, job_id",
        )
        .bind(scope)
        .bind(agent)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| parse_json::<GatewayJob>(&row.try_get::<String, _>("job")?, "gateway job"))
            .collect()
    }
}
