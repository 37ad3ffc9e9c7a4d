//! What threads and projects pin for their runs: read with each note's current version
//! and each memory entry's text, replaced as a whole, every id checked to be the
//! tenant's (and no one's private memory).

use std::sync::Arc;

use app::api::service::ContextService;
use app::error::ApiError;
use app::memory::ScopeKind;
use app::model::RequestContext;
use app::model::context::{PINS_MOST, Pinned, Pins, ProjectContext, ThreadContext};

use crate::runs::context::pinned;
use crate::store::Store;
use crate::store::pins::{Holder, Pinned as Kind};

pub struct ContextServiceImpl {
    store: Arc<dyn Store>,
}

impl ContextServiceImpl {
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self { store }
    }

    /// The ids in order, each once; refused when one is not the tenant's. The counts are
    /// checked first, so a list of a million ids costs no lookup.
    async fn checked(
        &self,
        tenant: &str,
        pins: Pins,
    ) -> Result<(Vec<String>, Vec<String>), ApiError> {
        for (field, ids) in [("notes", &pins.notes), ("memory", &pins.memory)] {
            let mut distinct: Vec<&String> = ids.iter().collect();
            distinct.sort();
            distinct.dedup();
            if distinct.len() > PINS_MOST {
                return Err(ApiError::BadRequest(format!(
                    "{field}: at most {PINS_MOST} may be pinned"
                )));
            }
        }
        let mut notes: Vec<String> = Vec::new();
        for id in pins.notes {
            if notes.contains(&id) {
                continue;
            }
            if self.store.get_note(tenant, &id).await?.is_none() {
                return Err(ApiError::BadRequest(format!(
                    "notes: there is no note {id:?}"
                )));
            }
            notes.push(id);
        }
        let mut memory: Vec<String> = Vec::new();
        for id in pins.memory {
            if memory.contains(&id) {
                continue;
            }
            // A user's own memory is theirs alone (runs others follow never get it), and
            // is refused in the same words as no entry, so its ids cannot be probed.
            match self.store.memory_entry(tenant, &id).await? {
                Some((entry, _)) if entry.scope != ScopeKind::User => memory.push(id),
                _ => {
                    return Err(ApiError::BadRequest(format!(
                        "memory: there is no tenant or project memory entry {id:?}"
                    )));
                }
            }
        }
        Ok((notes, memory))
    }

    async fn pin(
        &self,
        tenant: &str,
        holder: Holder,
        id: &str,
        pins: Pins,
    ) -> Result<(), ApiError> {
        let (notes, memory) = self.checked(tenant, pins).await?;
        self.store
            .set_pins(tenant, holder, id, Kind::Note, &notes)
            .await?;
        self.store
            .set_pins(tenant, holder, id, Kind::Memory, &memory)
            .await?;
        Ok(())
    }

    async fn project_or_404(
        &self,
        tenant: &str,
        project_id: &str,
    ) -> Result<app::model::projects::Project, ApiError> {
        self.store
            .get_project(tenant, project_id)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("project {project_id:?} does not exist")))
    }
}

#[async_trait::async_trait]
impl ContextService for ContextServiceImpl {
    async fn thread_context(
        &self,
        context: &RequestContext,
        thread_id: &str,
    ) -> Result<ThreadContext, ApiError> {
        let tenant = &context.tenant;
        let thread = self
            .store
            .get_thread(tenant, thread_id)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("thread {thread_id:?} does not exist")))?;
        let project = match &thread.project_id {
            Some(id) => match self.store.get_project(tenant, id).await? {
                Some(project) => Some(ProjectContext {
                    pinned: pinned(self.store.as_ref(), tenant, Holder::Project, id).await?,
                    id: project.id,
                    name: project.name,
                }),
                None => None,
            },
            None => None,
        };
        Ok(ThreadContext {
            thread_id: thread.id,
            pinned: pinned(self.store.as_ref(), tenant, Holder::Thread, thread_id).await?,
            project,
        })
    }

    async fn pin_to_thread(
        &self,
        context: &RequestContext,
        thread_id: &str,
        pins: Pins,
    ) -> Result<ThreadContext, ApiError> {
        if self
            .store
            .get_thread(&context.tenant, thread_id)
            .await?
            .is_none()
        {
            return Err(ApiError::NotFound(format!(
                "thread {thread_id:?} does not exist"
            )));
        }
        self.pin(&context.tenant, Holder::Thread, thread_id, pins)
            .await?;
        self.thread_context(context, thread_id).await
    }

    async fn project_context(
        &self,
        context: &RequestContext,
        project_id: &str,
    ) -> Result<Pinned, ApiError> {
        self.project_or_404(&context.tenant, project_id).await?;
        pinned(
            self.store.as_ref(),
            &context.tenant,
            Holder::Project,
            project_id,
        )
        .await
    }

    async fn pin_to_project(
        &self,
        context: &RequestContext,
        project_id: &str,
        pins: Pins,
    ) -> Result<Pinned, ApiError> {
        self.project_or_404(&context.tenant, project_id).await?;
        self.pin(&context.tenant, Holder::Project, project_id, pins)
            .await?;
        self.project_context(context, project_id).await
    }
}
