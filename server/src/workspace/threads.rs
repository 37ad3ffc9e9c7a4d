//! Threads and runs as the console and the REST API reach them, over the store and the
//! run service.

use std::sync::Arc;

use app::a2ui::action::ActionRequest;
use app::api::service::WorkspaceService;
use app::error::ApiError;
use app::model::{
    AnswerOutcome, AuditEntry, RequestContext, RunPage, RunSummary, Starter, ThreadDraft,
    ThreadPage, ThreadSummary,
};
use app::projection::{Arrival, RunView, ViewPolicy};
use app::protocol::receipts::ReceiptEnvelope;

use crate::clock::now_ms;
use crate::runs::{ReceiptOutcome, RunOptions, Runs};
use crate::store::{RunRecord, Store, ask_key};

pub struct WorkspaceServiceImpl {
    store: Arc<dyn Store>,
    runs: Arc<Runs>,
}

impl WorkspaceServiceImpl {
    pub fn new(store: Arc<dyn Store>, runs: Arc<Runs>) -> Self {
        Self { store, runs }
    }

    /// What each agent offers to try, offered on a new thread; the default agent first.
    fn suggestions(&self) -> Vec<(String, Vec<Starter>)> {
        let agents = self.runs.agents();
        let default = agents.default_agent().map(|agent| agent.name().to_owned());
        let mut words: Vec<(String, Vec<Starter>)> = agents
            .iter()
            .map(|agent| (agent.name().to_owned(), agent.suggestions()))
            .collect();
        words.sort_by_key(|(name, _)| Some(name) != default.as_ref());
        words
    }
}

pub fn run_summary(run: &RunRecord) -> RunSummary {
    RunSummary {
        id: run.id.clone(),
        agent: run.agent.clone(),
        status: run.status,
        created_at_ms: run.created_at_ms,
    }
}

#[async_trait::async_trait]
impl WorkspaceService for WorkspaceServiceImpl {
    async fn list_threads(&self, tenant_id: &str) -> Result<Vec<ThreadSummary>, ApiError> {
        let mut threads = self.store.list_threads(tenant_id).await?;
        // Named once per project, for the sidebar's groups.
        let mut names: std::collections::HashMap<String, Option<String>> = Default::default();
        for thread in &mut threads {
            let Some(project_id) = thread.project_id.clone() else {
                continue;
            };
            if !names.contains_key(&project_id) {
                let name = self
                    .store
                    .get_project(tenant_id, &project_id)
                    .await?
                    .map(|project| project.name);
                names.insert(project_id.clone(), name);
            }
            thread.project_name = names[&project_id].clone();
        }
        Ok(threads)
    }

    async fn search_threads(
        &self,
        tenant_id: &str,
        query: &str,
    ) -> Result<Vec<ThreadSummary>, ApiError> {
        let terms = app::search::search_terms(query);
        Ok(self.store.search_threads(tenant_id, &terms, 50).await?)
    }

    async fn inbox(&self, tenant_id: &str) -> Result<app::model::inbox::Inbox, ApiError> {
        let live = self.runs.live();
        Ok(
            crate::live::inbox::InboxReader::new(&*self.store, live, tenant_id)
                .snapshot()
                .await?,
        )
    }

    async fn audit(&self, tenant_id: &str, limit: u32) -> Result<Vec<AuditEntry>, ApiError> {
        Ok(self.store.audit(tenant_id, limit).await?)
    }

    async fn create_thread(
        &self,
        tenant_id: &str,
        agent: Option<&str>,
        project_id: Option<&str>,
    ) -> Result<ThreadSummary, ApiError> {
        if !self.store.tenant_exists(tenant_id).await? {
            return Err(ApiError::NotFound(format!(
                "tenant {tenant_id:?} does not exist; create it first (POST /api/v1/tenants)"
            )));
        }
        let project =
            match project_id {
                Some(id) => Some(self.store.get_project(tenant_id, id).await?.ok_or_else(
                    || ApiError::BadRequest(format!("project_id: there is no project {id:?}")),
                )?),
                None => None,
            };
        if let Some(project) = &project
            && project.archived_at_ms.is_some()
        {
            return Err(ApiError::Conflict(format!(
                "project {:?} is archived: restore it to start threads in it",
                project.name
            )));
        }
        let agent = agent.map(str::to_owned).or_else(|| {
            project
                .as_ref()
                .and_then(|project| project.default_agent.clone())
        });
        if let Some(agent) = &agent {
            self.runs.agents().check("agent", agent)?;
        }
        let id = uuid::Uuid::new_v4().to_string();
        let thread = self
            .store
            .create_thread(tenant_id, &id, project_id, now_ms())
            .await?;
        if let Some(agent) = &agent {
            self.store.bind_thread_agent(tenant_id, &id, agent).await?;
        }
        Ok(thread)
    }

    async fn thread_draft(
        &self,
        tenant_id: &str,
        project_id: Option<&str>,
    ) -> Result<ThreadDraft, ApiError> {
        let project = match project_id {
            Some(id) => Some(
                self.store
                    .get_project(tenant_id, id)
                    .await?
                    .ok_or_else(|| ApiError::NotFound(format!("project {id:?} does not exist")))?,
            ),
            None => None,
        };
        let agent = project
            .as_ref()
            .and_then(|project| project.default_agent.clone())
            .or_else(|| {
                self.runs
                    .agents()
                    .default_agent()
                    .map(|agent| agent.name().to_owned())
            });
        Ok(ThreadDraft {
            agents: self.runs.agents().names(),
            agent,
            starters: self.suggestions(),
            project: project.map(|project| (project.id, project.name)),
        })
    }

    async fn start_thread(
        &self,
        tenant_id: &str,
        agent: Option<&str>,
        project_id: Option<&str>,
        text: &str,
    ) -> Result<ThreadSummary, ApiError> {
        if text.trim().is_empty() {
            return Err(ApiError::BadRequest("the message is empty".into()));
        }
        let thread = self.create_thread(tenant_id, agent, project_id).await?;
        self.send_message(tenant_id, &thread.id, text).await?;
        self.get_thread(tenant_id, &thread.id).await
    }

    async fn get_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<ThreadSummary, ApiError> {
        self.store
            .get_thread(tenant_id, thread_id)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("thread {thread_id:?} does not exist")))
    }

    async fn archive_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
        archived: bool,
    ) -> Result<ThreadSummary, ApiError> {
        self.store
            .archive_thread(tenant_id, thread_id, archived.then(now_ms))
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("thread {thread_id:?} does not exist")))
    }

    async fn rename_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
        title: &str,
    ) -> Result<ThreadSummary, ApiError> {
        let title = title.trim();
        if title.is_empty() {
            return Err(ApiError::BadRequest(
                "a thread title must not be empty".into(),
            ));
        }
        if title.chars().count() > 200 {
            return Err(ApiError::BadRequest(
                "a thread title is at most 200 characters".into(),
            ));
        }
        let renamed = self
            .store
            .rename_thread(tenant_id, thread_id, title)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("thread {thread_id:?} does not exist")))?;
        self.runs.live().tenant_changed(tenant_id);
        Ok(renamed)
    }

    fn environments(&self) -> Vec<app::model::AgentEnvironment> {
        self.runs
            .agents()
            .iter()
            .map(|agent| agent.environment())
            .collect()
    }

    async fn thread_page(&self, tenant_id: &str, thread_id: &str) -> Result<ThreadPage, ApiError> {
        let thread = self.get_thread(tenant_id, thread_id).await?;
        let agent = self.store.thread_agent(tenant_id, thread_id).await?;
        let mut runs = Vec::new();
        for run in self.store.list_runs(tenant_id, thread_id).await? {
            let events = self.store.events(tenant_id, &run.id, 0, None).await?;
            let mut view = RunView::from_events(ViewPolicy::default(), &events);
            view.omit_arrivals();
            runs.push(RunPage {
                run: run_summary(&run),
                view,
            });
        }
        Ok(ThreadPage {
            suggestions: self.suggestions(),
            agents: self.runs.agents().names(),
            environments: self.environments(),
            thread,
            agent,
            runs,
        })
    }

    async fn bind_agent(
        &self,
        tenant_id: &str,
        thread_id: &str,
        agent: &str,
    ) -> Result<(), ApiError> {
        self.get_thread(tenant_id, thread_id).await?;
        self.runs.agents().check("agent", agent)?;
        self.runs.bind_agent(tenant_id, thread_id, agent).await
    }

    async fn send_message(
        &self,
        tenant_id: &str,
        thread_id: &str,
        text: &str,
    ) -> Result<RunSummary, ApiError> {
        let run = self
            .runs
            .send_message(tenant_id, thread_id, text, RunOptions::default())
            .await?;
        Ok(run_summary(&run))
    }

    async fn send_surface_action(
        &self,
        tenant_id: &str,
        thread_id: &str,
        request: &ActionRequest,
    ) -> Result<RunSummary, ApiError> {
        let run = self
            .runs
            .send_surface_action(tenant_id, thread_id, request)
            .await?;
        Ok(run_summary(&run))
    }

    async fn retry_run(&self, tenant_id: &str, run_id: &str) -> Result<RunSummary, ApiError> {
        let run = self
            .runs
            .retry(tenant_id, run_id, RunOptions::default())
            .await?;
        Ok(run_summary(&run))
    }

    async fn cancel_run(&self, tenant_id: &str, run_id: &str) -> Result<RunSummary, ApiError> {
        Ok(run_summary(&self.runs.cancel(tenant_id, run_id).await?))
    }

    async fn run_arrivals(&self, tenant_id: &str, run_id: &str) -> Result<Vec<Arrival>, ApiError> {
        self.store
            .get_run(tenant_id, run_id)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("run {run_id:?} does not exist")))?;
        let events = self.store.events(tenant_id, run_id, 0, None).await?;
        Ok(RunView::from_events(ViewPolicy::default(), &events).arrivals)
    }

    async fn answer_ask(
        &self,
        context: &RequestContext,
        run_id: &str,
        ask_id: &str,
        receipt: &str,
    ) -> Result<AnswerOutcome, ApiError> {
        let envelope = ReceiptEnvelope::parse(receipt.as_bytes())
            .map_err(|error| ApiError::BadRequest(error.to_string()))?;
        match self
            .runs
            .answer(
                &context.tenant,
                &ask_key(run_id, ask_id),
                &crate::runs::Answerer::of(context),
                &envelope,
            )
            .await?
        {
            ReceiptOutcome::Accepted(_) => Ok(AnswerOutcome::Accepted),
            ReceiptOutcome::AlreadyClosed(record) => Ok(AnswerOutcome::AlreadyClosed {
                state: record.ask.state,
                answered_by: record.answered_by,
            }),
        }
    }
}
