//! "Running now": the tenant's runs in progress with their agent, thread, how long each
//! has run, what it did last, and Stop.

use leptos::prelude::*;

use super::TenantInbox;
use crate::api::cancel_run;
use crate::components::identity::{VIEWER_NOTE, may_act};
use crate::model::inbox::ActiveRun;
use crate::when;

#[component]
pub fn RunningNow(inbox: TenantInbox, now: Signal<i64>) -> impl IntoView {
    let ids = Memo::new(move |_| {
        inbox
            .with(|inbox| {
                inbox
                    .running
                    .iter()
                    .map(|run| run.run_id.clone())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    });
    view! {
        <section class="running-now" id="running-now" aria-labelledby="running-heading">
            <h2 id="running-heading">"Running now"</h2>
            <Show when=move || !ids.with(Vec::is_empty)
                fallback=|| view! { <p class="muted">"No run is in progress."</p> }>
                <ul class="running-list" aria-label="Runs in progress">
                    <For each=move || ids.get() key=|id| id.clone() let:run_id>
                        {
                            let run = untrack(|| inbox.with(|inbox| {
                                inbox.running.iter().find(|run| run.run_id == run_id).cloned()
                            }))
                            .flatten();
                            run.map(|run| view! { <RunningRow run inbox now /> })
                        }
                    </For>
                </ul>
            </Show>
        </section>
    }
}

#[component]
fn RunningRow(run: ActiveRun, inbox: TenantInbox, now: Signal<i64>) -> impl IntoView {
    let may_act = may_act();
    let run_id = StoredValue::new(run.run_id.clone());
    let started = run.started_at_ms;
    let elapsed = move || when::elapsed(now.get() - started);
    // The row as the stream now has it: its line and its thread's name follow it.
    let known = Memo::new(move |_| {
        inbox
            .with(|inbox| {
                inbox
                    .running
                    .iter()
                    .find(|known| run_id.with_value(|id| &known.run_id == id))
                    .cloned()
            })
            .flatten()
    });
    let activity = move || {
        known
            .with(|known| {
                known.as_ref().and_then(|known| {
                    known
                        .activity
                        .as_ref()
                        .map(|activity| activity.line.clone())
                })
            })
            .unwrap_or_else(|| "Starting…".to_owned())
    };
    let stopping = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    let stop = move |_| {
        stopping.set(true);
        problem.set(None);
        leptos::task::spawn_local(async move {
            if let Err(error) = cancel_run(run_id.get_value()).await {
                problem.try_set(Some(error.say()));
                stopping.try_set(false);
            }
        });
    };
    let drawn = run.thread_title.clone();
    let title = Memo::new(move |_| {
        known.with(|known| {
            known
                .as_ref()
                .map_or_else(|| drawn.clone(), |known| known.thread_title.clone())
        })
    });
    let label = move || format!("Stop the run in {}", title.get());
    view! {
        <li class="running-item" data-run-id=run.run_id.clone()>
            <div class="running-what">
                <a href=format!("/threads/{}", run.thread_id) class="running-thread">{move || title.get()}</a>
                <span class="muted">{run.agent.clone()}</span>
                <span class="muted elapsed" aria-label="Running for">{elapsed}</span>
            </div>
            <p class="running-activity" aria-label="Last activity">{activity}</p>
            <button type="button" class="button small" aria-label=label
                disabled=move || stopping.get() || !may_act.get()
                title=move || (!may_act.get()).then_some(VIEWER_NOTE)
                on:click=stop>
                {move || if stopping.get() { "Stopping…" } else { "Stop" }}
            </button>
            {move || problem.get().map(|text| view! { <p class="error-text" role="alert">{text}</p> })}
        </li>
    }
}
