//! The workspace sidebar: the thread list and the "New thread" action.

use leptos::prelude::*;
use leptos_router::components::A;

use crate::api::CreateThread;
use crate::error::ApiError;
use crate::model::ThreadSummary;

#[component]
pub fn Sidebar(
    threads: Resource<Result<Vec<ThreadSummary>, ApiError>>,
    create_thread: ServerAction<CreateThread>,
    #[prop(into)] selected: Signal<Option<String>>,
) -> impl IntoView {
    let creating = create_thread.pending();
    let create_error = move || create_thread.value().get().and_then(Result::err);

    view! {
        <nav class="sidebar" aria-label="Workspace">
            <header class="sidebar-head">
                <A href="/" attr:class="brand">
                    "Agent OS"
                </A>
            </header>
            <section class="sidebar-section" aria-labelledby="threads-heading">
                <div class="section-head">
                    <h2 id="threads-heading">"Threads"</h2>
                    <ActionForm action=create_thread attr:class="inline-form">
                        <button type="submit" class="button primary" disabled=creating>
                            "New thread"
                        </button>
                    </ActionForm>
                </div>
                {move || {
                    create_error().map(|error| view! { <p class="error-text" role="alert">{error.to_string()}</p> })
                }}
                <Transition fallback=|| view! { <p class="muted">"Loading threads…"</p> }>
                    {move || Suspend::new(async move {
                        match threads.await {
                            Ok(list) => view! { <ThreadList threads=list selected /> }.into_any(),
                            Err(error) => {
                                view! {
                                    <p class="error-text" role="alert">
                                        "Threads could not be loaded: " {error.to_string()}
                                    </p>
                                }
                                    .into_any()
                            }
                        }
                    })}
                </Transition>
            </section>
        </nav>
    }
}

#[component]
fn ThreadList(threads: Vec<ThreadSummary>, selected: Signal<Option<String>>) -> impl IntoView {
    if threads.is_empty() {
        return view! { <p class="muted empty">"No threads yet. Start one with New thread."</p> }
            .into_any();
    }
    view! {
        <ul class="thread-list" aria-label="Threads">
            {threads
                .into_iter()
                .map(|thread| {
                    let href = format!("/threads/{}", thread.id);
                    let id = thread.id.clone();
                    let current = move || {
                        (selected.get().as_deref() == Some(id.as_str())).then_some("page")
                    };
                    view! {
                        <li>
                            <A href=href attr:class="thread-link" attr:aria-current=current>
                                {thread.title}
                            </A>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
    .into_any()
}
