//! Jobs in SQL: the claim is one `UPDATE … WHERE id IN (SELECT …)` — with `FOR UPDATE SKIP
//! LOCKED` on PostgreSQL, so concurrent claimers in any process pass over each other's
//! rows; under SQLite's single writer the statement is atomic by itself — and every
//! change to a running job is fenced by its lease owner and attempt.

use app::model::jobs::{
    JobAttempt, JobDetail, JobFilter, JobList, JobLogLine, JobProgress, JobState,
};
use sqlx::{AnyConnection, Row};

use super::job_rows::{COLUMNS, WAITING, counts_of, job_of, push_filter, push_selection};
use super::statement::Statement;
use super::{Dialect, SqlStore};
use crate::store::StoreError;
use crate::store::jobs::{Claimed, Enqueued, Finish, Held, JobStore, Lease, NewJob, Selection};

/// Adds `job` on `connection` (inside the caller's transaction when it has one).
pub(super) async fn enqueue_on(
    connection: &mut AnyConnection,
    job: &NewJob,
    now_ms: i64,
) -> Result<Enqueued, StoreError> {
    let state = if job.run_at_ms > now_ms {
        JobState::Scheduled
    } else {
        JobState::Available
    };
    let inserted = sqlx::query(&format!(
        "INSERT INTO jobs (id, tenant_id, kind, payload, state, run_at_ms, max_attempts, \
         idempotency_key, created_by, created_at_ms, updated_at_ms, agent, project_id) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11, $12) \
         ON CONFLICT (tenant_id, idempotency_key) DO NOTHING RETURNING {COLUMNS}"
    ))
    .bind(&job.id)
    .bind(&job.tenant_id)
    .bind(&job.kind)
    .bind(job.payload.to_string())
    .bind(state.as_str())
    .bind(job.run_at_ms)
    .bind(i64::from(job.max_attempts.max(1)))
    .bind(job.idempotency_key.as_deref())
    .bind(&job.created_by)
    .bind(job.created_at_ms)
    .bind(job.agent.as_deref())
    .bind(job.project_id.as_deref())
    .fetch_optional(&mut *connection)
    .await?;
    if let Some(row) = inserted {
        return Ok(Enqueued {
            job: job_of(&row)?.1,
            created: true,
        });
    }
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM jobs WHERE tenant_id = $1 AND idempotency_key = $2"
    ))
    .bind(&job.tenant_id)
    .bind(job.idempotency_key.as_deref())
    .fetch_one(&mut *connection)
    .await?;
    Ok(Enqueued {
        job: job_of(&row)?.1,
        created: false,
    })
}

/// Fails or cancels running jobs whose lease ran out and that may not be taken again;
/// closes their attempts.
async fn settle_lost(connection: &mut AnyConnection, now_ms: i64) -> Result<(), StoreError> {
    let settled = sqlx::query(
            "UPDATE jobs SET \
               state = CASE WHEN cancel_requested_at_ms IS NULL THEN 'failed' ELSE 'cancelled' END, \
               error = CASE WHEN cancel_requested_at_ms IS NULL \
                 THEN 'its worker stopped answering during the last attempt' \
                 ELSE 'cancelled; its worker had stopped answering' END, \
               lease_owner = NULL, lease_until_ms = NULL, finished_at_ms = $1, updated_at_ms = $1 \
             WHERE state = 'running' AND lease_until_ms < $1 \
               AND (attempts >= max_attempts OR cancel_requested_at_ms IS NOT NULL) \
             RETURNING id",
        )
        .bind(now_ms)
        .fetch_all(&mut *connection)
        .await?;
    for row in settled {
        let id: String = row.try_get("id")?;
        close_lost_attempts(connection, &id, u32::MAX, now_ms).await?;
    }
    Ok(())
}

/// Closes the open attempts of `job_id` before `attempt` as lost.
async fn close_lost_attempts(
    connection: &mut AnyConnection,
    job_id: &str,
    attempt: u32,
    now_ms: i64,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE job_attempts SET outcome = 'lease_lost', finished_at_ms = $3, \
           error = 'the worker stopped renewing its lease' \
         WHERE job_id = $1 AND attempt < $2 AND outcome IS NULL",
    )
    .bind(job_id)
    .bind(i64::from(attempt))
    .bind(now_ms)
    .execute(&mut *connection)
    .await?;
    Ok(())
}

#[async_trait::async_trait]
impl JobStore for SqlStore {
    async fn enqueue_job(&self, job: &NewJob, now_ms: i64) -> Result<Enqueued, StoreError> {
        let mut connection = self.pool.acquire().await?;
        let enqueued = enqueue_on(&mut connection, job, now_ms).await?;
        if enqueued.created {
            self.announce_jobs(&mut connection).await?;
        }
        Ok(enqueued)
    }

    async fn claim_jobs(
        &self,
        worker: &str,
        now_ms: i64,
        lease_ms: i64,
        limit: u32,
    ) -> Result<Vec<Claimed>, StoreError> {
        let mut transaction = self.begin_write().await?;
        settle_lost(&mut transaction, now_ms).await?;
        let skip_locked = match self.dialect {
            Dialect::Postgres => " FOR UPDATE SKIP LOCKED",
            Dialect::Sqlite => "",
        };
        let rows = sqlx::query(&format!(
            "UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = $1, \
               lease_until_ms = $2, heartbeat_at_ms = $3, updated_at_ms = $3 \
             WHERE id IN (SELECT id FROM jobs \
               WHERE (state IN {WAITING} AND run_at_ms <= $3) \
                  OR (state = 'running' AND lease_until_ms < $3) \
               ORDER BY run_at_ms, id LIMIT $4{skip_locked}) \
             RETURNING {COLUMNS}"
        ))
        .bind(worker)
        .bind(now_ms.saturating_add(lease_ms))
        .bind(now_ms)
        .bind(i64::from(limit))
        .fetch_all(&mut *transaction)
        .await?;
        let mut claimed = Vec::with_capacity(rows.len());
        for row in &rows {
            let (tenant_id, job) = job_of(row)?;
            close_lost_attempts(&mut transaction, &job.id, job.attempts, now_ms).await?;
            sqlx::query(
                "INSERT INTO job_attempts (job_id, attempt, worker, started_at_ms) \
                 VALUES ($1, $2, $3, $4)",
            )
            .bind(&job.id)
            .bind(i64::from(job.attempts))
            .bind(worker)
            .bind(now_ms)
            .execute(&mut *transaction)
            .await?;
            claimed.push(Claimed { tenant_id, job });
        }
        transaction.commit().await?;
        claimed.sort_by(|a, b| (a.job.run_at_ms, &a.job.id).cmp(&(b.job.run_at_ms, &b.job.id)));
        Ok(claimed)
    }

    async fn renew_leases(
        &self,
        worker: &str,
        now_ms: i64,
        lease_ms: i64,
    ) -> Result<Vec<Held>, StoreError> {
        let rows = sqlx::query(
            "UPDATE jobs SET lease_until_ms = $1, heartbeat_at_ms = $2 \
             WHERE lease_owner = $3 AND state = 'running' \
             RETURNING id, attempts, cancel_requested_at_ms",
        )
        .bind(now_ms.saturating_add(lease_ms))
        .bind(now_ms)
        .bind(worker)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let attempt: i64 = row.try_get("attempts")?;
                let cancel: Option<i64> = row.try_get("cancel_requested_at_ms")?;
                Ok(Held {
                    job_id: row.try_get("id")?,
                    attempt: u32::try_from(attempt).unwrap_or(u32::MAX),
                    cancel_requested: cancel.is_some(),
                })
            })
            .collect()
    }

    async fn record_progress(
        &self,
        lease: Lease<'_>,
        progress: &JobProgress,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let text = serde_json::to_string(progress)
            .map_err(|error| StoreError::Corrupt(format!("job progress: {error}")))?;
        let done = sqlx::query(
            "UPDATE jobs SET progress = $1, heartbeat_at_ms = $2 \
             WHERE id = $3 AND lease_owner = $4 AND attempts = $5 AND state = 'running'",
        )
        .bind(text)
        .bind(now_ms)
        .bind(lease.job_id)
        .bind(lease.worker)
        .bind(i64::from(lease.attempt))
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn log_job(
        &self,
        job_id: &str,
        attempt: u32,
        level: &str,
        message: &str,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO job_log (job_id, attempt, at_ms, level, message) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(job_id)
        .bind(i64::from(attempt))
        .bind(now_ms)
        .bind(level)
        .bind(message)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn finish_job(
        &self,
        lease: Lease<'_>,
        finish: &Finish,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let mut transaction = self.begin_write().await?;
        let fence = "WHERE id = $1 AND lease_owner = $2 AND attempts = $3 AND state = 'running' \
                     RETURNING state";
        let sql = match finish {
            Finish::Completed(_) => format!(
                "UPDATE jobs SET state = 'completed', result = $4, error = NULL, \
                   lease_owner = NULL, lease_until_ms = NULL, finished_at_ms = $5, updated_at_ms = $5 \
                 {fence}"
            ),
            // No retry is told as -1: a time is never negative.
            Finish::Failed { .. } => format!(
                "UPDATE jobs SET \
                   state = CASE WHEN $5 >= 0 AND attempts < max_attempts THEN 'retryable' ELSE 'failed' END, \
                   run_at_ms = CASE WHEN $5 >= 0 AND attempts < max_attempts THEN $5 ELSE run_at_ms END, \
                   finished_at_ms = CASE WHEN $5 >= 0 AND attempts < max_attempts THEN NULL ELSE $6 END, \
                   error = $4, lease_owner = NULL, lease_until_ms = NULL, updated_at_ms = $6 \
                 {fence}"
            ),
            Finish::Cancelled(_) => format!(
                "UPDATE jobs SET state = 'cancelled', error = $4, \
                   lease_owner = NULL, lease_until_ms = NULL, finished_at_ms = $5, updated_at_ms = $5 \
                 {fence}"
            ),
        };
        let query = sqlx::query_scalar::<_, String>(&sql)
            .bind(lease.job_id)
            .bind(lease.worker)
            .bind(i64::from(lease.attempt));
        let query = match finish {
            Finish::Completed(result) => query.bind(result.to_string()).bind(now_ms),
            Finish::Failed { error, retry_at_ms } => query
                .bind(error.clone())
                .bind(retry_at_ms.unwrap_or(-1))
                .bind(now_ms),
            Finish::Cancelled(reason) => query.bind(reason.clone()).bind(now_ms),
        };
        let Some(state) = query.fetch_optional(&mut *transaction).await? else {
            return Ok(false);
        };
        let outcome = match state.as_str() {
            "retryable" => "retrying",
            other => other,
        };
        let error = match finish {
            Finish::Completed(_) => None,
            Finish::Failed { error, .. } => Some(error.as_str()),
            Finish::Cancelled(reason) => Some(reason.as_str()),
        };
        sqlx::query(
            "UPDATE job_attempts SET outcome = $1, error = $2, finished_at_ms = $3 \
             WHERE job_id = $4 AND attempt = $5",
        )
        .bind(outcome)
        .bind(error)
        .bind(now_ms)
        .bind(lease.job_id)
        .bind(i64::from(lease.attempt))
        .execute(&mut *transaction)
        .await?;
        transaction.commit().await?;
        Ok(true)
    }

    async fn cancel_jobs(
        &self,
        tenant_id: &str,
        selection: &Selection,
        now_ms: i64,
    ) -> Result<u64, StoreError> {
        let mut transaction = self.begin_write().await?;
        let mut waiting = Statement::new(
            self.dialect,
            "UPDATE jobs SET state = 'cancelled', error = 'cancelled before it ran', ",
        );
        waiting
            .push("finished_at_ms = ")
            .push_bind(now_ms)
            .push(", updated_at_ms = ")
            .push_bind(now_ms)
            .push(" WHERE tenant_id = ")
            .push_bind(tenant_id.to_owned())
            .push(&format!(" AND state IN {WAITING}"));
        push_selection(&mut waiting, selection);
        let cancelled = waiting.execute(&mut *transaction).await?.rows_affected();
        let mut running = Statement::new(self.dialect, "UPDATE jobs SET cancel_requested_at_ms = ");
        running
            .push_bind(now_ms)
            .push(", updated_at_ms = ")
            .push_bind(now_ms)
            .push(" WHERE tenant_id = ")
            .push_bind(tenant_id.to_owned())
            .push(" AND state = 'running' AND cancel_requested_at_ms IS NULL");
        push_selection(&mut running, selection);
        let asked = running.execute(&mut *transaction).await?.rows_affected();
        transaction.commit().await?;
        Ok(cancelled + asked)
    }

    async fn retry_jobs(
        &self,
        tenant_id: &str,
        selection: &Selection,
        now_ms: i64,
    ) -> Result<u64, StoreError> {
        let mut statement = Statement::new(
            self.dialect,
            "UPDATE jobs SET state = 'available', error = NULL, result = NULL, \
             finished_at_ms = NULL, cancel_requested_at_ms = NULL, \
             max_attempts = CASE WHEN max_attempts > attempts THEN max_attempts ELSE attempts + 1 END, \
             run_at_ms = ",
        );
        statement
            .push_bind(now_ms)
            .push(", updated_at_ms = ")
            .push_bind(now_ms)
            .push(" WHERE tenant_id = ")
            .push_bind(tenant_id.to_owned())
            .push(" AND state IN ('failed', 'cancelled')");
        push_selection(&mut statement, selection);
        let mut connection = self.pool.acquire().await?;
        let retried = statement.execute(&mut *connection).await?.rows_affected();
        if retried > 0 {
            self.announce_jobs(&mut connection).await?;
        }
        Ok(retried)
    }

    async fn list_jobs(
        &self,
        tenant_id: &str,
        filter: &JobFilter,
        offset: u32,
        limit: u32,
    ) -> Result<JobList, StoreError> {
        let limit = limit.clamp(1, 200);
        let mut statement = Statement::new(
            self.dialect,
            &format!("SELECT {COLUMNS} FROM jobs WHERE tenant_id = "),
        );
        statement.push_bind(tenant_id.to_owned());
        push_filter(&mut statement, filter, true);
        statement
            .push(" ORDER BY updated_at_ms DESC, id LIMIT ")
            .push_bind(i64::from(limit) + 1)
            .push(" OFFSET ")
            .push_bind(i64::from(offset));
        let rows = statement.fetch_all(&self.pool).await?;
        let mut jobs = rows
            .iter()
            .map(|row| job_of(row).map(|(_, job)| job))
            .collect::<Result<Vec<_>, _>>()?;
        let next_offset = (jobs.len() > limit as usize).then(|| offset + limit);
        jobs.truncate(limit as usize);
        let mut counting = Statement::new(
            self.dialect,
            "SELECT state, COUNT(*) AS n FROM jobs WHERE tenant_id = ",
        );
        counting.push_bind(tenant_id.to_owned());
        push_filter(&mut counting, filter, false);
        counting.push(" GROUP BY state");
        let counts = counts_of(counting.fetch_all(&self.pool).await?)?;
        Ok(JobList {
            jobs,
            counts,
            next_offset,
        })
    }

    async fn job_detail(&self, tenant_id: &str, id: &str) -> Result<Option<JobDetail>, StoreError> {
        let Some(row) = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM jobs WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant_id)
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(None);
        };
        let job = job_of(&row)?.1;
        let attempts = sqlx::query(
            "SELECT attempt, worker, started_at_ms, finished_at_ms, outcome, error \
             FROM job_attempts WHERE job_id = $1 ORDER BY attempt",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|row| {
            let attempt: i64 = row.try_get("attempt")?;
            Ok(JobAttempt {
                attempt: u32::try_from(attempt).unwrap_or(u32::MAX),
                worker: row.try_get("worker")?,
                started_at_ms: row.try_get("started_at_ms")?,
                finished_at_ms: row.try_get("finished_at_ms")?,
                outcome: row.try_get("outcome")?,
                error: row.try_get("error")?,
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
        let mut log = sqlx::query(
            "SELECT id, attempt, at_ms, level, message FROM job_log \
             WHERE job_id = $1 ORDER BY id DESC LIMIT $2",
        )
        .bind(id)
        .bind(LOG_MOST)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|row| {
            let attempt: i64 = row.try_get("attempt")?;
            Ok(JobLogLine {
                id: row.try_get("id")?,
                attempt: u32::try_from(attempt).unwrap_or(u32::MAX),
                at_ms: row.try_get("at_ms")?,
                level: row.try_get("level")?,
                message: row.try_get("message")?,
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
        log.reverse();
        Ok(Some(JobDetail { job, attempts, log }))
    }

    async fn next_job_due(&self) -> Result<Option<i64>, StoreError> {
        let waiting: Option<i64> = sqlx::query_scalar(&format!(
            "SELECT MIN(run_at_ms) FROM jobs WHERE state IN {WAITING}"
        ))
        .fetch_one(&self.pool)
        .await?;
        let leases: Option<i64> =
            sqlx::query_scalar("SELECT MIN(lease_until_ms) FROM jobs WHERE state = 'running'")
                .fetch_one(&self.pool)
                .await?;
        Ok(match (waiting, leases) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        })
    }
}

/// Most log lines a job's detail carries (the latest).
const LOG_MOST: i64 = 500;

impl SqlStore {
    /// Wakes every process's job engine on PostgreSQL (delivered at commit, to listeners
    /// only; on SQLite the one process wakes itself).
    pub(super) async fn announce_jobs(
        &self,
        connection: &mut AnyConnection,
    ) -> Result<(), StoreError> {
        if self.dialect == Dialect::Postgres {
            sqlx::query("SELECT pg_notify($1, '')")
                .bind(crate::store::jobs::JOBS_CHANNEL)
                .execute(&mut *connection)
                .await?;
        }
        Ok(())
    }
}
