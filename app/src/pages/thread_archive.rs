//! Archiving a thread from its page: out of the sidebar's list (under "Archived"), still
//! readable and searchable, restored with one click.

use leptos::prelude::*;

use crate::components::identity::{VIEWER_NOTE, may_act};
use crate::components::sidebar::ThreadsChanged;
use crate::error::ApiError;
use crate::model::ThreadSummary;

/// Archives the thread (out of the sidebar's list) or restores it.
#[server(prefix = "/fn", endpoint = "archive_thread")]
pub async fn archive_thread(thread_id: String, archived: bool) -> Result<ThreadSummary, ApiError> {
    use crate::api::service::*;
    with_status(
        workspace()?
            .archive_thread(&tenant()?, &thread_id, archived)
            .await,
    )
}

#[component]
pub fn ArchiveButton(
    thread_id: StoredValue<String>,
    archived: RwSignal<bool>,
    problem: RwSignal<Option<String>>,
    threads_changed: Option<ThreadsChanged>,
) -> impl IntoView {
    let may_act = may_act();
    let busy = RwSignal::new(false);
    let toggle = move |_| {
        let archive = !archived.get_untracked();
        busy.set(true);
        leptos::task::spawn_local(async move {
            match archive_thread(thread_id.get_value(), archive).await {
                Ok(thread) => {
                    archived.try_set(thread.archived_at_ms.is_some());
                    problem.try_set(None);
                    if let Some(changed) = threads_changed {
                        changed.0.try_update(|n| *n += 1);
                    }
                }
                Err(error) => {
                    problem.try_set(Some(error.say()));
                }
            }
            busy.try_set(false);
        });
    };
    view! {
        {move || archived.get().then(|| view! { <span class="badge archived-badge">"Archived"</span> })}
        <button type="button" class="button small ghost" on:click=toggle
            disabled=move || busy.get() || !may_act.get()
            title=move || (!may_act.get()).then_some(VIEWER_NOTE)>
            {move || if archived.get() { "Restore" } else { "Archive" }}
        </button>
    }
}
