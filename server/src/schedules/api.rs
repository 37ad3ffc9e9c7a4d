//! The schedules service the REST API and the console's server functions share: the
//! caller's tenant and name given to [`Schedules`], the agent named checked against the
//! configured ones.

use std::sync::Arc;

use app::api::service::SchedulesService;
use app::error::ApiError;
use app::model::RequestContext;
use app::model::schedules::{NewSchedule, Schedule, ScheduleDetail, ScheduleEdit, ScheduleList};

use super::Schedules;
use crate::runs::Runs;

pub struct SchedulesServiceImpl {
    schedules: Arc<Schedules>,
    runs: Arc<Runs>,
}

impl SchedulesServiceImpl {
    pub fn new(schedules: Arc<Schedules>, runs: Arc<Runs>) -> Self {
        Self { schedules, runs }
    }

    fn check_agent(&self, agent: &str) -> Result<(), ApiError> {
        if self.runs.agents().get(agent.trim()).is_some() {
            Ok(())
        } else {
            Err(ApiError::BadRequest(format!(
                "agent: no agent is called {agent:?}; the configured ones are {}",
                self.agents().join(", ")
            )))
        }
    }
}

#[async_trait::async_trait]
impl SchedulesService for SchedulesServiceImpl {
    fn agents(&self) -> Vec<String> {
        self.runs.agents().names()
    }

    async fn list_schedules(
        &self,
        context: &RequestContext,
        offset: u32,
        limit: u32,
    ) -> Result<ScheduleList, ApiError> {
        self.schedules.list(&context.tenant, offset, limit).await
    }

    async fn schedule(
        &self,
        context: &RequestContext,
        id: &str,
    ) -> Result<ScheduleDetail, ApiError> {
        self.schedules.detail(&context.tenant, id).await
    }

    async fn create_schedule(
        &self,
        context: &RequestContext,
        schedule: NewSchedule,
    ) -> Result<(Schedule, bool), ApiError> {
        self.check_agent(&schedule.agent)?;
        let by = format!("user:{}", context.actor);
        self.schedules.create(&context.tenant, schedule, &by).await
    }

    async fn edit_schedule(
        &self,
        context: &RequestContext,
        id: &str,
        edit: ScheduleEdit,
    ) -> Result<Schedule, ApiError> {
        if let Some(agent) = &edit.agent {
            self.check_agent(agent)?;
        }
        self.schedules.edit(&context.tenant, id, edit).await
    }

    async fn run_schedule(
        &self,
        context: &RequestContext,
        id: &str,
    ) -> Result<ScheduleDetail, ApiError> {
        self.schedules.run_now(&context.tenant, id).await
    }

    async fn delete_schedule(&self, context: &RequestContext, id: &str) -> Result<(), ApiError> {
        self.schedules.delete(&context.tenant, id).await
    }
}
