//! A tenant's members and tokens as its owners manage them from the console: adding a
//! member (a new user with a first password, or an invitation the user accepts),
//! changing a role, removing a member — never leaving a tenant without an owner — and
//! the tenant's tokens.

use app::api::service::MembersService;
use app::error::ApiError;
use app::model::{
    Invitation, IssuedToken, Member, MemberAdded, RequestContext, Role, TokenSummary,
};

use super::accounts::{Accounts, AuthError, check_user_name, new_user};
use crate::clock::now_ms;
use crate::store::accounts::{MemberChange, MemberChanged};

impl Accounts {
    /// Makes `change` to `user_id`'s membership of `tenant` (named `user` in errors),
    /// unless it would leave the tenant without an owner.
    async fn change_member(
        &self,
        tenant: &str,
        user_id: &str,
        user: &str,
        change: MemberChange,
    ) -> Result<(), AuthError> {
        match self
            .store
            .change_membership(user_id, tenant, change, now_ms())
            .await?
        {
            MemberChanged::Done => Ok(()),
            MemberChanged::NotMember => Err(AuthError::NotMember {
                user: user.to_owned(),
                tenant: tenant.to_owned(),
            }),
            MemberChanged::LastOwner => Err(AuthError::LastOwner(tenant.to_owned())),
        }
    }

    /// The id of the tenant's member named `name`.
    pub(super) async fn member_id(&self, tenant: &str, name: &str) -> Result<String, AuthError> {
        self.store
            .members(tenant)
            .await?
            .into_iter()
            .find(|member| member.name == name)
            .map(|member| member.user_id)
            .ok_or_else(|| AuthError::NotMember {
                user: name.to_owned(),
                tenant: tenant.to_owned(),
            })
    }
}

#[async_trait::async_trait]
impl MembersService for Accounts {
    async fn members(&self, context: &RequestContext) -> Result<Vec<Member>, ApiError> {
        context.require(Role::Owner, "reading the members")?;
        let members = self.store.members(&context.tenant).await?;
        Ok(members
            .into_iter()
            .map(|member| Member {
                user: member.name,
                role: member.role,
            })
            .collect())
    }

    async fn add_member(
        &self,
        context: &RequestContext,
        user: &str,
        role: Role,
        password: Option<&str>,
    ) -> Result<MemberAdded, ApiError> {
        let Some(password) = password.filter(|password| !password.is_empty()) else {
            self.invite(context, user, role).await?;
            return Ok(MemberAdded::Invited);
        };
        context.require(Role::Owner, "adding a member")?;
        check_user_name(user).map_err(ApiError::BadRequest)?;
        let tenant = &context.tenant;
        let created = new_user(user, password, tenant).await?;
        // A taken name is said, as any sign-up says it; the user of that name is not added.
        if !self.store.create_user(&created).await? {
            return Err(ApiError::Conflict(format!(
                "a user named {user:?} exists already: leave the first password empty to invite them"
            )));
        }
        self.change_member(tenant, &created.id, user, MemberChange::Join(role))
            .await?;
        Ok(MemberAdded::Created)
    }

    async fn invitations(&self, context: &RequestContext) -> Result<Vec<Invitation>, ApiError> {
        self.tenant_invitations(context).await
    }

    async fn withdraw_invitation(
        &self,
        context: &RequestContext,
        user: &str,
    ) -> Result<(), ApiError> {
        self.withdraw(context, user).await
    }

    async fn my_invitations(&self, context: &RequestContext) -> Result<Vec<Invitation>, ApiError> {
        Ok(self.invitations_for(context).await?)
    }

    async fn set_member_role(
        &self,
        context: &RequestContext,
        user: &str,
        role: Role,
    ) -> Result<(), ApiError> {
        let user_id = self.member_id(&context.tenant, user).await?;
        self.change_member(&context.tenant, &user_id, user, MemberChange::Role(role))
            .await?;
        Ok(())
    }

    async fn remove_member(&self, context: &RequestContext, user: &str) -> Result<(), ApiError> {
        let user_id = self.member_id(&context.tenant, user).await?;
        self.change_member(&context.tenant, &user_id, user, MemberChange::Leave)
            .await?;
        Ok(())
    }

    async fn tokens(&self, context: &RequestContext) -> Result<Vec<TokenSummary>, ApiError> {
        context.require(Role::Owner, "reading the tenant's tokens")?;
        let tokens = self.store.tokens(None).await?;
        Ok(tokens
            .into_iter()
            .filter(|token| token.tenant_id == context.tenant)
            .map(|token| TokenSummary {
                id: token.id,
                user: token.user_name,
                role: token.role,
                created_at_ms: token.created_at_ms,
                expires_at_ms: token.expires_at_ms,
                revoked_at_ms: token.revoked_at_ms,
            })
            .collect())
    }

    async fn create_token(
        &self,
        context: &RequestContext,
        role: Option<Role>,
        expires_days: Option<u32>,
    ) -> Result<IssuedToken, ApiError> {
        let created =
            Accounts::create_token(self, &context.actor, &context.tenant, role, expires_days)
                .await?;
        Ok(IssuedToken {
            id: created.record.id,
            token: created.token,
        })
    }

    async fn revoke_token(&self, context: &RequestContext, id: &str) -> Result<(), ApiError> {
        // Only a token of this tenant: another tenant's does not exist here.
        match self.store.token(id).await? {
            Some(token) if token.tenant_id == context.tenant => {
                Accounts::revoke_token(self, id).await?;
                Ok(())
            }
            _ => Err(AuthError::UnknownToken(id.to_owned()).into()),
        }
    }
}
