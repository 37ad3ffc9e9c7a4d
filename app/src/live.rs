//! The browser side of the live stream: follows a run's SSE from the last sequence the
//! page already holds and applies each event to that run's projection. The browser's
//! EventSource reconnects on its own, sending Last-Event-ID, so a dropped connection
//! resumes with no gap and no duplicate (the view also ignores repeated sequences).

use leptos::prelude::*;

use crate::projection::RunView;

/// The state of the page's live connection, shown to the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Connection {
    Idle,
    Live,
    Reconnecting,
}

impl Connection {
    pub fn label(self) -> &'static str {
        match self {
            Connection::Idle => "",
            Connection::Live => "Live",
            Connection::Reconnecting => "Reconnecting…",
        }
    }
}

/// Whether the run can still change: it is running, or an ask of it waits.
pub fn is_open(view: &RunView) -> bool {
    !view.status.is_terminal() || view.pending_asks().next().is_some()
}

/// Follows `run_id` from `view`'s last sequence until the run is over and nothing waits.
#[cfg(any(feature = "hydrate", feature = "csr"))]
pub fn follow(run_id: &str, view: RwSignal<RunView>, connection: RwSignal<Connection>) {
    follow_again(run_id, view, connection, 0);
}

/// The wait before following a run again after the server refused its stream outright
/// (a proxy's 502 while the server restarts, say), which the browser does not retry:
/// 2 s, doubling up to 30 s.
#[cfg(any(feature = "hydrate", feature = "csr"))]
fn backoff(refusals: u32) -> std::time::Duration {
    std::time::Duration::from_secs((2u64 << refusals.min(4)).min(30))
}

#[cfg(any(feature = "hydrate", feature = "csr"))]
fn follow_again(
    run_id: &str,
    view: RwSignal<RunView>,
    connection: RwSignal<Connection>,
    refusals: u32,
) {
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;

    use crate::protocol::channel::RunEvent;

    let after = view.with_untracked(|view| view.last_sequence);
    let url = format!("/api/v1/runs/{run_id}/events?after={after}");
    let Ok(source) = web_sys::EventSource::new(&url) else {
        connection.set(Connection::Reconnecting);
        return;
    };
    crate::components::identity::reload_when_moved(&source);
    let on_message = {
        let source = source.clone();
        // The page may have moved on: a disposed view closes the stream.
        batched_messages::<RunEvent>("event", move |batch| {
            let open = view.try_update(|view| {
                for event in &batch {
                    view.apply(event);
                }
                is_open(view)
            });
            match open {
                Some(true) => {
                    connection.try_set(Connection::Live);
                }
                Some(false) | None => {
                    source.close();
                    connection.try_set(Connection::Idle);
                }
            }
        })
    };
    let on_error = {
        let source = source.clone();
        let run_id = run_id.to_owned();
        Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            let refused = source.ready_state() == web_sys::EventSource::CLOSED;
            // A stream the server refused outright (not dropped) may mean the session ended.
            if refused {
                crate::components::identity::check_session();
            }
            // The stream also ends when the run is over: then there is nothing to resume.
            if view.try_with_untracked(is_open) == Some(true) {
                connection.try_set(Connection::Reconnecting);
                if refused {
                    let run_id = run_id.clone();
                    set_timeout(
                        move || {
                            if view.try_with_untracked(is_open) == Some(true) {
                                follow_again(&run_id, view, connection, refusals + 1);
                            }
                        },
                        backoff(refusals),
                    );
                }
            } else {
                source.close();
                connection.try_set(Connection::Idle);
            }
        })
    };
    // The server says when the run is over before it closes the stream, so the close is
    // not taken for a drop (the events, applied a frame later, may not show it yet).
    let on_end = {
        let source = source.clone();
        Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            source.close();
            connection.try_set(Connection::Idle);
        })
    };
    let _ = source.add_event_listener_with_callback("end", on_end.as_ref().unchecked_ref());
    on_end.forget();
    let on_open = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
        connection.try_set(Connection::Live);
    });
    source.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
    // The handlers live as long as the page: the source is closed when the run is done
    // or the page is left.
    on_message.forget();
    on_error.forget();
    on_open.forget();
    let closing = send_wrapper::SendWrapper::new(source.clone());
    on_cleanup(move || closing.close());
}

/// An EventSource message handler that reads each message as a `T` (`what` names it in
/// the warning an unreadable one gets) and hands what arrived to `apply` once a frame,
/// however many arrived: a burst of thousands (a catch-up, 200 deltas a second) costs one
/// update of the page a frame, not one each.
#[cfg(any(feature = "hydrate", feature = "csr"))]
pub fn batched_messages<T: serde::de::DeserializeOwned + 'static>(
    what: &'static str,
    apply: impl Fn(Vec<T>) + 'static,
) -> wasm_bindgen::closure::Closure<dyn FnMut(web_sys::MessageEvent)> {
    use std::cell::RefCell;
    use std::rc::Rc;

    let arrived = Rc::new(RefCell::new(Vec::<T>::new()));
    let apply = Rc::new(apply);
    let flush = {
        let arrived = Rc::clone(&arrived);
        move || {
            let batch = std::mem::take(&mut *arrived.borrow_mut());
            if !batch.is_empty() {
                apply(batch);
            }
        }
    };
    wasm_bindgen::closure::Closure::new(move |message: web_sys::MessageEvent| {
        let Some(data) = message.data().as_string() else {
            return;
        };
        match crate::codec::from_json::<T>(&data) {
            Ok(item) => {
                let first = {
                    let mut arrived = arrived.borrow_mut();
                    arrived.push(item);
                    arrived.len() == 1
                };
                if first {
                    request_animation_frame(flush.clone());
                }
            }
            Err(error) => leptos::logging::warn!("unreadable {what} on a live stream: {error}"),
        }
    })
}

/// On the server there is nothing to follow.
#[cfg(not(any(feature = "hydrate", feature = "csr")))]
pub fn follow(_run_id: &str, _view: RwSignal<RunView>, _connection: RwSignal<Connection>) {}
