//! What the store keeps of who changed what, per tenant: the audit trail.

use app::model::AuditEntry;

use super::StoreError;

#[async_trait::async_trait]
pub trait AuditStore: Send + Sync {
    /// Appends one entry to the tenant's trail.
    async fn record_audit(
        &self,
        tenant_id: &str,
        user_id: &str,
        entry: &AuditEntry,
    ) -> Result<(), StoreError>;
    /// The tenant's latest `limit` entries, newest first.
    async fn audit(&self, tenant_id: &str, limit: u32) -> Result<Vec<AuditEntry>, StoreError>;
}
