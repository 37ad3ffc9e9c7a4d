//! Statements built at run time (multi-row inserts, one UPDATE over many runs), with each
//! dialect's placeholders: `$1`, `$2`, … for PostgreSQL; plain `?` for SQLite, which finds
//! a numbered parameter by a linear search, so a 3,200-value insert numbered `$N` costs
//! it quadratic time. (sqlx's own builder writes `?` for its `Any` driver whatever the
//! database behind it.)

use std::fmt::Write;

use sqlx::any::{AnyArguments, AnyQueryResult, AnyRow};
use sqlx::{Any, Arguments, Encode, Executor, Type};

use super::Dialect;
use crate::store::StoreError;

pub(super) struct Statement<'q> {
    dialect: Dialect,
    sql: String,
    arguments: AnyArguments<'q>,
    count: usize,
    /// Inside a `VALUES` row: whether a value was bound in it yet.
    row_started: Option<bool>,
    error: Option<StoreError>,
}

impl<'q> Statement<'q> {
    pub(super) fn new(dialect: Dialect, sql: &str) -> Self {
        Self {
            dialect,
            sql: sql.to_owned(),
            arguments: AnyArguments::default(),
            count: 0,
            row_started: None,
            error: None,
        }
    }

    pub(super) fn push(&mut self, text: &str) -> &mut Self {
        self.sql.push_str(text);
        self
    }

    /// Appends the next placeholder and binds `value` to it.
    pub(super) fn push_bind<T>(&mut self, value: T) -> &mut Self
    where
        T: 'q + Encode<'q, Any> + Type<Any>,
    {
        self.count += 1;
        if self.row_started == Some(true) {
            self.sql.push_str(", ");
        }
        if self.row_started.is_some() {
            self.row_started = Some(true);
        }
        match self.dialect {
            Dialect::Postgres => {
                let _ = write!(self.sql, "${}", self.count);
            }
            Dialect::Sqlite => self.sql.push('?'),
        }
        if let Err(error) = self.arguments.add(value)
            && self.error.is_none()
        {
            self.error = Some(StoreError::Database(sqlx::Error::Encode(error)));
        }
        self
    }

    /// ` VALUES (…), (…)`: one parenthesised row per item, its values bound by `row`.
    pub(super) fn push_values<I>(&mut self, items: I, mut row: impl FnMut(&mut Self, I::Item))
    where
        I: IntoIterator,
    {
        self.sql.push_str("VALUES ");
        for (index, item) in items.into_iter().enumerate() {
            self.sql.push_str(if index == 0 { "(" } else { ", (" });
            self.row_started = Some(false);
            row(self, item);
            self.row_started = None;
            self.sql.push(')');
        }
    }

    pub(super) async fn execute<'c, E>(self, executor: E) -> Result<AnyQueryResult, StoreError>
    where
        E: Executor<'c, Database = Any>,
    {
        if let Some(error) = self.error {
            return Err(error);
        }
        Ok(sqlx::query_with(&self.sql, self.arguments)
            .execute(executor)
            .await?)
    }

    pub(super) async fn fetch_all<'c, E>(self, executor: E) -> Result<Vec<AnyRow>, StoreError>
    where
        E: Executor<'c, Database = Any>,
    {
        if let Some(error) = self.error {
            return Err(error);
        }
        Ok(sqlx::query_with(&self.sql, self.arguments)
            .fetch_all(executor)
            .await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built(dialect: Dialect) -> Statement<'static> {
        let mut statement = Statement::new(dialect, "INSERT INTO t (a, b) ");
        statement.push_values([(1_i64, "x"), (2, "y")], |row, (a, b)| {
            row.push_bind(a).push_bind(b);
        });
        statement.push(" RETURNING a WHERE c = ").push_bind(3_i64);
        statement
    }

    #[test]
    fn postgres_placeholders_are_numbered_across_rows_and_parts() {
        let statement = built(Dialect::Postgres);
        assert_eq!(
            statement.sql,
            "INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4) RETURNING a WHERE c = $5"
        );
        assert!(statement.error.is_none());
    }

    #[test]
    fn sqlite_placeholders_are_plain_and_in_order() {
        let statement = built(Dialect::Sqlite);
        assert_eq!(
            statement.sql,
            "INSERT INTO t (a, b) VALUES (?, ?), (?, ?) RETURNING a WHERE c = ?"
        );
        assert_eq!(statement.count, 5);
    }
}
