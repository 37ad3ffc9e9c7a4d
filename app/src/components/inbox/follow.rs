//! The browser side of the tenant's live stream: once the inbox is loaded, follows
//! `/api/v1/inbox/events` from its position and applies each change. EventSource
//! reconnects on its own with Last-Event-ID; a `reset` (the server's feed is behind the
//! page's position) reads the inbox again.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

use crate::live::Connection;
use crate::model::inbox::InboxChange;

pub(super) fn start(tenant: super::TenantInbox) {
    let super::TenantInbox {
        loaded, live, skew, ..
    } = tenant;
    let source: StoredValue<Option<send_wrapper::SendWrapper<web_sys::EventSource>>> =
        StoredValue::new(None);
    Effect::new(move |_| {
        let Some(Ok(inbox)) = loaded.get() else {
            return;
        };
        if let Some(old) = source.get_value() {
            old.close();
        }
        let cursor = inbox.cursor;
        skew.set(Some(inbox.now_ms - js_sys::Date::now() as i64));
        live.set(Some(inbox));
        let opened = open(cursor, tenant, move || {
            live.set(None);
            loaded.refetch();
        });
        source.set_value(opened.map(send_wrapper::SendWrapper::new));
    });
    on_cleanup(move || {
        if let Some(source) = source.try_get_value().flatten() {
            source.close();
        }
    });
}

fn open(
    cursor: u64,
    inbox: super::TenantInbox,
    reset: impl Fn() + 'static,
) -> Option<web_sys::EventSource> {
    let super::TenantInbox {
        live,
        connection,
        jobs_changed,
        schedules_changed,
        boards_changed,
        ..
    } = inbox;
    let url = format!("/api/v1/inbox/events?after={cursor}");
    let Ok(source) = web_sys::EventSource::new(&url) else {
        connection.set(Connection::Reconnecting);
        return None;
    };
    crate::components::identity::reload_when_moved(&source);
    let on_message = crate::live::batched_messages::<InboxChange>("change", move |batch| {
        for (counter, heard) in [
            (
                jobs_changed,
                batch
                    .iter()
                    .any(|change| matches!(change, InboxChange::Job { .. })),
            ),
            (
                schedules_changed,
                batch
                    .iter()
                    .any(|change| matches!(change, InboxChange::Schedule { .. })),
            ),
            (
                boards_changed,
                batch
                    .iter()
                    .any(|change| matches!(change, InboxChange::Board { .. })),
            ),
        ] {
            if heard {
                counter.try_update(|count| *count += 1);
            }
        }
        live.try_update(|live| {
            if let Some(inbox) = live {
                for change in batch {
                    inbox.apply(change);
                }
            }
        });
    });
    let on_reset = {
        let source = source.clone();
        Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            source.close();
            reset();
        })
    };
    let on_error = {
        let source = source.clone();
        Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            if source.ready_state() == web_sys::EventSource::CLOSED {
                crate::components::identity::check_session();
            }
            connection.try_set(Connection::Reconnecting);
        })
    };
    let on_open = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
        connection.try_set(Connection::Live);
    });
    source.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
    let _ = source.add_event_listener_with_callback("reset", on_reset.as_ref().unchecked_ref());
    // The handlers live as long as the source, which the workspace frame closes.
    on_message.forget();
    on_error.forget();
    on_open.forget();
    on_reset.forget();
    Some(source)
}
