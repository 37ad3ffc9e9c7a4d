//! `/`: the operator's home — the inbox of every pending ask of the tenant, and the runs
//! in progress — kept current by the tenant's live stream.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::components::inbox::list::InboxList;
use crate::components::inbox::running::RunningNow;
use crate::components::inbox::{TenantInbox, use_inbox};
use crate::components::layout::ContextFrame;

#[component]
pub fn HomePage() -> impl IntoView {
    let inbox = use_inbox();
    view! {
        <Title text="Inbox" />
        <main class="main home" id="main" tabindex="-1">
            {match inbox {
                Some(inbox) => view! {
                    <Transition fallback=|| view! { <p class="muted">"Loading the inbox…"</p> }>
                        {move || Suspend::new(async move {
                            match inbox.ready().await {
                                Ok(()) => view! { <Home inbox /> }.into_any(),
                                Err(error) => view! {
                                    <section class="empty-state" role="alert">
                                        <h1>"Inbox"</h1>
                                        <p>"The inbox could not be loaded: " {error.say()}</p>
                                    </section>
                                }.into_any(),
                            }
                        })}
                    </Transition>
                }.into_any(),
                None => ().into_any(),
            }}
        </main>
        <ContextFrame>
            <section class="pane-section">
                <h2>"Context"</h2>
                <p class="muted">"Open a thread to see its agent state, plan, routing, notes and memory."</p>
            </section>
        </ContextFrame>
    }
}

#[component]
fn Home(inbox: TenantInbox) -> impl IntoView {
    let now = clock(inbox);
    let may_act = crate::components::identity::may_act();
    view! {
        {move || (!may_act.get()).then(|| view! {
            <p class="notice read-only" role="note">{crate::components::identity::VIEWER_NOTE}</p>
        })}
        <div class="home-columns">
            <InboxList inbox now />
            <RunningNow inbox now />
        </div>
    }
}

/// The time ages and elapsed times are counted to: the server's when it read the inbox
/// (so both renderings agree), then the browser's, set to the server's clock, each second.
/// Reached later in the tab (not hydrating), it starts at the server's time now: the
/// inbox may have been read long before, and runs started since would count from then.
fn clock(inbox: TenantInbox) -> Signal<i64> {
    let read_at = untrack(|| inbox.with(|inbox| inbox.now_ms)).unwrap_or_default();
    let now = RwSignal::new(read_at);
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        let browser_now = || js_sys::Date::now() as i64;
        let measured = inbox.skew.get_untracked();
        let skew = measured.unwrap_or(read_at - browser_now());
        if measured.is_some() {
            now.set(browser_now() + skew);
        }
        if let Ok(handle) = set_interval_with_handle(
            move || {
                now.try_set(browser_now() + skew);
            },
            std::time::Duration::from_secs(1),
        ) {
            on_cleanup(move || handle.clear());
        }
    }
    now.into()
}
