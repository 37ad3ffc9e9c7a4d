//! The accounts service: creating users and tokens, checking passwords, and turning a
//! session cookie or a bearer token into the identity a request acts as.

use std::sync::Arc;

use app::model::{Role, check_tenant_name};

use super::{password, secret};
use crate::clock::now_ms;
use crate::store::accounts::{Membership, TokenRecord, UserRecord};
use crate::store::{Store, StoreError};

/// Who a request acts as: a user, in one of their tenants, with the role they (or their
/// token) hold there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub user_id: String,
    pub user_name: String,
    pub tenant: String,
    pub role: Role,
    /// The API token the request came with, if it came with one.
    pub token_id: Option<String>,
    /// Every tenant the user belongs to, with the role held there.
    pub memberships: Vec<Membership>,
}

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("{0}")]
    Invalid(String),
    #[error("there is no user {0:?}")]
    UnknownUser(String),
    #[error("a user named {0:?} exists already")]
    NameTaken(String),
    #[error("there is no token {0:?}, or it was revoked already")]
    UnknownToken(String),
    #[error("{user:?} is not a member of tenant {tenant:?}")]
    NotMember { user: String, tenant: String },
    #[error("a token cannot hold more than its user's role: {user:?} is {role} in {tenant:?}")]
    RoleTooWide {
        user: String,
        tenant: String,
        role: Role,
    },
    /// Wrong name or password: which of the two is not said.
    #[error("the user name or password is wrong")]
    BadCredentials,
    #[error("the setup link is not valid: it was used already, or users exist")]
    SetupUsed,
    #[error("a tenant named {0:?} exists already")]
    TenantTaken(String),
    #[error("{0:?} needs an owner: make someone else owner first")]
    LastOwner(String),
    #[error("{user:?} is a member of {tenant:?} already: change their role instead")]
    AlreadyMember { user: String, tenant: String },
    #[error("there is no invitation into {0:?} for you: it was withdrawn or answered")]
    NoInvitation(String),
    #[error(
        "a token acts only in the tenant it was made in; make a token in {wanted:?} to act there"
    )]
    TokenElsewhere { wanted: String },
    #[error(transparent)]
    Busy(#[from] password::Busy),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<password::HashError> for AuthError {
    fn from(error: password::HashError) -> Self {
        match error {
            password::HashError::Busy(busy) => AuthError::Busy(busy),
            password::HashError::Failed(message) => AuthError::Invalid(message),
        }
    }
}

/// User names: 1 to 64 characters of letters, digits, `.`, `-`, `_` and `@`.
pub fn check_user_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.chars().count() > 64 {
        return Err(format!(
            "a user name has 1 to 64 characters; {name:?} does not"
        ));
    }
    match name
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, '.' | '-' | '_' | '@')))
    {
        Some(bad) => Err(format!("a user name cannot contain {bad:?}")),
        None => Ok(()),
    }
}

/// The role held in `tenant` among `memberships`, if any.
pub(super) fn role_in(memberships: &[Membership], tenant: &str) -> Option<Role> {
    memberships
        .iter()
        .find(|membership| membership.tenant_id == tenant)
        .map(|membership| membership.role)
}

/// A user not stored yet, with a fresh id and the hash of `password`, once the name, the
/// password and the tenant they are to join have been checked.
pub(super) async fn new_user(
    name: &str,
    password: &str,
    tenant: &str,
) -> Result<UserRecord, AuthError> {
    check_user_name(name).map_err(AuthError::Invalid)?;
    check_tenant_name(tenant).map_err(AuthError::Invalid)?;
    password::check_new(password).map_err(AuthError::Invalid)?;
    Ok(UserRecord {
        id: uuid::Uuid::new_v4().to_string(),
        name: name.to_owned(),
        password_hash: password::hash_blocking(password.to_owned()).await?,
        created_at_ms: now_ms(),
    })
}

/// A new API token as created: the token itself (shown once) and what is stored.
pub struct CreatedToken {
    pub token: String,
    pub record: TokenRecord,
}

/// Never prints the token: a debug line in a log must not hand it out.
impl std::fmt::Debug for CreatedToken {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("CreatedToken")
            .field("id", &self.record.id)
            .finish_non_exhaustive()
    }
}

#[derive(Clone)]
pub struct Accounts {
    pub(super) store: Arc<dyn Store>,
}

impl Accounts {
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self { store }
    }

    /// Creates a user with `role` in `tenant` (created if it does not exist).
    pub async fn add_user(
        &self,
        name: &str,
        password: &str,
        tenant: &str,
        role: Role,
    ) -> Result<UserRecord, AuthError> {
        let user = new_user(name, password, tenant).await?;
        let now = user.created_at_ms;
        if !self.store.create_user(&user).await? {
            return Err(AuthError::NameTaken(name.to_owned()));
        }
        self.store.create_tenant(tenant, now).await?;
        self.store
            .set_membership(&user.id, tenant, role, now)
            .await?;
        Ok(user)
    }

    /// Gives an existing user `role` in `tenant` (created if it does not exist).
    pub async fn grant(&self, name: &str, tenant: &str, role: Role) -> Result<(), AuthError> {
        check_tenant_name(tenant).map_err(AuthError::Invalid)?;
        let user = self.user(name).await?;
        let now = now_ms();
        self.store.create_tenant(tenant, now).await?;
        self.store
            .set_membership(&user.id, tenant, role, now)
            .await?;
        Ok(())
    }

    /// Sets a user's password; every session of theirs ends and every token is revoked.
    pub async fn set_password(&self, name: &str, password: &str) -> Result<(), AuthError> {
        password::check_new(password).map_err(AuthError::Invalid)?;
        let user = self.user(name).await?;
        let hash = password::hash_blocking(password.to_owned()).await?;
        self.store.set_password(&user.id, &hash, now_ms()).await?;
        Ok(())
    }

    /// The tenants and roles of the user with this id.
    pub async fn memberships_of(&self, user_id: &str) -> Result<Vec<Membership>, StoreError> {
        self.store.memberships(user_id).await
    }

    pub async fn memberships(&self, name: &str) -> Result<Vec<Membership>, AuthError> {
        let user = self.user(name).await?;
        Ok(self.store.memberships(&user.id).await?)
    }

    /// A token acting as `name` in `tenant`, with the user's role there or a narrower
    /// one, valid for `expires_days` days (or until revoked).
    pub async fn create_token(
        &self,
        name: &str,
        tenant: &str,
        role: Option<Role>,
        expires_days: Option<u32>,
    ) -> Result<CreatedToken, AuthError> {
        let user = self.user(name).await?;
        let held = self.held_role(&user, tenant).await?;
        if let Some(role) = role
            && role > held
        {
            return Err(AuthError::RoleTooWide {
                user: user.name,
                tenant: tenant.to_owned(),
                role: held,
            });
        }
        let now = now_ms();
        let new = secret::new_token();
        let record = TokenRecord {
            id: new.id,
            digest: new.digest,
            user_id: user.id,
            user_name: user.name,
            tenant_id: tenant.to_owned(),
            role,
            created_at_ms: now,
            expires_at_ms: expires_days.map(|days| now + i64::from(days) * 86_400_000),
            revoked_at_ms: None,
        };
        self.store.create_token(&record).await?;
        Ok(CreatedToken {
            token: new.token,
            record,
        })
    }

    /// Every user with their tenants and roles, by name.
    pub async fn users(&self) -> Result<Vec<(UserRecord, Vec<Membership>)>, AuthError> {
        let mut listed = Vec::new();
        for user in self.store.users().await? {
            let memberships = self.store.memberships(&user.id).await?;
            listed.push((user, memberships));
        }
        Ok(listed)
    }

    /// Every token (of the user named, when one is), oldest first; never their secrets,
    /// which the store does not have.
    pub async fn tokens(&self, name: Option<&str>) -> Result<Vec<TokenRecord>, AuthError> {
        let user = match name {
            Some(name) => Some(self.user(name).await?),
            None => None,
        };
        Ok(self
            .store
            .tokens(user.as_ref().map(|user| user.id.as_str()))
            .await?)
    }

    pub async fn revoke_token(&self, id: &str) -> Result<(), AuthError> {
        if self.store.revoke_token(id, now_ms()).await? {
            Ok(())
        } else {
            Err(AuthError::UnknownToken(id.to_owned()))
        }
    }

    /// The identity a bearer token acts as, if the token is well formed, known, not
    /// revoked or expired, and its user still belongs to the token's tenant. A token acts
    /// in the one tenant it was made in: `wanted` may name that tenant, and naming any
    /// other is refused (that tenant's owners could neither see nor revoke the token).
    /// The role is the narrower of the token's and the user's current one there; the
    /// identity names no other tenant of the user's.
    pub async fn token_identity(
        &self,
        token: &str,
        wanted: Option<&str>,
    ) -> Result<Option<Identity>, AuthError> {
        let Some((id, given)) = secret::parse_token(token) else {
            return Ok(None);
        };
        let Some(record) = self.store.token(id).await? else {
            return Ok(None);
        };
        let now = now_ms();
        if !secret::matches(&record.digest, given)
            || record.revoked_at_ms.is_some()
            || record.expires_at_ms.is_some_and(|expires| expires <= now)
        {
            return Ok(None);
        }
        if let Some(wanted) = wanted
            && wanted != record.tenant_id
        {
            return Err(AuthError::TokenElsewhere {
                wanted: wanted.to_owned(),
            });
        }
        let memberships: Vec<Membership> = self
            .store
            .memberships(&record.user_id)
            .await?
            .into_iter()
            .filter(|membership| membership.tenant_id == record.tenant_id)
            .collect();
        let Some(held) = role_in(&memberships, &record.tenant_id) else {
            return Ok(None);
        };
        Ok(Some(Identity {
            user_id: record.user_id,
            user_name: record.user_name,
            tenant: record.tenant_id,
            role: record.role.map_or(held, |role| role.min(held)),
            token_id: Some(record.id),
            memberships,
        }))
    }

    /// Creates tenant `name` with the user as its owner; refused when the name is taken,
    /// so nobody joins someone else's tenant by "creating" it.
    pub async fn found_tenant(&self, user_id: &str, name: &str) -> Result<(), AuthError> {
        check_tenant_name(name).map_err(AuthError::Invalid)?;
        let now = now_ms();
        if !self.store.create_tenant(name, now).await? {
            return Err(AuthError::TenantTaken(name.to_owned()));
        }
        self.store
            .set_membership(user_id, name, Role::Owner, now)
            .await?;
        Ok(())
    }

    pub(super) async fn user(&self, name: &str) -> Result<UserRecord, AuthError> {
        self.store
            .user_by_name(name)
            .await?
            .ok_or_else(|| AuthError::UnknownUser(name.to_owned()))
    }

    async fn held_role(&self, user: &UserRecord, tenant: &str) -> Result<Role, AuthError> {
        let memberships = self.store.memberships(&user.id).await?;
        role_in(&memberships, tenant).ok_or_else(|| AuthError::NotMember {
            user: user.name.clone(),
            tenant: tenant.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_names_are_plain_words() {
        for good in [
            "ada",
            "ada.lovelace",
            "ops-1",
            "a_b",
            "ada@example.org",
            "Zoë",
        ] {
            assert!(check_user_name(good).is_ok(), "{good}");
        }
        for bad in ["", "ada lovelace", "a/b", "<script>", &"x".repeat(65)] {
            assert!(check_user_name(bad).is_err(), "{bad}");
        }
    }
}
