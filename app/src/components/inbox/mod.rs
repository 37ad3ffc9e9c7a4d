//! The operator's inbox: every pending ask of the tenant and the runs in progress, loaded
//! once for the whole workspace frame and kept current by one live stream per tab; the
//! home page lists them ([`list`], [`running`]) and the sidebar counts them.

use leptos::prelude::*;

use crate::codec::Json;
use crate::error::ApiError;
use crate::live::Connection;
use crate::model::inbox::Inbox;

#[cfg(any(feature = "hydrate", feature = "csr"))]
mod follow;
pub mod list;
pub mod running;

/// Every pending ask of the tenant and its runs in progress.
#[server(prefix = "/fn", endpoint = "inbox")]
pub async fn load_inbox() -> Result<Inbox, ApiError> {
    use crate::api::service::*;
    with_status(workspace()?.inbox(&tenant()?).await)
}

/// The tenant's inbox, shared by the sidebar and the home page.
#[derive(Clone, Copy)]
pub struct TenantInbox {
    /// As the server read it (and rendered it).
    loaded: Resource<Result<Inbox, ApiError>, Json>,
    /// As it stands now, once the browser follows the live stream.
    live: RwSignal<Option<Inbox>>,
    pub connection: RwSignal<Connection>,
    /// The server's clock less this browser's, measured as the inbox reached the browser.
    pub skew: RwSignal<Option<i64>>,
}

impl TenantInbox {
    /// Reads the inbox as it now stands (tracked); none until it is loaded.
    pub fn with<R>(&self, read: impl FnOnce(&Inbox) -> R) -> Option<R> {
        let mut read = Some(read);
        let from_live = self.live.with(|live| {
            let inbox = live.as_ref()?;
            read.take().map(|read| read(inbox))
        });
        if from_live.is_some() {
            return from_live;
        }
        let read = read?;
        self.loaded.with(|loaded| match loaded {
            Some(Ok(inbox)) => Some(read(inbox)),
            _ => None,
        })
    }

    /// Resolves once the server's reading is in (for Suspense); its error, if it failed.
    pub async fn ready(self) -> Result<(), ApiError> {
        self.loaded.await.map(|_| ())
    }

    /// Drops an ask answered here at once; the stream confirms it.
    pub fn remove_ask(&self, key: &str) {
        self.live.update(|live| {
            if let Some(inbox) = live {
                inbox.remove_ask(key);
            }
        });
    }
}

/// Loads the inbox for the workspace frame and, in the browser, follows it live.
pub fn provide_inbox() -> TenantInbox {
    let inbox = TenantInbox {
        loaded: Resource::new_with_options(|| (), |_| load_inbox(), false),
        live: RwSignal::new(None),
        connection: RwSignal::new(Connection::Idle),
        skew: RwSignal::new(None),
    };
    provide_context(inbox);
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    follow::start(inbox.loaded, inbox.live, inbox.connection, inbox.skew);
    inbox
}

pub fn use_inbox() -> Option<TenantInbox> {
    use_context::<TenantInbox>()
}

/// The sidebar's way home: "Inbox" with how many asks wait, kept current.
#[component]
pub fn InboxLink() -> impl IntoView {
    let inbox = use_inbox();
    // Only asks this user can answer are counted: a viewer is not called to any.
    let may_act = crate::components::identity::may_act();
    let count = move || {
        inbox
            .and_then(|inbox| inbox.with(|inbox| inbox.pending))
            .filter(|_| may_act.get())
    };
    let label = move || match count() {
        Some(0) => "Inbox, nothing waiting for you".to_owned(),
        Some(1) => "Inbox, 1 ask waiting for you".to_owned(),
        Some(n) => format!("Inbox, {n} asks waiting for you"),
        None => "Inbox".to_owned(),
    };
    let link = move || {
        view! {
            <a href="/" class="thread-link inbox-link" aria-label=label>
                "Inbox"
                {move || count().filter(|n| *n > 0).map(|n| view! {
                    <span class="count-badge" aria-hidden="true">{n.to_string()}</span>
                })}
            </a>
        }
    };
    view! {
        <Transition fallback=move || view! { <a href="/" class="thread-link inbox-link">"Inbox"</a> }>
            {move || Suspend::new(async move {
                if let Some(inbox) = inbox {
                    let _ = inbox.ready().await;
                }
                link()
            })}
        </Transition>
    }
}
