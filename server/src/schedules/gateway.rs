//! Agents' own schedulers beside the console's (a Hermes gateway's `cron.manage`): listed
//! with the paused jobs the gateway no longer lists, added to, paused, resumed and
//! removed. A gateway that serves every tenant keeps every tenant's jobs in one place, so
//! only owners see them; a gateway per tenant is its tenant's alone. Changing an agent's
//! own scheduler is an owner's, like its configuration: its jobs run outside the console's
//! asks and receipts.

use std::sync::Arc;

use app::api::service::GatewayJobsService;
use app::error::ApiError;
use app::model::gateway_jobs::{GatewayJob, GatewayJobs, NewGatewayJob};
use app::model::{RequestContext, Role};
use app::protocol::hermes::cron::{CronCall, read_job, read_list, read_removed};

use crate::clock::now_ms;
use crate::connectors::{Connector, OwnJobs};
use crate::runs::Runs;

/// The longest name and prompt a job may be given, in characters.
const NAME_MOST: usize = 100;
const PROMPT_MOST: usize = 20_000;

pub struct GatewayJobsServiceImpl {
    runs: Arc<Runs>,
}

impl GatewayJobsServiceImpl {
    pub fn new(runs: Arc<Runs>) -> Self {
        Self { runs }
    }

    /// The schedulers the caller may see, each with its agent's name.
    fn visible<'a>(
        &'a self,
        context: &RequestContext,
    ) -> impl Iterator<Item = (&'a str, &'a dyn OwnJobs)> + 'a {
        let owner = context.role.allows(Role::Owner);
        self.runs.agents().iter().filter_map(move |connector| {
            let jobs = connector.own_jobs()?;
            (owner || !jobs.shared()).then_some((connector.name(), jobs))
        })
    }

    /// The scheduler of `agent` (changes are an owner's: the route says so).
    fn changeable(&self, agent: &str) -> Result<&dyn OwnJobs, ApiError> {
        let connector: &Arc<dyn Connector> =
            self.runs.agents().get(agent).ok_or_else(|| {
                ApiError::BadRequest(format!("agent: no agent is called {agent:?}"))
            })?;
        connector.own_jobs().ok_or_else(|| {
            ApiError::BadRequest(format!(
                "agent: {agent:?} keeps no scheduled jobs of its own"
            ))
        })
    }

    fn scope<'a>(jobs: &dyn OwnJobs, context: &'a RequestContext) -> &'a str {
        if jobs.shared() { "" } else { &context.tenant }
    }

    async fn call(
        &self,
        jobs: &dyn OwnJobs,
        context: &RequestContext,
        call: &CronCall,
    ) -> Result<serde_json::Value, ApiError> {
        jobs.call(self.runs.host(), &context.tenant, call)
            .await
            .map_err(gateway_refused)
    }
}

/// What the gateway said, as the caller sees it: a refusal or a fault of the gateway.
fn gateway_refused(words: String) -> ApiError {
    ApiError::Conflict(format!("the gateway answered: {words}"))
}

fn checked(field: &str, text: &str, most: usize) -> Result<String, ApiError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(ApiError::BadRequest(format!("{field}: must not be empty")));
    }
    if text.chars().count() > most {
        return Err(ApiError::BadRequest(format!(
            "{field}: at most {most} characters"
        )));
    }
    Ok(text.to_owned())
}

#[async_trait::async_trait]
impl GatewayJobsService for GatewayJobsServiceImpl {
    async fn gateway_jobs(&self, context: &RequestContext) -> Result<Vec<GatewayJobs>, ApiError> {
        let store = self.runs.store();
        let mut all = Vec::new();
        for (agent, jobs) in self.visible(context) {
            let scope = Self::scope(jobs, context);
            let listed = jobs
                .call(self.runs.host(), &context.tenant, &CronCall::List)
                .await
                .and_then(|result| read_list(&result));
            let mut entry = GatewayJobs {
                agent: agent.to_owned(),
                shared: jobs.shared(),
                jobs: Vec::new(),
                problem: None,
            };
            match listed {
                Ok(listed) => entry.jobs = listed,
                Err(problem) => entry.problem = Some(problem),
            }
            for paused in store.paused_gateway_jobs(scope, agent).await? {
                // Listed again: resumed elsewhere, so no longer kept here.
                if entry.jobs.iter().any(|job| job.id == paused.id) {
                    store
                        .forget_paused_gateway_job(scope, agent, &paused.id)
                        .await?;
                } else {
                    entry.jobs.push(paused);
                }
            }
            all.push(entry);
        }
        Ok(all)
    }

    async fn add_gateway_job(
        &self,
        context: &RequestContext,
        agent: &str,
        job: NewGatewayJob,
    ) -> Result<GatewayJob, ApiError> {
        let jobs = self.changeable(agent)?;
        let call = CronCall::Add {
            name: checked("name", &job.name, NAME_MOST)?,
            schedule: checked("schedule", &job.schedule, NAME_MOST)?,
            prompt: checked("prompt", &job.prompt, PROMPT_MOST)?,
        };
        let result = self.call(jobs, context, &call).await?;
        read_job(&result).map_err(|words| ApiError::BadRequest(format!("schedule: {words}")))
    }

    async fn pause_gateway_job(
        &self,
        context: &RequestContext,
        agent: &str,
        id: &str,
    ) -> Result<GatewayJob, ApiError> {
        let jobs = self.changeable(agent)?;
        let call = CronCall::Pause { id: id.to_owned() };
        let result = self.call(jobs, context, &call).await?;
        let paused = read_job(&result).map_err(gateway_refused)?;
        self.runs
            .store()
            .keep_paused_gateway_job(Self::scope(jobs, context), agent, &paused, now_ms())
            .await?;
        Ok(paused)
    }

    async fn resume_gateway_job(
        &self,
        context: &RequestContext,
        agent: &str,
        id: &str,
    ) -> Result<GatewayJob, ApiError> {
        let jobs = self.changeable(agent)?;
        let call = CronCall::Resume { id: id.to_owned() };
        let resumed = read_job(&self.call(jobs, context, &call).await?).map_err(gateway_refused)?;
        self.forget_pause(jobs, context, agent, id).await?;
        Ok(resumed)
    }

    async fn remove_gateway_job(
        &self,
        context: &RequestContext,
        agent: &str,
        id: &str,
    ) -> Result<(), ApiError> {
        let jobs = self.changeable(agent)?;
        let call = CronCall::Remove { id: id.to_owned() };
        read_removed(&self.call(jobs, context, &call).await?).map_err(gateway_refused)?;
        self.forget_pause(jobs, context, agent, id).await
    }
}

impl GatewayJobsServiceImpl {
    /// Forgets the pause the console kept of a job (resumed or removed now).
    async fn forget_pause(
        &self,
        jobs: &dyn OwnJobs,
        context: &RequestContext,
        agent: &str,
        id: &str,
    ) -> Result<(), ApiError> {
        Ok(self
            .runs
            .store()
            .forget_paused_gateway_job(Self::scope(jobs, context), agent, id)
            .await?)
    }
}
