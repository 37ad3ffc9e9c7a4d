//! The workspace sidebar: the tenant switcher, the thread list with "New thread", the
//! workspace sections, who is signed in with "Sign out", and the theme switch.

use leptos::prelude::*;
use leptos_router::components::A;

use crate::codec::Json;
use crate::components::identity::may_act;
use crate::components::inbox::{InboxLink, use_inbox};
use crate::components::layout::{Pane, PaneToggle, ThemeSwitch};
use crate::components::palette::PaletteButton;
use crate::components::thread_list::ThreadList;
use crate::error::ApiError;
use crate::model::section::Section;
use crate::model::{Me, Role, ThreadSummary};

/// The tenant's threads whose title or messages hold every word of `query`.
#[server(prefix = "/fn", endpoint = "search_threads")]
pub async fn search_threads(query: String) -> Result<Vec<ThreadSummary>, ApiError> {
    use crate::api::service::*;
    with_status(workspace()?.search_threads(&tenant()?, &query).await)
}

/// "New thread": the page where a thread is started (it is made with its first message).
/// A form, so that it works before the page is interactive (as a plain GET) and can be
/// disabled for those who may not start threads.
#[component]
pub fn NewThreadButton(
    #[prop(optional)] project_id: Option<String>,
    #[prop(default = "New thread")] label: &'static str,
) -> impl IntoView {
    let may_act = may_act();
    let navigate = leptos_router::hooks::use_navigate();
    let target = match &project_id {
        Some(id) => format!("/new?project={id}"),
        None => "/new".to_owned(),
    };
    view! {
        <form action="/new" method="get" class="inline-form" on:submit=move |event| {
            event.prevent_default();
            navigate(&target, Default::default());
        }>
            {project_id.map(|id| view! { <input type="hidden" name="project" value=id /> })}
            <button type="submit" class="button primary" disabled=move || !may_act.get()
                title=move || (!may_act.get()).then_some(crate::components::identity::VIEWER_NOTE)>
                {label}
            </button>
        </form>
    }
}

/// Bumped when a thread's title, project or archiving changes, so the sidebar reloads its
/// list.
#[derive(Clone, Copy)]
pub struct ThreadsChanged(pub RwSignal<u32>);

#[component]
pub fn Sidebar(
    threads: Resource<Result<Vec<ThreadSummary>, ApiError>, Json>,
    me: Resource<Result<Me, ApiError>, Json>,
) -> impl IntoView {
    let drawer =
        use_context::<crate::components::layout::Layout>().map(|layout| layout.drawer_open);
    let query = RwSignal::new(String::new());
    let found = RwSignal::new(None::<Result<Vec<ThreadSummary>, ApiError>>);
    // Ages are in minutes: the list's clock need not move each second.
    let now = use_inbox()
        .map(|inbox| inbox.clock(std::time::Duration::from_secs(20)))
        .unwrap_or_else(|| Signal::stored(crate::when::now_ms()));
    scroll_current_into_view(threads);
    reload_on_news(threads);

    view! {
        <nav class="sidebar" id="sidebar" aria-label="Workspace" on:click=move |event| close_drawer_after(drawer, &event)>
            <header class="sidebar-head">
                <A href="/" attr:class="brand">
                    "Agent OS"
                </A>
                <PaneToggle pane=Pane::Sidebar />
            </header>
            <div class="pane-body">
            <TenantSwitcher me />
            <PaletteButton />
            <InboxLink />
            <section class="sidebar-section" aria-labelledby="threads-heading">
                <div class="section-head">
                    <h2 id="threads-heading">"Threads"</h2>
                    <NewThreadButton />
                </div>
                <ThreadSearch query found />
                <Show when=move || !query.with(|words| words.trim().is_empty()) fallback=move || view! {
                <Transition fallback=|| view! { <p class="muted">"Loading threads…"</p> }>
                    {move || Suspend::new(async move {
                        match threads.await {
                            Ok(list) => view! { <ThreadList threads=list now /> }.into_any(),
                            Err(error) => {
                                view! {
                                    <p class="error-text" role="alert">
                                        "Threads could not be loaded: " {error.say()}
                                    </p>
                                }
                                    .into_any()
                            }
                        }
                    })}
                </Transition>
                }>
                    <FoundThreads query found />
                </Show>
            </section>
            <section class="sidebar-section" aria-labelledby="sections-heading">
                <h2 id="sections-heading">"Workspace"</h2>
                <ul class="section-list" aria-label="Sections">
                    {Section::NAVIGATION
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
                <OwnerLinks me />
                <SignedInAs me />
                <ThemeSwitch />
            </footer>
            </div>
        </nav>
    }
}

/// Which tenant this console acts for, among the user's own. Switching moves the session
/// and reloads the workspace, since every thread, run and ask on screen belongs to the
/// tenant being left. An owner may also found a new tenant, of which they become owner.
#[component]
fn TenantSwitcher(me: Resource<Result<Me, ApiError>, Json>) -> impl IntoView {
    let adding = RwSignal::new(false);
    let switch_form: NodeRef<leptos::html::Form> = NodeRef::new();
    let query = leptos_router::hooks::use_query_map();
    let problem = move || {
        query.with(|query| {
            if query.get("invitation-error").is_some() {
                return Some("That invitation was withdrawn or answered already.");
            }
            query.get("tenant-error").map(|code| match code.as_str() {
                "taken" => "That tenant name is taken. Ask its owner to invite you.",
                _ => "A tenant name has 1 to 64 letters, digits, '-' or '_'.",
            })
        })
    };
    let on_change = move |event: leptos::ev::Event| {
        if event_target_value(&event).is_empty() {
            adding.set(true);
        } else if let Some(form) = switch_form.get_untracked() {
            let _ = form.request_submit();
        }
    };
    view! {
        <div class="tenant-switcher">
            <Transition fallback=|| view! { <p class="muted">"Loading tenants…"</p> }>
                {move || Suspend::new(async move {
                    match me.await {
                        Ok(me) => {
                            let owner = me.role.allows(Role::Owner);
                            view! {
                                <form method="post" action="/auth/tenant" node_ref=switch_form>
                                    <label class="field-label" for="tenant-select">"Tenant"</label>
                                    <select id="tenant-select" name="tenant" on:change=on_change>
                                        {me.memberships.into_iter().map(|membership| {
                                            let selected = membership.tenant == me.tenant;
                                            let label = format!("{} · {}", membership.tenant, membership.role);
                                            view! { <option value=membership.tenant selected=selected>{label}</option> }
                                        }).collect_view()}
                                        {owner.then(|| view! { <option value="">"New tenant…"</option> })}
                                    </select>
                                    <noscript><button type="submit" class="button small">"Switch"</button></noscript>
                                </form>
                                <Invitations invitations=me.invitations />
                            }.into_any()
                        }
                        Err(error) => view! {
                            <p class="error-text" role="alert">"Tenants could not be loaded: " {error.say()}</p>
                        }.into_any(),
                    }
                })}
            </Transition>
            <form class="tenant-new" method="post" action="/auth/new-tenant" hidden=move || !adding.get()>
                <label class="field-label" for="tenant-new-name">"New tenant name"</label>
                <input id="tenant-new-name" name="tenant" type="text" autocomplete="off" spellcheck="false"
                    required maxlength="64" pattern="[A-Za-z0-9_-]+" />
                <button type="submit" class="button small primary">"Create"</button>
                <button type="button" class="button small ghost" on:click=move |_| adding.set(false)>"Cancel"</button>
            </form>
            {move || problem().map(|text| view! { <p class="error-text" role="alert">{text}</p> })}
        </div>
    }
}

/// Tenants the user is invited into, each to accept (joining it and moving there) or
/// decline: plain forms, so they work before the bundle has loaded.
#[component]
fn Invitations(invitations: Vec<crate::model::Invitation>) -> impl IntoView {
    invitations
        .into_iter()
        .map(|invitation| {
            let label = format!("Invitation into {}", invitation.tenant);
            view! {
                <form class="invitation" method="post" action="/auth/invitation" aria-label=label>
                    <p>{invitation.invited_by} " invites you into " <strong>{invitation.tenant.clone()}</strong>
                        " as " {invitation.role.label()}</p>
                    <input type="hidden" name="tenant" value=invitation.tenant />
                    <button type="submit" name="answer" value="accept" class="button small primary">"Accept"</button>
                    <button type="submit" name="answer" value="decline" class="button small ghost">"Decline"</button>
                </form>
            }
        })
        .collect_view()
}

/// Pages only an owner may open.
#[component]
fn OwnerLinks(me: Resource<Result<Me, ApiError>, Json>) -> impl IntoView {
    view! {
        <Transition fallback=|| ()>
            {move || Suspend::new(async move {
                me.await.ok().filter(|me| me.role.allows(Role::Owner)).map(|_| view! {
                    // Plain links: `<A>` needs the router's context, gone after the await.
                    <a href="/members" class="thread-link">"Members"</a>
                    <a href="/audit" class="thread-link">"Audit"</a>
                })
            })}
        </Transition>
    }
}

/// Who is signed in, with which role here, and the way out.
#[component]
fn SignedInAs(me: Resource<Result<Me, ApiError>, Json>) -> impl IntoView {
    view! {
        <Transition fallback=|| ()>
            {move || Suspend::new(async move {
                me.await.ok().map(|me| view! {
                    <div class="signed-in">
                        <p class="signed-in-as">
                            "Signed in as " <strong>{me.user}</strong>
                            <span class="muted">{format!(" · {}", me.role)}</span>
                        </p>
                        <crate::components::remote_media::MediaHostsList />
                        <form method="post" action="/auth/logout">
                            <button type="submit" class="button small ghost">"Sign out"</button>
                        </form>
                        <form method="post" action="/auth/logout-everywhere">
                            <button type="submit" class="button small ghost"
                                title="Ends every session of yours, in every browser">"Sign out everywhere"</button>
                        </form>
                    </div>
                })
            })}
        </Transition>
    }
}

/// The search box over the thread list: the server looks for every word typed in titles
/// and in what operators said; the newest answer to the latest words wins.
#[component]
fn ThreadSearch(
    query: RwSignal<String>,
    found: RwSignal<Option<Result<Vec<ThreadSummary>, ApiError>>>,
) -> impl IntoView {
    let asked = StoredValue::new(0u64);
    let search = move |words: String| {
        query.set(words.clone());
        if words.trim().is_empty() {
            found.set(None);
            return;
        }
        asked.update_value(|n| *n += 1);
        let this = asked.get_value();
        leptos::task::spawn_local(async move {
            let answer = search_threads(words).await;
            if asked.try_get_value() == Some(this) {
                found.try_set(Some(answer));
            }
        });
    };
    view! {
        <form role="search" class="thread-search" on:submit=move |event| event.prevent_default()>
            <label for="thread-search" class="visually-hidden">"Search threads"</label>
            <input id="thread-search" type="search" placeholder="Search threads"
                autocomplete="off" prop:value=move || query.get()
                on:input=move |event| search(event_target_value(&event)) />
        </form>
    }
}

#[component]
fn FoundThreads(
    query: RwSignal<String>,
    found: RwSignal<Option<Result<Vec<ThreadSummary>, ApiError>>>,
) -> impl IntoView {
    move || {
        match found.get() {
        None => view! { <p class="muted">"Searching…"</p> }.into_any(),
        Some(Err(error)) => view! {
            <p class="error-text" role="alert">"The search failed: " {error.say()}</p>
        }
        .into_any(),
        Some(Ok(threads)) if threads.is_empty() => view! {
            <p class="muted empty">{format!("No thread matches “{}”.", query.get().trim())}</p>
        }
        .into_any(),
        Some(Ok(threads)) => view! {
            <ul class="thread-list" aria-label="Threads found">
                {threads.into_iter().map(|thread| view! {
                    <li><A href=format!("/threads/{}", thread.id) attr:class="thread-link">{thread.title}</A></li>
                }).collect_view()}
            </ul>
        }
        .into_any(),
    }
    }
}

/// Reloads the list when the live inbox names a thread it does not hold, or by another
/// title: one started, or renamed, in another tab or by another operator. Each piece of
/// news reloads it once.
fn reload_on_news(threads: Resource<Result<Vec<ThreadSummary>, ApiError>, Json>) {
    let (Some(inbox), Some(changed)) = (use_inbox(), use_context::<ThreadsChanged>()) else {
        return;
    };
    Effect::new(move |reloaded_for: Option<Vec<(String, String)>>| {
        let mut named: Vec<(String, String)> = inbox
            .with(|inbox| {
                let asks = inbox
                    .asks
                    .iter()
                    .map(|ask| (&ask.thread_id, &ask.thread_title));
                let runs = inbox
                    .running
                    .iter()
                    .map(|run| (&run.thread_id, &run.thread_title));
                asks.chain(runs)
                    .map(|(id, title)| (id.clone(), title.clone()))
                    .collect()
            })
            .unwrap_or_default();
        named.sort();
        named.dedup();
        // While the list reloads, the news it was reloaded for stands.
        let Some(news) = threads.with(|listed| match listed {
            Some(Ok(listed)) => Some(
                named
                    .into_iter()
                    .filter(|(id, title)| {
                        !listed
                            .iter()
                            .any(|thread| &thread.id == id && &thread.title == title)
                    })
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        }) else {
            return reloaded_for.unwrap_or_default();
        };
        if !news.is_empty() && reloaded_for.as_ref() != Some(&news) {
            changed.0.update(|n| *n += 1);
        }
        news
    });
}

/// Keeps the open thread's link in view in a long list: on arriving at a thread, and when
/// the list is drawn anew.
fn scroll_current_into_view(threads: Resource<Result<Vec<ThreadSummary>, ApiError>, Json>) {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        let location = leptos_router::hooks::use_location();
        Effect::new(move |_| {
            location.pathname.track();
            threads.track();
            request_animation_frame(|| {
                let current = document()
                    .query_selector(".sidebar .thread-list a[aria-current=\"page\"]")
                    .ok()
                    .flatten();
                if let Some(link) = current {
                    let options = web_sys::ScrollIntoViewOptions::new();
                    options.set_block(web_sys::ScrollLogicalPosition::Nearest);
                    link.scroll_into_view_with_scroll_into_view_options(&options);
                }
            });
        });
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    let _ = threads;
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
