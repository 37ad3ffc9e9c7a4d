//! The context pane's "Memory" section: the memory entries the selected thread's runs are
//! given — pinned to the thread (unpin, pin another from the tenant's or the project's
//! memory) and to its project — and what the latest run was given.

use leptos::prelude::*;

use crate::codec::Json;
use crate::components::identity::may_act;
use crate::components::pinned::{PinMemory, PinPicker, PinsChanged, load_thread_context};
use crate::error::ApiError;
use crate::memory::ScopeKind;
use crate::model::memory::MemoryEntry;
use crate::protocol::channel::GivenItem;

/// The memory entries a thread may pin: the tenant's and, in a project, the project's.
#[server(prefix = "/fn", endpoint = "memory_to_pin")]
pub async fn memory_to_pin(thread_id: String) -> Result<Vec<MemoryEntry>, ApiError> {
    use crate::api::service::*;
    let context = context()?;
    let thread = with_status(contexts()?.thread_context(&context, &thread_id).await)?;
    let memory = memory()?;
    let mut entries = with_status(memory.memory(&context, ScopeKind::Tenant, None).await)?.entries;
    if let Some(project) = thread.project {
        let scope = memory
            .memory(&context, ScopeKind::Project, Some(&project.id))
            .await;
        entries.extend(with_status(scope)?.entries);
    }
    Ok(entries)
}

#[component]
pub fn PinnedMemory(
    thread_id: String,
    /// What the thread's latest run was given.
    #[prop(into)]
    given: Signal<Vec<GivenItem>>,
) -> impl IntoView {
    let pin = ServerAction::<PinMemory>::new();
    let id = StoredValue::new(thread_id);
    let changed = PinsChanged::here();
    changed.follow(move || pin.version().get());
    let pinned = Resource::<_, Json>::new_with_options(
        move || (id.get_value(), changed.0.get()),
        |(id, _)| load_thread_context(id),
        false,
    );
    let offered = Resource::<_, Json>::new_with_options(
        move || (id.get_value(), changed.0.get()),
        |(id, _)| memory_to_pin(id),
        false,
    );
    let may = may_act();
    let chosen = RwSignal::new(String::new());
    let set = move |ids: Vec<String>| {
        pin.dispatch(PinMemory {
            thread_id: id.get_value(),
            entry_ids: ids.join(" "),
        });
    };
    view! {
        {move || pin.value().get().and_then(Result::err).map(|error| view! {
            <p class="error-text" role="alert">{error.say()}</p>
        })}
        // Drawn once the page is interactive, by the browser alone: a list the browser
        // reads otherwise than the server did (seen after a reload) can then never break
        // the page's hydration.
        {move || if !crate::interactive::is_interactive() {
            view! { <p class="muted">"Loading pinned memory…"</p> }.into_any()
        } else {
            view! {
                <Transition fallback=|| view! { <p class="muted">"Loading pinned memory…"</p> }>
                    {move || Suspend::new(async move {
                        let Ok(context) = pinned.await else {
                            return view! { <p class="muted">"Pinned memory could not be loaded."</p> }.into_any();
                        };
                        let ids: Vec<String> = context.pinned.memory.iter().map(|entry| entry.id.clone()).collect();
                        let available: Vec<(String, String)> = offered
                            .await
                            .map(|entries| entries.into_iter().filter(|entry| !ids.contains(&entry.id)).map(|entry| (entry.id, entry.text)).collect())
                            .unwrap_or_default();
                        let has_available = !available.is_empty();
                        let listed = ids.clone();
                        view! {
                            {context.pinned.memory.is_empty().then(|| view! { <p class="muted">"No memory pinned to this thread."</p> })}
                            <ul class="pinned-list" aria-label="Memory pinned to this thread">
                                {context.pinned.memory.into_iter().map(|entry| {
                                    let unpinned: Vec<String> = listed.iter().filter(|id| **id != entry.id).cloned().collect();
                                    let label = format!("Unpin “{}”", entry.text.chars().take(40).collect::<String>());
                                    view! {
                                        <li>
                                            <span class="memory-text">{entry.text.clone()}</span>
                                            <span class="muted">" (" {if entry.scope == ScopeKind::Project { "project" } else { "tenant" }} ")"</span>
                                            <Show when=move || may.get()>
                                                {
                                                    let (unpinned, label) = (unpinned.clone(), label.clone());
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
                                    {if project.pinned.memory.is_empty() { "nothing pinned".to_owned() } else {
                                        project.pinned.memory.iter().map(|entry| entry.text.clone()).collect::<Vec<_>>().join(" · ")
                                    }}
                                </p>
                            })}
                            <Show when=move || may.get() && has_available>
                                <PinPicker field_id="pin-memory" label="Memory to pin" prompt="Pin a memory entry…"
                                    button_label="Pin the memory entry" options=available.clone() pinned=ids.clone() pin=Callback::new(set) chosen />
                            </Show>
                        }.into_any()
                    })}
                </Transition>
            }.into_any()
        }}
        {move || {
            let given: Vec<GivenItem> = given.get().into_iter().filter(|item| item.kind == "memory").collect();
            (!given.is_empty()).then(|| view! {
                <p class="muted given-heading">"The latest run was given:"</p>
                <ul class="pinned-list" aria-label="Memory given to the latest run">
                    {given.into_iter().map(|item| view! {
                        <li>
                            <a href="/memory">{item.title}</a>
                            <span class="muted">" (pinned to the " {item.pinned_by} ")"</span>
                        </li>
                    }).collect_view()}
                </ul>
            })
        }}
    }
}
