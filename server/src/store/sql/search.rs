//! Full-text search by tenant. Each word is indexed with its tenant's code in front
//! (`tenant_text`), and a search's words (split by `search_terms`, so no input is query
//! syntax) are looked for with the same code (`fts5_match`, `tsquery`): both databases'
//! indexes are then partitioned by tenant, and a search reads its own tenant's entries
//! alone — never another tenant's, whose number it could otherwise time.

use sha2::{Digest, Sha256};

/// The letters a tenant's indexed words begin with: ten of `a`–`p`, from the tenant's
/// SHA-256. Two tenants sharing a code would share entries of the index, never results:
/// every search is still scoped to its tenant.
pub(super) fn tenant_code(tenant_id: &str) -> String {
    Sha256::digest(tenant_id.as_bytes())
        .iter()
        .take(5)
        .flat_map(|byte| [byte >> 4, byte & 0x0f])
        .map(|nibble| char::from(b'a' + nibble))
        .collect()
}

/// `text` as it is indexed for `tenant_id`: its words, each behind the tenant's code.
pub(super) fn tenant_text(tenant_id: &str, text: &str) -> String {
    let code = tenant_code(tenant_id);
    app::search::words(text)
        .map(|word| format!("{code}{word}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// SQLite FTS5: `"<code>word"* "<code>other"*` (all of them).
///
/// The index stems words the Porter way, and so does a query's prefix: "deploy" would be
/// looked for as "deploi…", which "deployment" (stored as "deploy") does not start with.
/// A final "y" is left off the prefix, so both spellings of the stem match.
pub(super) fn fts5_match(tenant_id: &str, terms: &[String]) -> String {
    let code = tenant_code(tenant_id);
    terms
        .iter()
        .map(|term| {
            let prefix = match term.strip_suffix('y') {
                Some(stem) if stem.chars().count() >= 2 => stem,
                _ => term.as_str(),
            };
            format!("\"{code}{prefix}\"*")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// PostgreSQL `to_tsquery`: `<code>word:* & <code>other:*`.
pub(super) fn tsquery(tenant_id: &str, terms: &[String]) -> String {
    let code = tenant_code(tenant_id);
    terms
        .iter()
        .map(|term| format!("{code}{term}:*"))
        .collect::<Vec<_>>()
        .join(" & ")
}

impl super::SqlStore {
    /// Indexes the notes and threads written before the index was by tenant (their
    /// `search_*` columns are empty), a few hundred rows at a time, once, as the store
    /// opens.
    pub(super) async fn index_by_tenant(&self) -> Result<(), crate::store::StoreError> {
        use sqlx::Row;
        loop {
            let rows = sqlx::query(
                "SELECT seq, tenant_id, title, body, tags FROM notes \
                 WHERE search_title IS NULL ORDER BY seq LIMIT 500",
            )
            .fetch_all(&self.pool)
            .await?;
            if rows.is_empty() {
                break;
            }
            for row in rows {
                let tenant: String = row.try_get("tenant_id")?;
                let indexed = |column: &str| -> Result<String, sqlx::Error> {
                    Ok(tenant_text(&tenant, &row.try_get::<String, _>(column)?))
                };
                sqlx::query(
                    "UPDATE notes SET search_title = $1, search_body = $2, search_tags = $3 \
                     WHERE seq = $4",
                )
                .bind(indexed("title")?)
                .bind(indexed("body")?)
                .bind(indexed("tags")?)
                .bind(row.try_get::<i64, _>("seq")?)
                .execute(&self.pool)
                .await?;
            }
        }
        loop {
            let rows = sqlx::query(
                "SELECT seq, tenant_id, title, words FROM threads \
                 WHERE search_title IS NULL ORDER BY seq LIMIT 500",
            )
            .fetch_all(&self.pool)
            .await?;
            if rows.is_empty() {
                break;
            }
            for row in rows {
                let tenant: String = row.try_get("tenant_id")?;
                sqlx::query(
                    "UPDATE threads SET search_title = $1, search_words = $2 WHERE seq = $3",
                )
                .bind(tenant_text(&tenant, &row.try_get::<String, _>("title")?))
                .bind(tenant_text(&tenant, &row.try_get::<String, _>("words")?))
                .bind(row.try_get::<i64, _>("seq")?)
                .execute(&self.pool)
                .await?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_final_y_is_left_off_an_fts5_prefix_and_short_words_are_kept() {
        let terms = ["deploy".to_owned(), "my".to_owned(), "zeppelin".to_owned()];
        let code = tenant_code("acme");
        assert_eq!(
            fts5_match("acme", &terms),
            format!("\"{code}deplo\"* \"{code}my\"* \"{code}zeppelin\"*")
        );
        assert_eq!(
            tsquery("acme", &terms),
            format!("{code}deploy:* & {code}my:* & {code}zeppelin:*")
        );
    }

    #[test]
    fn every_word_is_indexed_behind_its_tenants_code_and_tenants_have_codes_of_their_own() {
        let code = tenant_code("acme");
        assert_eq!(code.len(), 10);
        assert!(code.bytes().all(|byte| (b'a'..=b'p').contains(&byte)));
        assert_ne!(code, tenant_code("globex"));
        assert_eq!(
            tenant_text("acme", "Deploy, über-fast: 2026!"),
            format!("{code}deploy {code}über {code}fast {code}2026")
        );
    }
}
