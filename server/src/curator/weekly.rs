//! The curator's own schedule: once a week for each tenant that wants it, when the tenant
//! is idle (no run running, none started lately), a pass is added — once across processes,
//! by its key.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::add_pass;
use crate::jobs::{Engine, Source};

const HOUR_MS: i64 = 3_600_000;
pub const WEEK_MS: i64 = 7 * 24 * HOUR_MS;

pub struct CuratorWeekly {
    engine: Arc<Engine>,
    /// When the tenants are next looked at.
    next_look: Mutex<i64>,
}

impl CuratorWeekly {
    /// Looks first `first_look` after now (a server just started is often being set up),
    /// then every hour.
    pub fn new(engine: Arc<Engine>, first_look: Duration) -> Arc<Self> {
        let first =
            crate::clock::now_ms() + i64::try_from(first_look.as_millis()).unwrap_or(HOUR_MS);
        let weekly = Arc::new(Self {
            engine: engine.clone(),
            next_look: Mutex::new(first),
        });
        engine.add_source(weekly.clone());
        weekly
    }

    /// Adds the passes due at `now_ms`; how many.
    pub async fn look(&self, now_ms: i64) -> usize {
        let store = self.engine.store().clone();
        let tenants = match store.list_tenants().await {
            Ok(tenants) => tenants,
            Err(error) => {
                tracing::warn!(%error, "the curator could not list the tenants");
                return 0;
            }
        };
        let mut added = 0;
        for tenant in tenants {
            match self.due(&tenant, now_ms).await {
                Ok(false) => continue,
                Ok(true) => {}
                Err(error) => {
                    tracing::warn!(%error, tenant, "the curator could not tell whether a pass is due");
                    continue;
                }
            }
            let key = format!("curator:week:{}", now_ms / WEEK_MS);
            match add_pass(
                &self.engine,
                &tenant,
                false,
                "weekly",
                "the curator",
                Some(key),
            )
            .await
            {
                Ok(Some(_)) => added += 1,
                Ok(None) => {}
                Err(error) => tracing::warn!(%error, tenant, "a weekly curator pass was not added"),
            }
        }
        added
    }

    /// Whether the tenant wants a weekly pass, had none for a week, and is idle.
    async fn due(&self, tenant: &str, now_ms: i64) -> Result<bool, String> {
        let store = self.engine.store();
        let settings = super::settings(store.as_ref(), tenant)
            .await
            .map_err(|error| error.say())?;
        if !settings.weekly {
            return Ok(false);
        }
        let last = store
            .last_pass_at(tenant)
            .await
            .map_err(|e| e.to_string())?;
        if last.is_some_and(|last| last > now_ms - WEEK_MS) {
            return Ok(false);
        }
        let quiet_since = now_ms - i64::from(settings.idle_minutes) * 60_000;
        let active = store
            .tenant_active_since(tenant, quiet_since)
            .await
            .map_err(|e| e.to_string())?;
        Ok(!active)
    }
}

#[async_trait::async_trait]
impl Source for CuratorWeekly {
    async fn tick(&self, now_ms: i64) {
        {
            let mut next = self
                .next_look
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if now_ms < *next {
                return;
            }
            *next = now_ms + HOUR_MS;
        }
        self.look(now_ms).await;
    }

    async fn next_due(&self) -> Option<i64> {
        Some(
            *self
                .next_look
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        )
    }
}
