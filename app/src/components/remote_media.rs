//! Remote images and media wait for the operator. An agent's content may name any
//! address, and loading it tells that host who is reading and when; so nothing loads until
//! the operator says so — once ("Load images from example.org", for this page) or for good
//! ("Always", kept with the operator's account on the server, so it holds in every browser
//! they sign in from, and listed under their name where each can be forgotten).

use leptos::prelude::*;

use crate::error::ApiError;
use crate::markdown::host_of;

/// Most hosts one operator may always load media from.
pub const MOST_MEDIA_HOSTS: usize = 200;

/// The server-side half: the service the server implements and provides by context.
#[cfg(feature = "ssr")]
pub mod service {
    use std::sync::Arc;

    use crate::error::ApiError;
    use crate::model::RequestContext;

    /// The hosts each user lets remote media load from; every method acts for the
    /// context's own user, whatever their role.
    #[async_trait::async_trait]
    pub trait MediaHostsService: Send + Sync + 'static {
        async fn media_hosts(&self, context: &RequestContext) -> Result<Vec<String>, ApiError>;
        /// Replaces the list; a host that is not a plain name or address is refused.
        async fn set_media_hosts(
            &self,
            context: &RequestContext,
            hosts: Vec<String>,
        ) -> Result<Vec<String>, ApiError>;
    }

    #[derive(Clone)]
    pub struct MediaHosts(pub Arc<dyn MediaHostsService>);

    pub fn media_hosts() -> Result<Arc<dyn MediaHostsService>, ApiError> {
        leptos::prelude::use_context::<MediaHosts>()
            .map(|hosts| hosts.0)
            .ok_or_else(|| ApiError::Internal("the media hosts service is not provided".into()))
    }
}

/// The hosts the signed-in operator always loads media from.
#[server(prefix = "/fn", endpoint = "media_hosts")]
pub async fn load_media_hosts() -> Result<Vec<String>, ApiError> {
    use crate::api::service::{context, with_status};
    with_status(service::media_hosts()?.media_hosts(&context()?).await)
}

/// Replaces the hosts the signed-in operator always loads media from (`hosts`, one per
/// line); answers the list as kept.
#[server(prefix = "/fn", endpoint = "set_media_hosts")]
pub async fn save_media_hosts(hosts: String) -> Result<Vec<String>, ApiError> {
    use crate::api::service::{context, with_status};
    let hosts = hosts.lines().map(str::to_owned).collect();
    with_status(
        service::media_hosts()?
            .set_media_hosts(&context()?, hosts)
            .await,
    )
}

/// Where this browser kept its hosts before they were kept with the account; read once
/// and moved to the server.
#[cfg_attr(not(any(feature = "hydrate", feature = "csr")), allow(dead_code))]
const OLD_BROWSER_KEY: &str = "agent-os.media-hosts";

/// The hosts media may load from: for this page, and always (the operator's account).
#[derive(Clone, Copy)]
pub struct MediaHosts {
    page: RwSignal<Vec<String>>,
    always: RwSignal<Vec<String>>,
    /// Why the last change of the list did not reach the server, if it did not.
    pub failure: RwSignal<Option<String>>,
}

impl MediaHosts {
    /// Made once for the whole app; the operator's hosts are read once the page is
    /// interactive, so the server's page and the browser's hydration agree (nothing
    /// loaded) however long hydration waits for a lazy page's code.
    pub fn provide() {
        let hosts = MediaHosts {
            page: RwSignal::new(Vec::new()),
            always: RwSignal::new(Vec::new()),
            failure: RwSignal::new(None),
        };
        #[cfg(any(feature = "hydrate", feature = "csr"))]
        Effect::new(move |read: Option<bool>| {
            if read == Some(true) {
                return true;
            }
            if !crate::interactive::is_interactive() {
                return false;
            }
            leptos::task::spawn_local(async move {
                let Ok(kept) = load_media_hosts().await else {
                    return;
                };
                hosts.always.set(kept.clone());
                let mut merged = kept.clone();
                for host in browser_hosts() {
                    if !merged.contains(&host) {
                        merged.push(host);
                    }
                }
                // The browser's old list goes only once the account holds all of it.
                if merged.len() == kept.len() || hosts.store(merged).await {
                    forget_browser_hosts();
                }
            });
            true
        });
        provide_context(hosts);
    }

    /// The hosts media always loads from, as last read or changed.
    pub fn always(&self) -> Vec<String> {
        self.always.get()
    }

    fn allows(&self, host: &str) -> bool {
        self.page.with(|hosts| hosts.iter().any(|h| h == host))
            || self.always.with(|hosts| hosts.iter().any(|h| h == host))
    }

    fn allow_for_page(&self, host: &str) {
        self.page.update(|hosts| hosts.push(host.to_owned()));
    }

    fn allow_always(&self, host: &str) {
        let mut hosts = self.always.get_untracked();
        if !hosts.iter().any(|h| h == host) {
            hosts.push(host.to_owned());
        }
        self.save(hosts);
    }

    /// Stops loading media from `host` without asking (what this page allowed once goes too).
    pub fn forget(&self, host: &str) {
        self.page.update(|hosts| hosts.retain(|h| h != host));
        let mut hosts = self.always.get_untracked();
        hosts.retain(|h| h != host);
        self.save(hosts);
    }

    /// Shows `hosts` at once and keeps them on the server.
    fn save(&self, hosts: Vec<String>) {
        let this = *self;
        leptos::task::spawn_local(async move {
            this.store(hosts).await;
        });
    }

    /// Shows `hosts` at once and keeps them on the server; on failure the list goes back
    /// to what the server holds and the failure is said. Whether the server kept them.
    async fn store(self, hosts: Vec<String>) -> bool {
        self.always.set(hosts.clone());
        match save_media_hosts(hosts.join("\n")).await {
            Ok(kept) => {
                self.always.set(kept);
                self.failure.set(None);
                true
            }
            Err(error) => {
                self.failure.set(Some(error.to_string()));
                if let Ok(kept) = load_media_hosts().await {
                    self.always.set(kept);
                }
                false
            }
        }
    }
}

#[cfg(any(feature = "hydrate", feature = "csr"))]
fn browser_hosts() -> Vec<String> {
    window()
        .local_storage()
        .ok()
        .flatten()
        .and_then(|storage| storage.get_item(OLD_BROWSER_KEY).ok().flatten())
        .map(|list| {
            list.lines()
                .filter_map(crate::markdown::media_host)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(any(feature = "hydrate", feature = "csr"))]
fn forget_browser_hosts() {
    if let Some(storage) = window().local_storage().ok().flatten() {
        let _ = storage.remove_item(OLD_BROWSER_KEY);
    }
}

/// The hosts the operator always loads media from, each with "Forget", and what went
/// wrong keeping the list, if anything did.
#[component]
pub fn MediaHostsList() -> impl IntoView {
    let Some(hosts) = use_context::<MediaHosts>() else {
        return ().into_any();
    };
    let count = move || hosts.always.with(Vec::len);
    let shown = move || count() > 0 || hosts.failure.with(Option::is_some);
    view! {
        <Show when=shown>
            <details class="media-hosts">
                <summary>{move || match count() {
                    1 => "Media allowed from 1 site".to_owned(),
                    n => format!("Media allowed from {n} sites"),
                }}</summary>
                <ul aria-label="Sites media loads from">
                    <For each=move || hosts.always() key=|host| host.clone() let:host>
                        <li>
                            <span>{host.clone()}</span>
                            <button type="button" class="button small ghost"
                                aria-label=format!("Forget {host}")
                                on:click={
                                    let host = host.clone();
                                    move |_| hosts.forget(&host)
                                }>"Forget"</button>
                        </li>
                    </For>
                </ul>
                {move || hosts.failure.get().map(|failure| view! {
                    <p class="error-text" role="alert">{format!("Not kept: {failure}")}</p>
                })}
            </details>
        </Show>
    }
    .into_any()
}

/// `media` (an image, audio or video at `src`) once its host is allowed; until then a
/// line naming what it is and where it would load from, with the two ways to allow it.
/// `what` is the plural the buttons use ("images", "videos").
#[component]
pub fn RemoteMedia(
    #[prop(into)] src: String,
    #[prop(into)] what: String,
    #[prop(into)] description: String,
    #[prop(into)] media: ViewFn,
) -> impl IntoView {
    // Inline data loads nothing from the network: nothing to consent to.
    if src.starts_with("data:image/") {
        return media.run().into_any();
    }
    let Some(host) = host_of(&src) else {
        return view! { <span class="media-refused">{format!("Not loaded (no web address): {description}")}</span> }
            .into_any();
    };
    let hosts = use_context::<MediaHosts>();
    let allowed = {
        let host = host.clone();
        move || hosts.is_some_and(|hosts| hosts.allows(&host))
    };
    let gate = {
        let host = host.clone();
        move || {
            let (once, always) = (host.clone(), host.clone());
            view! {
                <span class="media-gate" data-host=host.clone()>
                    <span class="media-what">{description.clone()}</span>
                    <button type="button" class="button small"
                        on:click=move |_| if let Some(hosts) = hosts { hosts.allow_for_page(&once) }>
                        {format!("Load {what} from {host}")}
                    </button>
                    <button type="button" class="button small ghost"
                        title=format!("Always load media from {host}, in every browser you sign in from")
                        on:click=move |_| if let Some(hosts) = hosts { hosts.allow_always(&always) }>
                        "Always"
                    </button>
                </span>
            }
        }
    };
    view! {
        <Show when=allowed fallback=gate>
            {media.run()}
        </Show>
    }
    .into_any()
}
