//! The signed-in user as the console knows them: who, in which tenant, with which role —
//! and so whether this console may act or only watch. The server decides every request;
//! this only keeps the screen from offering what it would refuse.

use leptos::prelude::*;

use crate::error::ApiError;
use crate::model::{Me, Role};

/// The signed-in user, the tenant this request acts for and the role held there, and the
/// tenants the user may switch to.
#[server(prefix = "/fn", endpoint = "me")]
pub async fn load_me() -> Result<Me, ApiError> {
    use crate::api::service::*;
    let context = context()?;
    let invitations = with_status(members()?.my_invitations(&context).await)?;
    Ok(Me {
        user: context.actor,
        tenant: context.tenant,
        role: context.role,
        memberships: context.memberships,
        invitations,
    })
}

/// Filled once the browser has loaded who is signed in; empty on the server and until
/// then, when nothing is withheld (the server still refuses what the role may not do).
#[derive(Clone, Copy)]
pub struct SignedIn(pub RwSignal<Option<Me>>);

pub fn provide_signed_in() -> SignedIn {
    let signed_in = SignedIn(RwSignal::new(None));
    provide_context(signed_in);
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    Effect::new(move |_| {
        let tenant = signed_in
            .0
            .with(|me| me.as_ref().map(|me| me.tenant.clone()));
        if tenant.is_some() {
            PAGE_TENANT.with(|page| *page.borrow_mut() = tenant);
        }
    });
    signed_in
}

#[cfg(any(feature = "hydrate", feature = "csr"))]
thread_local! {
    /// The tenant this page was drawn for, once known.
    static PAGE_TENANT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Reloads the page, in the session's tenant now, when `source` streams another tenant
/// than the one the page was drawn for (the session switched tenants in another tab).
/// Every live stream opens by naming its tenant (`event: tenant`).
#[cfg(any(feature = "hydrate", feature = "csr"))]
pub fn reload_when_moved(source: &web_sys::EventSource) {
    use wasm_bindgen::JsCast;
    let closing = source.clone();
    let on_tenant = wasm_bindgen::closure::Closure::<dyn FnMut(web_sys::MessageEvent)>::new(
        move |message: web_sys::MessageEvent| {
            let Some(streamed) = message.data().as_string() else {
                return;
            };
            let moved = PAGE_TENANT.with(|page| {
                let mut page = page.borrow_mut();
                match page.as_deref() {
                    Some(drawn) => drawn != streamed,
                    None => {
                        *page = Some(streamed);
                        false
                    }
                }
            });
            if moved {
                closing.close();
                let _ = window().location().reload();
            }
        },
    );
    let _ = source.add_event_listener_with_callback("tenant", on_tenant.as_ref().unchecked_ref());
    on_tenant.forget();
}

/// Whether the signed-in user may change things here (start runs, answer asks); false
/// only once they are known to be a viewer.
pub fn may_act() -> Signal<bool> {
    let signed_in = use_context::<SignedIn>();
    Signal::derive(move || {
        signed_in
            .and_then(|signed_in| signed_in.0.with(|me| me.as_ref().map(|me| me.role)))
            .is_none_or(|role| role.allows(Role::Operator))
    })
}

/// Whether the signed-in user is known to be an owner here: false until known, so what
/// only owners may do is not offered to anyone else, even for a moment.
pub fn is_owner() -> Signal<bool> {
    let signed_in = use_context::<SignedIn>();
    Signal::derive(move || {
        signed_in.is_some_and(|signed_in| {
            signed_in
                .0
                .with(|me| me.as_ref().is_some_and(|me| me.role.allows(Role::Owner)))
        })
    })
}

/// What a viewer is told where they cannot act.
pub const VIEWER_NOTE: &str = "You are a viewer in this tenant: you can follow runs and asks, but not send, stop or answer. An owner can make you an operator.";

/// Sends this browser to sign in — and back here afterwards — once the server no longer
/// knows its session (it ended: idle, too old, signed out elsewhere, a new password).
/// Checked when the tab comes back into view and when a live stream is refused; a page
/// load is checked by the server itself. Never on a timer: a tab left open must not keep
/// an idle session alive.
pub fn watch_session() {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        let listener = window_event_listener_untyped("visibilitychange", |_| {
            if !document().hidden() {
                check_session();
            }
        });
        on_cleanup(move || listener.remove());
    }
}

/// Asks the server who is signed in; on "no one", goes to the sign-in page.
pub fn check_session() {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    leptos::task::spawn_local(async {
        if let Err(crate::error::ApiError::Unauthorized(_)) = load_me().await {
            let location = window().location();
            let here = format!(
                "{}{}",
                location.pathname().unwrap_or_default(),
                location.search().unwrap_or_default()
            );
            let next = String::from(js_sys::encode_uri_component(&here));
            let _ = location.assign(&format!("/login?next={next}"));
        }
    });
}
