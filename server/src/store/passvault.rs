//! What the store keeps of the passvault: entries with their sealed values. Only sealed
//! text goes in or comes out; sealing and opening are the vault's.

use app::model::passvault::{VaultEntry, VaultList};

use super::StoreError;

#[async_trait::async_trait]
pub trait PassvaultStore: Send + Sync {
    async fn create_vault_entry(
        &self,
        tenant_id: &str,
        entry: &VaultEntry,
        sealed: &str,
    ) -> Result<(), StoreError>;
    async fn vault_entry(
        &self,
        tenant_id: &str,
        id: &str,
    ) -> Result<Option<VaultEntry>, StoreError>;
    /// The entry named exactly `name`.
    async fn vault_entry_named(
        &self,
        tenant_id: &str,
        name: &str,
    ) -> Result<Option<VaultEntry>, StoreError>;
    /// The entry and its sealed value.
    async fn sealed_vault_entry(
        &self,
        tenant_id: &str,
        id: &str,
    ) -> Result<Option<(VaultEntry, String)>, StoreError>;
    /// Entries by name; only those for `env_var`, and those whose name, variable or
    /// description contains `q` (any case), when given.
    async fn list_vault_entries(
        &self,
        tenant_id: &str,
        env_var: Option<&str>,
        q: Option<&str>,
        offset: u32,
        limit: u32,
    ) -> Result<VaultList, StoreError>;
    /// Stores the entry's fields as given, and `sealed` as its value when given, if the
    /// entry is still as it was when read (its `updated_at_ms` then was `read_at`); false
    /// when it changed meanwhile or is gone.
    async fn update_vault_entry(
        &self,
        tenant_id: &str,
        entry: &VaultEntry,
        sealed: Option<&str>,
        read_at: i64,
    ) -> Result<bool, StoreError>;
    async fn delete_vault_entry(&self, tenant_id: &str, id: &str) -> Result<bool, StoreError>;
    /// Notes that the entry answered an ask, sent by `by`.
    async fn mark_vault_entry_used(
        &self,
        tenant_id: &str,
        id: &str,
        by: &str,
        at_ms: i64,
    ) -> Result<(), StoreError>;
}
