//! A search's words (already split by `search_terms`, so no input is query syntax) as each
//! database's full-text index takes them: every word, as a prefix.

/// SQLite FTS5: `"word"* "other"*` (all of them).
pub(super) fn fts5_match(terms: &[String]) -> String {
    terms
        .iter()
        .map(|term| format!("\"{term}\"*"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// PostgreSQL `to_tsquery`: `word:* & other:*`.
pub(super) fn tsquery(terms: &[String]) -> String {
    terms
        .iter()
        .map(|term| format!("{term}:*"))
        .collect::<Vec<_>>()
        .join(" & ")
}
