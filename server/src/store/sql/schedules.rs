//! Schedules and their fires in SQL. A decision is written under a compare-and-set on the
//! schedule's next fire time, and each slot's fire row is unique: whichever process
//! writes a slot first owns it.

use app::model::schedules::{Fire, Schedule, ScheduleList, When};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use super::SqlStore;
use super::jobs::enqueue_on;
use super::rows::{from_word, parse_json, to_u64, word};
use crate::store::StoreError;
use crate::store::jobs::NewJob;
use crate::store::schedules::{FirePlan, FireUpdate, ScheduleStore};

const COLUMNS: &str = "id, tenant_id, name, agent, prompt, project_id, target, thread_id, timing, \
    timezone, missed, catch_up_window_s, overlap, asks, paused_at_ms, paused_reason, next_fire_ms, \
    missed_count, skipped_count, last_error, created_by, created_at_ms, updated_at_ms";

const FIRE_COLUMNS: &str =
    "slot_ms, fired_at_ms, outcome, manual, catch_up, job_id, thread_id, run_id, error";

/// A policy's stored word (its JSON name).
fn schedule_of(row: &AnyRow) -> Result<(String, Schedule), StoreError> {
    let timing: String = row.try_get("timing")?;
    let count = |name: &str| -> Result<u64, StoreError> {
        let value: i64 = row.try_get(name)?;
        to_u64(value, name)
    };
    Ok((
        row.try_get("tenant_id")?,
        Schedule {
            id: row.try_get("id")?,
            name: row.try_get("name")?,
            agent: row.try_get("agent")?,
            prompt: row.try_get("prompt")?,
            project_id: row.try_get("project_id")?,
            target: from_word(row.try_get("target")?, "schedule target")?,
            thread_id: row.try_get("thread_id")?,
            when: parse_json::<When>(&timing, "schedule timing")?,
            timezone: row.try_get("timezone")?,
            missed: from_word(row.try_get("missed")?, "schedule missed")?,
            catch_up_window_s: count("catch_up_window_s")?,
            overlap: from_word(row.try_get("overlap")?, "schedule overlap")?,
            asks: from_word(row.try_get("asks")?, "schedule asks")?,
            paused_at_ms: row.try_get("paused_at_ms")?,
            paused_reason: row.try_get("paused_reason")?,
            next_fire_ms: row.try_get("next_fire_ms")?,
            missed_count: count("missed_count")?,
            skipped_count: count("skipped_count")?,
            last_error: row.try_get("last_error")?,
            created_by: row.try_get("created_by")?,
            created_at_ms: row.try_get("created_at_ms")?,
            updated_at_ms: row.try_get("updated_at_ms")?,
        },
    ))
}

fn fire_of(row: &AnyRow) -> Result<Fire, StoreError> {
    let manual: i64 = row.try_get("manual")?;
    let catch_up: i64 = row.try_get("catch_up")?;
    Ok(Fire {
        slot_ms: row.try_get("slot_ms")?,
        fired_at_ms: row.try_get("fired_at_ms")?,
        outcome: row.try_get("outcome")?,
        manual: manual != 0,
        catch_up: catch_up != 0,
        job_id: row.try_get("job_id")?,
        thread_id: row.try_get("thread_id")?,
        run_id: row.try_get("run_id")?,
        error: row.try_get("error")?,
    })
}

fn timing_text(when: &When) -> String {
    serde_json::to_string(when).unwrap_or_default()
}

async fn insert_fire(
    connection: &mut AnyConnection,
    plan: &FirePlan,
    fire: &crate::store::schedules::PlannedFire,
    job_id: Option<&str>,
) -> Result<bool, StoreError> {
    let inserted = sqlx::query(
        "INSERT INTO schedule_fires (schedule_id, slot_ms, tenant_id, fired_at_ms, outcome, \
           manual, catch_up, job_id, error) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
         ON CONFLICT (schedule_id, slot_ms) DO NOTHING",
    )
    .bind(&plan.schedule_id)
    .bind(fire.slot_ms)
    .bind(&plan.tenant_id)
    .bind(fire.fired_at_ms)
    .bind(fire.outcome)
    .bind(i64::from(fire.manual))
    .bind(i64::from(fire.catch_up))
    .bind(job_id)
    .bind(fire.error.as_deref())
    .execute(&mut *connection)
    .await?;
    Ok(inserted.rows_affected() == 1)
}

#[async_trait::async_trait]
impl ScheduleStore for SqlStore {
    async fn create_schedule(
        &self,
        tenant_id: &str,
        schedule: &Schedule,
        idempotency_key: Option<&str>,
    ) -> Result<(Schedule, bool), StoreError> {
        let inserted = sqlx::query(&format!(
            "INSERT INTO schedules (id, tenant_id, name, agent, prompt, project_id, target, \
               thread_id, timing, timezone, missed, catch_up_window_s, overlap, asks, paused_at_ms, \
               paused_reason, next_fire_ms, idempotency_key, created_by, created_at_ms, updated_at_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, \
               $18, $19, $20, $20) \
             ON CONFLICT (tenant_id, idempotency_key) DO NOTHING RETURNING {COLUMNS}"
        ))
        .bind(&schedule.id)
        .bind(tenant_id)
        .bind(&schedule.name)
        .bind(&schedule.agent)
        .bind(&schedule.prompt)
        .bind(schedule.project_id.as_deref())
        .bind(word(&schedule.target))
        .bind(schedule.thread_id.as_deref())
        .bind(timing_text(&schedule.when))
        .bind(&schedule.timezone)
        .bind(word(&schedule.missed))
        .bind(i64::try_from(schedule.catch_up_window_s).unwrap_or(i64::MAX))
        .bind(word(&schedule.overlap))
        .bind(word(&schedule.asks))
        .bind(schedule.paused_at_ms)
        .bind(schedule.paused_reason.as_deref())
        .bind(schedule.next_fire_ms)
        .bind(idempotency_key)
        .bind(&schedule.created_by)
        .bind(schedule.created_at_ms)
        .fetch_optional(&self.pool)
        .await?;
        if let Some(row) = inserted {
            return Ok((schedule_of(&row)?.1, true));
        }
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM schedules WHERE tenant_id = $1 AND idempotency_key = $2"
        ))
        .bind(tenant_id)
        .bind(idempotency_key)
        .fetch_one(&self.pool)
        .await?;
        Ok((schedule_of(&row)?.1, false))
    }

    async fn get_schedule(
        &self,
        tenant_id: &str,
        id: &str,
    ) -> Result<Option<Schedule>, StoreError> {
        sqlx::query(&format!(
            "SELECT {COLUMNS} FROM schedules WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant_id)
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .map(|row| schedule_of(&row).map(|(_, schedule)| schedule))
        .transpose()
    }

    async fn list_schedules(
        &self,
        tenant_id: &str,
        offset: u32,
        limit: u32,
    ) -> Result<ScheduleList, StoreError> {
        let limit = limit.clamp(1, 200);
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM schedules WHERE tenant_id = $1 \
             ORDER BY LOWER(name), id LIMIT $2 OFFSET $3"
        ))
        .bind(tenant_id)
        .bind(i64::from(limit) + 1)
        .bind(i64::from(offset))
        .fetch_all(&self.pool)
        .await?;
        let mut schedules = rows
            .iter()
            .map(|row| schedule_of(row).map(|(_, schedule)| schedule))
            .collect::<Result<Vec<_>, _>>()?;
        let next_offset = (schedules.len() > limit as usize).then(|| offset + limit);
        schedules.truncate(limit as usize);
        Ok(ScheduleList {
            schedules,
            next_offset,
        })
    }

    async fn replace_schedule(
        &self,
        tenant_id: &str,
        schedule: &Schedule,
        expected_updated_at_ms: i64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE schedules SET name = $1, agent = $2, prompt = $3, target = $4, timing = $5, \
               timezone = $6, missed = $7, catch_up_window_s = $8, overlap = $9, asks = $10, \
               paused_at_ms = $11, paused_reason = $12, next_fire_ms = $13, updated_at_ms = $14, \
               thread_id = $15, project_id = $16 \
             WHERE tenant_id = $17 AND id = $18 AND updated_at_ms = $19",
        )
        .bind(&schedule.name)
        .bind(&schedule.agent)
        .bind(&schedule.prompt)
        .bind(word(&schedule.target))
        .bind(timing_text(&schedule.when))
        .bind(&schedule.timezone)
        .bind(word(&schedule.missed))
        .bind(i64::try_from(schedule.catch_up_window_s).unwrap_or(i64::MAX))
        .bind(word(&schedule.overlap))
        .bind(word(&schedule.asks))
        .bind(schedule.paused_at_ms)
        .bind(schedule.paused_reason.as_deref())
        .bind(schedule.next_fire_ms)
        .bind(schedule.updated_at_ms)
        .bind(schedule.thread_id.as_deref())
        .bind(schedule.project_id.as_deref())
        .bind(tenant_id)
        .bind(&schedule.id)
        .bind(expected_updated_at_ms)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn delete_schedule(&self, tenant_id: &str, id: &str) -> Result<bool, StoreError> {
        let mut transaction = self.begin_write().await?;
        sqlx::query("DELETE FROM schedule_fires WHERE schedule_id = $1 AND tenant_id = $2")
            .bind(id)
            .bind(tenant_id)
            .execute(&mut *transaction)
            .await?;
        let done = sqlx::query("DELETE FROM schedules WHERE tenant_id = $1 AND id = $2")
            .bind(tenant_id)
            .bind(id)
            .execute(&mut *transaction)
            .await?;
        transaction.commit().await?;
        Ok(done.rows_affected() == 1)
    }

    async fn due_schedules(
        &self,
        now_ms: i64,
        limit: u32,
    ) -> Result<Vec<(String, Schedule)>, StoreError> {
        sqlx::query(&format!(
            "SELECT {COLUMNS} FROM schedules \
             WHERE paused_at_ms IS NULL AND next_fire_ms <= $1 \
             ORDER BY next_fire_ms, id LIMIT $2"
        ))
        .bind(now_ms)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(schedule_of)
        .collect()
    }

    async fn next_schedule_due(&self) -> Result<Option<i64>, StoreError> {
        Ok(
            sqlx::query_scalar(
                "SELECT MIN(next_fire_ms) FROM schedules WHERE paused_at_ms IS NULL",
            )
            .fetch_one(&self.pool)
            .await?,
        )
    }

    async fn apply_fire_plan(&self, plan: &FirePlan) -> Result<bool, StoreError> {
        let mut transaction = self.begin_write().await?;
        let moved = match plan.expected_next_fire_ms {
            Some(expected) => {
                sqlx::query(
                    "UPDATE schedules SET next_fire_ms = $1, missed_count = missed_count + $2, \
                   skipped_count = skipped_count + $3 \
                 WHERE id = $4 AND tenant_id = $5 AND next_fire_ms = $6 AND paused_at_ms IS NULL",
                )
                .bind(plan.next_fire_ms)
                .bind(i64::try_from(plan.missed).unwrap_or(i64::MAX))
                .bind(i64::try_from(plan.skipped).unwrap_or(i64::MAX))
                .bind(&plan.schedule_id)
                .bind(&plan.tenant_id)
                .bind(expected)
                .execute(&mut *transaction)
                .await?
            }
            None => {
                sqlx::query(
                    "UPDATE schedules SET skipped_count = skipped_count + $1 \
                 WHERE id = $2 AND tenant_id = $3",
                )
                .bind(i64::try_from(plan.skipped).unwrap_or(i64::MAX))
                .bind(&plan.schedule_id)
                .bind(&plan.tenant_id)
                .execute(&mut *transaction)
                .await?
            }
        };
        if moved.rows_affected() != 1 {
            return Ok(false);
        }
        let mut added_jobs = false;
        for fire in &plan.fires {
            let job_id = fire.job.as_ref().map(|job| job.id.as_str());
            if !insert_fire(&mut transaction, plan, fire, job_id).await? {
                // The slot was fired already: the whole decision is stale.
                return Ok(false);
            }
            if let Some(job) = &fire.job {
                enqueue_on(&mut transaction, job, plan.now_ms).await?;
                added_jobs = true;
            }
        }
        if let Some(job_id) = &plan.cancel_job {
            sqlx::query(
                "UPDATE jobs SET cancel_requested_at_ms = $1, updated_at_ms = $1 \
                 WHERE id = $2 AND state = 'running' AND cancel_requested_at_ms IS NULL",
            )
            .bind(plan.now_ms)
            .bind(job_id)
            .execute(&mut *transaction)
            .await?;
            sqlx::query(
                "UPDATE jobs SET state = 'cancelled', error = 'cancelled by a newer fire', \
                   finished_at_ms = $1, updated_at_ms = $1 \
                 WHERE id = $2 AND state IN ('scheduled', 'available', 'retryable')",
            )
            .bind(plan.now_ms)
            .bind(job_id)
            .execute(&mut *transaction)
            .await?;
        }
        if added_jobs {
            self.announce_jobs(&mut transaction).await?;
        }
        transaction.commit().await?;
        Ok(true)
    }

    async fn fires(
        &self,
        tenant_id: &str,
        schedule_id: &str,
        limit: u32,
    ) -> Result<Vec<Fire>, StoreError> {
        sqlx::query(&format!(
            "SELECT {FIRE_COLUMNS} FROM schedule_fires WHERE tenant_id = $1 AND schedule_id = $2 \
             ORDER BY slot_ms DESC LIMIT $3"
        ))
        .bind(tenant_id)
        .bind(schedule_id)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(fire_of)
        .collect()
    }

    async fn get_fire(&self, schedule_id: &str, slot_ms: i64) -> Result<Option<Fire>, StoreError> {
        sqlx::query(&format!(
            "SELECT {FIRE_COLUMNS} FROM schedule_fires WHERE schedule_id = $1 AND slot_ms = $2"
        ))
        .bind(schedule_id)
        .bind(slot_ms)
        .fetch_optional(&self.pool)
        .await?
        .map(|row| fire_of(&row))
        .transpose()
    }

    async fn fire_starting_in(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Option<(Schedule, Fire)>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT schedule_id, {FIRE_COLUMNS} FROM schedule_fires \
             WHERE tenant_id = $1 AND thread_id = $2 AND run_id IS NULL \
             ORDER BY slot_ms DESC LIMIT 1"
        ))
        .bind(tenant_id)
        .bind(thread_id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let schedule_id: String = row.try_get("schedule_id")?;
        let fire = fire_of(&row)?;
        Ok(self
            .get_schedule(tenant_id, &schedule_id)
            .await?
            .map(|schedule| (schedule, fire)))
    }

    async fn update_fire(
        &self,
        schedule_id: &str,
        slot_ms: i64,
        update: &FireUpdate,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE schedule_fires SET outcome = COALESCE($1, outcome), \
               fired_at_ms = COALESCE($2, fired_at_ms), thread_id = COALESCE($3, thread_id), \
               run_id = COALESCE($4, run_id), error = COALESCE($5, error) \
             WHERE schedule_id = $6 AND slot_ms = $7",
        )
        .bind(update.outcome)
        .bind(update.fired_at_ms)
        .bind(update.thread_id.as_deref())
        .bind(update.run_id.as_deref())
        .bind(update.error.as_deref())
        .bind(schedule_id)
        .bind(slot_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn live_fires(&self, schedule_id: &str) -> Result<Vec<Fire>, StoreError> {
        sqlx::query(&format!(
            "SELECT {FIRE_COLUMNS} FROM schedule_fires \
             WHERE schedule_id = $1 AND outcome IN ('queued', 'running') \
               AND EXISTS (SELECT 1 FROM jobs WHERE jobs.id = schedule_fires.job_id \
                 AND jobs.state NOT IN ('completed', 'failed', 'cancelled')) \
             ORDER BY slot_ms"
        ))
        .bind(schedule_id)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(fire_of)
        .collect()
    }

    async fn start_waiting_fire(
        &self,
        schedule_id: &str,
        job_for: &(dyn Fn(i64) -> NewJob + Send + Sync),
        now_ms: i64,
    ) -> Result<Option<i64>, StoreError> {
        let mut transaction = self.begin_write().await?;
        let slot: Option<i64> = sqlx::query_scalar(
            "SELECT MIN(slot_ms) FROM schedule_fires WHERE schedule_id = $1 AND outcome = 'waiting'",
        )
        .bind(schedule_id)
        .fetch_one(&mut *transaction)
        .await?;
        let Some(slot) = slot else {
            return Ok(None);
        };
        let job = job_for(slot);
        sqlx::query(
            "UPDATE schedule_fires SET outcome = 'queued', job_id = $1, fired_at_ms = $2 \
             WHERE schedule_id = $3 AND slot_ms = $4 AND outcome = 'waiting'",
        )
        .bind(&job.id)
        .bind(now_ms)
        .bind(schedule_id)
        .bind(slot)
        .execute(&mut *transaction)
        .await?;
        enqueue_on(&mut transaction, &job, now_ms).await?;
        self.announce_jobs(&mut transaction).await?;
        transaction.commit().await?;
        Ok(Some(slot))
    }

    async fn set_schedule_thread(
        &self,
        tenant_id: &str,
        id: &str,
        thread_id: &str,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE schedules SET thread_id = $1 WHERE tenant_id = $2 AND id = $3")
            .bind(thread_id)
            .bind(tenant_id)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn set_schedule_error(
        &self,
        tenant_id: &str,
        id: &str,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE schedules SET last_error = $1 WHERE tenant_id = $2 AND id = $3")
            .bind(error)
            .bind(tenant_id)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
