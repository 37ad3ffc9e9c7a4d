//! The router, the HTML shell and the workspace frame every page renders inside.

use leptos::prelude::*;
use leptos_meta::{MetaTags, Title, provide_meta_context};
use leptos_router::components::{Outlet, ParentRoute, Route, Router, Routes};
use leptos_router::{Lazy, path};

use crate::api::list_threads;
use crate::codec::Json;
use crate::components::identity::{load_me, provide_signed_in, watch_session};
use crate::components::layout::{NarrowBar, Pane, PaneResizer, provide_layout};
use crate::components::palette::Palette;
use crate::components::sidebar::{Sidebar, ThreadsChanged};
use crate::pages::home::HomePage;
use crate::pages::new_thread::NewThreadPage;
use crate::pages::not_found::NotFoundPage;
use crate::pages::thread::ThreadPage;
use crate::routes;

/// The document the server renders around the app; it also loads the hydration bundle.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    provide_script_nonce();
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name="color-scheme" content="light dark" />
                <script nonce=leptos::nonce::use_nonce()>{crate::components::layout::THEME_BOOT_SCRIPT}</script>
                <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
                <link rel="stylesheet" id="leptos" href=stylesheet_href(&options) />
                <AutoReload options=options.clone() />
                <HydrationScripts options />
                <MetaTags />
            </head>
            <body>
                <App />
            </body>
        </html>
    }
}

/// The nonce the server put on this request for its Content-Security-Policy: every script
/// the page carries (the theme boot script, the hydration scripts, streamed data) bears
/// it, and no other inline script runs.
#[cfg(feature = "ssr")]
#[derive(Clone, Debug)]
pub struct ScriptNonce(pub std::sync::Arc<str>);

#[cfg(feature = "ssr")]
fn provide_script_nonce() {
    if let Some(nonce) = use_context::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<ScriptNonce>().cloned())
    {
        provide_context(leptos::nonce::Nonce::from_value(nonce.0));
    }
}

/// The stylesheet's URL: under its content-hashed name when the build wrote one (the
/// hash file's `css:` line), so browsers may keep it for good.
fn stylesheet_href(options: &LeptosOptions) -> String {
    let (pkg, stem) = (&options.site_pkg_dir, &options.output_name);
    match asset_hash(options, "css") {
        Some(hash) => format!("/{pkg}/{stem}.{hash}.css"),
        None => format!("/{pkg}/{stem}.css"),
    }
}

/// The hash of one built asset (`js`, `wasm` or `css`), read once from the hash file.
#[cfg(feature = "ssr")]
fn asset_hash(options: &LeptosOptions, kind: &str) -> Option<String> {
    static HASHES: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    if !options.hash_files {
        return None;
    }
    let hashes = HASHES.get_or_init(|| {
        std::fs::read_to_string(options.hash_file.as_ref())
            .unwrap_or_default()
            .lines()
            .filter_map(|line| {
                let (kind, hash) = line.split_once(':')?;
                Some((kind.trim().to_owned(), hash.trim().to_owned()))
            })
            .collect()
    });
    hashes
        .iter()
        .find(|(known, _)| known == kind)
        .map(|(_, hash)| hash.clone())
}

#[cfg(not(feature = "ssr"))]
fn asset_hash(_options: &LeptosOptions, _kind: &str) -> Option<String> {
    None
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    // A hydrating page is marked once the whole of it is hydrated (frontend/).
    #[cfg(not(feature = "hydrate"))]
    Effect::new(|_| crate::interactive::mark_interactive());
    crate::components::remote_media::MediaHosts::provide();
    // A lazy page's code, or a page's data, may take a moment to arrive on a slow link.
    let (routing, set_routing) = signal(false);

    let waiting = RwSignal::new(0u64);
    provide_context(WaitingForYou(waiting));

    // The server writes the title while its response streams, outside the request's
    // reactive arena, where no signal may be read: it has nothing waiting to count yet.
    #[cfg(feature = "ssr")]
    let formatter = |page: String| titled(&page, 0);
    #[cfg(not(feature = "ssr"))]
    let formatter = move |page: String| titled(&page, waiting.get());

    view! {
        <Title formatter />
        <div class="route-progress" data-active=move || routing.get().then_some("")>
            // A live region without the status role: pages keep `status` for their own.
            <span class="visually-hidden" aria-live="polite">
                {move || routing.get().then_some("Opening the page…")}
            </span>
        </div>
        <Router set_is_routing=set_routing>
            // A path no route names still renders in the workspace frame (its not-found
            // page with the sidebar); signing in and setting up render alone.
            <Routes fallback=|| view! { <Workspace><NotFoundPage /></Workspace> }>
                <Route path=path!("/login") view={Lazy::<routes::Login>::new()} />
                <Route path=path!("/setup") view={Lazy::<routes::Setup>::new()} />
                <ParentRoute path=path!("") view=|| view! { <Workspace><Outlet /></Workspace> }>
                    <Route path=path!("/") view=HomePage />
                    <Route path=path!("/new") view=NewThreadPage />
                    <Route path=path!("/threads/:id") view=ThreadPage />
                    <Route path=path!("/projects") view={Lazy::<routes::Projects>::new()} />
                    <Route path=path!("/projects/:id") view={Lazy::<routes::Project>::new()} />
                    <Route path=path!("/notes") view={Lazy::<routes::Notes>::new()} />
                    <Route path=path!("/notes/:id") view={Lazy::<routes::Note>::new()} />
                    <Route path=path!("/memory") view={Lazy::<routes::Memory>::new()} />
                    <Route path=path!("/passvault") view={Lazy::<routes::Passvault>::new()} />
                    <Route path=path!("/schedules") view={Lazy::<routes::Schedules>::new()} />
                    <Route path=path!("/kanban") view={Lazy::<routes::Kanban>::new()} />
                    <Route path=path!("/curator") view={Lazy::<routes::CuratorJobs>::new()} />
                    <Route path=path!("/audit") view={Lazy::<routes::Audit>::new()} />
                    <Route path=path!("/gallery") view={Lazy::<routes::Gallery>::new()} />
                    <Route path=path!("/members") view={Lazy::<routes::Members>::new()} />
                </ParentRoute>
            </Routes>
        </Router>
    }
}

/// How many asks wait for the signed-in user, as the tab's title counts them.
#[derive(Clone, Copy)]
struct WaitingForYou(RwSignal<u64>);

/// A tab's title: the page's, the product's, and "(N)" ahead while N asks wait.
fn titled(page: &str, waiting: u64) -> String {
    let title = if page.is_empty() {
        "Agent OS".to_owned()
    } else {
        format!("{page} · Agent OS")
    };
    if waiting == 0 {
        title
    } else {
        format!("({waiting}) {title}")
    }
}

/// Sidebar, main area (`children`) and context pane; loads the thread list the sidebar
/// shows and who is signed in.
#[component]
fn Workspace(children: Children) -> impl IntoView {
    let changed = RwSignal::new(0u32);
    provide_context(ThreadsChanged(changed));
    let threads =
        Resource::<_, Json>::new_with_options(move || changed.get(), |_| list_threads(), false);

    let layout = provide_layout();
    crate::components::focus::WriteOn::provide();
    let inbox = crate::components::inbox::provide_inbox();
    crate::components::palette::provide_overlays();
    let may_act = crate::components::identity::may_act();
    let waiting = expect_context::<WaitingForYou>().0;
    // The tab's title counts what waits for this user; the browser's to keep, so the
    // server's page and the hydrated one agree.
    Effect::new(move |_| waiting.set(inbox.waiting_for_you(may_act).unwrap_or(0)));
    on_cleanup(move || waiting.set(0));

    let me = Resource::<_, Json>::new_with_options(|| (), |_| load_me(), false);
    let signed_in = provide_signed_in();
    watch_session();
    // Filled in the browser only, so the server's page and the hydrated one agree.
    Effect::new(move |_| {
        if let Some(Ok(user)) = me.get() {
            signed_in.0.set(Some(user));
        }
    });

    view! {
        <a class="skip-link" href="#main">"Skip to content"</a>
        <div class="shell" style=move || layout.shell_style()
            data-sidebar=move || if layout.sidebar_open.get() { "open" } else { "collapsed" }
            data-context=move || if layout.context_open.get() { "open" } else { "collapsed" }
            data-drawer=move || if layout.drawer_open.get() { "open" } else { "closed" }
            data-sheet=move || if layout.sheet_open.get() { "open" } else { "closed" }
            on:keydown=move |event: leptos::ev::KeyboardEvent| {
                // Esc closes the drawer or the sheet of a narrow screen, wherever focus is.
                if event.key() == "Escape" {
                    layout.drawer_open.set(false);
                    layout.sheet_open.set(false);
                }
            }>
            <NarrowBar />
            <Sidebar threads me />
            <Palette threads />
            <PaneResizer pane=Pane::Sidebar />
            {children()}
            <PaneResizer pane=Pane::Context />
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::titled;

    #[test]
    fn the_tab_title_counts_the_asks_waiting_for_you() {
        assert_eq!(titled("", 0), "Agent OS");
        assert_eq!(titled("Inbox", 0), "Inbox · Agent OS");
        assert_eq!(titled("Inbox", 2), "(2) Inbox · Agent OS");
    }
}
