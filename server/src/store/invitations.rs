//! Invitations into a tenant: an owner names a user and a role; the user joins only when
//! they accept, so nobody is made a member of a tenant without their consent.

use app::model::Role;

use super::StoreError;

/// A pending invitation of user `user_name` into tenant `tenant_id`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvitationRecord {
    pub tenant_id: String,
    pub user_name: String,
    pub role: Role,
    /// The name of the owner who invited.
    pub invited_by: String,
    pub created_at_ms: i64,
}

/// How an accepted invitation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accepted {
    /// The user joined with the invitation's role.
    Joined(Role),
    /// The user was a member already: their role stays, the invitation is spent.
    AlreadyMember(Role),
    /// There is no such invitation (withdrawn, declined, never made).
    NoInvitation,
}

#[async_trait::async_trait]
pub trait InvitationStore: Send + Sync {
    /// Invites `invitation.user_name`, or gives a pending invitation the new role.
    async fn invite(&self, invitation: &InvitationRecord) -> Result<(), StoreError>;
    /// The tenant's pending invitations, by name.
    async fn tenant_invitations(
        &self,
        tenant_id: &str,
    ) -> Result<Vec<InvitationRecord>, StoreError>;
    /// The user's pending invitations, oldest first.
    async fn user_invitations(&self, user_name: &str) -> Result<Vec<InvitationRecord>, StoreError>;
    /// Withdraws (or declines) an invitation; false when there was none.
    async fn drop_invitation(&self, tenant_id: &str, user_name: &str) -> Result<bool, StoreError>;
    /// Spends the invitation of user `user_id` (named `user_name`) into the tenant and
    /// makes them a member, in one transaction.
    async fn accept_invitation(
        &self,
        user_id: &str,
        user_name: &str,
        tenant_id: &str,
        now_ms: i64,
    ) -> Result<Accepted, StoreError>;
}
