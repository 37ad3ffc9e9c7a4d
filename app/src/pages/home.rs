//! `/`: the operator's home — the inbox of every pending ask of the tenant, and the runs
//! in progress — kept current by the tenant's live stream; while nothing waits and
//! nothing runs, a thread to start.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::codec::Json;
use crate::components::inbox::list::InboxList;
use crate::components::inbox::running::RunningNow;
use crate::components::inbox::{TenantInbox, use_inbox};
use crate::components::layout::ContextFrame;
use crate::pages::new_thread::{StartThread, load_thread_draft};

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
    let now = inbox.clock(std::time::Duration::from_secs(1));
    let may_act = crate::components::identity::may_act();
    // While nothing waits and nothing runs, the home leads somewhere: a thread to start.
    let idle = Memo::new(move |_| {
        inbox
            .with(|inbox| inbox.asks.is_empty() && inbox.running.is_empty())
            .unwrap_or(false)
    });
    let draft = Resource::<_, Json>::new_with_options(|| (), |_| load_thread_draft(None), false);
    view! {
        {move || (!may_act.get()).then(|| view! {
            <p class="notice read-only" role="note">{crate::components::identity::VIEWER_NOTE}</p>
        })}
        <div class="home-columns">
            <InboxList inbox now />
            <RunningNow inbox now />
        </div>
        <Show when=move || idle.get()>
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    draft.await.ok().map(|draft| view! { <StartThread draft title="Start a thread" /> })
                })}
            </Transition>
        </Show>
    }
}
