//! Statements built at run time (multi-row inserts, one UPDATE over many runs) with
//! numbered placeholders (`$1`, `$2`, …), which SQLite and PostgreSQL both read; sqlx's own
//! builder writes `?` for its `Any` driver, which PostgreSQL does not.

use std::fmt::Write;

use sqlx::any::{AnyArguments, AnyQueryResult, AnyRow};
use sqlx::{Any, Arguments, Encode, Executor, Type};

use crate::store::StoreError;

pub(super) struct Statement<'q> {
    sql: String,
    arguments: AnyArguments<'q>,
    count: usize,
    /// Inside a `VALUES` row: whether a value was bound in it yet.
    row_started: Option<bool>,
    error: Option<StoreError>,
}

impl<'q> Statement<'q> {
    pub(super) fn new(sql: &str) -> Self {
        Self {
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
        let _ = write!(self.sql, "${}", self.count);
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

    #[test]
    fn placeholders_are_numbered_across_rows_and_parts() {
        let mut statement = Statement::new("INSERT INTO t (a, b) ");
        statement.push_values([(1_i64, "x"), (2, "y")], |row, (a, b)| {
            row.push_bind(a).push_bind(b);
        });
        statement.push(" RETURNING a WHERE c = ").push_bind(3_i64);
        assert_eq!(
            statement.sql,
            "INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4) RETURNING a WHERE c = $5"
        );
        assert!(statement.error.is_none());
    }
}
