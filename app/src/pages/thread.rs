//! `/threads/:id`: one thread — its runs' timelines, the asks waiting for an answer, the
//! composer, and the context pane. The server renders the projection from the store;
//! after hydration the page follows each open run's live stream from the last sequence.

use leptos::prelude::*;

use crate::codec::Json;
use leptos::task::spawn_local;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use super::thread_archive::ArchiveButton;
use super::thread_runs::{
    RunStarter, discover_runs_from_elsewhere, provide_call_states, provide_thread_surfaces, signals,
};
use crate::api::{
    answer_ask, bind_agent, cancel_run, get_thread, load_thread_page, rename_thread, retry_run,
    send_message, send_surface_action,
};
use crate::components::asks::AskCard;
use crate::components::canvas::Canvas;
use crate::components::composer::Composer;
use crate::components::context_pane::{ContextPane, RunSignals, agent_environments};
use crate::components::identity::{VIEWER_NOTE, may_act};
use crate::components::output_card::CanvasSelection;
use crate::components::output_card::Selection;
use crate::components::run_section::RunSection;
use crate::components::scroll_port::{JumpToLatest, ScrollPort};
use crate::components::sidebar::ThreadsChanged;
use crate::components::timeline::{RepeatedMessages, RetryableRun};
use crate::error::ApiError;
use crate::live::{Connection, follow, is_open};
use crate::model::{AnswerOutcome, ThreadPage as ThreadData};
use crate::projection::RunView;
use crate::protocol::ask::Ask;
use crate::protocol::status::RunStatus;

#[component]
pub fn ThreadPage() -> impl IntoView {
    let params = use_params_map();
    let thread_id = move || params.read().get("id").unwrap_or_default();
    // Blocking: the status code (404 for an unknown id), the title and the whole timeline
    // with its pending asks are in the server-rendered HTML.
    let page = Resource::<_, Json>::new_with_options(thread_id, load_thread_page, true);
    view! {
        <Transition fallback=|| view! { <main class="main" id="main"><p class="muted">"Loading thread…"</p></main> }>
            {move || Suspend::new(async move {
                match page.await {
                    Ok(data) => view! { <ThreadView data /> }.into_any(),
                    Err(error) => view! { <ThreadUnavailable id=thread_id() error /> }.into_any(),
                }
            })}
        </Transition>
    }
}

/// Why a thread cannot be shown, in words, with a way on: a thread that does not exist
/// here (it may belong to another tenant) or a failure worth trying again.
#[component]
fn ThreadUnavailable(id: String, error: ApiError) -> impl IntoView {
    let (heading, text, again) = match &error {
        ApiError::NotFound(_) => (
            "Thread not found",
            format!(
                "There is no thread \u{201c}{id}\u{201d} in this workspace. It may have been \
                 removed, or it belongs to another tenant."
            ),
            false,
        ),
        other => ("Thread unavailable", other.say(), true),
    };
    view! {
        <Title text=heading />
        <main class="main" id="main" tabindex="-1">
            <section class="empty-state" role="alert" aria-labelledby="unavailable-heading">
                <h1 id="unavailable-heading">{heading}</h1>
                <p>{text}</p>
                <p class="ways-on">
                    {again.then(|| view! { <a href=format!("/threads/{id}")>"Try again"</a> " · " })}
                    <a href="/">"Back to the workspace"</a>
                </p>
            </section>
        </main>
    }
}

#[component]
fn ThreadView(data: ThreadData) -> impl IntoView {
    let thread_id = StoredValue::new(data.thread.id.clone());
    let runs: RwSignal<Vec<RunSignals>> = RwSignal::new(
        data.runs
            .into_iter()
            .map(|run| signals(run.run, run.view))
            .collect(),
    );
    let connection = RwSignal::new(Connection::Idle);
    let selection = RwSignal::new(None::<Selection>);
    let show_reasoning = RwSignal::new(false);
    let arrival = RwSignal::new(false);
    let agent = RwSignal::new(data.agent.clone());
    let agents = data.agents.clone();
    let title = RwSignal::new(data.thread.title.clone());
    let archived = RwSignal::new(data.thread.archived_at_ms.is_some());
    let busy = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    let returned = RwSignal::new(None::<String>);
    let suggestions = data.suggestions.clone();
    let environments = RwSignal::new(data.environments.clone());
    let threads_changed = use_context::<ThreadsChanged>();
    // What the thread shows, counted only while the reader is away from the live end.
    let items = Signal::derive(move || {
        runs.with(|runs| {
            runs.iter()
                .map(|run| {
                    run.view
                        .with(|view| view.items.iter().filter(|item| !item.is_blank()).count())
                })
                .sum::<usize>()
        })
    });
    let port = ScrollPort::new(items);
    provide_context(port);
    provide_context(crate::components::pinned::PinsChanged(RwSignal::new(0)));
    port.pin();
    // While the reader is at the live end, keep it in view as events arrive. Live events
    // land once a frame, and this runs right after, before the frame is laid out: one
    // layout serves both. What grows later (layout after a bulk load) the pin catches.
    Effect::new(move |_| {
        let events: u64 = runs.with(|runs| {
            runs.iter()
                .map(|run| run.view.with(|view| view.last_sequence))
                .sum()
        });
        if port.following.get() {
            port.keep_at_end();
        }
        events
    });

    // A thread with nothing in it yet is there to be written to, as is one just started:
    // the composer takes focus.
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    Effect::new(move |_| {
        if runs.with_untracked(Vec::is_empty) || crate::components::focus::WriteOn::take() {
            request_animation_frame(crate::components::focus::focus_composer);
        }
    });

    // Once hydrated, follow every run that can still change.
    Effect::new(move |_| {
        for run in runs.get_untracked() {
            if run.view.with_untracked(is_open) {
                follow(
                    &run.summary.with_untracked(|s| s.id.clone()),
                    run.view,
                    connection,
                );
            }
        }
    });

    let starter = RunStarter {
        runs,
        connection,
        port,
        busy,
        problem,
    };
    // Called from answers and sends that finish after the page may have been left.
    let discover = move || {
        if let Some(id) = thread_id.try_get_value() {
            starter.discover(id, agent);
        }
    };
    discover_runs_from_elsewhere(thread_id, runs, discover);
    let send = move |text: String| {
        // Whoever sends wants to see what comes back.
        port.jump_to_latest();
        busy.set(true);
        problem.set(None);
        returned.set(None);
        // The agent picked for a fresh thread is bound before its first message, so a
        // message sent right after the choice can never reach the previous agent.
        let first = runs.with_untracked(Vec::is_empty);
        let first_agent = first.then(|| agent.get_untracked()).flatten();
        // The page may be left while the message travels: its id is taken now.
        let id = thread_id.get_value();
        spawn_local(async move {
            if let Some(name) = first_agent
                && let Err(error) = bind_agent(id.clone(), name).await
            {
                problem.try_set(Some(error.say()));
                returned.try_set(Some(text));
                busy.try_set(false);
                return;
            }
            match send_message(id.clone(), text.clone()).await {
                Ok(summary) => {
                    starter.add(summary);
                    if agent.try_get_untracked().flatten().is_none() {
                        discover();
                    }
                    // The first message titles the thread (unless it was renamed).
                    if first && let Ok(thread) = get_thread(id).await {
                        title.try_set(thread.title);
                        if let Some(changed) = threads_changed {
                            changed.0.try_update(|n| *n += 1);
                        }
                    }
                }
                Err(error) => {
                    problem.try_set(Some(error.say()));
                    returned.try_set(Some(text));
                }
            }
            busy.try_set(false);
        });
    };

    // An action on one of the agent's surfaces: a run of its own, followed like a message's.
    let act = Callback::new(move |request: crate::a2ui::action::ActionRequest| {
        starter.start(send_surface_action(thread_id.get_value(), request));
    });
    provide_context(CanvasSelection(selection));
    provide_thread_surfaces(runs, selection, Some(act));

    // What the console chooses for an agent it negotiates with is known once the agent was
    // first asked: when a run stops, an undecided environment is asked for again.
    Effect::new(move |was_running: Option<bool>| {
        let running = runs.with(|list| {
            list.last()
                .is_some_and(|run| run.view.with(|view| !view.status.is_terminal()))
        });
        let bound = agent.get_untracked();
        let undecided = environments.with_untracked(|all| {
            all.iter().any(|environment| {
                Some(&environment.agent) == bound.as_ref()
                    && environment
                        .chosen_because
                        .as_deref()
                        .is_some_and(|why| why.starts_with("not asked yet"))
            })
        });
        if was_running == Some(true) && !running && undecided {
            spawn_local(async move {
                if let Ok(fresh) = agent_environments().await {
                    environments.try_set(fresh);
                }
            });
        }
        running
    });

    let running = Signal::derive(move || {
        runs.with(|list| {
            list.last()
                .is_some_and(|run| run.view.with(|view| !view.status.is_terminal()))
        })
    });
    let stop = move |_| {
        let Some(run) = runs.with_untracked(|list| list.last().copied()) else {
            return;
        };
        let id = run.summary.with_untracked(|s| s.id.clone());
        spawn_local(async move {
            if let Err(error) = cancel_run(id).await {
                problem.try_set(Some(error.say()));
            }
        });
    };
    // Retry: the thread's last message sent again in place of its turn (no second copy of
    // the message, in the timeline or for the agent).
    let retry = move |_| {
        let Some(last) = runs.with_untracked(|list| list.last().copied()) else {
            return;
        };
        let id = last.summary.with_untracked(|summary| summary.id.clone());
        starter.start(retry_run(id));
    };
    // The thread's last run, once over (and not waiting): what Retry redoes.
    let retryable = Memo::new(move |_| {
        runs.with(|list| {
            list.last().and_then(|run| {
                run.view
                    .with(|view| {
                        matches!(
                            view.status,
                            RunStatus::Succeeded | RunStatus::Failed | RunStatus::Cancelled
                        )
                    })
                    .then(|| run.summary.with(|summary| summary.id.clone()))
            })
        })
    });
    provide_context(RetryableRun(retryable));
    // A user message a later run sends again (a retry) is shown once, where it was first.
    let repeated = Memo::new(move |_| {
        let mut seen = std::collections::HashSet::new();
        let mut repeated = std::collections::HashSet::new();
        runs.with(|list| {
            for run in list {
                run.view.with(|view| {
                    if let Some(id) = crate::projection::history::user_message_id(view)
                        && !seen.insert(id.to_owned())
                    {
                        repeated.insert((
                            run.summary.with(|summary| summary.id.clone()),
                            id.to_owned(),
                        ));
                    }
                });
            }
        });
        repeated
    });
    provide_context(RepeatedMessages(repeated));

    let pending = Memo::new(move |_| {
        runs.with(|list| {
            list.iter()
                .flat_map(|run| {
                    let id = run.summary.with(|s| s.id.clone());
                    run.view.with(|view| {
                        view.pending_asks()
                            .map(|ask| (id.clone(), ask.clone()))
                            .collect::<Vec<(String, Ask)>>()
                    })
                })
                .collect::<Vec<_>>()
        })
    });
    let first_pending = Signal::derive(move || pending.with(|list| list.first().cloned()));
    provide_call_states(runs, pending);
    // Text typed in the composer as the answer to the waiting free-text question.
    let reply = move |(run_id, ask, text): (String, Ask, String)| {
        let Some(envelope) = crate::components::asks::free_text_receipt(&ask, &text) else {
            returned.set(Some(text));
            return;
        };
        busy.set(true);
        problem.set(None);
        spawn_local(async move {
            match answer_ask(run_id, ask.id.clone(), envelope).await {
                Ok(AnswerOutcome::Accepted) => discover(),
                Ok(AnswerOutcome::AlreadyClosed { .. }) => {
                    problem.try_set(Some(format!(
                        "\u{201c}{}\u{201d} was already answered; your text is back in the box.",
                        ask.title
                    )));
                    returned.try_set(Some(text));
                    discover();
                }
                Err(error) => {
                    problem.try_set(Some(error.say()));
                    returned.try_set(Some(text));
                }
            }
            busy.try_set(false);
        });
    };
    // An answered ask may have started a run on the server (the resume of a paused run):
    // look for it when the number of waiting asks drops or of answered ones grows (the
    // console may answer an ask before this page saw it wait), and shortly after.
    let answered = Memo::new(move |_| {
        runs.with(|list| {
            list.iter()
                .map(|run| run.view.with(RunView::closed_asks))
                .sum::<usize>()
        })
    });
    Effect::new(move |previous: Option<(usize, usize)>| {
        let count = pending.with(Vec::len);
        let closed = answered.get();
        if let Some((was_waiting, was_closed)) = previous
            && (count < was_waiting || closed > was_closed)
        {
            // The answered card is gone: focus goes on, never to the page body.
            #[cfg(any(feature = "hydrate", feature = "csr"))]
            request_animation_frame(|| {
                if crate::components::focus::focus_is_lost() {
                    crate::components::focus::focus_next_ask_or_composer();
                }
            });
            discover();
            for delay in [400u64, 1500, 4000] {
                set_timeout(discover, std::time::Duration::from_millis(delay));
            }
        }
        (count, closed)
    });
    // The chosen agent's words (the default agent's until one is chosen), while the
    // thread has no runs.
    let suggestions_shown = Signal::derive({
        let suggestions = suggestions.clone();
        move || {
            if !runs.with(Vec::is_empty) {
                return Vec::new();
            }
            crate::model::starters_of(&suggestions, agent.get().as_deref())
                .iter()
                .map(|starter| starter.prompt.clone())
                .collect()
        }
    });

    let numbered_runs = move || {
        runs.get()
            .into_iter()
            .enumerate()
            .collect::<Vec<(usize, RunSignals)>>()
    };
    // A colour the agent set with `change_background` tints this thread only.
    let background = Memo::new(move |_| {
        runs.with(|runs| {
            runs.iter()
                .rev()
                .find_map(|run| run.view.with(crate::console_tools::background_set_in))
        })
    });
    // The server writes the title outside the request's reactive arena (see `App`): it
    // is given the text itself.
    #[cfg(feature = "ssr")]
    let page_title = title.get_untracked();
    #[cfg(not(feature = "ssr"))]
    let page_title = move || title.get();
    view! {
        <Title text=page_title />
        <main
            class="main"
            class:tinted=move || background.with(Option::is_some)
            id="main"
            tabindex="-1"
            data-background=move || background.get()
            style:--thread-background=move || background.get()
        >
            <ThreadHeader thread_id title archived agent agents runs show_reasoning arrival connection threads_changed />
            {move || problem.get().map(|text| view! { <p class="error-text" role="alert">{text}</p> })}
            <section class="timeline" role="log" aria-label="Run timeline" aria-live="polite"
                node_ref=port.element on:scroll=move |_| port.on_scroll()>
                <div class="timeline-content" node_ref=port.content>
                {move || runs.with(Vec::is_empty).then(|| view! {
                    <p class="muted empty">"No runs in this thread yet. Send a message, or try a scenario below."</p>
                })}
                <For each=numbered_runs key=|(_, run)| run.summary.with_untracked(|s| s.id.clone()) let:entry>
                    <RunSection index=entry.0 run=entry.1 show_reasoning arrival
                        on_select=move |selected| selection.set(Some(selected)) on_retry=retry />
                </For>
                </div>
            </section>
            <JumpToLatest port />
            <section class="ask-lane" role="region" aria-label="Pending asks">
                <h2 class="visually-hidden">"Pending asks"</h2>
                <For each=move || pending.get() key=|(run, ask)| format!("{run}:{}", ask.id) let:entry>
                    <AskCard run_id=entry.0 ask=entry.1 on_answered=move |_| discover() />
                </For>
            </section>
            <crate::components::context_chips::ContextChips thread_id />
            <Composer running suggestions=suggestions_shown on_send=send on_stop=stop busy returned
                pending=first_pending on_reply=reply />
        </main>
        <ContextPane runs agent environments thread_id />
        <Canvas runs selection />
    }
}

#[component]
#[allow(clippy::too_many_arguments)]
fn ThreadHeader(
    thread_id: StoredValue<String>,
    title: RwSignal<String>,
    archived: RwSignal<bool>,
    agent: RwSignal<Option<String>>,
    agents: Vec<String>,
    runs: RwSignal<Vec<RunSignals>>,
    show_reasoning: RwSignal<bool>,
    arrival: RwSignal<bool>,
    connection: RwSignal<Connection>,
    threads_changed: Option<ThreadsChanged>,
) -> impl IntoView {
    let editing = RwSignal::new(false);
    let may_act = may_act();
    // Focus follows the title: into the box as it opens, back to Rename as it closes.
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    Effect::new(move |was_editing: Option<bool>| {
        let now = editing.get();
        if was_editing.is_some_and(|was| was != now) {
            let target = if now { "thread-title" } else { "rename-thread" };
            request_animation_frame(move || crate::components::focus::focus_by_id(target));
        }
        now
    });
    let field: NodeRef<leptos::html::Input> = NodeRef::new();
    let rename_problem = RwSignal::new(None::<String>);
    let save = move || {
        let Some(input) = field.get_untracked() else {
            return;
        };
        let new_title = input.value();
        let id = thread_id.get_value();
        spawn_local(async move {
            // The page may have been left meanwhile: nothing below may panic on that.
            match rename_thread(id, new_title).await {
                Ok(thread) => {
                    title.try_set(thread.title);
                    editing.try_set(false);
                    rename_problem.try_set(None);
                    if let Some(changed) = threads_changed {
                        changed.0.try_update(|n| *n += 1);
                    }
                }
                Err(error) => {
                    rename_problem.try_set(Some(error.say()));
                }
            }
        });
    };
    let choose_agent = move |event: leptos::ev::Event| {
        let name = event_target_value(&event);
        agent.set(Some(name.clone()));
        let id = thread_id.get_value();
        spawn_local(async move {
            if let Err(error) = bind_agent(id, name).await {
                rename_problem.try_set(Some(error.say()));
            }
        });
    };
    view! {
        <header class="thread-head">
            <div class="title-row">
                {move || if editing.get() {
                    view! {
                        <form class="rename" on:submit=move |event| { event.prevent_default(); save(); }
                            on:keydown=move |event: leptos::ev::KeyboardEvent| if event.key() == "Escape" {
                                event.prevent_default();
                                editing.set(false);
                            }>
                            <label for="thread-title" class="visually-hidden">"Thread title"</label>
                            <input id="thread-title" node_ref=field value=title.get_untracked() />
                            <button type="submit" class="button small primary">"Save"</button>
                            <button type="button" class="button small ghost" on:click=move |_| editing.set(false)>"Cancel"</button>
                        </form>
                    }.into_any()
                } else {
                    view! {
                        <h1>{move || title.get()}</h1>
                        <button type="button" class="button small ghost" id="rename-thread" on:click=move |_| editing.set(true)
                            disabled=move || !may_act.get() title=move || (!may_act.get()).then_some(VIEWER_NOTE)>"Rename"</button>
                        <ArchiveButton thread_id archived problem=rename_problem threads_changed />
                    }.into_any()
                }}
                {move || rename_problem.get().map(|text| view! { <span class="error-text" role="alert">{text}</span> })}
            </div>
            <div class="toolbar">
                {move || {
                    let fresh = runs.with(Vec::is_empty);
                    let options = agents.clone();
                    if fresh {
                        view! {
                            <label class="agent-choice">"Agent "
                                <select on:change=choose_agent disabled=move || !may_act.get()
                                    title=move || (!may_act.get()).then_some(VIEWER_NOTE)>
                                    {options.into_iter().enumerate().map(|(index, name)| {
                                        let selected = agent.get().map_or(index == 0, |current| current == name);
                                        view! { <option value=name.clone() selected=selected>{name.clone()}</option> }
                                    }).collect_view()}
                                </select>
                            </label>
                        }.into_any()
                    } else {
                        view! { <span class="muted">"Agent: " {move || agent.get().unwrap_or_default()}</span> }.into_any()
                    }
                }}
                <label class="toggle">
                    <input type="checkbox" prop:checked=move || show_reasoning.get()
                        on:change=move |event| show_reasoning.set(event_target_checked(&event)) />
                    "Show reasoning and steps"
                </label>
                <div class="segmented" role="group" aria-label="Timeline order">
                    <button type="button" class="button small" aria-pressed=move || (!arrival.get()).to_string()
                        on:click=move |_| arrival.set(false)>"Grouped"</button>
                    <button type="button" class="button small" aria-pressed=move || arrival.get().to_string()
                        on:click=move |_| arrival.set(true)>"Arrival order"</button>
                </div>
                <span class="connection" role="status" data-state=move || format!("{:?}", connection.get())>
                    {move || connection.get().label()}
                </span>
            </div>
        </header>
    }
}
