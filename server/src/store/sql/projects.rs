//! Projects in SQL.

use super::SqlStore;
use crate::store::StoreError;
use crate::store::projects::ProjectStore;

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
}
