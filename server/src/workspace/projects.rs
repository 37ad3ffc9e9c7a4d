//! Projects as the console and the REST API reach them: checked names (one project per
//! name in a tenant), a default agent that must be configured, archive and restore, and
//! a project's page — its threads, notes, open asks and latest runs.

use std::sync::Arc;

use app::api::service::ProjectsService;
use app::error::ApiError;
use app::model::RequestContext;
use app::model::projects::{
    NewProject, OpenAsk, Project, ProjectEdit, ProjectList, ProjectPage, ProjectRun,
    check_description, check_name,
};

use super::run_summary;
use crate::clock::{EDIT_TRIES, now_ms, stamp_after};
use crate::runs::Runs;
use crate::store::notes::NoteFilter;
use crate::store::{Store, refused_if_taken};

/// How many of a project's latest runs its page lists.
const RECENT_RUNS: u32 = 10;
/// How many of its notes (the latest edited).
const PROJECT_NOTES: u32 = 50;

pub struct ProjectsServiceImpl {
    store: Arc<dyn Store>,
    runs: Arc<Runs>,
}

impl ProjectsServiceImpl {
    pub fn new(runs: Arc<Runs>) -> Self {
        Self {
            store: runs.store().clone(),
            runs,
        }
    }

    fn check_agent(&self, agent: Option<String>) -> Result<Option<String>, ApiError> {
        match agent.map(|agent| agent.trim().to_owned()) {
            None => Ok(None),
            Some(agent) if agent.is_empty() => Ok(None),
            Some(agent) => {
                self.runs.agents().check("default_agent", &agent)?;
                Ok(Some(agent))
            }
        }
    }

    /// `project` with `edit` applied, each field checked.
    async fn edited(
        &self,
        context: &RequestContext,
        mut project: Project,
        edit: ProjectEdit,
    ) -> Result<Project, ApiError> {
        if let Some(name) = edit.name {
            project.name = check_name(&name).map_err(ApiError::BadRequest)?;
            self.check_unique(&context.tenant, &project.name, Some(&project.id))
                .await?;
        }
        if let Some(description) = edit.description {
            project.description = check_description(&description).map_err(ApiError::BadRequest)?;
        }
        if let Some(agent) = edit.default_agent {
            project.default_agent = self.check_agent(agent)?;
        }
        let now = stamp_after(project.updated_at_ms);
        match edit.archived {
            Some(true) if project.archived_at_ms.is_none() => project.archived_at_ms = Some(now),
            Some(false) => project.archived_at_ms = None,
            _ => {}
        }
        project.updated_at_ms = now;
        Ok(project)
    }

    /// Refuses a name another project of the tenant has.
    async fn check_unique(
        &self,
        tenant: &str,
        name: &str,
        except: Option<&str>,
    ) -> Result<(), ApiError> {
        match self.store.project_named(tenant, name).await? {
            Some(other) if Some(other.id.as_str()) != except => Err(taken(name)),
            _ => Ok(()),
        }
    }
}

fn taken(name: &str) -> ApiError {
    ApiError::Conflict(format!("name: there is a project named {name:?} already"))
}

fn missing(id: &str) -> ApiError {
    ApiError::NotFound(format!("project {id:?} does not exist"))
}

#[async_trait::async_trait]
impl ProjectsService for ProjectsServiceImpl {
    fn agents(&self) -> Vec<String> {
        self.runs.agents().names()
    }

    async fn list_projects(
        &self,
        context: &RequestContext,
        archived: bool,
        q: Option<&str>,
        offset: u32,
        limit: u32,
    ) -> Result<ProjectList, ApiError> {
        let q = q.map(str::trim).filter(|q| !q.is_empty());
        Ok(self
            .store
            .list_projects(&context.tenant, archived, q, offset, limit.clamp(1, 200))
            .await?)
    }

    async fn get_project(&self, context: &RequestContext, id: &str) -> Result<Project, ApiError> {
        self.store
            .get_project(&context.tenant, id)
            .await?
            .ok_or_else(|| missing(id))
    }

    async fn project_page(
        &self,
        context: &RequestContext,
        id: &str,
    ) -> Result<ProjectPage, ApiError> {
        let project = self.get_project(context, id).await?;
        let tenant = &context.tenant;
        let notes = self
            .store
            .list_notes(
                tenant,
                &NoteFilter {
                    project_id: Some(id.to_owned()),
                    limit: PROJECT_NOTES,
                    ..NoteFilter::default()
                },
            )
            .await?
            .notes;
        let open_asks = self
            .store
            .project_open_asks(tenant, id)
            .await?
            .into_iter()
            .map(|record| OpenAsk {
                key: record.key,
                thread_id: record.thread_id,
                run_id: record.run_id,
                title: record.ask.title,
                created_at_ms: record.created_at_ms,
            })
            .collect();
        let recent_runs = self
            .store
            .project_runs(tenant, id, RECENT_RUNS)
            .await?
            .iter()
            .map(|run| ProjectRun {
                thread_id: run.thread_id.clone(),
                run: run_summary(run),
            })
            .collect();
        Ok(ProjectPage {
            threads: self.store.project_threads(tenant, id).await?,
            project,
            notes,
            open_asks,
            recent_runs,
        })
    }

    async fn create_project(
        &self,
        context: &RequestContext,
        project: NewProject,
    ) -> Result<Project, ApiError> {
        let name = check_name(&project.name).map_err(ApiError::BadRequest)?;
        let description = check_description(&project.description).map_err(ApiError::BadRequest)?;
        let default_agent = self.check_agent(project.default_agent)?;
        self.check_unique(&context.tenant, &name, None).await?;
        let now = now_ms();
        let project = Project {
            id: uuid::Uuid::new_v4().to_string(),
            name,
            description,
            default_agent,
            archived_at_ms: None,
            created_at_ms: now,
            updated_at_ms: now,
        };
        refused_if_taken(
            self.store.create_project(&context.tenant, &project).await,
            || taken(&project.name),
        )?;
        Ok(project)
    }

    async fn edit_project(
        &self,
        context: &RequestContext,
        id: &str,
        edit: ProjectEdit,
    ) -> Result<Project, ApiError> {
        // Made on the project as read; if another edit landed meanwhile, made again on
        // what that edit left, so neither undoes the other (a rename, say, an archiving).
        for _ in 0..EDIT_TRIES {
            let read = self.get_project(context, id).await?;
            let project = self.edited(context, read.clone(), edit.clone()).await?;
            let stored = self
                .store
                .update_project(&context.tenant, &project, read.updated_at_ms)
                .await;
            if refused_if_taken(stored, || taken(&project.name))? {
                self.runs.live().tenant_changed(&context.tenant);
                return Ok(project);
            }
        }
        Err(ApiError::Conflict(format!(
            "project {id:?} is being edited by someone else; try again"
        )))
    }

    async fn delete_project(&self, context: &RequestContext, id: &str) -> Result<(), ApiError> {
        if self.store.delete_project(&context.tenant, id).await? {
            // Its threads left it: their asks in the inbox say "No project" now.
            self.runs.live().tenant_changed(&context.tenant);
            Ok(())
        } else {
            Err(missing(id))
        }
    }
}
