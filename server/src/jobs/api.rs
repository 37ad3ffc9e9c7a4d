//! The jobs service the REST API and the console's server functions share: the tenant's
//! jobs read, cancelled and retried, one or every one matching a filter; the engine is
//! woken so a cancel reaches a running job at once and a retry runs without waiting.

use std::sync::Arc;

use app::api::service::JobsService;
use app::error::ApiError;
use app::model::RequestContext;
use app::model::jobs::{JobDetail, JobFilter, JobList, JobsTouched};
use app::model::retention::RetentionSettings;

use super::Engine;
use crate::clock::now_ms;
use crate::store::jobs::Selection;

pub struct JobsServiceImpl {
    engine: Arc<Engine>,
}

impl JobsServiceImpl {
    pub fn new(engine: Arc<Engine>) -> Self {
        Self { engine }
    }
}

fn selection(id: Option<&str>, filter: &JobFilter) -> Selection {
    match id {
        Some(id) => Selection::One(id.to_owned()),
        None => Selection::Matching(filter.clone()),
    }
}

#[async_trait::async_trait]
impl JobsService for JobsServiceImpl {
    async fn list_jobs(
        &self,
        context: &RequestContext,
        filter: &JobFilter,
        offset: u32,
        limit: u32,
    ) -> Result<JobList, ApiError> {
        Ok(self
            .engine
            .store()
            .list_jobs(&context.tenant, filter, offset, limit)
            .await?)
    }

    async fn job(&self, context: &RequestContext, id: &str) -> Result<JobDetail, ApiError> {
        self.engine
            .store()
            .job_detail(&context.tenant, id)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("job {id:?} does not exist")))
    }

    async fn cancel_jobs(
        &self,
        context: &RequestContext,
        id: Option<&str>,
        filter: &JobFilter,
    ) -> Result<JobsTouched, ApiError> {
        let touched = self.touch(context, id, filter, Action::Cancel).await?;
        self.engine.check_leases();
        Ok(touched)
    }

    async fn retry_jobs(
        &self,
        context: &RequestContext,
        id: Option<&str>,
        filter: &JobFilter,
    ) -> Result<JobsTouched, ApiError> {
        let touched = self.touch(context, id, filter, Action::Retry).await?;
        self.engine.wake();
        Ok(touched)
    }

    async fn retention(&self, context: &RequestContext) -> Result<RetentionSettings, ApiError> {
        super::retention::settings(self.engine.store().as_ref(), &context.tenant)
            .await
            .map_err(ApiError::Storage)
    }

    async fn set_retention(
        &self,
        context: &RequestContext,
        settings: RetentionSettings,
    ) -> Result<RetentionSettings, ApiError> {
        let settings = settings.checked().map_err(ApiError::BadRequest)?;
        let text = serde_json::to_string(&settings)
            .map_err(|error| ApiError::Internal(error.to_string()))?;
        self.engine
            .store()
            .set_tenant_setting(&context.tenant, "retention", &text)
            .await?;
        Ok(settings)
    }
}

#[derive(Clone, Copy)]
enum Action {
    Cancel,
    Retry,
}

impl JobsServiceImpl {
    /// Cancels or retries the job `id` (404 when the tenant has none) or every job
    /// matching `filter`.
    async fn touch(
        &self,
        context: &RequestContext,
        id: Option<&str>,
        filter: &JobFilter,
        action: Action,
    ) -> Result<JobsTouched, ApiError> {
        if let Some(id) = id {
            self.job(context, id).await?;
        }
        let store = self.engine.store();
        let selection = selection(id, filter);
        let count = match action {
            Action::Cancel => {
                store
                    .cancel_jobs(&context.tenant, &selection, now_ms())
                    .await?
            }
            Action::Retry => {
                store
                    .retry_jobs(&context.tenant, &selection, now_ms())
                    .await?
            }
        };
        if count > 0 {
            self.engine.changed(&context.tenant);
        }
        Ok(JobsTouched { count })
    }
}
