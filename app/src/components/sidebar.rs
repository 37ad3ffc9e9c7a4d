//! The workspace sidebar: the tenant switcher, the thread list with "New thread", the
//! workspace sections and the theme switch.

use leptos::prelude::*;
use leptos_router::components::A;

use crate::api::{CreateThread, list_tenants, switch_tenant};
use crate::codec::Json;
use crate::components::layout::{Pane, PaneToggle, ThemeSwitch};
use crate::error::ApiError;
use crate::model::ThreadSummary;
use crate::pages::section::Section;

#[component]
pub fn Sidebar(
    threads: Resource<Result<Vec<ThreadSummary>, ApiError>, Json>,
    create_thread: ServerAction<CreateThread>,
) -> impl IntoView {
    let creating = create_thread.pending();
    let drawer =
        use_context::<crate::components::layout::Layout>().map(|layout| layout.drawer_open);
    let create_error = move || create_thread.value().get().and_then(Result::err);

    view! {
        <nav class="sidebar" id="sidebar" aria-label="Workspace" on:click=move |event| close_drawer_after(drawer, &event)>
            <header class="sidebar-head">
                <A href="/" attr:class="brand">
                    "Agent OS"
                </A>
                <PaneToggle pane=Pane::Sidebar />
            </header>
            <div class="pane-body">
            <TenantSwitcher />
            <section class="sidebar-section" aria-labelledby="threads-heading">
                <div class="section-head">
                    <h2 id="threads-heading">"Threads"</h2>
                    <ActionForm action=create_thread attr:class="inline-form">
                        <button type="submit" class="button primary" disabled=creating>
                            "New thread"
                        </button>
                    </ActionForm>
                </div>
                {move || {
                    create_error().map(|error| view! { <p class="error-text" role="alert">{error.to_string()}</p> })
                }}
                <Transition fallback=|| view! { <p class="muted">"Loading threads…"</p> }>
                    {move || Suspend::new(async move {
                        match threads.await {
                            Ok(list) => view! { <ThreadList threads=list /> }.into_any(),
                            Err(error) => {
                                view! {
                                    <p class="error-text" role="alert">
                                        "Threads could not be loaded: " {error.to_string()}
                                    </p>
                                }
                                    .into_any()
                            }
                        }
                    })}
                </Transition>
            </section>
            <section class="sidebar-section" aria-labelledby="sections-heading">
                <h2 id="sections-heading">"Workspace"</h2>
                <ul class="section-list" aria-label="Sections">
                    {Section::ALL
                        .into_iter()
                        .map(|section| {
                            view! {
                                <li>
                                    <A href=section.path() attr:class="thread-link">
                                        {section.title()}
                                    </A>
                                </li>
                            }
                        })
                        .collect_view()}
                </ul>
            </section>
            <footer class="sidebar-foot">
                <ThemeSwitch />
            </footer>
            </div>
        </nav>
    }
}

/// Which tenant this console acts for. Switching reloads the workspace, since every
/// thread, run and ask on screen belongs to the tenant being left.
#[component]
fn TenantSwitcher() -> impl IntoView {
    let tenants = Resource::<_, Json>::new_with_options(|| (), |_| list_tenants(), false);
    let adding = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    let field: NodeRef<leptos::html::Input> = NodeRef::new();
    let switch_to = move |name: String| {
        problem.set(None);
        leptos::task::spawn_local(async move {
            match switch_tenant(name).await {
                Ok(()) => {
                    #[cfg(any(feature = "hydrate", feature = "csr"))]
                    let _ = window().location().assign("/");
                }
                Err(error) => {
                    problem.try_set(Some(error.to_string()));
                }
            }
        });
    };
    let on_change = move |event: leptos::ev::Event| {
        let value = event_target_value(&event);
        if value.is_empty() {
            adding.set(true);
        } else {
            switch_to(value);
        }
    };
    let add = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        if let Some(input) = field.get_untracked() {
            switch_to(input.value());
        }
    };
    view! {
        <div class="tenant-switcher">
            <Transition fallback=|| view! { <p class="muted">"Loading tenants…"</p> }>
                {move || Suspend::new(async move {
                    match tenants.await {
                        Ok(list) => {
                            let current = list.current.clone();
                            view! {
                                <label class="field-label" for="tenant-select">"Tenant"</label>
                                <select id="tenant-select" on:change=on_change>
                                    {list.known.into_iter().map(|name| {
                                        let selected = name == current;
                                        view! { <option value=name.clone() selected=selected>{name.clone()}</option> }
                                    }).collect_view()}
                                    <option value="">"New tenant…"</option>
                                </select>
                            }.into_any()
                        }
                        Err(error) => view! {
                            <p class="error-text" role="alert">"Tenants could not be loaded: " {error.to_string()}</p>
                        }.into_any(),
                    }
                })}
            </Transition>
            <form class="tenant-new" hidden=move || !adding.get() on:submit=add>
                <label class="field-label" for="tenant-new-name">"New tenant name"</label>
                <input id="tenant-new-name" node_ref=field type="text" autocomplete="off" spellcheck="false" />
                <button type="submit" class="button small primary">"Switch"</button>
                <button type="button" class="button small ghost" on:click=move |_| adding.set(false)>"Cancel"</button>
            </form>
            {move || problem.get().map(|text| view! { <p class="error-text" role="alert">{text}</p> })}
        </div>
    }
}

#[component]
fn ThreadList(threads: Vec<ThreadSummary>) -> impl IntoView {
    if threads.is_empty() {
        return view! { <p class="muted empty">"No threads yet. Start one with New thread."</p> }
            .into_any();
    }
    view! {
        <ul class="thread-list" aria-label="Threads">
            {threads
                .into_iter()
                .map(|thread| {
                    let href = format!("/threads/{}", thread.id);
                    view! {
                        <li>
                            <A href=href attr:class="thread-link">
                                {thread.title}
                            </A>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
    .into_any()
}

/// On a narrow screen the sidebar is a drawer: following a link or creating a thread in it
/// closes it, so the page it leads to is in view.
fn close_drawer_after(drawer: Option<RwSignal<bool>>, event: &leptos::ev::MouseEvent) {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        use wasm_bindgen::JsCast;
        let followed = event
            .target()
            .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
            .and_then(|element| {
                element
                    .closest("a[href], button[type=submit]")
                    .ok()
                    .flatten()
            })
            .is_some();
        if followed && let Some(drawer) = drawer {
            drawer.set(false);
        }
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    let _ = (drawer, event);
}
