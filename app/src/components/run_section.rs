//! One run in the thread: its heading in plain words, a thinking indicator with the
//! time waited until the agent's first output, and its timeline.

use leptos::prelude::*;

use crate::components::context_pane::RunSignals;
use crate::components::output_card::Selection;
use crate::components::timeline::{RetryableRun, Timeline};
use crate::projection::{ItemBody, RunView};
use crate::protocol::channel::Role;
use crate::protocol::status::RunStatus;

/// A run's status as the operator reads it.
pub fn status_words(status: RunStatus) -> &'static str {
    match status {
        RunStatus::Pending => "Starting",
        RunStatus::Running => "Running",
        RunStatus::Succeeded => "Done",
        RunStatus::Interrupted => "Waiting for you",
        RunStatus::Resumed => "Answered, continued below",
        RunStatus::Cancelled => "Stopped",
        RunStatus::Failed => "Failed",
    }
}

/// The agent has not said or done anything in this run yet, and the run goes on.
fn awaiting_first_output(view: &RunView) -> bool {
    matches!(view.status, RunStatus::Pending | RunStatus::Running)
        && !view.items.iter().any(|item| {
            !item.is_blank()
                && !matches!(
                    item.body,
                    ItemBody::Message {
                        role: Role::User,
                        ..
                    }
                )
        })
}

#[component]
pub fn RunSection(
    index: usize,
    run: RunSignals,
    #[prop(into)] show_reasoning: Signal<bool>,
    #[prop(into)] arrival: Signal<bool>,
    #[prop(into)] on_select: Callback<Selection>,
    #[prop(into)] on_retry: Callback<()>,
) -> impl IntoView {
    let status = move || run.status();
    let thinking = Memo::new(move |_| run.view.with(awaiting_first_output));
    let started_ms = run.summary.with_untracked(|summary| summary.created_at_ms);
    // The thread's last run, once over, offers Retry under its output; a failed run's
    // error card offers it already.
    let run_id = run.summary.with_untracked(|summary| summary.id.clone());
    let retryable = use_context::<RetryableRun>();
    let retry_offered = move |run_id: &str| {
        retryable.is_some_and(|last| last.0.with(|last| last.as_deref() == Some(run_id)))
            && status() != RunStatus::Failed
    };
    view! {
        <section class="run" aria-label=format!("Run {}", index + 1)>
            <header class="run-head">
                <span>{format!("Run {}", index + 1)}</span>
                <span class="run-status" data-status=move || status().label()>{move || status_words(status())}</span>
                {move || run.view.with(|view| view.activity.clone()).map(|activity| view! {
                    <span class="activity muted" role="status">{activity}</span>
                })}
            </header>
            <Timeline run=index run_id=run_id.clone() view=run.view show_reasoning arrival
                on_select on_retry />
            {move || thinking.get().then(|| view! { <Thinking started_ms /> })}
            {move || retry_offered(&run_id).then(|| view! {
                <div class="run-actions">
                    <button type="button" class="button small ghost" on:click=move |_| on_retry.run(())
                        title="Send your last message again; the agent redoes this reply">"Retry"</button>
                </div>
            })}
        </section>
    }
}

/// "Thinking · 4 s", animated unless the operator asked for reduced motion. The time
/// ticks in the browser only, so the server's page and the hydrated one agree.
#[component]
fn Thinking(started_ms: i64) -> impl IntoView {
    let now_ms = RwSignal::new(None::<i64>);
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        let tick = move || {
            now_ms.try_set(Some(js_sys::Date::now() as i64));
        };
        // The first count waits for the page to be taken over: the server's page has
        // none, and a hydrating page must draw what the server drew.
        Effect::new(move |_| tick());
        if let Ok(handle) = set_interval_with_handle(tick, std::time::Duration::from_millis(1000)) {
            on_cleanup(move || handle.clear());
        }
    }
    view! {
        <p class="thinking" role="status">
            <span class="thinking-dots" aria-hidden="true"><i></i><i></i><i></i></span>
            "Thinking"
            <span class="thinking-time muted" aria-hidden="true">
                {move || now_ms.get().map(|now| format!(" · {}", crate::when::elapsed(now - started_ms)))}
            </span>
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::projection::ViewPolicy;

    #[test]
    fn every_status_has_plain_words() {
        for status in RunStatus::ALL {
            let words = status_words(status);
            assert!(!words.is_empty());
            assert_ne!(words, status.label(), "{words}");
        }
        assert_eq!(status_words(RunStatus::Interrupted), "Waiting for you");
    }

    #[test]
    fn a_fresh_run_awaits_the_agent_and_a_finished_one_does_not() {
        let mut view = RunView::new(ViewPolicy::default());
        assert!(awaiting_first_output(&view));
        view.status = RunStatus::Succeeded;
        assert!(!awaiting_first_output(&view));
    }
}
