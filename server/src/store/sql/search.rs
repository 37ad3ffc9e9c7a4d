//! A search's words (already split by `search_terms`, so no input is query syntax) as each
//! database's full-text index takes them: every word, as a prefix.

/// SQLite FTS5: `"word"* "other"*` (all of them).
///
/// The index stems words the Porter way, and so does a query's prefix: "deploy" would be
/// looked for as "deploi…", which "deployment" (stored as "deploy") does not start with.
/// A final "y" is left off the prefix, so both spellings of the stem match.
pub(super) fn fts5_match(terms: &[String]) -> String {
    terms
        .iter()
        .map(|term| {
            let prefix = match term.strip_suffix('y') {
                Some(stem) if stem.chars().count() >= 2 => stem,
                _ => term.as_str(),
            };
            format!("\"{prefix}\"*")
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_final_y_is_left_off_an_fts5_prefix_and_short_words_are_kept() {
        let terms = ["deploy".to_owned(), "my".to_owned(), "zeppelin".to_owned()];
        assert_eq!(fts5_match(&terms), "\"deplo\"* \"my\"* \"zeppelin\"*");
        assert_eq!(tsquery(&terms), "deploy:* & my:* & zeppelin:*");
    }
}
