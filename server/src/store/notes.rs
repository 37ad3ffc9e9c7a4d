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
    /// With `project_id`: the notes filed in no project too.
    pub with_unfiled: bool,
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
