//! State surfaces: a plan's todos and a workflow's progress.

use leptos::prelude::*;

use super::OnAction;
use super::actions::ActionBar;
use crate::catalog::actions::ResponseActions;
use crate::catalog::plan::{Plan, Todo, TodoStatus};
use crate::catalog::progress::{ProgressTracker, StepStatus};
use crate::catalog::receipt::Outcome;

fn todo_mark(status: TodoStatus) -> (&'static str, &'static str) {
    match status {
        TodoStatus::Pending => ("○", "to do"),
        TodoStatus::InProgress => ("◐", "in progress"),
        TodoStatus::Completed => ("●", "done"),
        TodoStatus::Cancelled => ("⊘", "cancelled"),
    }
}

fn todo_view(todo: Todo) -> impl IntoView {
    let (mark, said) = todo_mark(todo.status);
    let label = todo.label.clone();
    view! {
        <li class="plan-todo" data-status=todo.status.as_str()>
            <span class="todo-mark" aria-hidden="true">{mark}</span>
            <span class="visually-hidden">{format!("{said}: ")}</span>
            {match todo.description {
                Some(description) => view! {
                    <details>
                        <summary>{label}</summary>
                        <p class="muted">{description}</p>
                    </details>
                }
                .into_any(),
                None => view! { <span>{label}</span> }.into_any(),
            }}
        </li>
    }
}

#[component]
pub fn PlanView(plan: Plan, on_action: OnAction) -> impl IntoView {
    let total = plan.todos.len();
    let done = plan
        .todos
        .iter()
        .filter(|todo| todo.status == TodoStatus::Completed)
        .count();
    let visible = usize::try_from(plan.max_visible_todos.max(1)).unwrap_or(4);
    let mut todos = plan.todos;
    let rest: Vec<Todo> = if todos.len() > visible {
        todos.split_off(visible)
    } else {
        Vec::new()
    };
    let all_done = done == total;
    view! {
        <section class="catalog plan" data-slot="plan" data-tool-ui-id=plan.base.id.clone()
            aria-label=format!("Plan: {}", plan.title)>
            <header class="catalog-head">
                <h4>{plan.title.clone()}</h4>
                <span class="muted" role="status">
                    {if all_done { format!("All {total} done ✓") } else { format!("{done} of {total} done") }}
                </span>
            </header>
            {plan.description.map(|text| view! { <p class="muted">{text}</p> })}
            <progress max=total.to_string() value=done.to_string() aria-hidden="true"></progress>
            <ol class="plan-todos">{todos.into_iter().map(todo_view).collect_view()}</ol>
            {(!rest.is_empty()).then(|| {
                let count = rest.len();
                view! {
                    <details class="plan-more">
                        <summary>{format!("{count} more")}</summary>
                        <ol class="plan-todos" start=(visible + 1).to_string()>{rest.into_iter().map(todo_view).collect_view()}</ol>
                    </details>
                }
            })}
            {plan.response_actions.map(|actions| view! { <ActionBar actions on_action /> })}
        </section>
    }
}

fn step_mark(status: StepStatus) -> (&'static str, &'static str) {
    match status {
        StepStatus::Pending => ("○", "pending"),
        StepStatus::InProgress => ("◐", "in progress"),
        StepStatus::Completed => ("✓", "completed"),
        StepStatus::Failed => ("✗", "failed"),
    }
}

/// `83000` ms as "1 min 23 s".
fn elapsed(ms: f64) -> String {
    let seconds = (ms.max(0.0) / 1000.0).round() as u64;
    match seconds {
        0..=59 => format!("{seconds} s"),
        60..=3599 => format!("{} min {} s", seconds / 60, seconds % 60),
        _ => format!("{} h {} min", seconds / 3600, seconds % 3600 / 60),
    }
}

#[component]
pub fn ProgressTrackerView(tracker: ProgressTracker, on_action: OnAction) -> impl IntoView {
    let running = tracker
        .steps
        .iter()
        .any(|step| step.status == StepStatus::InProgress);
    let all_done = tracker
        .steps
        .iter()
        .all(|step| step.status == StepStatus::Completed);
    let finished = tracker.choice.clone();
    let is_receipt = finished.is_some();
    let actions = match (&finished, all_done) {
        (Some(_), _) | (None, true) => None,
        (None, false) => Some(
            tracker
                .response_actions
                .clone()
                .unwrap_or_else(|| ResponseActions::defaults(&[("cancel", "Cancel")])),
        ),
    };
    view! {
        <section class="catalog progress-tracker" data-slot="progress_tracker" data-tool-ui-id=tracker.base.id.clone()
            data-receipt=is_receipt.then_some("true")
            role="status" aria-live="polite" aria-busy=running.to_string() aria-label="Progress">
            <ol class="progress-steps">
                {tracker.steps.into_iter().map(|step| {
                    let (mark, said) = step_mark(step.status);
                    let current = (step.status == StepStatus::InProgress).then_some("step");
                    view! {
                        <li class="progress-step" data-status=step.status.as_str() aria-current=current>
                            <span class="step-mark" aria-hidden="true">{mark}</span>
                            <span class="step-label">{step.label}</span>
                            <span class="visually-hidden">{format!(" ({said})")}</span>
                            {step.description.map(|text| view! { <span class="muted step-description">{text}</span> })}
                        </li>
                    }
                }).collect_view()}
            </ol>
            {tracker.elapsed_time.map(|ms| view! { <p class="muted">{format!("Elapsed {}", elapsed(ms))}</p> })}
            {finished.map(|receipt| {
                let outcome = match receipt.outcome {
                    Outcome::Success => "Succeeded",
                    Outcome::Partial => "Partly done",
                    Outcome::Failed => "Failed",
                    Outcome::Cancelled => "Cancelled",
                };
                view! { <p class="catalog-receipt"><strong>{outcome}</strong>" — "{receipt.summary}</p> }
            })}
            {actions.map(|actions| view! { <ActionBar actions on_action /> })}
        </section>
    }
}
