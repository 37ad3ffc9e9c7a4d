//! Invitations into a tenant: an owner invites a user by name and role; the user sees
//! the invitation and joins only by accepting it. An owner learns nothing of a name by
//! inviting it: an invitation to a name nobody has is made and listed like any other (and
//! can never be answered: it belongs to the user the name named when it was made, so
//! whoever takes the name later does not get it).

use app::error::ApiError;
use app::model::{Invitation, RequestContext, Role};

use super::accounts::{Accounts, AuthError, check_user_name};
use crate::clock::now_ms;
use crate::store::invitations::{Accepted, InvitationRecord};

fn shown(record: InvitationRecord) -> Invitation {
    Invitation {
        tenant: record.tenant_id,
        user: record.user_name,
        role: record.role,
        invited_by: record.invited_by,
        created_at_ms: record.created_at_ms,
    }
}

impl Accounts {
    /// Invites `user` into the context's tenant with `role` (a pending invitation takes
    /// the new role). Refused for someone already a member, whom the owner sees listed.
    pub(super) async fn invite(
        &self,
        context: &RequestContext,
        user: &str,
        role: Role,
    ) -> Result<(), ApiError> {
        context.require(Role::Owner, "inviting a member")?;
        check_user_name(user).map_err(ApiError::BadRequest)?;
        let tenant = &context.tenant;
        match self.member_id(tenant, user).await {
            Err(AuthError::NotMember { .. }) => {}
            Ok(_) => {
                return Err(AuthError::AlreadyMember {
                    user: user.to_owned(),
                    tenant: tenant.clone(),
                }
                .into());
            }
            Err(error) => return Err(error.into()),
        }
        let user_id = self.store.user_by_name(user).await?.map(|found| found.id);
        self.store
            .invite(&InvitationRecord {
                tenant_id: tenant.clone(),
                user_name: user.to_owned(),
                user_id,
                role,
                invited_by: context.actor.clone(),
                created_at_ms: now_ms(),
            })
            .await?;
        Ok(())
    }

    pub(super) async fn tenant_invitations(
        &self,
        context: &RequestContext,
    ) -> Result<Vec<Invitation>, ApiError> {
        context.require(Role::Owner, "reading the invitations")?;
        let records = self.store.tenant_invitations(&context.tenant).await?;
        Ok(records.into_iter().map(shown).collect())
    }

    pub(super) async fn withdraw(
        &self,
        context: &RequestContext,
        user: &str,
    ) -> Result<(), ApiError> {
        context.require(Role::Owner, "withdrawing an invitation")?;
        if self
            .store
            .withdraw_invitation(&context.tenant, user)
            .await?
        {
            Ok(())
        } else {
            Err(ApiError::NotFound(format!(
                "there is no invitation of {user:?} into {:?}",
                context.tenant
            )))
        }
    }

    /// The invitations waiting for the context's own user; none for an API token, which
    /// belongs to one tenant and answers none.
    pub async fn invitations_for(
        &self,
        context: &RequestContext,
    ) -> Result<Vec<Invitation>, AuthError> {
        if context.token_id.is_some() {
            return Ok(Vec::new());
        }
        let records = self.store.user_invitations(&context.user_id).await?;
        Ok(records.into_iter().map(shown).collect())
    }

    /// User `user_id`'s answer to their invitation into `tenant`: accepted, they join it
    /// with the invitation's role (or keep the role they hold there); declined, it is
    /// gone. Returns the role they hold there when they accepted.
    pub async fn answer_invitation(
        &self,
        user_id: &str,
        tenant: &str,
        accept: bool,
    ) -> Result<Option<Role>, AuthError> {
        if !accept {
            return match self.store.decline_invitation(tenant, user_id).await? {
                true => Ok(None),
                false => Err(AuthError::NoInvitation(tenant.to_owned())),
            };
        }
        match self
            .store
            .accept_invitation(user_id, tenant, now_ms())
            .await?
        {
            Accepted::Joined(role) | Accepted::AlreadyMember(role) => Ok(Some(role)),
            Accepted::NoInvitation => Err(AuthError::NoInvitation(tenant.to_owned())),
        }
    }
}
