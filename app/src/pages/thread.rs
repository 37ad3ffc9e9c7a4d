//! `/threads/:id`: one thread and its runs.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use crate::api::get_thread;

#[component]
pub fn ThreadPage() -> impl IntoView {
    let params = use_params_map();
    let thread_id = move || params.read().get("id").unwrap_or_default();
    // Blocking: the status code (404 for an unknown id) and the title must be known
    // before the response head is sent.
    let thread = Resource::new_blocking(thread_id, get_thread);

    view! {
        <Transition fallback=|| view! { <p class="muted">"Loading thread…"</p> }>
            {move || Suspend::new(async move {
                match thread.await {
                    Ok(thread) => {
                        view! {
                            <Title text=thread.title.clone() />
                            <header class="thread-head">
                                <h1>{thread.title}</h1>
                            </header>
                            <section class="timeline" role="log" aria-label="Run timeline" aria-live="polite">
                                <p class="muted empty">"No runs in this thread yet."</p>
                            </section>
                        }
                            .into_any()
                    }
                    Err(error) => {
                        view! {
                            <Title text="Thread unavailable" />
                            <section class="empty-state" role="alert">
                                <h1>"Thread unavailable"</h1>
                                <p>{error.to_string()}</p>
                            </section>
                        }
                            .into_any()
                    }
                }
            })}
        </Transition>
    }
}
