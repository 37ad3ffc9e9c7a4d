//! What the store keeps of projects: groups of threads and notes.

use app::model::ThreadSummary;
use app::model::projects::{Project, ProjectList};

use super::{AskRecord, RunRecord, StoreError};

#[async_trait::async_trait]
pub trait ProjectStore: Send + Sync {
    async fn project_exists(&self, tenant_id: &str, project_id: &str) -> Result<bool, StoreError>;
    async fn create_project(&self, tenant_id: &str, project: &Project) -> Result<(), StoreError>;
    async fn get_project(
        &self,
        tenant_id: &str,
        project_id: &str,
    ) -> Result<Option<Project>, StoreError>;
    /// The project named exactly `name`, archived or not.
    async fn project_named(
        &self,
        tenant_id: &str,
        name: &str,
    ) -> Result<Option<Project>, StoreError>;
    /// Projects by name; the archived ones when `archived`, else the others; only those
    /// whose name or description contains `q` (any case) when given.
    async fn list_projects(
        &self,
        tenant_id: &str,
        archived: bool,
        q: Option<&str>,
        offset: u32,
        limit: u32,
    ) -> Result<ProjectList, StoreError>;
    /// Stores the project's fields as given if it is still as it was when read (its
    /// `updated_at_ms` then was `read_at`); false when it changed meanwhile or is gone.
    async fn update_project(
        &self,
        tenant_id: &str,
        project: &Project,
        read_at: i64,
    ) -> Result<bool, StoreError>;
    /// Deletes the project; its threads and notes stay, outside any project, and its pins
    /// go. False when there was none.
    async fn delete_project(&self, tenant_id: &str, project_id: &str) -> Result<bool, StoreError>;
    /// The project's threads, newest first.
    async fn project_threads(
        &self,
        tenant_id: &str,
        project_id: &str,
    ) -> Result<Vec<ThreadSummary>, StoreError>;
    /// Pending asks in the project's threads, oldest first.
    async fn project_open_asks(
        &self,
        tenant_id: &str,
        project_id: &str,
    ) -> Result<Vec<AskRecord>, StoreError>;
    /// The latest `limit` runs in the project's threads, newest first.
    async fn project_runs(
        &self,
        tenant_id: &str,
        project_id: &str,
        limit: u32,
    ) -> Result<Vec<RunRecord>, StoreError>;
}
