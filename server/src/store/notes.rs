//! What the store keeps of notes: the current version of each, every earlier version, a
//! full-text index, and which threads each is pinned to.

use app::model::notes::{Note, NoteList, NoteVersion, NoteVersionSummary};

use super::StoreError;

/// A note's content as written by one edit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteContent {
    pub title: String,
    pub body: String,
    pub tags: Vec<String>,
    pub project_id: Option<String>,
}

/// How a list is chosen and paged. `terms` are the words of a search, already split
/// (see [`search_terms`]); empty lists newest first.
#[derive(Clone, Debug, Default)]
pub struct NoteFilter {
    pub terms: Vec<String>,
    pub tag: Option<String>,
    pub project_id: Option<String>,
    pub offset: u32,
    pub limit: u32,
}

/// What became of an edit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoteWrite {
    Done(Box<Note>),
    /// The edit was made on version `base`; the note is at `current` now.
    Stale {
        current: u32,
    },
    Missing,
}

#[async_trait::async_trait]
pub trait NoteStore: Send + Sync {
    /// Stores version 1 of a new note.
    async fn create_note(
        &self,
        tenant_id: &str,
        note_id: &str,
        content: &NoteContent,
        author: &str,
        now_ms: i64,
    ) -> Result<Note, StoreError>;
    async fn get_note(&self, tenant_id: &str, note_id: &str) -> Result<Option<Note>, StoreError>;
    /// A list or a search: best matches first when searching, else newest edit first.
    async fn list_notes(
        &self,
        tenant_id: &str,
        filter: &NoteFilter,
    ) -> Result<NoteList, StoreError>;
    /// Replaces the note's content with a new version, if it is still at `base` (when
    /// given).
    async fn edit_note(
        &self,
        tenant_id: &str,
        note_id: &str,
        content: &NoteContent,
        base: Option<u32>,
        author: &str,
        now_ms: i64,
    ) -> Result<NoteWrite, StoreError>;
    /// Deletes the note, its versions and its pins; false when there was none.
    async fn delete_note(&self, tenant_id: &str, note_id: &str) -> Result<bool, StoreError>;
    /// Every version, newest first.
    async fn note_versions(
        &self,
        tenant_id: &str,
        note_id: &str,
    ) -> Result<Vec<NoteVersionSummary>, StoreError>;
    async fn note_version(
        &self,
        tenant_id: &str,
        note_id: &str,
        version: u32,
    ) -> Result<Option<NoteVersion>, StoreError>;
}

/// The most words one search looks for.
const TERMS_MOST: usize = 12;

/// The words of a search as both databases' indexes take them: runs of letters and
/// digits, lower case, each at most 64 characters. Whatever else was typed (quotes,
/// operators, brackets) is a separator, so no input is query syntax to either database.
pub fn search_terms(query: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for word in query.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        let word: String = word.to_lowercase().chars().take(64).collect();
        if !terms.contains(&word) {
            terms.push(word);
        }
        if terms.len() == TERMS_MOST {
            break;
        }
    }
    terms
}

/// About this many characters of a body around the first word searched for.
const SNIPPET_CHARS: usize = 180;

/// A stretch of `body` around the first place any of `terms` starts a word, on one line;
/// the body's start when none does.
pub fn snippet(body: &str, terms: &[String]) -> String {
    let lower = body.to_lowercase();
    // Lower-casing may change byte lengths; positions are only used when it did not.
    let found = if lower.len() == body.len() {
        terms
            .iter()
            .filter_map(|term| lower.find(term.as_str()))
            .min()
            .unwrap_or(0)
    } else {
        0
    };
    let start = body[..found]
        .char_indices()
        .rev()
        .nth(SNIPPET_CHARS / 3)
        .map_or(0, |(index, _)| index);
    let mut text: String = body[start..]
        .chars()
        .take(SNIPPET_CHARS)
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect();
    text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if start > 0 {
        text.insert(0, '…');
    }
    if body[start..].chars().count() > SNIPPET_CHARS {
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_words_carry_no_query_syntax() {
        assert_eq!(
            search_terms(r#"deploy" OR title:x* (NEAR) -- 'ü'"#),
            vec!["deploy", "or", "title", "x", "near", "ü"]
        );
        assert!(search_terms(r#""*:()-"#).is_empty());
        assert_eq!(search_terms("a a A").len(), 1);
        assert_eq!(search_terms(&"w ".repeat(40)).len(), 1);
        let many: String = (0..40).map(|n| format!("w{n} ")).collect();
        assert_eq!(search_terms(&many).len(), TERMS_MOST);
    }

    #[test]
    fn a_snippet_shows_where_the_word_was_found() {
        let body = format!(
            "{}The deploy key rotates monthly.\n\nMore.",
            "filler ".repeat(100)
        );
        let text = snippet(&body, &["deploy".into()]);
        assert!(text.starts_with('…'), "{text}");
        assert!(
            text.contains("The deploy key rotates monthly. More."),
            "{text}"
        );
        assert_eq!(snippet("short body", &["zzz".into()]), "short body");
    }
}
