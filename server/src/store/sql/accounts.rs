//! Users, memberships, sessions, API tokens and the setup link in SQL.

use app::model::Role;
use sqlx::Row;
use sqlx::any::AnyRow;

use super::SqlStore;
use crate::store::StoreError;
use crate::store::accounts::{
    AccountStore, Member, MemberChange, MemberChanged, Membership, SessionRecord, TokenRecord,
    UserRecord,
};

pub(super) fn role_of(text: &str) -> Result<Role, StoreError> {
    Role::parse(text).map_err(StoreError::Corrupt)
}

fn user_row(row: &AnyRow) -> Result<UserRecord, StoreError> {
    Ok(UserRecord {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        password_hash: row.try_get("password_hash")?,
        created_at_ms: row.try_get("created_at_ms")?,
    })
}

fn token_row(row: &AnyRow) -> Result<TokenRecord, StoreError> {
    let role: Option<String> = row.try_get("role")?;
    Ok(TokenRecord {
        id: row.try_get("id")?,
        digest: row.try_get("digest")?,
        user_id: row.try_get("user_id")?,
        user_name: row.try_get("user_name")?,
        tenant_id: row.try_get("tenant_id")?,
        role: role.as_deref().map(role_of).transpose()?,
        created_at_ms: row.try_get("created_at_ms")?,
        expires_at_ms: row.try_get("expires_at_ms")?,
        revoked_at_ms: row.try_get("revoked_at_ms")?,
    })
}

#[async_trait::async_trait]
impl AccountStore for SqlStore {
    async fn count_users(&self) -> Result<u64, StoreError> {
        let row = sqlx::query("SELECT COUNT(*) AS users FROM users")
            .fetch_one(&self.pool)
            .await?;
        super::rows::to_u64(row.try_get("users")?, "user count")
    }

    async fn users(&self) -> Result<Vec<UserRecord>, StoreError> {
        let rows =
            sqlx::query("SELECT id, name, password_hash, created_at_ms FROM users ORDER BY name")
                .fetch_all(&self.pool)
                .await?;
        rows.iter().map(user_row).collect()
    }

    async fn create_user(&self, user: &UserRecord) -> Result<bool, StoreError> {
        let result = sqlx::query(
            "INSERT INTO users (id, name, password_hash, created_at_ms) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (name) DO NOTHING",
        )
        .bind(&user.id)
        .bind(&user.name)
        .bind(&user.password_hash)
        .bind(user.created_at_ms)
        .execute(&self.pool)
        .await?;
        Ok(result.rows_affected() == 1)
    }

    async fn user_by_name(&self, name: &str) -> Result<Option<UserRecord>, StoreError> {
        sqlx::query("SELECT id, name, password_hash, created_at_ms FROM users WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await?
            .as_ref()
            .map(user_row)
            .transpose()
    }

    async fn media_hosts(&self, user_id: &str) -> Result<Vec<String>, StoreError> {
        let hosts: Option<String> =
            sqlx::query_scalar("SELECT media_hosts FROM users WHERE id = $1")
                .bind(user_id)
                .fetch_optional(&self.pool)
                .await?;
        Ok(hosts
            .unwrap_or_default()
            .lines()
            .filter(|host| !host.is_empty())
            .map(str::to_owned)
            .collect())
    }

    async fn set_media_hosts(&self, user_id: &str, hosts: &[String]) -> Result<(), StoreError> {
        sqlx::query("UPDATE users SET media_hosts = $1 WHERE id = $2")
            .bind(hosts.join("\n"))
            .bind(user_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn set_password(
        &self,
        user_id: &str,
        password_hash: &str,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let mut transaction = self.begin_write().await?;
        sqlx::query("UPDATE users SET password_hash = $1 WHERE id = $2")
            .bind(password_hash)
            .bind(user_id)
            .execute(&mut *transaction)
            .await?;
        sqlx::query("DELETE FROM sessions WHERE user_id = $1")
            .bind(user_id)
            .execute(&mut *transaction)
            .await?;
        sqlx::query(
            "UPDATE api_tokens SET revoked_at_ms = $1 WHERE user_id = $2 AND revoked_at_ms IS NULL",
        )
        .bind(now_ms)
        .bind(user_id)
        .execute(&mut *transaction)
        .await?;
        transaction.commit().await?;
        Ok(())
    }

    async fn set_membership(
        &self,
        user_id: &str,
        tenant_id: &str,
        role: Role,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO memberships (user_id, tenant_id, role, created_at_ms) \
             VALUES ($1, $2, $3, $4) \
             ON CONFLICT (user_id, tenant_id) DO UPDATE SET role = excluded.role",
        )
        .bind(user_id)
        .bind(tenant_id)
        .bind(role.label())
        .bind(now_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn first_joined_tenant(&self, user_id: &str) -> Result<Option<String>, StoreError> {
        let row = sqlx::query(
            "SELECT tenant_id FROM memberships WHERE user_id = $1 \
             ORDER BY created_at_ms, tenant_id LIMIT 1",
        )
        .bind(user_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|row| row.try_get("tenant_id")).transpose()?)
    }

    async fn memberships(&self, user_id: &str) -> Result<Vec<Membership>, StoreError> {
        let rows = sqlx::query(
            "SELECT tenant_id, role FROM memberships WHERE user_id = $1 ORDER BY tenant_id",
        )
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(Membership {
                    tenant_id: row.try_get("tenant_id")?,
                    role: role_of(&row.try_get::<String, _>("role")?)?,
                })
            })
            .collect()
    }

    async fn members(&self, tenant_id: &str) -> Result<Vec<Member>, StoreError> {
        let rows = sqlx::query(
            "SELECT u.id, u.name, m.role FROM memberships m JOIN users u ON u.id = m.user_id \
             WHERE m.tenant_id = $1 ORDER BY u.name",
        )
        .bind(tenant_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(Member {
                    user_id: row.try_get("id")?,
                    name: row.try_get("name")?,
                    role: role_of(&row.try_get::<String, _>("role")?)?,
                })
            })
            .collect()
    }

    async fn change_membership(
        &self,
        user_id: &str,
        tenant_id: &str,
        change: MemberChange,
        now_ms: i64,
    ) -> Result<MemberChanged, StoreError> {
        let mut transaction = self.begin_write().await?;
        // SQLite's write lock is taken already; PostgreSQL's tenant row serializes the
        // tenant's membership changes, so the owners counted stay counted until commit.
        if self.dialect == super::Dialect::Postgres {
            sqlx::query("SELECT id FROM tenants WHERE id = $1 FOR UPDATE")
                .bind(tenant_id)
                .fetch_optional(&mut *transaction)
                .await?;
        }
        let current =
            sqlx::query("SELECT role FROM memberships WHERE user_id = $1 AND tenant_id = $2")
                .bind(user_id)
                .bind(tenant_id)
                .fetch_optional(&mut *transaction)
                .await?
                .map(|row| role_of(&row.try_get::<String, _>("role")?))
                .transpose()?;
        let next = match change {
            MemberChange::Join(role) | MemberChange::Role(role) => Some(role),
            MemberChange::Leave => None,
        };
        if current.is_none() && !matches!(change, MemberChange::Join(_)) {
            return Ok(MemberChanged::NotMember);
        }
        if current == Some(Role::Owner) && next != Some(Role::Owner) {
            let owners: i64 = sqlx::query(
                "SELECT COUNT(*) AS owners FROM memberships WHERE tenant_id = $1 AND role = $2",
            )
            .bind(tenant_id)
            .bind(Role::Owner.label())
            .fetch_one(&mut *transaction)
            .await?
            .try_get("owners")?;
            if owners <= 1 {
                return Ok(MemberChanged::LastOwner);
            }
        }
        match next {
            Some(role) => {
                sqlx::query(
                    "INSERT INTO memberships (user_id, tenant_id, role, created_at_ms) \
                     VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (user_id, tenant_id) DO UPDATE SET role = excluded.role",
                )
                .bind(user_id)
                .bind(tenant_id)
                .bind(role.label())
                .bind(now_ms)
                .execute(&mut *transaction)
                .await?;
            }
            None => {
                sqlx::query("DELETE FROM memberships WHERE user_id = $1 AND tenant_id = $2")
                    .bind(user_id)
                    .bind(tenant_id)
                    .execute(&mut *transaction)
                    .await?;
            }
        }
        transaction.commit().await?;
        Ok(MemberChanged::Done)
    }

    async fn create_session(
        &self,
        digest: &str,
        user_id: &str,
        checked_hash: &str,
        tenant_id: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        // On PostgreSQL the user's row is read under a share lock, so a password change
        // committing meanwhile is waited for and its new hash seen.
        let lock = match self.dialect {
            super::Dialect::Postgres => " FOR SHARE",
            super::Dialect::Sqlite => "",
        };
        let created = sqlx::query(&format!(
            "INSERT INTO sessions (digest, user_id, tenant_id, created_at_ms, last_seen_ms) \
             SELECT $1, id, $2, $3, $3 FROM users WHERE id = $4 AND password_hash = $5{lock}"
        ))
        .bind(digest)
        .bind(tenant_id)
        .bind(now_ms)
        .bind(user_id)
        .bind(checked_hash)
        .execute(&self.pool)
        .await?;
        Ok(created.rows_affected() == 1)
    }

    async fn session(&self, digest: &str) -> Result<Option<SessionRecord>, StoreError> {
        let row = sqlx::query(
            "SELECT s.user_id, u.name AS user_name, s.tenant_id, s.created_at_ms, s.last_seen_ms \
             FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.digest = $1",
        )
        .bind(digest)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|row| {
            Ok(SessionRecord {
                user_id: row.try_get("user_id")?,
                user_name: row.try_get("user_name")?,
                tenant_id: row.try_get("tenant_id")?,
                created_at_ms: row.try_get("created_at_ms")?,
                last_seen_ms: row.try_get("last_seen_ms")?,
            })
        })
        .transpose()
    }

    async fn touch_session(&self, digest: &str, now_ms: i64) -> Result<(), StoreError> {
        sqlx::query("UPDATE sessions SET last_seen_ms = $1 WHERE digest = $2")
            .bind(now_ms)
            .bind(digest)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn set_session_tenant(&self, digest: &str, tenant_id: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE sessions SET tenant_id = $1 WHERE digest = $2")
            .bind(tenant_id)
            .bind(digest)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn delete_session(&self, digest: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM sessions WHERE digest = $1")
            .bind(digest)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn delete_user_sessions(&self, user_id: &str) -> Result<u64, StoreError> {
        let result = sqlx::query("DELETE FROM sessions WHERE user_id = $1")
            .bind(user_id)
            .execute(&self.pool)
            .await?;
        Ok(result.rows_affected())
    }

    async fn create_token(&self, token: &TokenRecord) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO api_tokens \
             (id, digest, user_id, tenant_id, role, created_at_ms, expires_at_ms, revoked_at_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(&token.id)
        .bind(&token.digest)
        .bind(&token.user_id)
        .bind(&token.tenant_id)
        .bind(token.role.map(Role::label))
        .bind(token.created_at_ms)
        .bind(token.expires_at_ms)
        .bind(token.revoked_at_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn token(&self, id: &str) -> Result<Option<TokenRecord>, StoreError> {
        sqlx::query(
            "SELECT t.id, t.digest, t.user_id, u.name AS user_name, t.tenant_id, t.role, \
             t.created_at_ms, t.expires_at_ms, t.revoked_at_ms \
             FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .as_ref()
        .map(token_row)
        .transpose()
    }

    async fn tokens(&self, user_id: Option<&str>) -> Result<Vec<TokenRecord>, StoreError> {
        let rows = sqlx::query(
            "SELECT t.id, t.digest, t.user_id, u.name AS user_name, t.tenant_id, t.role, \
             t.created_at_ms, t.expires_at_ms, t.revoked_at_ms \
             FROM api_tokens t JOIN users u ON u.id = t.user_id \
             WHERE $1 IS NULL OR t.user_id = $1 ORDER BY t.created_at_ms, t.id",
        )
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(token_row).collect()
    }

    async fn revoke_token(&self, id: &str, now_ms: i64) -> Result<bool, StoreError> {
        let result = sqlx::query(
            "UPDATE api_tokens SET revoked_at_ms = $1 WHERE id = $2 AND revoked_at_ms IS NULL",
        )
        .bind(now_ms)
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(result.rows_affected() == 1)
    }

    async fn create_setup_token(&self, digest: &str, now_ms: i64) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO setup_tokens (digest, created_at_ms) VALUES ($1, $2)")
            .bind(digest)
            .bind(now_ms)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn setup_token_open(&self, digest: &str) -> Result<bool, StoreError> {
        let row = sqlx::query(
            "SELECT 1 AS open FROM setup_tokens \
             WHERE digest = $1 AND used_at_ms IS NULL AND NOT EXISTS (SELECT 1 FROM users)",
        )
        .bind(digest)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.is_some())
    }

    async fn complete_setup(
        &self,
        digest: &str,
        owner: &UserRecord,
        tenant_id: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        // Queued behind any other setup, so two links used at once make one first owner.
        let mut transaction = self.begin_write_on("setup").await?;
        let used = sqlx::query(
            "UPDATE setup_tokens SET used_at_ms = $1 \
             WHERE digest = $2 AND used_at_ms IS NULL AND NOT EXISTS (SELECT 1 FROM users)",
        )
        .bind(now_ms)
        .bind(digest)
        .execute(&mut *transaction)
        .await?;
        if used.rows_affected() != 1 {
            return Ok(false);
        }
        sqlx::query(
            "INSERT INTO tenants (id, name, created_at_ms) VALUES ($1, $1, $2) \
             ON CONFLICT (id) DO NOTHING",
        )
        .bind(tenant_id)
        .bind(now_ms)
        .execute(&mut *transaction)
        .await?;
        sqlx::query(
            "INSERT INTO users (id, name, password_hash, created_at_ms) VALUES ($1, $2, $3, $4)",
        )
        .bind(&owner.id)
        .bind(&owner.name)
        .bind(&owner.password_hash)
        .bind(owner.created_at_ms)
        .execute(&mut *transaction)
        .await?;
        sqlx::query(
            "INSERT INTO memberships (user_id, tenant_id, role, created_at_ms) VALUES ($1, $2, $3, $4)",
        )
        .bind(&owner.id)
        .bind(tenant_id)
        .bind(Role::Owner.label())
        .bind(now_ms)
        .execute(&mut *transaction)
        .await?;
        transaction.commit().await?;
        Ok(true)
    }
}
