//! PostgreSQL store, migrated at open.

use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;

use super::StoreError;

pub struct PostgresStore {
    pool: PgPool,
}

impl PostgresStore {
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(10))
            .connect(url)
            .await?;
        sqlx::migrate!("src/store/migrations/postgres")
            .run(&pool)
            .await?;
        Ok(Self { pool })
    }
}

super::sql::impl_store!(PostgresStore, sqlx::Postgres);
