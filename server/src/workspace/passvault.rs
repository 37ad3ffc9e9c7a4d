//! The passvault as the console and the REST API reach it: checked entries (one per name
//! in a tenant) whose values are sealed before they are stored and never returned — but
//! by a reveal, which needs an owner's password again, is throttled, and leaves an audit
//! entry whether it succeeds or not. Everyone in the tenant reads the list (names,
//! variables, metadata — never values); operators answer asks from it; owners keep it.

use std::sync::Arc;

use app::api::service::PassvaultService;
use app::error::ApiError;
use app::model::passvault::{
    NewVaultEntry, Revealed, SecretText, VaultEntry, VaultEntryEdit, VaultList, check_description,
    check_env_var, check_metadata, check_name, check_use, check_value,
};
use app::model::{AuditEntry, RequestContext, Role};

use crate::auth::password;
use crate::auth::throttle::{PER_USER_RECHECK, Throttle, WINDOW_MS};
use crate::clock::{EDIT_TRIES, now_ms, stamp_after};
use crate::store::{Store, refused_if_taken};
use crate::vault::{Vault, missing};

pub struct PassvaultServiceImpl {
    store: Arc<dyn Store>,
    vault: Arc<Vault>,
    /// Wrong passwords given to reveal, per user (a password is the user's in every
    /// tenant, so the count is too).
    reveals: Throttle,
}

impl PassvaultServiceImpl {
    pub fn new(store: Arc<dyn Store>, vault: Arc<Vault>) -> Self {
        Self {
            store,
            vault,
            reveals: Throttle::new(PER_USER_RECHECK, WINDOW_MS),
        }
    }

    /// `entry` with `edit`'s fields applied, each checked (the value is sealed apart).
    async fn edited(
        &self,
        context: &RequestContext,
        mut entry: VaultEntry,
        edit: VaultEntryEdit,
    ) -> Result<VaultEntry, ApiError> {
        if let Some(name) = edit.name {
            entry.name = bad(check_name(&name))?;
            self.check_unique(&context.tenant, &entry.name, Some(&entry.id))
                .await?;
        }
        if let Some(env_var) = edit.env_var {
            entry.env_var = bad(check_env_var(&env_var))?;
        }
        if let Some(description) = edit.description {
            entry.description = bad(check_description(&description))?;
        }
        if let Some(metadata) = edit.metadata {
            entry.metadata = check_metadata(&metadata).map_err(ApiError::BadRequest)?;
        }
        if let Some(policy) = edit.use_policy {
            entry.use_policy = check_use(&policy).map_err(ApiError::BadRequest)?;
        }
        entry.updated_at_ms = stamp_after(entry.updated_at_ms);
        Ok(entry)
    }

    /// Refuses a name another entry of the tenant has.
    async fn check_unique(
        &self,
        tenant: &str,
        name: &str,
        except: Option<&str>,
    ) -> Result<(), ApiError> {
        match self.store.vault_entry_named(tenant, name).await? {
            Some(other) if Some(other.id.as_str()) != except => Err(taken(name)),
            _ => Ok(()),
        }
    }

    /// Whether `given` is the password of the context's user.
    async fn password_matches(
        &self,
        context: &RequestContext,
        given: &SecretText,
    ) -> Result<bool, ApiError> {
        let user = self
            .store
            .user_by_name(&context.actor)
            .await?
            .filter(|user| user.id == context.user_id);
        // Checked against a decoy when there is no such user, so both take as long.
        let stored = user.as_ref().map_or_else(
            || password::decoy().to_owned(),
            |user| user.password_hash.clone(),
        );
        let matched = password::verify_blocking(stored, given.expose().to_owned())
            .await
            .map_err(|busy| ApiError::TooManyRequests(busy.to_string()))?;
        Ok(matched && user.is_some())
    }

    async fn audit(&self, context: &RequestContext, action: &str, id: &str) {
        let entry = AuditEntry {
            at_ms: now_ms(),
            user: context.actor.clone(),
            token: context.token_id.clone(),
            action: action.to_owned(),
            target: format!("passvault/{id}"),
        };
        if let Err(error) = self
            .store
            .record_audit(&context.tenant, &context.user_id, &entry)
            .await
        {
            tracing::error!(%error, action, "an audit entry could not be written");
        }
    }
}

fn taken(name: &str) -> ApiError {
    ApiError::Conflict(format!(
        "name: there is a passvault entry named {name:?} already"
    ))
}

fn bad(result: Result<String, String>) -> Result<String, ApiError> {
    result.map_err(ApiError::BadRequest)
}

#[async_trait::async_trait]
impl PassvaultService for PassvaultServiceImpl {
    async fn list_secrets(
        &self,
        context: &RequestContext,
        env_var: Option<&str>,
        q: Option<&str>,
        offset: u32,
        limit: u32,
    ) -> Result<VaultList, ApiError> {
        let q = q.map(str::trim).filter(|q| !q.is_empty());
        Ok(self
            .store
            .list_vault_entries(&context.tenant, env_var, q, offset, limit.clamp(1, 200))
            .await?)
    }

    async fn secret(&self, context: &RequestContext, id: &str) -> Result<VaultEntry, ApiError> {
        self.store
            .vault_entry(&context.tenant, id)
            .await?
            .ok_or_else(|| missing(id))
    }

    async fn usable_for(
        &self,
        context: &RequestContext,
        env_var: &str,
        run_id: &str,
    ) -> Result<Vec<VaultEntry>, ApiError> {
        let run = self
            .store
            .get_run(&context.tenant, run_id)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("run {run_id:?} does not exist")))?;
        let list = self
            .store
            .list_vault_entries(&context.tenant, Some(env_var), None, 0, 200)
            .await?;
        Ok(list
            .entries
            .into_iter()
            .filter(|entry| entry.use_policy.allows(&run.agent, context.role).is_ok())
            .collect())
    }

    async fn create_secret(
        &self,
        context: &RequestContext,
        entry: NewVaultEntry,
    ) -> Result<VaultEntry, ApiError> {
        context.require(Role::Owner, "keeping a secret")?;
        let name = bad(check_name(&entry.name))?;
        let env_var = bad(check_env_var(&entry.env_var))?;
        let description = bad(check_description(&entry.description))?;
        let metadata = check_metadata(&entry.metadata).map_err(ApiError::BadRequest)?;
        check_value(&entry.value).map_err(ApiError::BadRequest)?;
        let use_policy = check_use(&entry.use_policy).map_err(ApiError::BadRequest)?;
        self.check_unique(&context.tenant, &name, None).await?;
        let now = now_ms();
        let created = VaultEntry {
            id: uuid::Uuid::new_v4().to_string(),
            name,
            env_var,
            description,
            metadata,
            created_by: context.acted_by(),
            created_at_ms: now,
            updated_at_ms: now,
            last_used_at_ms: None,
            last_used_by: None,
            use_policy,
        };
        let sealed = self
            .vault
            .seal(&context.tenant, &created.id, &entry.value)?;
        let stored = self
            .store
            .create_vault_entry(&context.tenant, &created, &sealed)
            .await;
        refused_if_taken(stored, || taken(&created.name))?;
        Ok(created)
    }

    async fn edit_secret(
        &self,
        context: &RequestContext,
        id: &str,
        edit: VaultEntryEdit,
    ) -> Result<VaultEntry, ApiError> {
        context.require(Role::Owner, "changing a secret")?;
        let sealed = match &edit.value {
            Some(value) => {
                check_value(value).map_err(ApiError::BadRequest)?;
                Some(self.vault.seal(&context.tenant, id, value)?)
            }
            None => None,
        };
        // Made on the entry as read; if another edit landed meanwhile, made again on what
        // that edit left, so neither undoes the other.
        for _ in 0..EDIT_TRIES {
            let read = self
                .store
                .vault_entry(&context.tenant, id)
                .await?
                .ok_or_else(|| missing(id))?;
            let entry = self.edited(context, read.clone(), edit.clone()).await?;
            let stored = self
                .store
                .update_vault_entry(
                    &context.tenant,
                    &entry,
                    sealed.as_deref(),
                    read.updated_at_ms,
                )
                .await;
            if refused_if_taken(stored, || taken(&entry.name))? {
                return Ok(entry);
            }
        }
        Err(ApiError::Conflict(format!(
            "secret {id:?} is being changed by someone else; try again"
        )))
    }

    async fn delete_secret(&self, context: &RequestContext, id: &str) -> Result<(), ApiError> {
        context.require(Role::Owner, "deleting a secret")?;
        if self.store.delete_vault_entry(&context.tenant, id).await? {
            Ok(())
        } else {
            Err(missing(id))
        }
    }

    async fn reveal_secret(
        &self,
        context: &RequestContext,
        id: &str,
        password: SecretText,
    ) -> Result<Revealed, ApiError> {
        context.require(Role::Owner, "revealing a secret")?;
        if self.store.vault_entry(&context.tenant, id).await?.is_none() {
            return Err(missing(id));
        }
        let key = &context.user_id;
        let now = now_ms();
        if let Err(until) = self.reveals.reserve(key, now) {
            return Err(ApiError::TooManyRequests(format!(
                "too many wrong passwords; reveal again in {} minutes",
                (until - now).div_euclid(60_000) + 1
            )));
        }
        match self.password_matches(context, &password).await {
            Ok(true) => self.reveals.succeeded(key),
            Ok(false) => {
                self.audit(context, "passvault.reveal_refused", id).await;
                tracing::warn!(user = %context.actor, entry = id, "a reveal was refused: wrong password");
                return Err(ApiError::Forbidden(
                    "password: that is not your password; the value stays hidden".into(),
                ));
            }
            Err(error) => {
                self.reveals.cancel(key, now);
                return Err(error);
            }
        }
        let (entry, value) = self.vault.open(&context.tenant, id).await?;
        Ok(Revealed {
            id: entry.id,
            name: entry.name,
            value,
        })
    }
}
