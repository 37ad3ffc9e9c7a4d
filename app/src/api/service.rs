//! The server-side half of the server functions: the service traits the server
//! implements and provides by context, and the helpers that fetch them.

use std::sync::Arc;

use leptos::prelude::*;

use crate::error::ApiError;
use crate::memory::ScopeKind;
use crate::model::context::{Pinned, Pins, ThreadContext};
use crate::model::memory::{
    MemoryBatch, MemoryEntry, MemoryProposal, MemoryScope, MemorySettings, NewProposal,
    ProposalOutcome,
};
use crate::model::notes::{
    NewNote, Note, NoteEdit, NoteList, NoteQuery, NoteVersion, NoteVersionSummary,
};
use crate::model::passvault::{
    NewVaultEntry, Revealed, SecretText, VaultEntry, VaultEntryEdit, VaultList,
};
use crate::model::projects::{NewProject, Project, ProjectEdit, ProjectList, ProjectPage};
use crate::model::{
    AnswerOutcome, AuditEntry, Invitation, IssuedToken, Member, MemberAdded, RequestContext, Role,
    RunSummary, ThreadDraft, ThreadPage, ThreadSummary, TokenSummary,
};
use crate::projection::Arrival;
use crate::workspace_tools::{ToolPolicy, ToolSetting};

/// Everything the UI and the REST API may ask of the workspace.
#[async_trait::async_trait]
pub trait WorkspaceService: Send + Sync + 'static {
    async fn list_threads(&self, tenant_id: &str) -> Result<Vec<ThreadSummary>, ApiError>;
    /// The tenant's threads whose title or messages hold every word of `query`, newest
    /// first (at most 50; none for a query without words).
    async fn search_threads(
        &self,
        tenant_id: &str,
        query: &str,
    ) -> Result<Vec<ThreadSummary>, ApiError>;
    /// Every pending ask of the tenant and its runs in progress, with the live
    /// stream's position.
    async fn inbox(&self, tenant_id: &str) -> Result<crate::model::inbox::Inbox, ApiError>;
    /// The tenant's latest audit entries, newest first.
    async fn audit(&self, tenant_id: &str, limit: u32) -> Result<Vec<AuditEntry>, ApiError>;
    /// A new thread, in project `project_id` when given (which must exist and not be
    /// archived), talking to `agent` — or the project's default agent, or the
    /// console's, when none is named.
    async fn create_thread(
        &self,
        tenant_id: &str,
        agent: Option<&str>,
        project_id: Option<&str>,
    ) -> Result<ThreadSummary, ApiError>;
    /// What a new thread is started from, in project `project_id` when given.
    async fn thread_draft(
        &self,
        tenant_id: &str,
        project_id: Option<&str>,
    ) -> Result<ThreadDraft, ApiError>;
    /// A new thread (as [`Self::create_thread`]) sent `text` as its first message: what the
    /// console's "New thread" makes, so that no thread is kept without a message.
    async fn start_thread(
        &self,
        tenant_id: &str,
        agent: Option<&str>,
        project_id: Option<&str>,
        text: &str,
    ) -> Result<ThreadSummary, ApiError>;
    async fn get_thread(&self, tenant_id: &str, thread_id: &str)
    -> Result<ThreadSummary, ApiError>;
    async fn rename_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
        title: &str,
    ) -> Result<ThreadSummary, ApiError>;
    /// Archives the thread (out of the sidebar's list) or restores it.
    async fn archive_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
        archived: bool,
    ) -> Result<ThreadSummary, ApiError>;
    /// How each configured agent is reached, the default first (what the console chose
    /// for an agent it negotiates with can change once the agent was first asked).
    fn environments(&self) -> Vec<crate::model::AgentEnvironment>;
    /// The thread with every run and its projection, arrival lists left out.
    async fn thread_page(&self, tenant_id: &str, thread_id: &str) -> Result<ThreadPage, ApiError>;
    /// Binds a thread that has no runs yet to an agent.
    async fn bind_agent(
        &self,
        tenant_id: &str,
        thread_id: &str,
        agent: &str,
    ) -> Result<(), ApiError>;
    async fn send_message(
        &self,
        tenant_id: &str,
        thread_id: &str,
        text: &str,
    ) -> Result<RunSummary, ApiError>;
    /// An operator's action on an A2UI surface of the thread, as a run of its own.
    async fn send_surface_action(
        &self,
        tenant_id: &str,
        thread_id: &str,
        request: &crate::a2ui::action::ActionRequest,
    ) -> Result<RunSummary, ApiError>;
    /// Sends the thread's last message again in place of its turn (see the runs).
    async fn retry_run(&self, tenant_id: &str, run_id: &str) -> Result<RunSummary, ApiError>;
    async fn cancel_run(&self, tenant_id: &str, run_id: &str) -> Result<RunSummary, ApiError>;
    /// Every event of the run in arrival order (what a page's views leave out).
    async fn run_arrivals(&self, tenant_id: &str, run_id: &str) -> Result<Vec<Arrival>, ApiError>;
    /// A receipt (the JSON envelope) for ask `ask_id` of run `run_id`.
    async fn answer_ask(
        &self,
        context: &RequestContext,
        run_id: &str,
        ask_id: &str,
        receipt: &str,
    ) -> Result<AnswerOutcome, ApiError>;
}

/// The handle placed in Leptos context for server functions.
#[derive(Clone)]
pub struct Workspace(pub Arc<dyn WorkspaceService>);

/// A tenant's members and tokens, as its owners manage them; every method acts in the
/// context's tenant as the context's user.
#[async_trait::async_trait]
pub trait MembersService: Send + Sync + 'static {
    async fn members(&self, context: &RequestContext) -> Result<Vec<Member>, ApiError>;
    /// With `password`, makes a new user who joins at once (refused when the name is
    /// taken); without, invites the user named, who joins once they accept.
    async fn add_member(
        &self,
        context: &RequestContext,
        user: &str,
        role: Role,
        password: Option<&str>,
    ) -> Result<MemberAdded, ApiError>;
    /// The tenant's invitations not yet accepted or declined.
    async fn invitations(&self, context: &RequestContext) -> Result<Vec<Invitation>, ApiError>;
    /// Withdraws the tenant's invitation of `user`.
    async fn withdraw_invitation(
        &self,
        context: &RequestContext,
        user: &str,
    ) -> Result<(), ApiError>;
    /// The invitations waiting for the context's own user, from any tenant.
    async fn my_invitations(&self, context: &RequestContext) -> Result<Vec<Invitation>, ApiError>;
    /// Refused when it would leave the tenant without an owner.
    async fn set_member_role(
        &self,
        context: &RequestContext,
        user: &str,
        role: Role,
    ) -> Result<(), ApiError>;
    /// Refused when it would leave the tenant without an owner.
    async fn remove_member(&self, context: &RequestContext, user: &str) -> Result<(), ApiError>;
    async fn tokens(&self, context: &RequestContext) -> Result<Vec<TokenSummary>, ApiError>;
    /// A token of the context's own user in its tenant.
    async fn create_token(
        &self,
        context: &RequestContext,
        role: Option<Role>,
        expires_days: Option<u32>,
    ) -> Result<IssuedToken, ApiError>;
    /// Revokes one of the tenant's tokens.
    async fn revoke_token(&self, context: &RequestContext, id: &str) -> Result<(), ApiError>;
}

#[derive(Clone)]
pub struct Members(pub Arc<dyn MembersService>);

/// A tenant's notes; every method acts in the context's tenant as the context's user.
#[async_trait::async_trait]
pub trait NotesService: Send + Sync + 'static {
    async fn list_notes(
        &self,
        context: &RequestContext,
        query: &NoteQuery,
    ) -> Result<NoteList, ApiError>;
    async fn get_note(&self, context: &RequestContext, id: &str) -> Result<Note, ApiError>;
    async fn create_note(&self, context: &RequestContext, note: NewNote) -> Result<Note, ApiError>;
    /// Refused with a conflict when `edit.base_version` is no longer the current one.
    async fn edit_note(
        &self,
        context: &RequestContext,
        id: &str,
        edit: NoteEdit,
    ) -> Result<Note, ApiError>;
    async fn delete_note(&self, context: &RequestContext, id: &str) -> Result<(), ApiError>;
    /// Every version, newest first.
    async fn note_versions(
        &self,
        context: &RequestContext,
        id: &str,
    ) -> Result<Vec<NoteVersionSummary>, ApiError>;
    async fn note_version(
        &self,
        context: &RequestContext,
        id: &str,
        version: u32,
    ) -> Result<NoteVersion, ApiError>;
    /// Makes version `version`'s content the note's newest version.
    async fn restore_note(
        &self,
        context: &RequestContext,
        id: &str,
        version: u32,
    ) -> Result<Note, ApiError>;
}

#[derive(Clone)]
pub struct Notes(pub Arc<dyn NotesService>);

/// A tenant's projects; every method acts in the context's tenant.
#[async_trait::async_trait]
pub trait ProjectsService: Send + Sync + 'static {
    /// The configured agents a project may name as its default.
    fn agents(&self) -> Vec<String>;
    /// `q`: only projects whose name or description contains it (any case).
    async fn list_projects(
        &self,
        context: &RequestContext,
        archived: bool,
        q: Option<&str>,
        offset: u32,
        limit: u32,
    ) -> Result<ProjectList, ApiError>;
    async fn get_project(&self, context: &RequestContext, id: &str) -> Result<Project, ApiError>;
    /// The project with its threads, notes, open asks and latest runs.
    async fn project_page(
        &self,
        context: &RequestContext,
        id: &str,
    ) -> Result<ProjectPage, ApiError>;
    /// Refused with a conflict when another project has the name.
    async fn create_project(
        &self,
        context: &RequestContext,
        project: NewProject,
    ) -> Result<Project, ApiError>;
    async fn edit_project(
        &self,
        context: &RequestContext,
        id: &str,
        edit: ProjectEdit,
    ) -> Result<Project, ApiError>;
    async fn delete_project(&self, context: &RequestContext, id: &str) -> Result<(), ApiError>;
}

#[derive(Clone)]
pub struct Projects(pub Arc<dyn ProjectsService>);

/// What threads and projects pin for their runs.
#[async_trait::async_trait]
pub trait ContextService: Send + Sync + 'static {
    async fn thread_context(
        &self,
        context: &RequestContext,
        thread_id: &str,
    ) -> Result<ThreadContext, ApiError>;
    /// Replaces what the thread pins; 400 names an id that is not the tenant's.
    async fn pin_to_thread(
        &self,
        context: &RequestContext,
        thread_id: &str,
        pins: Pins,
    ) -> Result<ThreadContext, ApiError>;
    async fn project_context(
        &self,
        context: &RequestContext,
        project_id: &str,
    ) -> Result<Pinned, ApiError>;
    async fn pin_to_project(
        &self,
        context: &RequestContext,
        project_id: &str,
        pins: Pins,
    ) -> Result<Pinned, ApiError>;
}

#[derive(Clone)]
pub struct Contexts(pub Arc<dyn ContextService>);

/// A tenant's memory: scopes, batches, entries, the review queue and the settings.
#[async_trait::async_trait]
pub trait MemoryService: Send + Sync + 'static {
    async fn memory(
        &self,
        context: &RequestContext,
        scope: ScopeKind,
        project_id: Option<&str>,
    ) -> Result<MemoryScope, ApiError>;
    /// Applies a batch of operations as the context's user, all or nothing.
    async fn change_memory(
        &self,
        context: &RequestContext,
        batch: MemoryBatch,
    ) -> Result<MemoryScope, ApiError>;
    async fn memory_entry(
        &self,
        context: &RequestContext,
        id: &str,
    ) -> Result<MemoryEntry, ApiError>;
    async fn edit_memory(
        &self,
        context: &RequestContext,
        id: &str,
        text: &str,
    ) -> Result<MemoryEntry, ApiError>;
    async fn delete_memory(&self, context: &RequestContext, id: &str) -> Result<(), ApiError>;
    /// Proposals, newest first; only those in `state` when given.
    async fn proposals(
        &self,
        context: &RequestContext,
        state: Option<&str>,
    ) -> Result<Vec<MemoryProposal>, ApiError>;
    /// Accepts (applies) or rejects a pending proposal, once.
    async fn decide_proposal(
        &self,
        context: &RequestContext,
        id: &str,
        accept: bool,
    ) -> Result<MemoryProposal, ApiError>;
    /// What an agent proposes through the API, relayed by the context's user.
    async fn propose_memory(
        &self,
        context: &RequestContext,
        proposal: NewProposal,
    ) -> Result<ProposalOutcome, ApiError>;
    async fn memory_settings(&self, context: &RequestContext) -> Result<MemorySettings, ApiError>;
    async fn set_memory_settings(
        &self,
        context: &RequestContext,
        settings: MemorySettings,
    ) -> Result<MemorySettings, ApiError>;
}

#[derive(Clone)]
pub struct Memory(pub Arc<dyn MemoryService>);

/// A tenant's passvault: entries listed without values, kept by owners, revealed only
/// with the password given again.
#[async_trait::async_trait]
pub trait PassvaultService: Send + Sync + 'static {
    /// Entries by name; only those for `env_var`, and those whose name, variable or
    /// description contains `q` (any case), when given.
    async fn list_secrets(
        &self,
        context: &RequestContext,
        env_var: Option<&str>,
        q: Option<&str>,
        offset: u32,
        limit: u32,
    ) -> Result<VaultList, ApiError>;
    async fn secret(&self, context: &RequestContext, id: &str) -> Result<VaultEntry, ApiError>;
    /// The entries for `env_var` whose use policy lets the caller send them to the agent
    /// of run `run_id`.
    async fn usable_for(
        &self,
        context: &RequestContext,
        env_var: &str,
        run_id: &str,
    ) -> Result<Vec<VaultEntry>, ApiError>;
    async fn create_secret(
        &self,
        context: &RequestContext,
        entry: NewVaultEntry,
    ) -> Result<VaultEntry, ApiError>;
    async fn edit_secret(
        &self,
        context: &RequestContext,
        id: &str,
        edit: VaultEntryEdit,
    ) -> Result<VaultEntry, ApiError>;
    async fn delete_secret(&self, context: &RequestContext, id: &str) -> Result<(), ApiError>;
    /// The value, to the context's user once their password checks out.
    async fn reveal_secret(
        &self,
        context: &RequestContext,
        id: &str,
        password: SecretText,
    ) -> Result<Revealed, ApiError>;
}

#[derive(Clone)]
pub struct Passvault(pub Arc<dyn PassvaultService>);

/// The workspace tools agents may call, and which run freely in the tenant.
#[async_trait::async_trait]
pub trait ToolsService: Send + Sync + 'static {
    async fn tool_settings(&self, context: &RequestContext) -> Result<Vec<ToolSetting>, ApiError>;
    /// Sets one tool's policy (owners).
    async fn set_tool_policy(
        &self,
        context: &RequestContext,
        tool: &str,
        policy: ToolPolicy,
    ) -> Result<Vec<ToolSetting>, ApiError>;
}

#[derive(Clone)]
pub struct Tools(pub Arc<dyn ToolsService>);

pub fn tools() -> Result<Arc<dyn ToolsService>, ApiError> {
    use_context::<Tools>()
        .map(|tools| tools.0)
        .ok_or_else(|| ApiError::Internal("the tools service is not provided".into()))
}

pub fn passvault() -> Result<Arc<dyn PassvaultService>, ApiError> {
    use_context::<Passvault>()
        .map(|passvault| passvault.0)
        .ok_or_else(|| ApiError::Internal("the passvault service is not provided".into()))
}

pub fn memory() -> Result<Arc<dyn MemoryService>, ApiError> {
    use_context::<Memory>()
        .map(|memory| memory.0)
        .ok_or_else(|| ApiError::Internal("the memory service is not provided".into()))
}

pub fn contexts() -> Result<Arc<dyn ContextService>, ApiError> {
    use_context::<Contexts>()
        .map(|contexts| contexts.0)
        .ok_or_else(|| ApiError::Internal("the context service is not provided".into()))
}

pub fn projects() -> Result<Arc<dyn ProjectsService>, ApiError> {
    use_context::<Projects>()
        .map(|projects| projects.0)
        .ok_or_else(|| ApiError::Internal("the projects service is not provided".into()))
}

pub fn notes() -> Result<Arc<dyn NotesService>, ApiError> {
    use_context::<Notes>()
        .map(|notes| notes.0)
        .ok_or_else(|| ApiError::Internal("the notes service is not provided".into()))
}

pub fn members() -> Result<Arc<dyn MembersService>, ApiError> {
    use_context::<Members>()
        .map(|members| members.0)
        .ok_or_else(|| ApiError::Internal("the members service is not provided".into()))
}

pub fn workspace() -> Result<Arc<dyn WorkspaceService>, ApiError> {
    use_context::<Workspace>()
        .map(|w| w.0)
        .ok_or_else(|| ApiError::Internal("the workspace service is not provided".into()))
}

/// Sets the response status from the error, so clients see 404 rather than a bare 500.
pub fn with_status<T>(result: Result<T, ApiError>) -> Result<T, ApiError> {
    if let Err(error) = &result {
        error.set_response_status();
    }
    result
}

/// Who acts in the current request, and for which tenant, as the server's request
/// context worked it out.
pub fn context() -> Result<crate::model::RequestContext, ApiError> {
    use_context::<http::request::Parts>()
        .and_then(|parts| {
            parts
                .extensions
                .get::<crate::model::RequestContext>()
                .cloned()
        })
        .ok_or_else(|| ApiError::Internal("the request has no request context".into()))
}

/// The tenant of the current request.
pub fn tenant() -> Result<String, ApiError> {
    context().map(|context| context.tenant)
}

pub use super::background::{
    CuratorOf, CuratorService, GatewayJobsOf, GatewayJobsService, Jobs, JobsService, Schedules,
    SchedulesService, curator, gateway_jobs, jobs, schedules,
};
pub use super::kanban::{KanbanOf, KanbanService, kanban};
