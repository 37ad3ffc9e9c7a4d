//! Invitations in SQL.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::SqlStore;
use super::accounts::role_of;
use crate::store::StoreError;
use crate::store::invitations::{Accepted, InvitationRecord, InvitationStore};

const COLUMNS: &str = "tenant_id, user_name, user_id, role, invited_by, created_at_ms";

fn invitation_row(row: &AnyRow) -> Result<InvitationRecord, StoreError> {
    Ok(InvitationRecord {
        tenant_id: row.try_get("tenant_id")?,
        user_name: row.try_get("user_name")?,
        user_id: row.try_get("user_id")?,
        role: role_of(&row.try_get::<String, _>("role")?)?,
        invited_by: row.try_get("invited_by")?,
        created_at_ms: row.try_get("created_at_ms")?,
    })
}

#[async_trait::async_trait]
impl InvitationStore for SqlStore {
    async fn invite(&self, invitation: &InvitationRecord) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO invitations (tenant_id, user_name, user_id, role, invited_by, created_at_ms) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (tenant_id, user_name) DO UPDATE \
             SET user_id = excluded.user_id, role = excluded.role, \
             invited_by = excluded.invited_by, created_at_ms = excluded.created_at_ms",
        )
        .bind(&invitation.tenant_id)
        .bind(&invitation.user_name)
        .bind(&invitation.user_id)
        .bind(invitation.role.label())
        .bind(&invitation.invited_by)
        .bind(invitation.created_at_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn tenant_invitations(
        &self,
        tenant_id: &str,
    ) -> Result<Vec<InvitationRecord>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM invitations WHERE tenant_id = $1 ORDER BY user_name"
        ))
        .bind(tenant_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(invitation_row).collect()
    }

    async fn user_invitations(&self, user_id: &str) -> Result<Vec<InvitationRecord>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM invitations WHERE user_id = $1 \
             ORDER BY created_at_ms, tenant_id"
        ))
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(invitation_row).collect()
    }

    async fn withdraw_invitation(
        &self,
        tenant_id: &str,
        user_name: &str,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM invitations WHERE tenant_id = $1 AND user_name = $2")
            .bind(tenant_id)
            .bind(user_name)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    async fn decline_invitation(&self, tenant_id: &str, user_id: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM invitations WHERE tenant_id = $1 AND user_id = $2")
            .bind(tenant_id)
            .bind(user_id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    async fn accept_invitation(
        &self,
        user_id: &str,
        tenant_id: &str,
        now_ms: i64,
    ) -> Result<Accepted, StoreError> {
        let mut transaction = self.begin_write().await?;
        let spent = sqlx::query(
            "DELETE FROM invitations WHERE tenant_id = $1 AND user_id = $2 RETURNING role",
        )
        .bind(tenant_id)
        .bind(user_id)
        .fetch_optional(&mut *transaction)
        .await?;
        let Some(spent) = spent else {
            return Ok(Accepted::NoInvitation);
        };
        let role = role_of(&spent.try_get::<String, _>("role")?)?;
        let held =
            sqlx::query("SELECT role FROM memberships WHERE user_id = $1 AND tenant_id = $2")
                .bind(user_id)
                .bind(tenant_id)
                .fetch_optional(&mut *transaction)
                .await?;
        let accepted = match held {
            Some(held) => Accepted::AlreadyMember(role_of(&held.try_get::<String, _>("role")?)?),
            None => {
                sqlx::query(
                    "INSERT INTO memberships (user_id, tenant_id, role, created_at_ms) \
                     VALUES ($1, $2, $3, $4)",
                )
                .bind(user_id)
                .bind(tenant_id)
                .bind(role.label())
                .bind(now_ms)
                .execute(&mut *transaction)
                .await?;
                Accepted::Joined(role)
            }
        };
        transaction.commit().await?;
        Ok(accepted)
    }
}
