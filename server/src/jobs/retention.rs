//! Retention as a job: once a day for every tenant, the raw frames of ended runs and the
//! finished jobs older than the tenant's settings say are removed, with a log of how many.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use app::model::jobs::Job;
use app::model::retention::RetentionSettings;
use serde_json::{Value, json};

use super::{Engine, JobError, JobKind, Source, Work};
use crate::clock::now_ms;
use crate::store::Store;
use crate::store::jobs::NewJob;

pub const RETENTION_KIND: &str = "retention";
const DAY_MS: i64 = 86_400_000;

/// The tenant's retention settings, or the defaults.
pub async fn settings(store: &dyn Store, tenant_id: &str) -> Result<RetentionSettings, String> {
    let stored = store
        .tenant_setting(tenant_id, "retention")
        .await
        .map_err(|error| error.to_string())?;
    Ok(stored
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default())
}

pub struct RetentionKind {
    store: Arc<dyn Store>,
}

impl RetentionKind {
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self { store }
    }
}

#[async_trait::async_trait]
impl JobKind for RetentionKind {
    fn kind(&self) -> &'static str {
        RETENTION_KIND
    }

    async fn run(&self, tenant_id: &str, _job: &Job, work: &Work) -> Result<Value, JobError> {
        let settings = settings(self.store.as_ref(), tenant_id)
            .await
            .map_err(JobError::Retry)?;
        let now = now_ms();
        let days = |days: u32| now - i64::from(days) * DAY_MS;
        work.progress(0, Some(2), "raw frames").await;
        let raw = self
            .store
            .prune_raw_events(tenant_id, days(settings.raw_events_days))
            .await
            .map_err(|error| JobError::Retry(error.to_string()))?;
        work.log(
            "info",
            &format!(
                "removed {raw} raw frames older than {} days",
                settings.raw_events_days
            ),
        )
        .await;
        work.progress(1, Some(2), "finished jobs").await;
        let jobs = self
            .store
            .prune_jobs(tenant_id, days(settings.jobs_days))
            .await
            .map_err(|error| JobError::Retry(error.to_string()))?;
        work.log(
            "info",
            &format!(
                "removed {jobs} jobs finished more than {} days ago",
                settings.jobs_days
            ),
        )
        .await;
        work.progress(2, Some(2), "done").await;
        Ok(json!({"raw_events": raw, "jobs": jobs}))
    }
}

/// Adds each tenant's retention job once a day (the key makes it once across processes).
pub struct RetentionDaily {
    engine: Arc<Engine>,
    /// The day each tenant's job was added by this process.
    added: Mutex<HashMap<String, i64>>,
    /// The day every tenant was last looked at.
    looked: Mutex<Option<i64>>,
}

impl RetentionDaily {
    pub fn new(engine: Arc<Engine>) -> Arc<Self> {
        let daily = Arc::new(Self {
            engine: engine.clone(),
            added: Mutex::new(HashMap::new()),
            looked: Mutex::new(None),
        });
        engine.add_source(daily.clone());
        daily
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[async_trait::async_trait]
impl Source for RetentionDaily {
    async fn tick(&self, now_ms: i64) {
        let day = now_ms / DAY_MS;
        if *lock(&self.looked) == Some(day) {
            return;
        }
        let store = self.engine.store().clone();
        let tenants = match store.list_tenants().await {
            Ok(tenants) => tenants,
            Err(error) => {
                tracing::warn!(%error, "retention could not list the tenants");
                return;
            }
        };
        let mut added = 0;
        for tenant in tenants {
            if lock(&self.added).get(&tenant) == Some(&day) {
                continue;
            }
            let job = NewJob {
                id: format!("job-{}", uuid::Uuid::new_v4().simple()),
                tenant_id: tenant.clone(),
                kind: RETENTION_KIND.to_owned(),
                payload: json!({"day": day}),
                run_at_ms: now_ms,
                max_attempts: 3,
                idempotency_key: Some(format!("retention:{day}")),
                created_by: "system".to_owned(),
                created_at_ms: now_ms,
                agent: None,
                project_id: None,
            };
            match store.enqueue_job(&job, now_ms).await {
                Ok(_) => {
                    lock(&self.added).insert(tenant.clone(), day);
                    added += 1;
                    self.engine.changed(&tenant);
                }
                Err(error) => tracing::warn!(%error, tenant, "retention was not added"),
            }
        }
        *lock(&self.looked) = Some(day);
        if added > 0 {
            self.engine.wake();
        }
    }

    async fn next_due(&self) -> Option<i64> {
        let looked = *lock(&self.looked);
        looked.map(|day| (day + 1) * DAY_MS)
    }
}
