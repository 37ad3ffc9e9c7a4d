//! Notes in SQL: the current row, its versions, and the full-text search each database
//! does its own way (SQLite's FTS5 table kept by triggers, PostgreSQL's generated
//! `tsvector`), both fed the same plain words.

use app::model::notes::{Note, NoteList, NoteSummary, NoteVersion, NoteVersionSummary, ThreadLink};
use app::search::snippet;
use sqlx::Row;
use sqlx::any::AnyRow;

use super::rows::to_u64;
use super::search::tenant_text;
use super::{Dialect, SqlStore};
use crate::store::StoreError;
use crate::store::notes::{NoteContent, NoteFilter, NoteStore, NoteWrite};

const NOTE_COLUMNS: &str = "n.id, n.title, n.body, n.tags, n.project_id, n.version, \
     n.created_at_ms, n.created_by, n.updated_at_ms, n.updated_by";

fn tags_of(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_owned).collect()
}

fn version_of(row: &AnyRow, column: &str) -> Result<u32, StoreError> {
    let value: i64 = row.try_get(column)?;
    u32::try_from(to_u64(value, column)?)
        .map_err(|_| StoreError::Corrupt(format!("{column} is too large: {value}")))
}

fn note_row(row: &AnyRow, threads: Vec<ThreadLink>) -> Result<Note, StoreError> {
    Ok(Note {
        id: row.try_get("id")?,
        title: row.try_get("title")?,
        body: row.try_get("body")?,
        tags: tags_of(&row.try_get::<String, _>("tags")?),
        project_id: row.try_get("project_id")?,
        version: version_of(row, "version")?,
        created_at_ms: row.try_get("created_at_ms")?,
        created_by: row.try_get("created_by")?,
        updated_at_ms: row.try_get("updated_at_ms")?,
        updated_by: row.try_get("updated_by")?,
        threads,
    })
}

impl SqlStore {
    async fn note_threads(
        &self,
        tenant_id: &str,
        note_id: &str,
    ) -> Result<Vec<ThreadLink>, StoreError> {
        let rows = sqlx::query(
            "SELECT t.id, t.title FROM pins p \
             JOIN threads t ON t.tenant_id = p.tenant_id AND t.id = p.holder_id \
             WHERE p.tenant_id = $1 AND p.holder_kind = 'thread' AND p.kind = 'note' \
             AND p.object_id = $2 \
             ORDER BY t.created_at_ms DESC, t.seq DESC",
        )
        .bind(tenant_id)
        .bind(note_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(ThreadLink {
                    id: row.try_get("id")?,
                    title: row.try_get("title")?,
                })
            })
            .collect()
    }

    /// The `WHERE … ORDER BY` of a list, with its parameters after the tenant's (`$1`).
    fn note_list_sql(&self, tenant_id: &str, filter: &NoteFilter) -> (String, Vec<String>) {
        let mut parameters = Vec::new();
        let next = |value: String, parameters: &mut Vec<String>| {
            parameters.push(value);
            format!("${}", parameters.len() + 1)
        };
        let mut from = "notes n".to_owned();
        let mut conditions = vec!["n.tenant_id = $1".to_owned()];
        let mut order = "n.updated_at_ms DESC, n.seq DESC".to_owned();
        if !filter.terms.is_empty() {
            match self.dialect {
                Dialect::Sqlite => {
                    let query = super::search::fts5_match(tenant_id, &filter.terms);
                    from = "notes_fts JOIN notes n ON n.seq = notes_fts.rowid".into();
                    let at = next(query, &mut parameters);
                    conditions.push(format!("notes_fts MATCH {at}"));
                    order = "bm25(notes_fts, 10.0, 1.0, 4.0), n.seq DESC".into();
                }
                Dialect::Postgres => {
                    let query = super::search::tsquery(tenant_id, &filter.terms);
                    let at = next(query, &mut parameters);
                    conditions.push(format!("n.search @@ to_tsquery('english', {at})"));
                    order =
                        format!("ts_rank(n.search, to_tsquery('english', {at})) DESC, n.seq DESC");
                }
            }
        }
        if let Some(tag) = &filter.tag {
            let at = next(format!("% {tag} %"), &mut parameters);
            conditions.push(format!("(' ' || n.tags || ' ') LIKE {at}"));
        }
        if let Some(project) = &filter.project_id {
            let at = next(project.clone(), &mut parameters);
            conditions.push(if filter.with_unfiled {
                format!("(n.project_id = {at} OR n.project_id IS NULL)")
            } else {
                format!("n.project_id = {at}")
            });
        }
        let sql = format!(
            "FROM {from} WHERE {} ORDER BY {order}",
            conditions.join(" AND ")
        );
        (sql, parameters)
    }
}

#[async_trait::async_trait]
impl NoteStore for SqlStore {
    async fn create_note(
        &self,
        tenant_id: &str,
        note_id: &str,
        content: &NoteContent,
        author: &str,
        now_ms: i64,
    ) -> Result<Note, StoreError> {
        let tags = content.tags.join(" ");
        let mut transaction = self.begin_write().await?;
        sqlx::query(
            "INSERT INTO notes (tenant_id, id, project_id, title, body, tags, version, \
             created_at_ms, created_by, updated_at_ms, updated_by, \
             search_title, search_body, search_tags) \
             VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $8, $7, $8, $9, $10, $11)",
        )
        .bind(tenant_id)
        .bind(note_id)
        .bind(content.project_id.as_deref())
        .bind(&content.title)
        .bind(&content.body)
        .bind(&tags)
        .bind(now_ms)
        .bind(author)
        .bind(tenant_text(tenant_id, &content.title))
        .bind(tenant_text(tenant_id, &content.body))
        .bind(tenant_text(tenant_id, &tags))
        .execute(&mut *transaction)
        .await?;
        insert_version(
            &mut transaction,
            tenant_id,
            note_id,
            1,
            content,
            author,
            now_ms,
        )
        .await?;
        transaction.commit().await?;
        Ok(Note {
            id: note_id.to_owned(),
            title: content.title.clone(),
            body: content.body.clone(),
            tags: content.tags.clone(),
            project_id: content.project_id.clone(),
            version: 1,
            created_at_ms: now_ms,
            created_by: author.to_owned(),
            updated_at_ms: now_ms,
            updated_by: author.to_owned(),
            threads: Vec::new(),
        })
    }

    async fn get_note(&self, tenant_id: &str, note_id: &str) -> Result<Option<Note>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {NOTE_COLUMNS} FROM notes n WHERE n.tenant_id = $1 AND n.id = $2"
        ))
        .bind(tenant_id)
        .bind(note_id)
        .fetch_optional(&self.pool)
        .await?;
        match row {
            Some(row) => Ok(Some(note_row(
                &row,
                self.note_threads(tenant_id, note_id).await?,
            )?)),
            None => Ok(None),
        }
    }

    async fn list_notes(
        &self,
        tenant_id: &str,
        filter: &NoteFilter,
    ) -> Result<NoteList, StoreError> {
        let (tail, parameters) = self.note_list_sql(tenant_id, filter);
        let searching = !filter.terms.is_empty();
        // One row more than the page tells whether another page follows.
        let sql = format!(
            "SELECT n.id, n.title, n.tags, n.project_id, n.version, n.updated_at_ms, \
             n.updated_by{} {tail} LIMIT {} OFFSET {}",
            if searching { ", n.body" } else { "" },
            filter.limit + 1,
            filter.offset
        );
        let mut query = sqlx::query(&sql).bind(tenant_id);
        for parameter in &parameters {
            query = query.bind(parameter.as_str());
        }
        let rows = query.fetch_all(&self.pool).await?;
        let more = rows.len() > filter.limit as usize;
        let notes = rows
            .iter()
            .take(filter.limit as usize)
            .map(|row| {
                let snippet = if searching {
                    Some(snippet(&row.try_get::<String, _>("body")?, &filter.terms))
                } else {
                    None
                };
                Ok(NoteSummary {
                    id: row.try_get("id")?,
                    title: row.try_get("title")?,
                    tags: tags_of(&row.try_get::<String, _>("tags")?),
                    project_id: row.try_get("project_id")?,
                    version: version_of(row, "version")?,
                    updated_at_ms: row.try_get("updated_at_ms")?,
                    updated_by: row.try_get("updated_by")?,
                    snippet,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(NoteList {
            notes,
            next_offset: more.then_some(filter.offset + filter.limit),
        })
    }

    async fn edit_note(
        &self,
        tenant_id: &str,
        note_id: &str,
        content: &NoteContent,
        base: Option<u32>,
        author: &str,
        now_ms: i64,
    ) -> Result<NoteWrite, StoreError> {
        let mut transaction = self.begin_write().await?;
        // Edits of one note queue behind each other: the write lock taken at the start
        // (SQLite) or the note's row locked here (PostgreSQL).
        let lock = match self.dialect {
            super::Dialect::Postgres => " FOR UPDATE",
            super::Dialect::Sqlite => "",
        };
        let row = sqlx::query(&format!(
            "SELECT version FROM notes WHERE tenant_id = $1 AND id = $2{lock}"
        ))
        .bind(tenant_id)
        .bind(note_id)
        .fetch_optional(&mut *transaction)
        .await?;
        let Some(row) = row else {
            return Ok(NoteWrite::Missing);
        };
        let current = version_of(&row, "version")?;
        if base.is_some_and(|base| base != current) {
            return Ok(NoteWrite::Stale { current });
        }
        let version = current + 1;
        // The version in the condition makes two concurrent edits of one version
        // produce one winner, whichever database isolation is in force.
        let updated = sqlx::query(
            "UPDATE notes SET project_id = $1, title = $2, body = $3, tags = $4, version = $5, \
             updated_at_ms = $6, updated_by = $7, search_title = $11, search_body = $12, \
             search_tags = $13 WHERE tenant_id = $8 AND id = $9 AND version = $10",
        )
        .bind(content.project_id.as_deref())
        .bind(&content.title)
        .bind(&content.body)
        .bind(content.tags.join(" "))
        .bind(i64::from(version))
        .bind(now_ms)
        .bind(author)
        .bind(tenant_id)
        .bind(note_id)
        .bind(i64::from(current))
        .bind(tenant_text(tenant_id, &content.title))
        .bind(tenant_text(tenant_id, &content.body))
        .bind(tenant_text(tenant_id, &content.tags.join(" ")))
        .execute(&mut *transaction)
        .await?;
        if updated.rows_affected() != 1 {
            return Ok(NoteWrite::Stale { current: version });
        }
        insert_version(
            &mut transaction,
            tenant_id,
            note_id,
            version,
            content,
            author,
            now_ms,
        )
        .await?;
        transaction.commit().await?;
        match self.get_note(tenant_id, note_id).await? {
            Some(note) => Ok(NoteWrite::Done(Box::new(note))),
            None => Ok(NoteWrite::Missing),
        }
    }

    async fn delete_note(&self, tenant_id: &str, note_id: &str) -> Result<bool, StoreError> {
        let mut transaction = self.begin_write().await?;
        let deleted = sqlx::query("DELETE FROM notes WHERE tenant_id = $1 AND id = $2")
            .bind(tenant_id)
            .bind(note_id)
            .execute(&mut *transaction)
            .await?;
        for sql in [
            "DELETE FROM note_versions WHERE tenant_id = $1 AND note_id = $2",
            "DELETE FROM pins WHERE tenant_id = $1 AND kind = 'note' AND object_id = $2",
        ] {
            sqlx::query(sql)
                .bind(tenant_id)
                .bind(note_id)
                .execute(&mut *transaction)
                .await?;
        }
        transaction.commit().await?;
        Ok(deleted.rows_affected() == 1)
    }

    async fn note_versions(
        &self,
        tenant_id: &str,
        note_id: &str,
    ) -> Result<Vec<NoteVersionSummary>, StoreError> {
        let rows = sqlx::query(
            "SELECT version, title, edited_at_ms, edited_by FROM note_versions \
             WHERE tenant_id = $1 AND note_id = $2 ORDER BY version DESC",
        )
        .bind(tenant_id)
        .bind(note_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(NoteVersionSummary {
                    version: version_of(row, "version")?,
                    title: row.try_get("title")?,
                    edited_at_ms: row.try_get("edited_at_ms")?,
                    edited_by: row.try_get("edited_by")?,
                })
            })
            .collect()
    }

    async fn note_version(
        &self,
        tenant_id: &str,
        note_id: &str,
        version: u32,
    ) -> Result<Option<NoteVersion>, StoreError> {
        let row = sqlx::query(
            "SELECT version, title, body, tags, project_id, edited_at_ms, edited_by \
             FROM note_versions WHERE tenant_id = $1 AND note_id = $2 AND version = $3",
        )
        .bind(tenant_id)
        .bind(note_id)
        .bind(i64::from(version))
        .fetch_optional(&self.pool)
        .await?;
        row.map(|row| {
            Ok(NoteVersion {
                version: version_of(&row, "version")?,
                title: row.try_get("title")?,
                body: row.try_get("body")?,
                tags: tags_of(&row.try_get::<String, _>("tags")?),
                project_id: row.try_get("project_id")?,
                edited_at_ms: row.try_get("edited_at_ms")?,
                edited_by: row.try_get("edited_by")?,
            })
        })
        .transpose()
    }
}

async fn insert_version(
    transaction: &mut sqlx::Transaction<'_, sqlx::Any>,
    tenant_id: &str,
    note_id: &str,
    version: u32,
    content: &NoteContent,
    author: &str,
    now_ms: i64,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO note_versions (tenant_id, note_id, version, project_id, title, body, tags, \
         edited_at_ms, edited_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(tenant_id)
    .bind(note_id)
    .bind(i64::from(version))
    .bind(content.project_id.as_deref())
    .bind(&content.title)
    .bind(&content.body)
    .bind(content.tags.join(" "))
    .bind(now_ms)
    .bind(author)
    .execute(&mut **transaction)
    .await?;
    Ok(())
}
