//! The workspace tools as the server runs them for agents — searching, reading and
//! writing notes, proposing or (once allowed) changing memory, making a schedule once an
//! operator allowed it, each attributed to the agent, its run and the operator who allowed
//! it — and each tenant's policy of which run freely, kept in the tenant's settings.

use std::sync::{Arc, OnceLock};

use app::api::service::{NotesService, ToolsService};
use app::error::ApiError;
use app::memory::ScopeKind;
use app::model::memory::ProposalOutcome;
use app::model::notes::{NewNote, NoteEdit, NoteQuery};
use app::model::{RequestContext, Role};
use app::workspace_tools::{
    NAMES, ToolPolicy, ToolSetting, WorkspaceCall, always_asks, default_policy, definitions,
    failed, is_workspace_tool, writes,
};
use serde_json::{Value, json};

use super::memory::MemoryServiceImpl;
use super::notes::NotesServiceImpl;
use crate::runs::tools::{ToolCaller, ToolRunner};
use crate::store::Store;
use crate::store::memory::{ScopeRef, Writer};

pub struct WorkspaceToolsImpl {
    store: Arc<dyn Store>,
    notes: NotesServiceImpl,
    memory: MemoryServiceImpl,
    /// Where a schedule an agent proposed is made (set once the job engine runs).
    schedules: OnceLock<Arc<crate::schedules::Schedules>>,
}

fn setting_name(tool: &str) -> String {
    format!("tools.{tool}")
}

impl WorkspaceToolsImpl {
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self {
            notes: NotesServiceImpl::new(store.clone()),
            memory: MemoryServiceImpl::new(store.clone()),
            store,
            schedules: OnceLock::new(),
        }
    }

    /// Lets `schedule_create` make schedules (once, at start).
    pub fn use_schedules(&self, schedules: Arc<crate::schedules::Schedules>) {
        let _ = self.schedules.set(schedules);
    }

    /// The note, when an agent in a thread of `project` may see it: one of another
    /// project is missing to it, in the same words as one that does not exist.
    async fn visible_note(
        &self,
        context: &RequestContext,
        project: Option<&str>,
        id: &str,
    ) -> Result<app::model::notes::Note, ApiError> {
        let note = self.notes.get_note(context, id).await?;
        match (project, note.project_id.as_deref()) {
            (Some(thread), Some(filed)) if thread != filed => {
                Err(ApiError::NotFound(format!("note {id:?} does not exist")))
            }
            _ => Ok(note),
        }
    }

    async fn settings(&self, tenant: &str) -> Result<Vec<ToolSetting>, ApiError> {
        let mut settings = Vec::new();
        for tool in definitions() {
            let name = tool["name"].as_str().unwrap_or_default().to_owned();
            settings.push(ToolSetting {
                description: tool["description"].as_str().unwrap_or_default().to_owned(),
                writes: writes(&name),
                policy: self.policy(tenant, &name).await?,
                name,
            });
        }
        Ok(settings)
    }

    /// The call's effect, or why it failed.
    async fn outcome(
        &self,
        tenant: &str,
        call: WorkspaceCall,
        caller: &ToolCaller,
    ) -> Result<Value, ApiError> {
        // Notes are read and written as the agent, attributed to it and its approver.
        let context = RequestContext {
            tenant: tenant.to_owned(),
            role: Role::Operator,
            user_id: String::new(),
            actor: caller.author(),
            token_id: None,
            memberships: Vec::new(),
        };
        let project = self
            .store
            .get_thread(tenant, &caller.thread_id)
            .await?
            .and_then(|thread| thread.project_id);
        match call {
            WorkspaceCall::NotesSearch { query, limit } => {
                let query = NoteQuery {
                    q: Some(query),
                    limit: Some(limit),
                    ..NoteQuery::default()
                };
                let found = self
                    .notes
                    .list_within(tenant, &query, project.as_deref())
                    .await?;
                let notes: Vec<Value> = found
                    .notes
                    .iter()
                    .map(|note| {
                        json!({"id": note.id, "title": note.title, "version": note.version,
                               "tags": note.tags, "snippet": note.snippet})
                    })
                    .collect();
                Ok(json!({ "notes": notes }))
            }
            WorkspaceCall::NoteRead { id } => {
                let note = self.visible_note(&context, project.as_deref(), &id).await?;
                Ok(
                    json!({"id": note.id, "title": note.title, "body": note.body,
                          "tags": note.tags, "version": note.version,
                          "updated_by": note.updated_by}),
                )
            }
            WorkspaceCall::NoteWrite {
                id: None,
                title,
                body,
                tags,
                ..
            } => {
                let note = NewNote {
                    title,
                    body,
                    tags,
                    project_id: project,
                };
                let note = self.notes.create_note(&context, note).await?;
                Ok(json!({"written": note.id, "version": note.version}))
            }
            WorkspaceCall::NoteWrite {
                id: Some(id),
                title,
                body,
                tags,
                version,
            } => {
                self.visible_note(&context, project.as_deref(), &id).await?;
                let edit = NoteEdit {
                    title: Some(title),
                    body: Some(body),
                    tags: Some(tags),
                    project_id: None,
                    base_version: version,
                };
                let note = self.notes.edit_note(&context, &id, edit).await?;
                Ok(json!({"written": note.id, "version": note.version}))
            }
            WorkspaceCall::ScheduleCreate {
                name,
                prompt,
                when,
                timezone,
            } => {
                // Whatever a policy says, a schedule is made only once an operator allowed
                // this very call.
                if caller.approved_by.is_none() {
                    return Err(ApiError::Forbidden(
                        "schedule_create runs only once an operator allows it".into(),
                    ));
                }
                let schedules = self.schedules.get().ok_or_else(|| {
                    ApiError::Conflict("schedules are not running in this console".into())
                })?;
                let schedule = app::model::schedules::NewSchedule {
                    name,
                    agent: caller.agent.clone(),
                    prompt,
                    project_id: project,
                    target: app::model::schedules::Target::NewThread,
                    when,
                    timezone,
                    missed: Default::default(),
                    catch_up_window_s: 3600,
                    overlap: Default::default(),
                    asks: Default::default(),
                    paused_reason: None,
                    idempotency_key: Some(format!("tool:{}", caller.run_id)),
                };
                let (made, _) = schedules.create(tenant, schedule, &caller.author()).await?;
                Ok(
                    json!({"schedule": made.id, "name": made.name, "next_fire_ms": made.next_fire_ms}),
                )
            }
            WorkspaceCall::Memory { operation } => {
                let scope = match project {
                    Some(id) => ScopeRef {
                        kind: ScopeKind::Project,
                        id,
                    },
                    None => ScopeRef {
                        kind: ScopeKind::Tenant,
                        id: String::new(),
                    },
                };
                if caller.approved_by.is_some() {
                    // An operator allowed this very call: that is its review.
                    let writer = Writer {
                        source: "agent",
                        author: caller.author(),
                        ledger: None,
                    };
                    let memory = self
                        .memory
                        .apply(tenant, &scope, &[operation], &writer)
                        .await?;
                    return Ok(
                        json!({"applied": true, "used": memory.used, "limit": memory.limit}),
                    );
                }
                let proposed_by = format!("agent {}", caller.agent);
                match self
                    .memory
                    .propose(
                        tenant,
                        &scope,
                        vec![operation],
                        &proposed_by,
                        Some(&caller.run_id),
                    )
                    .await?
                {
                    ProposalOutcome::Queued { proposal } => Ok(json!({
                        "queued": proposal.id,
                        "note": "an operator reviews it before it is remembered",
                    })),
                    ProposalOutcome::Applied { memory } => {
                        Ok(json!({"applied": true, "used": memory.used, "limit": memory.limit}))
                    }
                }
            }
        }
    }
}

#[async_trait::async_trait]
impl ToolRunner for WorkspaceToolsImpl {
    async fn policy(&self, tenant_id: &str, tool: &str) -> Result<ToolPolicy, ApiError> {
        let stored = self
            .store
            .tenant_setting(tenant_id, &setting_name(tool))
            .await?;
        if always_asks(tool) {
            return Ok(ToolPolicy::Ask);
        }
        Ok(stored
            .and_then(|text| ToolPolicy::parse(&text).ok())
            .unwrap_or_else(|| default_policy(tool)))
    }

    async fn run(&self, tenant_id: &str, call: WorkspaceCall, caller: &ToolCaller) -> Value {
        let tool = call.name();
        match self.outcome(tenant_id, call, caller).await {
            Ok(result) => result,
            // What the agent is told; a storage failure stays worded without its detail.
            Err(error) => failed(&format!("{tool}: {error}")),
        }
    }
}

#[async_trait::async_trait]
impl ToolsService for WorkspaceToolsImpl {
    async fn tool_settings(&self, context: &RequestContext) -> Result<Vec<ToolSetting>, ApiError> {
        self.settings(&context.tenant).await
    }

    async fn set_tool_policy(
        &self,
        context: &RequestContext,
        tool: &str,
        policy: ToolPolicy,
    ) -> Result<Vec<ToolSetting>, ApiError> {
        if !context.role.allows(Role::Owner) {
            return Err(ApiError::Forbidden(
                "only an owner sets which tools agents may run freely".into(),
            ));
        }
        if !is_workspace_tool(tool) {
            return Err(ApiError::NotFound(format!(
                "{tool:?} is not a workspace tool; there are: {}",
                NAMES.join(", ")
            )));
        }
        if always_asks(tool) && policy != ToolPolicy::Ask {
            return Err(ApiError::BadRequest(format!(
                "policy: {tool} always asks an operator first"
            )));
        }
        self.store
            .set_tenant_setting(&context.tenant, &setting_name(tool), policy.label())
            .await?;
        self.settings(&context.tenant).await
    }
}
