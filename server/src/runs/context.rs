//! What a run is given besides the conversation: the schedule fire that started it or the
//! card it works, and the notes and memory entries pinned to its thread and to the
//! thread's project, each as it is now — as AG-UI `context` entries for the agent and as
//! the `context_given` event the run keeps.

use app::error::ApiError;
use app::memory::ScopeKind;
use app::model::context::{Pinned as PinnedObjects, PinnedMemory, PinnedNote};
use app::model::memory::MemoryEntry;
use app::model::notes::Note;
use app::protocol::channel::{EventBody, EventDraft, GivenItem};
use app::protocol::limits::excerpt;

use super::Runs;
use crate::clock::now_ms;
use crate::connectors::{ContextEntry, GivenContext};
use crate::store::Store;
use crate::store::pins::{Holder, Pinned};

/// The notes `holder_id` pins that still exist, in the order pinned.
pub async fn pinned_notes(
    store: &dyn Store,
    tenant_id: &str,
    holder: Holder,
    holder_id: &str,
) -> Result<Vec<Note>, ApiError> {
    let mut notes = Vec::new();
    for id in store
        .pins(tenant_id, holder, holder_id, Pinned::Note)
        .await?
    {
        if let Some(note) = store.get_note(tenant_id, &id).await? {
            notes.push(note);
        }
    }
    Ok(notes)
}

/// The memory entries `holder_id` pins that still exist, in the order pinned; a user's
/// own entries never (they are private to that user).
pub async fn pinned_memory(
    store: &dyn Store,
    tenant_id: &str,
    holder: Holder,
    holder_id: &str,
) -> Result<Vec<MemoryEntry>, ApiError> {
    let mut entries = Vec::new();
    for id in store
        .pins(tenant_id, holder, holder_id, Pinned::Memory)
        .await?
    {
        if let Some((entry, _)) = store.memory_entry(tenant_id, &id).await?
            && entry.scope != ScopeKind::User
        {
            entries.push(entry);
        }
    }
    Ok(entries)
}

/// Whose memory an entry is, in words.
fn memory_of(entry: &MemoryEntry) -> &'static str {
    match entry.scope {
        ScopeKind::Project => "the project's memory",
        _ => "the tenant's memory",
    }
}

/// What `holder_id` pins, as lists show it.
pub async fn pinned(
    store: &dyn Store,
    tenant_id: &str,
    holder: Holder,
    holder_id: &str,
) -> Result<PinnedObjects, ApiError> {
    Ok(PinnedObjects {
        notes: pinned_notes(store, tenant_id, holder, holder_id)
            .await?
            .into_iter()
            .map(|note| PinnedNote {
                id: note.id,
                title: note.title,
                version: note.version,
            })
            .collect(),
        memory: pinned_memory(store, tenant_id, holder, holder_id)
            .await?
            .into_iter()
            .map(|entry| PinnedMemory {
                id: entry.id,
                text: entry.text,
                scope: entry.scope,
            })
            .collect(),
    })
}

impl GivenContext {
    /// The event a run that was given this context records first.
    pub fn event(&self) -> Option<EventDraft> {
        (!self.items.is_empty()).then(|| {
            EventDraft::new(
                EventBody::ContextGiven {
                    items: self.items.clone(),
                },
                Some(now_ms()),
                None,
            )
        })
    }
}

impl Runs {
    /// What a run of thread `thread_id` is given now: the fire that starts it, if one
    /// does; the project's pins (the wider frame), then the thread's; a note pinned by both
    /// is given once.
    pub(super) async fn given_context(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<GivenContext, ApiError> {
        let store = self.host.store.as_ref();
        let mut given = GivenContext::default();
        let started_by = [
            crate::schedules::context::fire_context(store, tenant_id, thread_id).await?,
            crate::kanban::context::card_context(store, tenant_id, thread_id).await?,
        ];
        for (entry, item) in started_by.into_iter().flatten() {
            given.entries.push(entry);
            given.items.push(item);
        }
        let project = match store.get_thread(tenant_id, thread_id).await? {
            Some(thread) => thread.project_id,
            None => None,
        };
        let mut holders = Vec::new();
        if let Some(project) = project {
            holders.push((Holder::Project, project));
        }
        holders.push((Holder::Thread, thread_id.to_owned()));
        for (holder, id) in holders {
            for note in pinned_notes(store, tenant_id, holder, &id).await? {
                if given.items.iter().any(|item| item.id == note.id) {
                    continue;
                }
                given.entries.push(ContextEntry {
                    description: format!(
                        "Note “{}” (version {}) from the operator's workspace",
                        note.title, note.version
                    ),
                    value: note.body.clone(),
                });
                given.items.push(GivenItem {
                    kind: Pinned::Note.label().to_owned(),
                    id: note.id,
                    title: note.title,
                    version: Some(note.version),
                    pinned_by: holder.label().to_owned(),
                });
            }
            for entry in pinned_memory(store, tenant_id, holder, &id).await? {
                if given.items.iter().any(|item| item.id == entry.id) {
                    continue;
                }
                given.entries.push(ContextEntry {
                    description: format!("A fact from {}", memory_of(&entry)),
                    value: entry.text.clone(),
                });
                given.items.push(GivenItem {
                    kind: Pinned::Memory.label().to_owned(),
                    id: entry.id,
                    title: excerpt(&entry.text, 80),
                    version: None,
                    pinned_by: holder.label().to_owned(),
                });
            }
        }
        let memory: Vec<String> = given
            .items
            .iter()
            .filter(|item| item.kind == Pinned::Memory.label())
            .map(|item| item.id.clone())
            .collect();
        // The curator counts an entry given to a run as used; a failure to mark it costs
        // no run.
        if let Err(error) = store.mark_memory_used(tenant_id, &memory, now_ms()).await {
            tracing::warn!(%error, "memory given to a run was not marked as used");
        }
        Ok(given)
    }
}
