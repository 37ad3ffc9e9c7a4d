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
    /// Counts the batches of job changes the stream carried (the Curator page follows it).
    jobs_changed: RwSignal<u64>,
    /// Counts the batches of schedule changes (the Schedules page follows it).
    schedules_changed: RwSignal<u64>,
    /// Counts the batches of board changes (the Kanban page follows it).
    boards_changed: RwSignal<u64>,
}

/// Which background work a page follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Background {
    Jobs,
    Schedules,
    Boards,
}

/// The least time between two re-reads of a page that follows background work: a busy
/// engine changes jobs many times a second, and the page reads them again as a whole.
#[cfg(any(feature = "hydrate", feature = "csr"))]
const REREAD_EVERY_MS: f64 = 1000.0;

/// A number that moves when the tenant's `which` changed on the live stream, at most
/// once a second: a page puts it in its resource's source to read again.
pub fn background_changes(which: Background) -> Signal<u64> {
    let Some(inbox) = use_inbox() else {
        return Signal::derive(|| 0);
    };
    let source = match which {
        Background::Jobs => inbox.jobs_changed,
        Background::Schedules => inbox.schedules_changed,
        Background::Boards => inbox.boards_changed,
    };
    let settled = RwSignal::new(source.get_untracked());
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        let last = StoredValue::new(0.0_f64);
        let waiting = StoredValue::new(false);
        Effect::new(move |_| {
            let count = source.get();
            if count == settled.get_untracked() || waiting.get_value() {
                return;
            }
            let since = js_sys::Date::now() - last.get_value();
            if since >= REREAD_EVERY_MS {
                last.set_value(js_sys::Date::now());
                settled.set(count);
                return;
            }
            waiting.set_value(true);
            set_timeout(
                move || {
                    waiting.try_set_value(false);
                    last.try_set_value(js_sys::Date::now());
                    if let Some(count) = source.try_get_untracked() {
                        settled.try_set(count);
                    }
                },
                std::time::Duration::from_millis((REREAD_EVERY_MS - since).max(0.0) as u64),
            );
        });
    }
    settled.into()
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

    /// The time ages and elapsed times are counted to: the server's when it read the
    /// inbox (so both renderings agree), then the browser's, set to the server's clock,
    /// every `tick`. Reached later in the tab (not hydrating), it starts at the server's time now:
    /// the inbox may have been read long before, and runs started since would count from
    /// then. Before the inbox is in, each side's own clock.
    pub fn clock(self, tick: std::time::Duration) -> Signal<i64> {
        #[cfg(not(any(feature = "hydrate", feature = "csr")))]
        let _ = tick;
        let read_at =
            untrack(|| self.with(|inbox| inbox.now_ms)).unwrap_or_else(crate::when::now_ms);
        let now = RwSignal::new(read_at);
        #[cfg(any(feature = "hydrate", feature = "csr"))]
        {
            let browser_now = || js_sys::Date::now() as i64;
            let measured = self.skew.get_untracked();
            let skew = measured.unwrap_or(read_at - browser_now());
            if measured.is_some() {
                now.set(browser_now() + skew);
            }
            if let Ok(handle) = set_interval_with_handle(
                move || {
                    now.try_set(browser_now() + skew);
                },
                tick,
            ) {
                on_cleanup(move || handle.clear());
            }
        }
        now.into()
    }

    /// How many asks wait for this user (tracked): only those they may answer, so none
    /// for a viewer; unknown until the inbox is in.
    pub fn waiting_for_you(self, may_act: Signal<bool>) -> Option<u64> {
        self.with(|inbox| inbox.pending).filter(|_| may_act.get())
    }

    /// Whether a thread has an ask waiting, or a run in progress (tracked).
    pub fn thread_state(self, thread_id: &str) -> Option<ThreadState> {
        self.with(|inbox| {
            if inbox.asks.iter().any(|ask| ask.thread_id == thread_id) {
                Some(ThreadState::Waiting)
            } else if inbox.running.iter().any(|run| run.thread_id == thread_id) {
                Some(ThreadState::Running)
            } else {
                None
            }
        })
        .flatten()
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

/// What a thread is doing, as its dot in the sidebar says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadState {
    /// An ask waits for an operator.
    Waiting,
    /// A run is in progress.
    Running,
}

impl ThreadState {
    pub fn word(self) -> &'static str {
        match self {
            ThreadState::Waiting => "waiting",
            ThreadState::Running => "running",
        }
    }

    /// What a screen reader says of it, after the thread's title.
    pub fn description(self) -> &'static str {
        match self {
            ThreadState::Waiting => "Waiting for an answer",
            ThreadState::Running => "Running",
        }
    }
}

/// Loads the inbox for the workspace frame and, in the browser, follows it live.
pub fn provide_inbox() -> TenantInbox {
    let inbox = TenantInbox {
        loaded: Resource::new_with_options(|| (), |_| load_inbox(), false),
        live: RwSignal::new(None),
        connection: RwSignal::new(Connection::Idle),
        skew: RwSignal::new(None),
        jobs_changed: RwSignal::new(0),
        schedules_changed: RwSignal::new(0),
        boards_changed: RwSignal::new(0),
    };
    provide_context(inbox);
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    follow::start(inbox);
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
    let count = move || inbox.and_then(|inbox| inbox.waiting_for_you(may_act));
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
