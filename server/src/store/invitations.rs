//! Invitations into a tenant: an owner names a user and a role; the user joins only when
//! they accept, so nobody is made a member of a tenant without their consent. An
//! invitation belongs to the user the name named when it was made (none, for a name
//! nobody had): a user who takes that name later never sees it.

use app::model::Role;

use super::StoreError;

/// A pending invitation of user `user_name` into tenant `tenant_id`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvitationRecord {
    pub tenant_id: String,
    pub user_name: String,
    /// The user the name belonged to when the invitation was made.
    pub user_id: Option<String>,
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
    /// There is no such invitation for the user (withdrawn, declined, never made).
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
    /// The pending invitations of user `user_id`, oldest first.
    async fn user_invitations(&self, user_id: &str) -> Result<Vec<InvitationRecord>, StoreError>;
    /// An owner withdraws the tenant's invitation of `user_name`; false when there was none.
    async fn withdraw_invitation(
        &self,
        tenant_id: &str,
        user_name: &str,
    ) -> Result<bool, StoreError>;
    /// User `user_id` declines their invitation into the tenant; false when there was none.
    async fn decline_invitation(&self, tenant_id: &str, user_id: &str) -> Result<bool, StoreError>;
    /// Spends user `user_id`'s invitation into the tenant and makes them a member, in one
    /// transaction.
    async fn accept_invitation(
        &self,
        user_id: &str,
        tenant_id: &str,
        now_ms: i64,
    ) -> Result<Accepted, StoreError>;
}
