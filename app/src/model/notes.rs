//! Notes: markdown documents of a tenant, their versions and how a client asks for them.

use serde::{Deserialize, Serialize};

/// The longest title a note may have, in characters.
pub const TITLE_MOST: usize = 200;
/// The largest body a note may have, in bytes.
pub const BODY_MOST: usize = 256 * 1024;
/// How many tags a note may carry, and how long each may be.
pub const TAGS_MOST: usize = 16;
pub const TAG_MOST: usize = 40;
/// How many notes one page lists at most.
pub const PAGE_MOST: u32 = 200;

/// A note as read: its current version.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    pub id: String,
    pub title: String,
    pub body: String,
    pub tags: Vec<String>,
    pub project_id: Option<String>,
    /// 1 when created; each edit adds one.
    pub version: u32,
    pub created_at_ms: i64,
    pub created_by: String,
    pub updated_at_ms: i64,
    pub updated_by: String,
    /// Threads the note is pinned to (their runs are given it).
    pub threads: Vec<ThreadLink>,
}

/// A thread as another object names it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadLink {
    pub id: String,
    pub title: String,
}

/// A note in a list: no body, but where a search found it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteSummary {
    pub id: String,
    pub title: String,
    pub tags: Vec<String>,
    pub project_id: Option<String>,
    pub version: u32,
    pub updated_at_ms: i64,
    pub updated_by: String,
    /// A stretch of the body around the first word searched for (searches only).
    pub snippet: Option<String>,
}

/// One page of a list or a search.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteList {
    pub notes: Vec<NoteSummary>,
    /// Where the next page starts, when there is one.
    pub next_offset: Option<u32>,
}

/// One stored version of a note.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteVersion {
    pub version: u32,
    pub title: String,
    pub body: String,
    pub tags: Vec<String>,
    pub project_id: Option<String>,
    pub edited_at_ms: i64,
    pub edited_by: String,
}

/// A version in the history list (without its body).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteVersionSummary {
    pub version: u32,
    pub title: String,
    pub edited_at_ms: i64,
    pub edited_by: String,
}

/// What a new note is made of.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewNote {
    pub title: String,
    #[serde(default)]
    pub body: String,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub project_id: Option<String>,
}

/// An edit: each field given replaces the note's; `base_version`, when given, must be the
/// note's current version, so an edit made on a stale copy is refused rather than
/// silently undoing someone else's.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoteEdit {
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// `Some(None)` (JSON `null`) takes the note out of its project.
    #[serde(default, with = "double_option")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub project_id: Option<Option<String>>,
    #[serde(default)]
    pub base_version: Option<u32>,
}

/// What a list asks for: a search (`q`), a tag, a project, and the page.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteQuery {
    #[serde(default)]
    pub q: Option<String>,
    #[serde(default)]
    pub tag: Option<String>,
    #[serde(default)]
    pub project_id: Option<String>,
    #[serde(default)]
    pub offset: Option<u32>,
    #[serde(default)]
    pub limit: Option<u32>,
}

/// A field that may be absent, `null` or a value.
pub(crate) mod double_option {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(
        value: &Option<Option<String>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(inner) => inner.serialize(serializer),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Option<String>>, D::Error> {
        Option::<String>::deserialize(deserializer).map(Some)
    }
}

/// A title as stored: trimmed, not empty, at most [`TITLE_MOST`] characters.
pub fn check_title(title: &str) -> Result<String, String> {
    let title = title.trim();
    if title.is_empty() {
        return Err("title is empty: a note needs a title".into());
    }
    if title.chars().count() > TITLE_MOST {
        return Err(format!("title is longer than {TITLE_MOST} characters"));
    }
    if title.chars().any(char::is_control) {
        return Err("title holds a control character".into());
    }
    Ok(title.to_owned())
}

pub fn check_body(body: &str) -> Result<(), String> {
    if body.len() > BODY_MOST {
        return Err(format!(
            "body is {} bytes; a note holds at most {BODY_MOST}",
            body.len()
        ));
    }
    Ok(())
}

/// Tags as stored: lower case, each letters, digits, `-` or `_`, no repeats, in the order
/// given.
pub fn check_tags(tags: &[String]) -> Result<Vec<String>, String> {
    let mut kept: Vec<String> = Vec::new();
    for tag in tags {
        let tag = tag.trim().to_lowercase();
        if tag.is_empty() {
            continue;
        }
        if tag.chars().count() > TAG_MOST
            || !tag
                .chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
        {
            return Err(format!(
                "tags: {tag:?} is not a tag (letters, digits, - and _, at most {TAG_MOST})"
            ));
        }
        if !kept.contains(&tag) {
            kept.push(tag);
        }
    }
    if kept.len() > TAGS_MOST {
        return Err(format!("tags: a note carries at most {TAGS_MOST}"));
    }
    Ok(kept)
}

/// Tags typed as one line: separated by commas or spaces.
pub fn tags_from_line(line: &str) -> Vec<String> {
    line.split([',', ' '])
        .filter(|tag| !tag.trim().is_empty())
        .map(|tag| tag.trim().to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_kept_lower_case_once_each_and_odd_ones_are_refused() {
        let given = vec![
            "Ops".to_owned(),
            "ops".into(),
            " deploy-2 ".into(),
            "".into(),
        ];
        assert_eq!(check_tags(&given).unwrap(), vec!["ops", "deploy-2"]);
        assert!(
            check_tags(&["a b".to_owned()])
                .unwrap_err()
                .contains("tags")
        );
        assert!(check_tags(&["<b>".to_owned()]).is_err());
        let many: Vec<String> = (0..=TAGS_MOST).map(|n| format!("t{n}")).collect();
        assert!(check_tags(&many).is_err());
    }

    #[test]
    fn a_title_is_trimmed_and_must_say_something() {
        assert_eq!(check_title("  Runbook ").unwrap(), "Runbook");
        assert!(check_title("   ").unwrap_err().starts_with("title"));
        assert!(check_title(&"x".repeat(TITLE_MOST + 1)).is_err());
        assert!(check_title("a\u{7}b").is_err());
    }

    #[test]
    fn an_edit_tells_a_null_project_from_an_absent_one() {
        let edit: NoteEdit = serde_json::from_str(r#"{"project_id": null}"#).unwrap();
        assert_eq!(edit.project_id, Some(None));
        let edit: NoteEdit = serde_json::from_str(r#"{"title": "x"}"#).unwrap();
        assert_eq!(edit.project_id, None);
        assert!(serde_json::from_str::<NoteEdit>(r#"{"titel": "x"}"#).is_err());
    }

    #[test]
    fn typed_tags_split_on_commas_and_spaces() {
        assert_eq!(
            tags_from_line("ops, deploy  db"),
            vec!["ops", "deploy", "db"]
        );
    }
}
