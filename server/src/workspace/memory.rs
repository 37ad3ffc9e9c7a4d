//! Memory as the console, the REST API and agents reach it: batches planned with Hermes'
//! semantics and applied all or nothing, the user scope private to its user, and what
//! agents propose held for review unless the tenant accepts it automatically.

use std::sync::Arc;

use app::api::service::MemoryService;
use app::error::ApiError;
use app::memory::{Action, Current, Operation, ScopeKind, plan, used};
use app::model::RequestContext;
use app::model::memory::{
    MemoryBatch, MemoryEntry, MemoryProposal, MemoryScope, MemorySettings, NewProposal,
    ProposalOutcome,
};

use crate::clock::now_ms;
use crate::store::Store;
use crate::store::memory::{LedgerMark, ScopeRef, Writer};

/// The tenant setting that applies agents' proposals without review.
const AUTO_ACCEPT: &str = "memory.auto_accept";
/// How often a batch is planned again when another change landed first.
const ATTEMPTS: usize = 5;

pub struct MemoryServiceImpl {
    store: Arc<dyn Store>,
}

impl MemoryServiceImpl {
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self { store }
    }

    /// The scope a request names: the tenant's, a project of the tenant, or the caller's own.
    async fn scope(
        &self,
        context: &RequestContext,
        kind: ScopeKind,
        project_id: Option<&str>,
    ) -> Result<ScopeRef, ApiError> {
        let id = match kind {
            ScopeKind::Tenant => String::new(),
            ScopeKind::User => context.user_id.clone(),
            ScopeKind::Project => {
                let project = project_id.filter(|id| !id.is_empty()).ok_or_else(|| {
                    ApiError::BadRequest("project_id: a project scope names its project".into())
                })?;
                if !self.store.project_exists(&context.tenant, project).await? {
                    return Err(ApiError::BadRequest(format!(
                        "project_id: there is no project {project:?}"
                    )));
                }
                project.to_owned()
            }
        };
        Ok(ScopeRef { kind, id })
    }

    async fn view(&self, tenant: &str, scope: &ScopeRef) -> Result<MemoryScope, ApiError> {
        let entries = self.store.memory_entries(tenant, scope).await?;
        let texts: Vec<&str> = entries.iter().map(|entry| entry.text.as_str()).collect();
        Ok(MemoryScope {
            scope: scope.kind,
            project_id: (scope.kind == ScopeKind::Project).then(|| scope.id.clone()),
            used: used(&texts),
            limit: scope.kind.limit(),
            entries,
        })
    }

    /// Plans `operations` against the scope as it is and applies them, planning again if
    /// another change lands in between.
    pub async fn apply(
        &self,
        tenant: &str,
        scope: &ScopeRef,
        operations: &[Operation],
        writer: &Writer,
    ) -> Result<MemoryScope, ApiError> {
        for _ in 0..ATTEMPTS {
            let current: Vec<Current> = self
                .store
                .memory_entries(tenant, scope)
                .await?
                .into_iter()
                .map(|entry| Current {
                    id: entry.id,
                    text: entry.text,
                })
                .collect();
            let changes =
                plan(&current, operations, scope.kind.limit()).map_err(ApiError::BadRequest)?;
            if self
                .store
                .apply_memory(tenant, scope, &current, &changes, writer, now_ms())
                .await?
            {
                return self.view(tenant, scope).await;
            }
        }
        Err(ApiError::Conflict(
            "memory kept changing while this change was made; try again".into(),
        ))
    }

    /// What an agent proposes (through the console's `memory` tool): applied at once when
    /// the tenant accepts agents' memory automatically, else queued for review. Checked
    /// against the scope now either way, so a proposal that could never apply is refused
    /// to the agent rather than queued.
    pub async fn propose(
        &self,
        tenant: &str,
        scope: &ScopeRef,
        operations: Vec<Operation>,
        proposed_by: &str,
        run_id: Option<&str>,
    ) -> Result<ProposalOutcome, ApiError> {
        let current: Vec<Current> = self
            .store
            .memory_entries(tenant, scope)
            .await?
            .into_iter()
            .map(|entry| Current {
                id: entry.id,
                text: entry.text,
            })
            .collect();
        plan(&current, &operations, scope.kind.limit()).map_err(ApiError::BadRequest)?;
        if self.auto_accept(tenant).await? {
            let writer = Writer {
                source: "agent",
                author: format!("{proposed_by} (accepted automatically)"),
                ledger: None,
            };
            let memory = self.apply(tenant, scope, &operations, &writer).await?;
            return Ok(ProposalOutcome::Applied { memory });
        }
        let proposal = MemoryProposal {
            id: uuid::Uuid::new_v4().to_string(),
            scope: scope.kind,
            project_id: (scope.kind == ScopeKind::Project).then(|| scope.id.clone()),
            operations,
            proposed_by: proposed_by.to_owned(),
            run_id: run_id.map(str::to_owned),
            created_at_ms: now_ms(),
            state: "pending".into(),
            reviewed_by: None,
            outcome: None,
            pass_id: None,
            reason: None,
        };
        self.store.add_proposal(tenant, scope, &proposal).await?;
        Ok(ProposalOutcome::Queued { proposal })
    }

    async fn auto_accept(&self, tenant: &str) -> Result<bool, ApiError> {
        Ok(self
            .store
            .tenant_setting(tenant, AUTO_ACCEPT)
            .await?
            .as_deref()
            == Some("true"))
    }

    /// An entry the caller may see: another user's own entries do not exist for them.
    async fn entry(
        &self,
        context: &RequestContext,
        id: &str,
    ) -> Result<(MemoryEntry, ScopeRef), ApiError> {
        match self.store.memory_entry(&context.tenant, id).await? {
            Some((entry, scope))
                if scope.kind != ScopeKind::User || scope.id == context.user_id =>
            {
                Ok((entry, scope))
            }
            _ => Err(ApiError::NotFound(format!(
                "memory entry {id:?} does not exist"
            ))),
        }
    }

    fn operator(context: &RequestContext) -> Writer {
        Writer {
            source: "operator",
            author: context.acted_by(),
            ledger: None,
        }
    }
}

/// An operation that names one entry by its whole text.
fn on_entry(action: Action, entry: &MemoryEntry, content: Option<String>) -> Operation {
    Operation {
        action,
        content,
        old_text: Some(entry.text.clone()),
    }
}

#[async_trait::async_trait]
impl MemoryService for MemoryServiceImpl {
    async fn memory(
        &self,
        context: &RequestContext,
        scope: ScopeKind,
        project_id: Option<&str>,
    ) -> Result<MemoryScope, ApiError> {
        let scope = self.scope(context, scope, project_id).await?;
        self.view(&context.tenant, &scope).await
    }

    async fn change_memory(
        &self,
        context: &RequestContext,
        batch: MemoryBatch,
    ) -> Result<MemoryScope, ApiError> {
        let scope = self
            .scope(context, batch.scope, batch.project_id.as_deref())
            .await?;
        self.apply(
            &context.tenant,
            &scope,
            &batch.operations,
            &Self::operator(context),
        )
        .await
    }

    async fn memory_entry(
        &self,
        context: &RequestContext,
        id: &str,
    ) -> Result<MemoryEntry, ApiError> {
        Ok(self.entry(context, id).await?.0)
    }

    async fn edit_memory(
        &self,
        context: &RequestContext,
        id: &str,
        text: &str,
    ) -> Result<MemoryEntry, ApiError> {
        let (entry, scope) = self.entry(context, id).await?;
        let operation = on_entry(Action::Replace, &entry, Some(text.to_owned()));
        let after = self
            .apply(
                &context.tenant,
                &scope,
                &[operation],
                &Self::operator(context),
            )
            .await?;
        after
            .entries
            .into_iter()
            .find(|entry| entry.id == id)
            .ok_or_else(|| ApiError::Conflict(format!("memory entry {id:?} changed meanwhile")))
    }

    async fn delete_memory(&self, context: &RequestContext, id: &str) -> Result<(), ApiError> {
        let (entry, scope) = self.entry(context, id).await?;
        let operation = on_entry(Action::Remove, &entry, None);
        self.apply(
            &context.tenant,
            &scope,
            &[operation],
            &Self::operator(context),
        )
        .await?;
        Ok(())
    }

    async fn proposals(
        &self,
        context: &RequestContext,
        state: Option<&str>,
    ) -> Result<Vec<MemoryProposal>, ApiError> {
        Ok(self
            .store
            .proposals(&context.tenant, &context.user_id, state)
            .await?)
    }

    async fn decide_proposal(
        &self,
        context: &RequestContext,
        id: &str,
        accept: bool,
    ) -> Result<MemoryProposal, ApiError> {
        let tenant = &context.tenant;
        let missing = || ApiError::NotFound(format!("memory proposal {id:?} does not exist"));
        let (proposal, scope) = self
            .store
            .proposal(tenant, id)
            .await?
            .filter(|(_, scope)| scope.kind != ScopeKind::User || scope.id == context.user_id)
            .ok_or_else(missing)?;
        if proposal.state != "pending" {
            return Err(ApiError::Conflict(format!(
                "memory proposal {id:?} was {} already",
                proposal.state
            )));
        }
        let reviewer = context.acted_by();
        // Claimed first, so of two reviewers only one applies it.
        let claimed = if accept { "applying" } else { "rejected" };
        if !self
            .store
            .decide_proposal(tenant, id, "pending", claimed, &reviewer, None)
            .await?
        {
            return Err(ApiError::Conflict(format!(
                "memory proposal {id:?} was decided meanwhile"
            )));
        }
        if accept {
            let writer = Writer {
                source: "agent",
                author: format!("{}, approved by {reviewer}", proposal.proposed_by),
                ledger: proposal.pass_id.clone().map(|pass_id| LedgerMark {
                    pass_id,
                    proposal_id: proposal.id.clone(),
                }),
            };
            let (state, outcome) = match self
                .apply(tenant, &scope, &proposal.operations, &writer)
                .await
            {
                Ok(_) => ("accepted", None),
                // Memory changed since it was proposed: decided, saying why it did not
                // apply.
                Err(ApiError::BadRequest(reason) | ApiError::Conflict(reason)) => {
                    ("rejected", Some(format!("could not apply: {reason}")))
                }
                Err(other) => {
                    self.store
                        .decide_proposal(tenant, id, "applying", "pending", &reviewer, None)
                        .await?;
                    return Err(other);
                }
            };
            self.store
                .decide_proposal(tenant, id, "applying", state, &reviewer, outcome.as_deref())
                .await?;
        }
        Ok(self
            .store
            .proposal(tenant, id)
            .await?
            .ok_or_else(missing)?
            .0)
    }

    async fn propose_memory(
        &self,
        context: &RequestContext,
        proposal: NewProposal,
    ) -> Result<ProposalOutcome, ApiError> {
        let agent = proposal.proposed_by.trim();
        if agent.is_empty() || agent.chars().count() > 100 || agent.chars().any(char::is_control) {
            return Err(ApiError::BadRequest(
                "proposed_by: name the agent in 1 to 100 characters".into(),
            ));
        }
        let scope = self
            .scope(context, proposal.scope, proposal.project_id.as_deref())
            .await?;
        let proposed_by = format!("{agent} (via {})", context.acted_by());
        self.propose(
            &context.tenant,
            &scope,
            proposal.operations,
            &proposed_by,
            proposal.run_id.as_deref(),
        )
        .await
    }

    async fn memory_settings(&self, context: &RequestContext) -> Result<MemorySettings, ApiError> {
        Ok(MemorySettings {
            auto_accept: self.auto_accept(&context.tenant).await?,
        })
    }

    async fn set_memory_settings(
        &self,
        context: &RequestContext,
        settings: MemorySettings,
    ) -> Result<MemorySettings, ApiError> {
        self.store
            .set_tenant_setting(
                &context.tenant,
                AUTO_ACCEPT,
                if settings.auto_accept {
                    "true"
                } else {
                    "false"
                },
            )
            .await?;
        self.memory_settings(context).await
    }
}
