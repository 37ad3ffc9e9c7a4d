//! Notes as the console, the REST API and agents' tools reach them: checked input, edits
//! attributed to who made them, and a stale edit refused rather than lost.

use std::sync::Arc;

use app::api::service::NotesService;
use app::error::ApiError;
use app::model::RequestContext;
use app::model::notes::{
    NewNote, Note, NoteEdit, NoteList, NoteQuery, NoteVersion, NoteVersionSummary, PAGE_MOST,
    check_body, check_tags, check_title,
};
use app::search::search_terms;

use crate::clock::now_ms;
use crate::store::Store;
use crate::store::notes::{NoteContent, NoteFilter, NoteWrite};

pub struct NotesServiceImpl {
    store: Arc<dyn Store>,
}

impl NotesServiceImpl {
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self { store }
    }

    async fn checked(&self, tenant: &str, content: NoteContent) -> Result<NoteContent, ApiError> {
        let title = check_title(&content.title).map_err(ApiError::BadRequest)?;
        check_body(&content.body).map_err(ApiError::BadRequest)?;
        let tags = check_tags(&content.tags).map_err(ApiError::BadRequest)?;
        if let Some(project) = &content.project_id
            && !self.store.project_exists(tenant, project).await?
        {
            return Err(ApiError::BadRequest(format!(
                "project_id: there is no project {project:?}"
            )));
        }
        Ok(NoteContent {
            title,
            body: content.body,
            tags,
            project_id: content.project_id,
        })
    }

    async fn write(
        &self,
        context: &RequestContext,
        id: &str,
        content: NoteContent,
        base: Option<u32>,
    ) -> Result<Note, ApiError> {
        let content = self.checked(&context.tenant, content).await?;
        match self
            .store
            .edit_note(
                &context.tenant,
                id,
                &content,
                base,
                &context.acted_by(),
                now_ms(),
            )
            .await?
        {
            NoteWrite::Done(note) => Ok(*note),
            NoteWrite::Missing => Err(missing(id)),
            NoteWrite::Stale { current } => Err(ApiError::Conflict(format!(
                "note {id:?} was edited meanwhile: it is at version {current}; \
                 reload it and edit again"
            ))),
        }
    }
}

/// The store's filter for a list or search as a client asked for it.
fn filter_of(query: &NoteQuery) -> NoteFilter {
    NoteFilter {
        terms: query.q.as_deref().map(search_terms).unwrap_or_default(),
        tag: query
            .tag
            .as_deref()
            .map(|tag| tag.trim().to_lowercase())
            .filter(|tag| !tag.is_empty()),
        project_id: query.project_id.clone().filter(|id| !id.is_empty()),
        with_unfiled: false,
        offset: query.offset.unwrap_or(0),
        limit: query.limit.unwrap_or(50).clamp(1, PAGE_MOST),
    }
}

impl NotesServiceImpl {
    /// A list or search as an agent in a thread of `project` sees it: that project's
    /// notes and those filed in none, never another project's. A thread in no project
    /// sees the whole workspace, as its operator does.
    pub async fn list_within(
        &self,
        tenant: &str,
        query: &NoteQuery,
        project: Option<&str>,
    ) -> Result<NoteList, ApiError> {
        let mut filter = filter_of(query);
        if let Some(project) = project {
            filter.project_id = Some(project.to_owned());
            filter.with_unfiled = true;
        }
        Ok(self.store.list_notes(tenant, &filter).await?)
    }
}

fn missing(id: &str) -> ApiError {
    ApiError::NotFound(format!("note {id:?} does not exist"))
}

#[async_trait::async_trait]
impl NotesService for NotesServiceImpl {
    async fn list_notes(
        &self,
        context: &RequestContext,
        query: &NoteQuery,
    ) -> Result<NoteList, ApiError> {
        crate::fault::panic_point("notes.list");
        Ok(self
            .store
            .list_notes(&context.tenant, &filter_of(query))
            .await?)
    }

    async fn get_note(&self, context: &RequestContext, id: &str) -> Result<Note, ApiError> {
        self.store
            .get_note(&context.tenant, id)
            .await?
            .ok_or_else(|| missing(id))
    }

    async fn create_note(&self, context: &RequestContext, note: NewNote) -> Result<Note, ApiError> {
        let content = self
            .checked(
                &context.tenant,
                NoteContent {
                    title: note.title,
                    body: note.body,
                    tags: note.tags,
                    project_id: note.project_id,
                },
            )
            .await?;
        let id = uuid::Uuid::new_v4().to_string();
        Ok(self
            .store
            .create_note(
                &context.tenant,
                &id,
                &content,
                &context.acted_by(),
                now_ms(),
            )
            .await?)
    }

    async fn edit_note(
        &self,
        context: &RequestContext,
        id: &str,
        edit: NoteEdit,
    ) -> Result<Note, ApiError> {
        let note = self.get_note(context, id).await?;
        let content = NoteContent {
            title: edit.title.unwrap_or(note.title),
            body: edit.body.unwrap_or(note.body),
            tags: edit.tags.unwrap_or(note.tags),
            project_id: edit.project_id.unwrap_or(note.project_id),
        };
        // Without a base the edit applies to the version just read, so a concurrent
        // edit between the read and the write is still refused, not overwritten.
        let base = edit.base_version.or(Some(note.version));
        self.write(context, id, content, base).await
    }

    async fn delete_note(&self, context: &RequestContext, id: &str) -> Result<(), ApiError> {
        if self.store.delete_note(&context.tenant, id).await? {
            Ok(())
        } else {
            Err(missing(id))
        }
    }

    async fn note_versions(
        &self,
        context: &RequestContext,
        id: &str,
    ) -> Result<Vec<NoteVersionSummary>, ApiError> {
        let versions = self.store.note_versions(&context.tenant, id).await?;
        if versions.is_empty() {
            return Err(missing(id));
        }
        Ok(versions)
    }

    async fn note_version(
        &self,
        context: &RequestContext,
        id: &str,
        version: u32,
    ) -> Result<NoteVersion, ApiError> {
        self.store
            .note_version(&context.tenant, id, version)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("note {id:?} has no version {version}")))
    }

    async fn restore_note(
        &self,
        context: &RequestContext,
        id: &str,
        version: u32,
    ) -> Result<Note, ApiError> {
        let old = self.note_version(context, id, version).await?;
        let content = NoteContent {
            title: old.title,
            body: old.body,
            tags: old.tags,
            // The project may be gone since; the note then stays where it is.
            project_id: match &old.project_id {
                Some(project) if self.store.project_exists(&context.tenant, project).await? => {
                    old.project_id
                }
                _ => self.get_note(context, id).await?.project_id,
            },
        };
        self.write(context, id, content, None).await
    }
}
