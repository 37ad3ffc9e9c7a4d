//! What the next message is given besides the conversation, as chips by the composer: the
//! notes and memory pinned to the thread (each unpinned with ×) and to its project, and
//! the way to the context pane, where more are pinned.

use leptos::prelude::*;

use crate::codec::Json;
use crate::components::identity::{VIEWER_NOTE, may_act};
use crate::components::pinned::{PinMemory, PinNotes, PinsChanged, load_thread_context};
use crate::model::context::ThreadContext;

/// The most characters of a memory entry a chip shows (the whole is its tooltip).
const MEMORY_SHOWN: usize = 40;

#[component]
pub fn ContextChips(thread_id: StoredValue<String>) -> impl IntoView {
    let changed = PinsChanged::here();
    let unpin_note = ServerAction::<PinNotes>::new();
    let unpin_memory = ServerAction::<PinMemory>::new();
    changed.follow(move || unpin_note.version().get() + unpin_memory.version().get());
    let context = Resource::<_, Json>::new_with_options(
        move || (thread_id.get_value(), changed.0.get()),
        |(id, _)| load_thread_context(id),
        false,
    );
    let failed = move || {
        unpin_note
            .value()
            .get()
            .and_then(Result::err)
            .or_else(|| unpin_memory.value().get().and_then(Result::err))
    };
    // Drawn by the browser alone, as the pane's lists are: what it reads after a reload
    // can then never break the page's hydration.
    view! {
        {move || failed().map(|error| view! { <p class="error-text" role="alert">{error.say()}</p> })}
        {move || crate::interactive::is_interactive().then(|| view! {
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    context.await.ok().map(|context| view! {
                        <Chips context thread_id unpin_note unpin_memory />
                    })
                })}
            </Transition>
        })}
    }
}

#[component]
fn Chips(
    context: ThreadContext,
    thread_id: StoredValue<String>,
    unpin_note: ServerAction<PinNotes>,
    unpin_memory: ServerAction<PinMemory>,
) -> impl IntoView {
    let own = context.pinned;
    let project = context.project;
    let from_project = project.as_ref().map_or(0, |project| {
        project.pinned.notes.len() + project.pinned.memory.len()
    });
    if own.notes.is_empty() && own.memory.is_empty() && from_project == 0 {
        return ().into_any();
    }
    let may = may_act();
    let layout = use_context::<crate::components::layout::Layout>();
    let note_ids: Vec<String> = own.notes.iter().map(|note| note.id.clone()).collect();
    let memory_ids: Vec<String> = own.memory.iter().map(|entry| entry.id.clone()).collect();
    let notes = own.notes.into_iter().map(|note| {
        let rest = without(&note_ids, &note.id);
        let label = format!("Unpin {}", note.title);
        view! {
            <li class="context-chip" data-kind="note">
                <a href=format!("/notes/{}", note.id)>{note.title.clone()}</a>
                <span class="muted">" v" {note.version}</span>
                <UnpinButton label may on_click=move || {
                    unpin_note.dispatch(PinNotes { thread_id: thread_id.get_value(), note_ids: rest.join(" ") });
                } />
            </li>
        }
    }).collect_view();
    let memory = own.memory.into_iter().map(|entry| {
        let rest = without(&memory_ids, &entry.id);
        let shown = shorten(&entry.text, MEMORY_SHOWN);
        let label = format!("Unpin the memory entry {shown}");
        view! {
            <li class="context-chip" data-kind="memory" title=entry.text.clone()>
                <span>{shown}</span>
                <UnpinButton label may on_click=move || {
                    unpin_memory.dispatch(PinMemory { thread_id: thread_id.get_value(), entry_ids: rest.join(" ") });
                } />
            </li>
        }
    }).collect_view();
    let project_chip = project.filter(|_| from_project > 0).map(|project| {
        let what = match from_project {
            1 => "1 item".to_owned(),
            n => format!("{n} items"),
        };
        view! {
            <li class="context-chip" data-kind="project">
                <a href=format!("/projects/{}", project.id)>{project.name}</a>
                <span class="muted">" · " {what}</span>
            </li>
        }
    });
    view! {
        <div class="context-chips">
            <span class="muted" id="context-chips-label">"Given with each message:"</span>
            <ul aria-labelledby="context-chips-label">
                {notes}
                {memory}
                {project_chip}
            </ul>
            {layout.map(|layout| view! {
                <button type="button" class="link-button" on:click=move |_| layout.reveal_context()>
                    "Change…"
                </button>
            })}
        </div>
    }
    .into_any()
}

#[component]
fn UnpinButton(label: String, may: Signal<bool>, on_click: impl Fn() + 'static) -> impl IntoView {
    view! {
        <button type="button" class="chip-remove" aria-label=label.clone()
            title=move || if may.get() { label.clone() } else { VIEWER_NOTE.to_owned() }
            disabled=move || !may.get() on:click=move |_| on_click()>
            "×"
        </button>
    }
}

fn without(ids: &[String], id: &str) -> Vec<String> {
    ids.iter().filter(|each| *each != id).cloned().collect()
}

/// `text` cut to `most` characters, with an ellipsis when cut.
fn shorten(text: &str, most: usize) -> String {
    match text.char_indices().nth(most) {
        Some((at, _)) => format!("{}…", text[..at].trim_end()),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::{shorten, without};

    #[test]
    fn a_long_memory_entry_is_cut_on_a_character_with_an_ellipsis() {
        assert_eq!(shorten("short", 40), "short");
        assert_eq!(shorten("déploiements le vendredi", 5), "déplo…");
        assert_eq!(shorten("two words", 4), "two…");
    }

    #[test]
    fn unpinning_keeps_the_other_pins_in_order() {
        let ids = ["a".to_owned(), "b".to_owned(), "c".to_owned()];
        assert_eq!(without(&ids, "b"), ["a", "c"]);
        assert_eq!(without(&ids, "z"), ["a", "b", "c"]);
    }
}
