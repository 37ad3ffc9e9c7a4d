//! What the store keeps of identity: users, their memberships (one role per tenant),
//! sessions, API tokens and the setup link — secrets only as digests.

use app::model::Role;

use super::StoreError;

#[derive(Clone, PartialEq, Eq)]
pub struct UserRecord {
    pub id: String,
    pub name: String,
    /// The argon2id PHC string.
    pub password_hash: String,
    pub created_at_ms: i64,
}

/// Leaves the hash out: a debug line in a log must not carry it.
impl std::fmt::Debug for UserRecord {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("UserRecord")
            .field("id", &self.id)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// What an owner does to a membership.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberChange {
    /// The user joins with the role, or takes it if they are a member already.
    Join(Role),
    /// A member takes the role.
    Role(Role),
    /// A member leaves.
    Leave,
}

/// How a [`MemberChange`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberChanged {
    Done,
    /// The user is not a member (a role change or a removal).
    NotMember,
    /// The change would leave the tenant without an owner; nothing changed.
    LastOwner,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Membership {
    pub tenant_id: String,
    pub role: Role,
}

/// A user as one of a tenant's members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub user_id: String,
    pub name: String,
    pub role: Role,
}

/// A signed-in browser, by the digest of its cookie.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRecord {
    pub user_id: String,
    pub user_name: String,
    pub tenant_id: String,
    pub created_at_ms: i64,
    pub last_seen_ms: i64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenRecord {
    pub id: String,
    pub digest: String,
    pub user_id: String,
    pub user_name: String,
    pub tenant_id: String,
    /// Narrower than the user's own role in the tenant, when set.
    pub role: Option<Role>,
    pub created_at_ms: i64,
    pub expires_at_ms: Option<i64>,
    pub revoked_at_ms: Option<i64>,
}

#[async_trait::async_trait]
pub trait AccountStore: Send + Sync {
    async fn count_users(&self) -> Result<u64, StoreError>;
    /// Every user, by name.
    async fn users(&self) -> Result<Vec<UserRecord>, StoreError>;
    /// Creates a user unless the name is taken; false when it is.
    async fn create_user(&self, user: &UserRecord) -> Result<bool, StoreError>;
    async fn user_by_name(&self, name: &str) -> Result<Option<UserRecord>, StoreError>;
    /// Replaces a user's password hash, ends every session of theirs and revokes every
    /// token of theirs (at `now_ms`): whoever had the old password may have made either.
    async fn set_password(
        &self,
        user_id: &str,
        password_hash: &str,
        now_ms: i64,
    ) -> Result<(), StoreError>;
    /// The hosts the user lets remote media load from.
    async fn media_hosts(&self, user_id: &str) -> Result<Vec<String>, StoreError>;
    /// Replaces the hosts the user lets remote media load from.
    async fn set_media_hosts(&self, user_id: &str, hosts: &[String]) -> Result<(), StoreError>;
    /// Gives the user `role` in the tenant (replacing any role they had there).
    async fn set_membership(
        &self,
        user_id: &str,
        tenant_id: &str,
        role: Role,
        now_ms: i64,
    ) -> Result<(), StoreError>;
    /// The user's tenants and roles, by tenant.
    async fn memberships(&self, user_id: &str) -> Result<Vec<Membership>, StoreError>;
    /// The tenant the user joined first: a sign-in that names no tenant opens it, so a
    /// tenant that adds someone later never becomes where they land.
    async fn first_joined_tenant(&self, user_id: &str) -> Result<Option<String>, StoreError>;
    /// The tenant's members with their roles, by name.
    async fn members(&self, tenant_id: &str) -> Result<Vec<Member>, StoreError>;
    /// An owner's change to someone's membership, made only if the tenant keeps an
    /// owner; the check and the change are one transaction, so two owners demoting each
    /// other at once leave one of them an owner.
    async fn change_membership(
        &self,
        user_id: &str,
        tenant_id: &str,
        change: MemberChange,
        now_ms: i64,
    ) -> Result<MemberChanged, StoreError>;

    /// Opens a session for the user if their password is still the one `checked_hash`
    /// verified; false when it changed meanwhile (a change ends every session, and a
    /// login checked against the old password must not outlive it).
    async fn create_session(
        &self,
        digest: &str,
        user_id: &str,
        checked_hash: &str,
        tenant_id: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError>;
    async fn session(&self, digest: &str) -> Result<Option<SessionRecord>, StoreError>;
    async fn touch_session(&self, digest: &str, now_ms: i64) -> Result<(), StoreError>;
    async fn set_session_tenant(&self, digest: &str, tenant_id: &str) -> Result<(), StoreError>;
    async fn delete_session(&self, digest: &str) -> Result<(), StoreError>;
    /// Ends every session of the user; how many there were.
    async fn delete_user_sessions(&self, user_id: &str) -> Result<u64, StoreError>;

    async fn create_token(&self, token: &TokenRecord) -> Result<(), StoreError>;
    async fn token(&self, id: &str) -> Result<Option<TokenRecord>, StoreError>;
    /// Every token (of one user, when named), oldest first.
    async fn tokens(&self, user_id: Option<&str>) -> Result<Vec<TokenRecord>, StoreError>;
    /// Revokes a token; false when there is no such token or it was revoked already.
    async fn revoke_token(&self, id: &str, now_ms: i64) -> Result<bool, StoreError>;

    async fn create_setup_token(&self, digest: &str, now_ms: i64) -> Result<(), StoreError>;
    /// Whether a setup token with this digest is unused while the store has no users: the
    /// cheap check made before a password is hashed.
    async fn setup_token_open(&self, digest: &str) -> Result<bool, StoreError>;
    /// Uses up the setup token with this digest and creates the first owner with their
    /// tenant, in one transaction: true for exactly one caller, and only while the store
    /// has no users.
    async fn complete_setup(
        &self,
        digest: &str,
        owner: &UserRecord,
        tenant_id: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError>;
}
