//! The context pane's "Notes" section: what the selected thread's runs are given — the
//! notes pinned to the thread (unpin, pin another) and to its project — and what the
//! latest run was given, at which versions.

use leptos::prelude::*;

use crate::codec::Json;
use crate::components::identity::may_act;
use crate::error::ApiError;
use crate::model::context::ThreadContext;
use crate::model::notes::NoteList;
use crate::protocol::channel::GivenItem;

/// Bumped whenever the thread's pins change, so every place that shows them (the pane's
/// sections, the chips by the composer) reads them again.
#[derive(Clone, Copy)]
pub struct PinsChanged(pub RwSignal<u32>);

impl PinsChanged {
    /// The thread page's, or one of its own where there is none.
    pub fn here() -> Self {
        use_context::<Self>().unwrap_or_else(|| Self(RwSignal::new(0)))
    }

    /// Tells the others once `version` (a pin action's) moves.
    pub fn follow(self, version: impl Fn() -> usize + Send + Sync + 'static) {
        Effect::new(move |seen: Option<usize>| {
            let now = version();
            if seen.is_some_and(|seen| seen != now) {
                self.0.update(|count| *count += 1);
            }
            now
        });
    }
}

#[server(prefix = "/fn", endpoint = "thread_context")]
pub async fn load_thread_context(thread_id: String) -> Result<ThreadContext, ApiError> {
    use crate::api::service::*;
    with_status(contexts()?.thread_context(&context()?, &thread_id).await)
}

/// Pins exactly the notes `note_ids` (space-separated, in order) to the thread; its
/// pinned memory stays.
#[server(prefix = "/fn", endpoint = "pin_notes")]
pub async fn pin_notes(thread_id: String, note_ids: String) -> Result<ThreadContext, ApiError> {
    use crate::api::service::*;
    let (context, contexts) = (context()?, contexts()?);
    let now = with_status(contexts.thread_context(&context, &thread_id).await)?;
    let pins = crate::model::context::Pins {
        notes: note_ids.split_whitespace().map(str::to_owned).collect(),
        memory: now
            .pinned
            .memory
            .into_iter()
            .map(|entry| entry.id)
            .collect(),
    };
    with_status(contexts.pin_to_thread(&context, &thread_id, pins).await)
}

/// Pins exactly the memory entries `entry_ids` (space-separated, in order) to the thread;
/// its pinned notes stay.
#[server(prefix = "/fn", endpoint = "pin_memory")]
pub async fn pin_memory(thread_id: String, entry_ids: String) -> Result<ThreadContext, ApiError> {
    use crate::api::service::*;
    let (context, contexts) = (context()?, contexts()?);
    let now = with_status(contexts.thread_context(&context, &thread_id).await)?;
    let pins = crate::model::context::Pins {
        notes: now.pinned.notes.into_iter().map(|note| note.id).collect(),
        memory: entry_ids.split_whitespace().map(str::to_owned).collect(),
    };
    with_status(contexts.pin_to_thread(&context, &thread_id, pins).await)
}

/// Notes to pin: the latest edited, or those a search for `q` finds.
#[server(prefix = "/fn", endpoint = "notes_to_pin")]
pub async fn notes_to_pin(q: String) -> Result<NoteList, ApiError> {
    use crate::api::service::*;
    let query = crate::model::notes::NoteQuery {
        q: Some(q),
        limit: Some(50),
        ..Default::default()
    };
    with_status(notes()?.list_notes(&context()?, &query).await)
}

#[component]
pub fn PinnedNotes(
    thread_id: String,
    /// What the thread's latest run was given.
    #[prop(into)]
    given: Signal<Vec<GivenItem>>,
) -> impl IntoView {
    let pin = ServerAction::<PinNotes>::new();
    let id = StoredValue::new(thread_id);
    let changed = PinsChanged::here();
    changed.follow(move || pin.version().get());
    let pinned = Resource::<_, Json>::new_with_options(
        move || (id.get_value(), changed.0.get()),
        |(id, _)| load_thread_context(id),
        false,
    );
    // The notes offered for pinning: the latest, or those a search finds.
    let search = RwSignal::new(String::new());
    let notes = Resource::<_, Json>::new_with_options(move || search.get(), notes_to_pin, false);
    let chosen = RwSignal::new(String::new());
    let may = may_act();
    let set = move |ids: Vec<String>| {
        pin.dispatch(PinNotes {
            thread_id: id.get_value(),
            note_ids: ids.join(" "),
        });
    };
    view! {
        {move || pin.value().get().and_then(Result::err).map(|error| view! {
            <p class="error-text" role="alert">{error.say()}</p>
        })}
        <Show when=move || may.get()>
            <input type="search" class="pin-search" placeholder="Find a note to pin"
                aria-label="Find a note to pin" maxlength="200"
                on:input=move |event| search.set(event_target_value(&event)) />
        </Show>
        // Drawn once the page is interactive, by the browser alone: a list the browser
        // reads otherwise than the server did (seen after a reload) can then never break
        // the page's hydration.
        {move || if !crate::interactive::is_interactive() {
            view! { <p class="muted">"Loading pinned notes…"</p> }.into_any()
        } else {
            view! {
                <Transition fallback=|| view! { <p class="muted">"Loading pinned notes…"</p> }>
                    {move || Suspend::new(async move {
                        let Ok(context) = pinned.await else {
                            return view! { <p class="muted">"Pinned notes could not be loaded."</p> }.into_any();
                        };
                        let ids: Vec<String> = context.pinned.notes.iter().map(|note| note.id.clone()).collect();
                        let listed = ids.clone();
                        let available: Vec<(String, String)> = notes
                            .await
                            .map(|list| list.notes.into_iter().filter(|note| !ids.contains(&note.id)).map(|note| (note.id, note.title)).collect())
                            .unwrap_or_default();
                        let has_available = !available.is_empty();
                        view! {
                            {context.pinned.notes.is_empty().then(|| view! { <p class="muted">"No notes pinned to this thread."</p> })}
                            <ul class="pinned-list" aria-label="Notes pinned to this thread">
                                {context.pinned.notes.into_iter().map(|note| {
                                    let unpinned: Vec<String> = listed.iter().filter(|id| **id != note.id).cloned().collect();
                                    view! {
                                        <li>
                                            <a href=format!("/notes/{}", note.id)>{note.title.clone()}</a>
                                            <span class="muted">" v" {note.version}</span>
                                            <Show when=move || may.get()>
                                                {
                                                    let unpinned = unpinned.clone();
                                                    let label = format!("Unpin {}", note.title);
                                                    view! { <button type="button" class="button small ghost" aria-label=label
                                                        on:click=move |_| set(unpinned.clone())>"Unpin"</button> }
                                                }
                                            </Show>
                                        </li>
                                    }
                                }).collect_view()}
                            </ul>
                            {context.project.map(|project| view! {
                                <p class="muted">"From project " <a href=format!("/projects/{}", project.id)>{project.name}</a> ": "
                                    {if project.pinned.notes.is_empty() { "nothing pinned".to_owned() } else {
                                        project.pinned.notes.iter().map(|note| format!("{} v{}", note.title, note.version)).collect::<Vec<_>>().join(", ")
                                    }}
                                </p>
                            })}
                            <Show when=move || may.get() && has_available>
                                <PinPicker field_id="pin-note" label="Note to pin" prompt="Pin a note…"
                                    button_label="Pin the note" options=available.clone() pinned=ids.clone() pin=Callback::new(set) chosen />
                            </Show>
                        }.into_any()
                    })}
                </Transition>
            }.into_any()
        }}
        {move || {
            let given: Vec<GivenItem> = given.get().into_iter().filter(|item| item.kind == "note").collect();
            (!given.is_empty()).then(|| view! {
                <p class="muted given-heading">"The latest run was given:"</p>
                <ul class="pinned-list" aria-label="Given to the latest run">
                    {given.into_iter().map(|item| view! {
                        <li>
                            <a href=format!("/notes/{}", item.id)>{item.title}</a>
                            {item.version.map(|version| view! { <span class="muted">" v" {version}</span> })}
                            <span class="muted">" (pinned to the " {item.pinned_by} ")"</span>
                        </li>
                    }).collect_view()}
                </ul>
            })
        }}
    }
}

/// What may be pinned, as a select, and "Pin": `pin` gets `pinned` with the choice after.
#[component]
pub(crate) fn PinPicker(
    field_id: &'static str,
    label: &'static str,
    prompt: &'static str,
    button_label: &'static str,
    /// Id and what the option shows.
    options: Vec<(String, String)>,
    pinned: Vec<String>,
    pin: Callback<Vec<String>>,
    /// The choice, kept by the caller outside whatever re-renders this picker (a search
    /// refreshing the options must not drop what was chosen).
    chosen: RwSignal<String>,
) -> impl IntoView {
    view! {
        <div class="pin-form">
            <label class="visually-hidden" for=field_id>{label}</label>
            <select id=field_id prop:value=move || chosen.get()
                on:change=move |event| chosen.set(event_target_value(&event))>
                <option value="">{prompt}</option>
                {options.into_iter().map(|(id, shown)| {
                    let selected = chosen.with_untracked(|chosen| *chosen == id);
                    view! { <option value=id selected=selected>{shown.chars().take(80).collect::<String>()}</option> }
                }).collect_view()}
            </select>
            <button type="button" class="button small" aria-label=button_label on:click=move |_| {
                let pick = chosen.get();
                if !pick.is_empty() {
                    let mut next = pinned.clone();
                    next.push(pick);
                    chosen.set(String::new());
                    pin.run(next);
                }
            }>"Pin"</button>
        </div>
    }
}
