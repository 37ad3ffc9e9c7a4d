//! Projects in SQL, and what is in each: threads, their pending asks and latest runs.

use app::model::ThreadSummary;
use app::model::projects::{Project, ProjectList};
use sqlx::Row;
use sqlx::any::AnyRow;

use super::SqlStore;
use super::rows::{
    ASK_COLUMNS, RUN_COLUMNS, THREAD_COLUMNS, ask_row, contains_pattern, run_row, thread_row,
};
use crate::store::projects::ProjectStore;
use crate::store::{AskRecord, RunRecord, StoreError};

const PROJECT_COLUMNS: &str =
    "id, name, description, default_agent, archived_at_ms, created_at_ms, updated_at_ms";

/// Threads of a project, as a condition on a table with `tenant_id` and `thread_id`.
const IN_PROJECT: &str =
    "thread_id IN (SELECT id FROM threads WHERE tenant_id = $1 AND project_id = $2)";

fn project_row(row: &AnyRow) -> Result<Project, StoreError> {
    Ok(Project {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        description: row.try_get("description")?,
        default_agent: row.try_get("default_agent")?,
        archived_at_ms: row.try_get("archived_at_ms")?,
        created_at_ms: row.try_get("created_at_ms")?,
        updated_at_ms: row.try_get("updated_at_ms")?,
    })
}

#[async_trait::async_trait]
impl ProjectStore for SqlStore {
    async fn project_exists(&self, tenant_id: &str, project_id: &str) -> Result<bool, StoreError> {
        let row = sqlx::query("SELECT 1 AS found FROM projects WHERE tenant_id = $1 AND id = $2")
            .bind(tenant_id)
            .bind(project_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.is_some())
    }

    async fn create_project(&self, tenant_id: &str, project: &Project) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO projects (tenant_id, id, name, description, default_agent, \
             archived_at_ms, created_at_ms, updated_at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(tenant_id)
        .bind(&project.id)
        .bind(&project.name)
        .bind(&project.description)
        .bind(project.default_agent.as_deref())
        .bind(project.archived_at_ms)
        .bind(project.created_at_ms)
        .bind(project.updated_at_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn get_project(
        &self,
        tenant_id: &str,
        project_id: &str,
    ) -> Result<Option<Project>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {PROJECT_COLUMNS} FROM projects WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant_id)
        .bind(project_id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(project_row).transpose()
    }

    async fn project_named(
        &self,
        tenant_id: &str,
        name: &str,
    ) -> Result<Option<Project>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {PROJECT_COLUMNS} FROM projects WHERE tenant_id = $1 AND name = $2"
        ))
        .bind(tenant_id)
        .bind(name)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(project_row).transpose()
    }

    async fn list_projects(
        &self,
        tenant_id: &str,
        archived: bool,
        q: Option<&str>,
        offset: u32,
        limit: u32,
    ) -> Result<ProjectList, StoreError> {
        let archived = if archived { "NOT NULL" } else { "NULL" };
        let only = if q.is_some() {
            "AND (LOWER(name) LIKE $2 ESCAPE '\\' OR LOWER(description) LIKE $2 ESCAPE '\\')"
        } else {
            ""
        };
        let sql = format!(
            "SELECT {PROJECT_COLUMNS} FROM projects WHERE tenant_id = $1 \
             AND archived_at_ms IS {archived} {only} ORDER BY name, seq LIMIT {} OFFSET {offset}",
            limit + 1
        );
        let mut query = sqlx::query(&sql).bind(tenant_id);
        if let Some(q) = q {
            query = query.bind(contains_pattern(q));
        }
        let rows = query.fetch_all(&self.pool).await?;
        let more = rows.len() > limit as usize;
        Ok(ProjectList {
            projects: rows
                .iter()
                .take(limit as usize)
                .map(project_row)
                .collect::<Result<_, _>>()?,
            next_offset: more.then_some(offset + limit),
        })
    }

    async fn update_project(
        &self,
        tenant_id: &str,
        project: &Project,
        read_at: i64,
    ) -> Result<bool, StoreError> {
        let updated = sqlx::query(
            "UPDATE projects SET name = $1, description = $2, default_agent = $3, \
             archived_at_ms = $4, updated_at_ms = $5 WHERE tenant_id = $6 AND id = $7 \
             AND updated_at_ms = $8",
        )
        .bind(&project.name)
        .bind(&project.description)
        .bind(project.default_agent.as_deref())
        .bind(project.archived_at_ms)
        .bind(project.updated_at_ms)
        .bind(tenant_id)
        .bind(&project.id)
        .bind(read_at)
        .execute(&self.pool)
        .await?;
        Ok(updated.rows_affected() == 1)
    }

    async fn delete_project(&self, tenant_id: &str, project_id: &str) -> Result<bool, StoreError> {
        let mut transaction = self.begin_write().await?;
        let deleted = sqlx::query("DELETE FROM projects WHERE tenant_id = $1 AND id = $2")
            .bind(tenant_id)
            .bind(project_id)
            .execute(&mut *transaction)
            .await?;
        for sql in [
            "UPDATE threads SET project_id = NULL WHERE tenant_id = $1 AND project_id = $2",
            "UPDATE notes SET project_id = NULL WHERE tenant_id = $1 AND project_id = $2",
            "DELETE FROM pins WHERE tenant_id = $1 AND holder_kind = 'project' AND holder_id = $2",
        ] {
            sqlx::query(sql)
                .bind(tenant_id)
                .bind(project_id)
                .execute(&mut *transaction)
                .await?;
        }
        transaction.commit().await?;
        Ok(deleted.rows_affected() == 1)
    }

    async fn project_threads(
        &self,
        tenant_id: &str,
        project_id: &str,
    ) -> Result<Vec<ThreadSummary>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {THREAD_COLUMNS} FROM threads WHERE tenant_id = $1 AND project_id = $2 \
             ORDER BY created_at_ms DESC, seq DESC"
        ))
        .bind(tenant_id)
        .bind(project_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(thread_row).collect::<Result<_, _>>()?)
    }

    async fn project_open_asks(
        &self,
        tenant_id: &str,
        project_id: &str,
    ) -> Result<Vec<AskRecord>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {ASK_COLUMNS} FROM asks WHERE tenant_id = $1 AND state = 'pending' \
             AND {IN_PROJECT} ORDER BY created_at_ms"
        ))
        .bind(tenant_id)
        .bind(project_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(ask_row).collect()
    }

    async fn project_runs(
        &self,
        tenant_id: &str,
        project_id: &str,
        limit: u32,
    ) -> Result<Vec<RunRecord>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE tenant_id = $1 AND {IN_PROJECT} \
             ORDER BY created_at_ms DESC LIMIT {limit}"
        ))
        .bind(tenant_id)
        .bind(project_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(run_row).collect()
    }
}
