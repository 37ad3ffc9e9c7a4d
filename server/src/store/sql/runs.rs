//! Runs: created running; their status follows their events, and a paused run is claimed
//! for its resume exactly once.

use app::protocol::status::RunStatus;

use super::SqlStore;
use super::rows::*;
use super::statement::Statement;
use crate::store::{NewRun, RunRecord, StoreError};

impl SqlStore {
    pub(super) async fn create_run(&self, run: &NewRun) -> Result<RunRecord, StoreError> {
        let row = sqlx::query(&format!(
            "INSERT INTO runs (id, tenant_id, thread_id, agent, status, input, created_at_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING {RUN_COLUMNS}"
        ))
        .bind(&run.id)
        .bind(&run.tenant_id)
        .bind(&run.thread_id)
        .bind(&run.agent)
        .bind(RunStatus::Running.label())
        .bind(json_text(&run.input))
        .bind(run.created_at_ms)
        .fetch_one(&self.pool)
        .await?;
        run_row(&row)
    }

    pub(super) async fn get_run(
        &self,
        tenant_id: &str,
        run_id: &str,
    ) -> Result<Option<RunRecord>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant_id)
        .bind(run_id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(run_row).transpose()
    }

    pub(super) async fn list_runs(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Vec<RunRecord>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE tenant_id = $1 AND thread_id = $2 \
             ORDER BY created_at_ms, id"
        ))
        .bind(tenant_id)
        .bind(thread_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(run_row).collect()
    }

    pub(super) async fn stalled_resumes(
        &self,
        agents: &[String],
        closed_since_ms: i64,
        limit: u32,
    ) -> Result<Vec<RunRecord>, StoreError> {
        if agents.is_empty() {
            return Ok(Vec::new());
        }
        let columns = RUN_COLUMNS
            .split(", ")
            .map(|column| format!("r.{column}"))
            .collect::<Vec<_>>()
            .join(", ");
        // Read from the asks closed lately (index `asks_closed`), not from the runs:
        // resumed runs keep that status for good, and a claimed one whose claimant is
        // gone (its unclaim failed, say) is found as one never claimed.
        let mut query = Statement::new(
            self.dialect,
            &format!(
                "SELECT {columns} FROM runs r JOIN (SELECT DISTINCT tenant_id, run_id FROM asks \
                     WHERE closed_at_ms >= "
            ),
        );
        query.push_bind(closed_since_ms);
        query.push(
            ") c ON c.tenant_id = r.tenant_id AND c.run_id = r.id \
             WHERE r.status IN ('interrupted', 'resumed') \
             AND NOT EXISTS (SELECT 1 FROM asks a WHERE a.tenant_id = r.tenant_id \
                 AND a.run_id = r.id AND a.state = 'pending')",
        );
        query.push(" AND NOT EXISTS (SELECT 1 FROM runs f WHERE f.tenant_id = r.tenant_id AND f.id = r.id || '.resume') AND r.agent IN (");
        for (index, agent) in agents.iter().enumerate() {
            if index > 0 {
                query.push(", ");
            }
            query.push_bind(agent.clone());
        }
        query.push(") ORDER BY r.created_at_ms LIMIT ");
        query.push_bind(i64::from(limit));
        let rows = query.fetch_all(&self.pool).await?;
        rows.iter().map(run_row).collect()
    }

    pub(super) async fn running_runs(&self) -> Result<Vec<RunRecord>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE status = $1 ORDER BY created_at_ms"
        ))
        .bind(RunStatus::Running.label())
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(run_row).collect()
    }

    pub(super) async fn claim_resume(
        &self,
        tenant_id: &str,
        run_id: &str,
    ) -> Result<bool, StoreError> {
        self.move_status(
            tenant_id,
            run_id,
            RunStatus::Interrupted,
            RunStatus::Resumed,
        )
        .await
    }

    pub(super) async fn unclaim_resume(
        &self,
        tenant_id: &str,
        run_id: &str,
    ) -> Result<bool, StoreError> {
        self.move_status(
            tenant_id,
            run_id,
            RunStatus::Resumed,
            RunStatus::Interrupted,
        )
        .await
    }

    /// Moves a run from one status to another if, and only if, it is in the first: exactly
    /// one of several callers racing for the same move gets `true`.
    async fn move_status(
        &self,
        tenant_id: &str,
        run_id: &str,
        from: RunStatus,
        to: RunStatus,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE runs SET status = $1 WHERE tenant_id = $2 AND id = $3 AND status = $4",
        )
        .bind(to.label())
        .bind(tenant_id)
        .bind(run_id)
        .bind(from.label())
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }
}
