//! Signed-in browsers: a login checks the password and opens a session (a new random id
//! each time, so a session id planted before login is worthless), the cookie's id is
//! stored only as a digest, and a session ends when idle too long, when too old, at
//! logout, or everywhere at once.

use app::model::Role;

use super::accounts::{Accounts, AuthError, Identity, role_in};
use super::{password, secret};
use crate::clock::now_ms;
use crate::store::StoreError;
use crate::store::accounts::SessionRecord;

/// A session unused this long ends.
pub const IDLE_MS: i64 = 12 * 60 * 60 * 1000;
/// A session ends this long after login, however busy.
pub const ABSOLUTE_MS: i64 = 7 * 24 * 60 * 60 * 1000;
/// A session's last use is written at most this often.
const TOUCH_EVERY_MS: i64 = 60 * 1000;

/// A new session: the cookie value to set (shown to this browser only) and who it is.
pub struct Opened {
    pub cookie: String,
    pub identity: Identity,
}

/// Never prints the cookie.
impl std::fmt::Debug for Opened {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Opened")
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

/// Whether reading a session counts as its use (and so pushes back its idle end).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    Counts,
    Passive,
}

/// Whether a session is past its idle or absolute limit at `now`.
pub fn expired(session: &SessionRecord, now: i64) -> bool {
    now - session.last_seen_ms >= IDLE_MS || now - session.created_at_ms >= ABSOLUTE_MS
}

impl Accounts {
    /// Checks the password and opens a session in `tenant` (one of the user's), else in
    /// their first tenant. Unknown names cost as long as wrong passwords.
    pub async fn login(
        &self,
        name: &str,
        password: &str,
        tenant: Option<&str>,
    ) -> Result<Opened, AuthError> {
        let user = self.store.user_by_name(name).await?;
        let stored = user.as_ref().map_or_else(
            || password::decoy().to_owned(),
            |user| user.password_hash.clone(),
        );
        let matches = password::verify_blocking(stored, password.to_owned()).await?;
        let Some(user) = user.filter(|_| matches) else {
            return Err(AuthError::BadCredentials);
        };
        let memberships = self.store.memberships(&user.id).await?;
        let tenant = match tenant {
            Some(tenant) => tenant.to_owned(),
            None => self
                .store
                .first_joined_tenant(&user.id)
                .await?
                .ok_or_else(|| {
                    AuthError::Invalid(format!("{:?} belongs to no tenant", user.name))
                })?,
        };
        let role = role_in(&memberships, &tenant).ok_or_else(|| AuthError::NotMember {
            user: user.name.clone(),
            tenant: tenant.clone(),
        })?;
        let cookie = secret::random_hex(32);
        let opened = self
            .store
            .create_session(
                &secret::digest(&cookie),
                &user.id,
                &user.password_hash,
                &tenant,
                now_ms(),
            )
            .await?;
        if !opened {
            return Err(AuthError::BadCredentials);
        }
        Ok(Opened {
            cookie,
            identity: Identity {
                user_id: user.id,
                user_name: user.name,
                tenant,
                role,
                token_id: None,
                memberships,
            },
        })
    }

    /// Who a session cookie acts as, while the session lasts and its user still belongs
    /// to its tenant; the request counts as the session's use. An expired session is
    /// deleted.
    pub async fn session_identity(&self, cookie: &str) -> Result<Option<Identity>, StoreError> {
        self.session_of(cookie, Use::Counts).await
    }

    /// The same, without counting as use: for checking an open stream is still allowed,
    /// which must not keep an idle session alive.
    pub async fn session_lasts(&self, cookie: &str) -> Result<Option<Identity>, StoreError> {
        self.session_of(cookie, Use::Passive).await
    }

    async fn session_of(&self, cookie: &str, counted: Use) -> Result<Option<Identity>, StoreError> {
        if cookie.len() != 64 || !cookie.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            return Ok(None);
        }
        let digest = secret::digest(cookie);
        let Some(session) = self.store.session(&digest).await? else {
            return Ok(None);
        };
        let now = now_ms();
        if expired(&session, now) {
            self.store.delete_session(&digest).await?;
            return Ok(None);
        }
        let memberships = self.store.memberships(&session.user_id).await?;
        let Some(role) = role_in(&memberships, &session.tenant_id) else {
            return Ok(None);
        };
        if counted == Use::Counts && now - session.last_seen_ms >= TOUCH_EVERY_MS {
            self.store.touch_session(&digest, now).await?;
        }
        Ok(Some(Identity {
            user_id: session.user_id,
            user_name: session.user_name,
            tenant: session.tenant_id,
            role,
            token_id: None,
            memberships,
        }))
    }

    /// Moves the session of `cookie` (its user's, named `user_name`) to another of the
    /// user's tenants; the role held there.
    pub async fn switch_tenant(
        &self,
        cookie: &str,
        user_id: &str,
        user_name: &str,
        tenant: &str,
    ) -> Result<Role, AuthError> {
        let memberships = self.store.memberships(user_id).await?;
        let role = role_in(&memberships, tenant).ok_or_else(|| AuthError::NotMember {
            user: user_name.to_owned(),
            tenant: tenant.to_owned(),
        })?;
        self.store
            .set_session_tenant(&secret::digest(cookie), tenant)
            .await?;
        Ok(role)
    }

    pub async fn logout(&self, cookie: &str) -> Result<(), StoreError> {
        self.store.delete_session(&secret::digest(cookie)).await
    }

    /// Ends every session of the user, this one included; how many there were.
    pub async fn logout_everywhere(&self, user_id: &str) -> Result<u64, StoreError> {
        self.store.delete_user_sessions(user_id).await
    }

    /// A one-time setup link's token while the store has no users; none once it has.
    pub async fn setup_token(&self) -> Result<Option<String>, StoreError> {
        if self.store.count_users().await? > 0 {
            return Ok(None);
        }
        let token = secret::random_hex(32);
        self.store
            .create_setup_token(&secret::digest(&token), now_ms())
            .await?;
        Ok(Some(token))
    }

    /// Creates the first owner and their tenant with a setup token, and signs them in.
    pub async fn complete_setup(
        &self,
        token: &str,
        name: &str,
        password: &str,
        tenant: &str,
    ) -> Result<Opened, AuthError> {
        // The token first: a wrong one costs a lookup, never a password hash.
        let digest = secret::digest(token);
        if !self.store.setup_token_open(&digest).await? {
            return Err(AuthError::SetupUsed);
        }
        let owner = super::accounts::new_user(name, password, tenant).await?;
        if !self
            .store
            .complete_setup(&digest, &owner, tenant, owner.created_at_ms)
            .await?
        {
            return Err(AuthError::SetupUsed);
        }
        self.login(name, password, Some(tenant)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_ends_when_idle_or_old() {
        let session = |created: i64, seen: i64| SessionRecord {
            user_id: "u".into(),
            user_name: "ada".into(),
            tenant_id: "acme".into(),
            created_at_ms: created,
            last_seen_ms: seen,
        };
        let start = 1_000_000;
        assert!(!expired(&session(start, start), start + IDLE_MS - 1));
        assert!(expired(&session(start, start), start + IDLE_MS));
        let busy = session(start, start + ABSOLUTE_MS - 10);
        assert!(!expired(&busy, start + ABSOLUTE_MS - 1));
        assert!(expired(&busy, start + ABSOLUTE_MS));
    }
}
