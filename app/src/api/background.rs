//! The services of background work the server implements and provides by context: a
//! tenant's schedules, its jobs, the agents' own schedulers and the knowledge curator.

use std::sync::Arc;

use leptos::prelude::use_context;

use crate::error::ApiError;
use crate::model::RequestContext;

pub fn schedules() -> Result<Arc<dyn SchedulesService>, ApiError> {
    use_context::<Schedules>()
        .map(|schedules| schedules.0)
        .ok_or_else(|| ApiError::Internal("the schedules service is not provided".into()))
}

pub fn jobs() -> Result<Arc<dyn JobsService>, ApiError> {
    use_context::<Jobs>()
        .map(|jobs| jobs.0)
        .ok_or_else(|| ApiError::Internal("the jobs service is not provided".into()))
}

/// A tenant's schedules; every method acts in the context's tenant.
#[async_trait::async_trait]
pub trait SchedulesService: Send + Sync + 'static {
    /// The configured agents a schedule may name.
    fn agents(&self) -> Vec<String>;
    async fn list_schedules(
        &self,
        context: &RequestContext,
        offset: u32,
        limit: u32,
    ) -> Result<crate::model::schedules::ScheduleList, ApiError>;
    /// The schedule with its next 10 fire times and its last 10 fires.
    async fn schedule(
        &self,
        context: &RequestContext,
        id: &str,
    ) -> Result<crate::model::schedules::ScheduleDetail, ApiError>;
    /// The schedule, and whether it was made now (false: its idempotency key had made it
    /// before).
    async fn create_schedule(
        &self,
        context: &RequestContext,
        schedule: crate::model::schedules::NewSchedule,
    ) -> Result<(crate::model::schedules::Schedule, bool), ApiError>;
    async fn edit_schedule(
        &self,
        context: &RequestContext,
        id: &str,
        edit: crate::model::schedules::ScheduleEdit,
    ) -> Result<crate::model::schedules::Schedule, ApiError>;
    /// Fires the schedule now, under its overlap policy.
    async fn run_schedule(
        &self,
        context: &RequestContext,
        id: &str,
    ) -> Result<crate::model::schedules::ScheduleDetail, ApiError>;
    async fn delete_schedule(&self, context: &RequestContext, id: &str) -> Result<(), ApiError>;
}

#[derive(Clone)]
pub struct Schedules(pub Arc<dyn SchedulesService>);

/// The agents' own schedulers (a Hermes gateway's `cron.manage`). A scheduler shared by
/// every tenant is read and changed by owners only.
#[async_trait::async_trait]
pub trait GatewayJobsService: Send + Sync + 'static {
    /// Each agent's jobs that the caller may see, with the paused ones the agent no
    /// longer lists.
    async fn gateway_jobs(
        &self,
        context: &RequestContext,
    ) -> Result<Vec<crate::model::gateway_jobs::GatewayJobs>, ApiError>;
    async fn add_gateway_job(
        &self,
        context: &RequestContext,
        agent: &str,
        job: crate::model::gateway_jobs::NewGatewayJob,
    ) -> Result<crate::model::gateway_jobs::GatewayJob, ApiError>;
    async fn pause_gateway_job(
        &self,
        context: &RequestContext,
        agent: &str,
        id: &str,
    ) -> Result<crate::model::gateway_jobs::GatewayJob, ApiError>;
    async fn resume_gateway_job(
        &self,
        context: &RequestContext,
        agent: &str,
        id: &str,
    ) -> Result<crate::model::gateway_jobs::GatewayJob, ApiError>;
    async fn remove_gateway_job(
        &self,
        context: &RequestContext,
        agent: &str,
        id: &str,
    ) -> Result<(), ApiError>;
}

#[derive(Clone)]
pub struct GatewayJobsOf(pub Arc<dyn GatewayJobsService>);

pub fn gateway_jobs() -> Result<Arc<dyn GatewayJobsService>, ApiError> {
    use_context::<GatewayJobsOf>()
        .map(|jobs| jobs.0)
        .ok_or_else(|| ApiError::Internal("the gateway jobs service is not provided".into()))
}

/// A tenant's background jobs; every method acts in the context's tenant.
#[async_trait::async_trait]
pub trait JobsService: Send + Sync + 'static {
    async fn list_jobs(
        &self,
        context: &RequestContext,
        filter: &crate::model::jobs::JobFilter,
        offset: u32,
        limit: u32,
    ) -> Result<crate::model::jobs::JobList, ApiError>;
    async fn job(
        &self,
        context: &RequestContext,
        id: &str,
    ) -> Result<crate::model::jobs::JobDetail, ApiError>;
    /// Cancels the job `id`, or every job matching `filter`: waiting ones end, running
    /// ones are asked to stop.
    async fn cancel_jobs(
        &self,
        context: &RequestContext,
        id: Option<&str>,
        filter: &crate::model::jobs::JobFilter,
    ) -> Result<crate::model::jobs::JobsTouched, ApiError>;
    /// Runs the failed or cancelled job `id` (or every one matching `filter`) again now.
    async fn retry_jobs(
        &self,
        context: &RequestContext,
        id: Option<&str>,
        filter: &crate::model::jobs::JobFilter,
    ) -> Result<crate::model::jobs::JobsTouched, ApiError>;
    /// How long the tenant keeps raw frames and finished jobs.
    async fn retention(
        &self,
        context: &RequestContext,
    ) -> Result<crate::model::retention::RetentionSettings, ApiError>;
    async fn set_retention(
        &self,
        context: &RequestContext,
        settings: crate::model::retention::RetentionSettings,
    ) -> Result<crate::model::retention::RetentionSettings, ApiError>;
}

#[derive(Clone)]
pub struct Jobs(pub Arc<dyn JobsService>);

/// The knowledge curator of a tenant: its settings, its passes and their reports, and the
/// ledger of changes made on its proposals, each of which can be undone.
#[async_trait::async_trait]
pub trait CuratorService: Send + Sync + 'static {
    async fn curator_settings(
        &self,
        context: &RequestContext,
    ) -> Result<crate::model::curator::CuratorSettings, ApiError>;
    async fn set_curator_settings(
        &self,
        context: &RequestContext,
        settings: crate::model::curator::CuratorSettings,
    ) -> Result<crate::model::curator::CuratorSettings, ApiError>;
    /// Asks for a pass now (a job); refused while one waits or runs.
    async fn start_pass(
        &self,
        context: &RequestContext,
        start: crate::model::curator::StartPass,
    ) -> Result<crate::model::curator::PassStarted, ApiError>;
    async fn passes(
        &self,
        context: &RequestContext,
    ) -> Result<crate::model::curator::CuratorPasses, ApiError>;
    async fn pass(
        &self,
        context: &RequestContext,
        id: &str,
    ) -> Result<crate::model::curator::CuratorPass, ApiError>;
    async fn ledger(
        &self,
        context: &RequestContext,
    ) -> Result<crate::model::curator::CuratorLedger, ApiError>;
    /// Puts the entry back exactly as it was before the change; the undo is a ledger row.
    async fn undo_change(
        &self,
        context: &RequestContext,
        id: &str,
    ) -> Result<crate::model::curator::CuratorChange, ApiError>;
}

#[derive(Clone)]
pub struct CuratorOf(pub Arc<dyn CuratorService>);

pub fn curator() -> Result<Arc<dyn CuratorService>, ApiError> {
    use_context::<CuratorOf>()
        .map(|curator| curator.0)
        .ok_or_else(|| ApiError::Internal("the curator service is not provided".into()))
}
