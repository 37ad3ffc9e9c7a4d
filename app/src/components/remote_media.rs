//! Remote images and media wait for the operator. An agent's content may name any
//! address, and loading it tells that host who is reading and when; so nothing loads until
//! the operator says so — once ("Load images from example.org", for this page) or for good
//! ("Always", kept in this browser).

use leptos::prelude::*;

use crate::markdown::host_of;

/// Where this browser keeps the hosts the operator always loads media from.
#[cfg_attr(not(any(feature = "hydrate", feature = "csr")), allow(dead_code))]
const ALWAYS_KEY: &str = "agent-os.media-hosts";

/// The hosts media may load from: for this page, and always (this browser).
#[derive(Clone, Copy)]
pub struct MediaHosts {
    page: RwSignal<Vec<String>>,
    always: RwSignal<Vec<String>>,
}

impl MediaHosts {
    /// Made once for the whole app; the browser's saved hosts are read after hydration, so
    /// the server's page and the first browser render agree (nothing loaded).
    pub fn provide() {
        let hosts = MediaHosts {
            page: RwSignal::new(Vec::new()),
            always: RwSignal::new(Vec::new()),
        };
        #[cfg(any(feature = "hydrate", feature = "csr"))]
        Effect::new(move |_| hosts.always.set(saved_hosts()));
        provide_context(hosts);
    }

    fn allows(&self, host: &str) -> bool {
        self.page.with(|hosts| hosts.iter().any(|h| h == host))
            || self.always.with(|hosts| hosts.iter().any(|h| h == host))
    }

    fn allow_for_page(&self, host: &str) {
        self.page.update(|hosts| hosts.push(host.to_owned()));
    }

    fn allow_always(&self, host: &str) {
        self.always.update(|hosts| {
            if !hosts.iter().any(|h| h == host) {
                hosts.push(host.to_owned());
            }
        });
        #[cfg(any(feature = "hydrate", feature = "csr"))]
        save_hosts(&self.always.get_untracked());
    }
}

#[cfg(any(feature = "hydrate", feature = "csr"))]
fn storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

#[cfg(any(feature = "hydrate", feature = "csr"))]
fn saved_hosts() -> Vec<String> {
    storage()
        .and_then(|storage| storage.get_item(ALWAYS_KEY).ok().flatten())
        .map(|list| {
            list.split('\n')
                .filter(|host| !host.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(any(feature = "hydrate", feature = "csr"))]
fn save_hosts(hosts: &[String]) {
    if let Some(storage) = storage() {
        let _ = storage.set_item(ALWAYS_KEY, &hosts.join("\n"));
    }
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
                        title=format!("Always load media from {host} in this browser")
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
