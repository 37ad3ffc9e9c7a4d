//! The knowledge curator: a job that passes over a tenant's memory and notes and proposes
//! removals into the memory review queue (never changing memory itself), the weekly
//! source that runs it when the tenant is idle, and the service over its settings,
//! passes and ledger.

pub mod pass;
pub mod weekly;

use std::sync::Arc;

use app::api::service::CuratorService;
use app::error::ApiError;
use app::model::RequestContext;
use app::model::curator::{
    CuratorChange, CuratorLedger, CuratorPass, CuratorPasses, CuratorSettings, PassReport,
    PassStarted, StartPass,
};
use app::model::jobs::JobFilter;
use serde_json::json;

use crate::clock::now_ms;
use crate::jobs::Engine;
use crate::store::Store;
use crate::store::curator::Undo;
use crate::store::jobs::NewJob;

pub use pass::{CURATOR_KIND, CuratorPassKind};
pub use weekly::CuratorWeekly;

/// The tenant setting that holds the curator's settings (JSON).
const SETTINGS: &str = "curator";
/// How many passes and ledger rows are listed.
const LISTED: u32 = 50;
const LEDGER_LISTED: u32 = 200;

/// The tenant's curator settings, or the defaults.
pub async fn settings(store: &dyn Store, tenant_id: &str) -> Result<CuratorSettings, ApiError> {
    let stored = store.tenant_setting(tenant_id, SETTINGS).await?;
    Ok(stored
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default())
}

/// Adds a pass for the tenant as a job; the pass is listed (waiting) at once. `key` makes
/// it once across processes (the weekly source's).
pub async fn add_pass(
    engine: &Engine,
    tenant_id: &str,
    dry_run: bool,
    trigger: &str,
    requested_by: &str,
    key: Option<String>,
) -> Result<Option<String>, ApiError> {
    let now = now_ms();
    let job = NewJob {
        id: format!("job-{}", uuid::Uuid::new_v4().simple()),
        tenant_id: tenant_id.to_owned(),
        kind: CURATOR_KIND.to_owned(),
        payload: json!({"dry_run": dry_run, "trigger": trigger, "requested_by": requested_by}),
        run_at_ms: now,
        max_attempts: 3,
        idempotency_key: key,
        created_by: requested_by.to_owned(),
        created_at_ms: now,
        agent: None,
        project_id: None,
    };
    let enqueued = engine.store().enqueue_job(&job, now).await?;
    if !enqueued.created {
        return Ok(None);
    }
    let pass = CuratorPass {
        id: enqueued.job.id.clone(),
        trigger: trigger.to_owned(),
        dry_run,
        requested_by: requested_by.to_owned(),
        state: "waiting".into(),
        started_at_ms: now,
        finished_at_ms: None,
        report: PassReport::default(),
    };
    engine.store().save_pass(tenant_id, &pass).await?;
    engine.changed(tenant_id);
    engine.wake();
    Ok(Some(pass.id))
}

pub struct CuratorServiceImpl {
    engine: Arc<Engine>,
}

impl CuratorServiceImpl {
    pub fn new(engine: Arc<Engine>) -> Self {
        Self { engine }
    }

    fn store(&self) -> &Arc<dyn Store> {
        self.engine.store()
    }
}

#[async_trait::async_trait]
impl CuratorService for CuratorServiceImpl {
    async fn curator_settings(
        &self,
        context: &RequestContext,
    ) -> Result<CuratorSettings, ApiError> {
        settings(self.store().as_ref(), &context.tenant).await
    }

    async fn set_curator_settings(
        &self,
        context: &RequestContext,
        settings: CuratorSettings,
    ) -> Result<CuratorSettings, ApiError> {
        let settings = settings.checked().map_err(ApiError::BadRequest)?;
        let text = serde_json::to_string(&settings)
            .map_err(|error| ApiError::Internal(error.to_string()))?;
        self.store()
            .set_tenant_setting(&context.tenant, SETTINGS, &text)
            .await?;
        Ok(settings)
    }

    async fn start_pass(
        &self,
        context: &RequestContext,
        start: StartPass,
    ) -> Result<PassStarted, ApiError> {
        let filter = JobFilter {
            kind: Some(CURATOR_KIND.to_owned()),
            ..JobFilter::default()
        };
        let counts = self
            .store()
            .list_jobs(&context.tenant, &filter, 0, 1)
            .await?
            .counts;
        if counts.scheduled + counts.available + counts.running + counts.retryable > 0 {
            return Err(ApiError::Conflict(
                "a pass is waiting or running already; its report will be on the Curator page"
                    .into(),
            ));
        }
        let pass_id = add_pass(
            &self.engine,
            &context.tenant,
            start.dry_run,
            "operator",
            &context.acted_by(),
            None,
        )
        .await?
        .ok_or_else(|| ApiError::Conflict("the pass was asked for already".into()))?;
        Ok(PassStarted { pass_id })
    }

    async fn passes(&self, context: &RequestContext) -> Result<CuratorPasses, ApiError> {
        Ok(CuratorPasses {
            passes: self.store().passes(&context.tenant, LISTED).await?,
        })
    }

    async fn pass(&self, context: &RequestContext, id: &str) -> Result<CuratorPass, ApiError> {
        self.store()
            .pass(&context.tenant, id)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("curator pass {id:?} does not exist")))
    }

    async fn ledger(&self, context: &RequestContext) -> Result<CuratorLedger, ApiError> {
        Ok(CuratorLedger {
            changes: self.store().ledger(&context.tenant, LEDGER_LISTED).await?,
        })
    }

    async fn undo_change(
        &self,
        context: &RequestContext,
        id: &str,
    ) -> Result<CuratorChange, ApiError> {
        match self
            .store()
            .undo_change(&context.tenant, id, &context.acted_by(), now_ms())
            .await?
        {
            Undo::Done(change) => Ok(*change),
            Undo::Missing => Err(ApiError::NotFound(format!(
                "curator change {id:?} does not exist"
            ))),
            Undo::Refused(reason) => Err(ApiError::Conflict(reason)),
        }
    }
}
