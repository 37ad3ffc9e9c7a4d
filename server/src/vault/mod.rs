//! The passvault's values: sealed under the vault key when stored, opened only for the
//! agent an ask came from or an owner who gave their password again. The key is read
//! from the environment at start, or from its file in the data directory the first time
//! a value is sealed or opened (made then, if missing).

mod key;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use app::error::ApiError;
use app::model::passvault::{SecretText, VaultEntry};

pub use key::{KEY_ENV, KEY_FILE, VaultError, VaultKey};

use crate::store::Store;

pub struct Vault {
    store: Arc<dyn Store>,
    env_key: Option<String>,
    data_dir: PathBuf,
    key: Mutex<Option<Arc<VaultKey>>>,
}

impl std::fmt::Debug for Vault {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Vault(…)")
    }
}

/// What a sealed value is bound to: a value copied to another entry or tenant does not open.
fn bound_to(tenant_id: &str, entry_id: &str) -> String {
    format!("{tenant_id}/{entry_id}")
}

/// A vault failure as a client sees it: that it happened, not the key's whereabouts.
fn hidden(error: &VaultError) -> ApiError {
    tracing::error!(%error, "the passvault failed");
    ApiError::Internal("the passvault cannot seal or open values; the server log says why".into())
}

impl Vault {
    /// A vault over `store`. A key given in the environment is checked now, so a bad one
    /// stops the server at start rather than at the first secret.
    pub fn new(
        store: Arc<dyn Store>,
        env_key: Option<String>,
        data_dir: PathBuf,
    ) -> Result<Self, VaultError> {
        let key = match &env_key {
            Some(text) => Some(Arc::new(VaultKey::load(Some(text), &data_dir)?)),
            None => None,
        };
        Ok(Self {
            store,
            env_key,
            data_dir,
            key: Mutex::new(key),
        })
    }

    fn key(&self) -> Result<Arc<VaultKey>, ApiError> {
        let mut key = self.key.lock().unwrap_or_else(|poison| poison.into_inner());
        if let Some(key) = key.as_ref() {
            return Ok(key.clone());
        }
        let loaded = Arc::new(
            VaultKey::load(self.env_key.as_deref(), &self.data_dir)
                .map_err(|error| hidden(&error))?,
        );
        *key = Some(loaded.clone());
        Ok(loaded)
    }

    /// `value` sealed for entry `entry_id` of the tenant.
    pub fn seal(
        &self,
        tenant_id: &str,
        entry_id: &str,
        value: &SecretText,
    ) -> Result<String, ApiError> {
        self.key()?
            .seal(value.expose().as_bytes(), &bound_to(tenant_id, entry_id))
            .map_err(|error| hidden(&error))
    }

    /// The entry and its value, opened.
    pub async fn open(
        &self,
        tenant_id: &str,
        entry_id: &str,
    ) -> Result<(VaultEntry, SecretText), ApiError> {
        let (entry, sealed) = self
            .store
            .sealed_vault_entry(tenant_id, entry_id)
            .await?
            .ok_or_else(|| missing(entry_id))?;
        let bytes = self
            .key()?
            .open(&sealed, &bound_to(tenant_id, entry_id))
            .map_err(|error| hidden(&error))?;
        let text = String::from_utf8(bytes).map_err(|error| {
            zeroize::Zeroize::zeroize(&mut error.into_bytes());
            hidden(&VaultError::Unsealable)
        })?;
        Ok((entry, SecretText::new(text)))
    }
}

impl Vault {
    /// The value of the tenant's entry for environment variable `env_var` (the first by
    /// name when several hold it), noted as used by `by`; none when no entry holds it.
    pub async fn value_for_variable(
        &self,
        tenant_id: &str,
        env_var: &str,
        by: &str,
    ) -> Result<Option<SecretText>, ApiError> {
        let listed = self
            .store
            .list_vault_entries(tenant_id, Some(env_var), None, 0, 1)
            .await?;
        let Some(entry) = listed.entries.into_iter().next() else {
            return Ok(None);
        };
        let (entry, value) = self.open(tenant_id, &entry.id).await?;
        self.store
            .mark_vault_entry_used(tenant_id, &entry.id, by, crate::clock::now_ms())
            .await?;
        Ok(Some(value))
    }
}

pub fn missing(entry_id: &str) -> ApiError {
    ApiError::NotFound(format!("passvault entry {entry_id:?} does not exist"))
}
