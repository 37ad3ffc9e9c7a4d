//! `/schedules`: the tenant's schedules — each one's clock in its own zone, when it fires
//! next, how its last fires went — and, with `?id=`, one schedule in full with its next 10
//! times, its last 10 fires and what an operator does to it. Viewers read; operators make,
//! change, pause, run and delete. The page follows the tenant's live stream.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::codec::Json;
use crate::components::identity::may_act;
use crate::components::inbox::{Background, background_changes};
use crate::components::layout::ContextFrame;
use crate::model::schedules::Schedule;
use crate::pages::agent_jobs::AgentJobsSection;
use crate::pages::notes::time_view;
use crate::pages::schedule::{ScheduleFields, ScheduleView};
use crate::pages::schedule_calls::{PAGE, ScheduleActions, load_schedule_choices, load_schedules};

#[component]
pub fn SchedulesPage() -> impl IntoView {
    let query = use_query_map();
    let selected = move || query.with(|query| query.get("id"));
    let offset = move || {
        query.with(|query| {
            query
                .get("offset")
                .and_then(|offset| offset.parse::<u32>().ok())
                .unwrap_or(0)
        })
    };
    let actions = ScheduleActions::new();
    let heard = background_changes(Background::Schedules);
    let list = Resource::<_, Json>::new_with_options(
        move || (offset(), actions.changed.get(), heard.get()),
        |(offset, _, _)| load_schedules(offset),
        false,
    );
    let choices = Resource::<_, Json>::new_with_options(|| (), |_| load_schedule_choices(), false);
    let may_act = may_act();
    view! {
        <Title text="Schedules" />
        <main class="main section-page schedules-page" id="main" tabindex="-1">
            <h1>"Schedules"</h1>
            <p class="muted">"An agent given a prompt on a clock — a cron expression, an interval or once — read in the schedule's own time zone. Every fire is a real run in a real thread; its asks wait in the inbox like any other."</p>
            {move || actions.problem().map(|problem| view! { <p class="error-text" role="alert">{problem}</p> })}
            <Show when=move || may_act.get()>
                <details class="schedule-new">
                    <summary>"New schedule"</summary>
                    <ActionForm action=actions.create attr:class="note-form schedule-form" attr:autocomplete="off">
                        <Transition fallback=|| view! { <p class="muted">"Loading agents…"</p> }>
                            {move || Suspend::new(async move {
                                let choices = choices.await.unwrap_or_default();
                                view! { <ScheduleFields prefix="schedule-new".to_owned() schedule=None choices made=actions.changed /> }
                            })}
                        </Transition>
                        <button type="submit" class="button primary">"Make schedule"</button>
                    </ActionForm>
                </details>
            </Show>
            <Transition fallback=|| view! { <p class="muted">"Loading schedules…"</p> }>
                {move || Suspend::new(async move {
                    match list.await {
                        Ok(list) if list.schedules.is_empty() => view! {
                            <p class="muted" role="status">"No schedules yet. A schedule starts an agent run at set times."</p>
                        }.into_any(),
                        Ok(list) => {
                            let next = list.next_offset;
                            let previous = offset().checked_sub(PAGE);
                            view! {
                                <ul class="note-list schedule-list" aria-label="Schedules">
                                    {list.schedules.into_iter().map(|schedule| view! { <ScheduleRow schedule /> }).collect_view()}
                                </ul>
                                <nav class="note-pages" aria-label="Pages">
                                    {previous.map(|offset| view! { <a href=format!("/schedules?offset={offset}")>"Previous"</a> })}
                                    {next.map(|offset| view! { <a href=format!("/schedules?offset={offset}")>"Next"</a> })}
                                </nav>
                            }.into_any()
                        }
                        Err(error) => view! { <p class="error-text" role="alert">{error.say()}</p> }.into_any(),
                    }
                })}
            </Transition>
            {move || selected().map(|id| view! { <ScheduleView id actions choices heard /> })}
            <AgentJobsSection />
        </main>
        <ContextFrame>
            <section class="pane-section">
                <h2>"How schedules fire"</h2>
                <p class="muted">"Each scheduled time fires once, ever — across restarts and across servers. A time that passed while nothing could fire it is skipped, or caught up once within the window. While the last fire still runs, the next one is skipped, queued, run beside it, or stops it."</p>
                <p class="muted">"A fire that started more than five seconds after its time is marked late."</p>
            </section>
        </ContextFrame>
    }
}

#[component]
fn ScheduleRow(schedule: Schedule) -> impl IntoView {
    let href = format!("/schedules?id={}", schedule.id);
    let state = match (&schedule.paused_at_ms, schedule.next_fire_ms) {
        (Some(_), _) => view! {
            <span class="schedule-state paused">"Paused"</span>
            {schedule.paused_reason.clone().filter(|reason| !reason.is_empty()).map(|reason| view! { " · " <span class="muted">{reason}</span> })}
        }
        .into_any(),
        (None, Some(next)) => view! { <span class="schedule-state">"Next " {time_view(next)}</span> }.into_any(),
        (None, None) => view! { <span class="schedule-state done">"Nothing more to fire"</span> }.into_any(),
    };
    view! {
        <li class="note-row schedule-row" data-schedule=schedule.id.clone()>
            <a class="note-title" href=href>{schedule.name.clone()}</a>
            <span class="muted note-meta">
                <code>{schedule.when.describe()}</code> " · " {schedule.timezone.clone()} " · " {schedule.agent.clone()}
            </span>
            <span class="note-meta">{state}</span>
            <span class="muted note-meta">
                {format!("{} missed · {} skipped", schedule.missed_count, schedule.skipped_count)}
            </span>
            {schedule.last_error.clone().map(|error| view! { <p class="error-text schedule-error">"Last error: " {error}</p> })}
        </li>
    }
}
