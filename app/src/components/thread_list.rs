//! The sidebar's threads: each with a dot for what it is doing and how long ago it last
//! moved; those in no project by day, then each project's, then the archived, folded.

use leptos::prelude::*;
use leptos_router::components::A;

use crate::components::inbox::{ThreadState, use_inbox};
use crate::model::ThreadSummary;
use crate::when::{self, DayGroup};

#[component]
pub fn ThreadList(threads: Vec<ThreadSummary>, now: Signal<i64>) -> impl IntoView {
    let (archived, mut active): (Vec<ThreadSummary>, Vec<ThreadSummary>) = threads
        .into_iter()
        .partition(|thread| thread.archived_at_ms.is_some());
    active.sort_by_key(|thread| std::cmp::Reverse(thread.last_moved_ms()));
    let none_yet = active.is_empty() && archived.is_empty();
    // A thread whose project is gone (deleted; the thread stays) is listed with the rest.
    let (loose, in_projects): (Vec<ThreadSummary>, Vec<ThreadSummary>) = active
        .into_iter()
        .partition(|thread| thread.project_name.is_none());
    let mut groups: Vec<(String, String, Vec<ThreadSummary>)> = Vec::new();
    for thread in in_projects {
        let id = thread.project_id.clone().unwrap_or_default();
        match groups.iter_mut().find(|(known, _, _)| *known == id) {
            Some((_, _, threads)) => threads.push(thread),
            None => {
                let name = thread.project_name.clone().unwrap_or_default();
                groups.push((id, name, vec![thread]));
            }
        }
    }
    // Day groups follow the browser's own calendar, so they come once it has taken the page
    // over: the server lists the same threads without them, and both renderings agree.
    let in_browser = RwSignal::new(false);
    Effect::new(move |_| in_browser.set(true));
    let rows = move |threads: Vec<ThreadSummary>| {
        threads
            .into_iter()
            .map(|thread| view! { <ThreadRow thread now in_browser /> })
            .collect_view()
    };
    let archived_count = archived.len();
    let loose_shown = !loose.is_empty();
    view! {
        {none_yet.then(|| view! { <p class="muted empty">"No threads yet. Start one with New thread."</p> })}
        {loose_shown.then(|| view! {
            <ul class="thread-list" aria-label="Threads">
                {move || {
                    if in_browser.get() {
                        by_day(loose.clone(), untrack(|| now.get()), utc_offset_minutes()).into_iter().map(|(day, threads)| view! {
                            <li class="day-divider" aria-hidden="true">{day.label()}</li>
                            {rows(threads)}
                        }).collect_view().into_any()
                    } else {
                        rows(loose.clone()).into_any()
                    }
                }}
            </ul>
        })}
        {groups.into_iter().map(|(id, name, threads)| {
            let label = format!("Threads in {name}");
            view! {
                <div class="thread-group">
                    <h3 class="group-head"><A href=format!("/projects/{id}")>{name}</A></h3>
                    <ul class="thread-list" aria-label=label>{rows(threads)}</ul>
                </div>
            }
        }).collect_view()}
        {(archived_count > 0).then(|| view! {
            <details class="archived-threads">
                <summary>{format!("Archived ({archived_count})")}</summary>
                <ul class="thread-list" aria-label="Archived threads">{rows(archived)}</ul>
            </details>
        })}
    }
}

/// Threads (newest move first) in runs of the same day group, by the calendar of someone
/// `offset` minutes east of UTC.
fn by_day(
    threads: Vec<ThreadSummary>,
    now: i64,
    offset: i64,
) -> Vec<(DayGroup, Vec<ThreadSummary>)> {
    let mut days: Vec<(DayGroup, Vec<ThreadSummary>)> = Vec::new();
    for thread in threads {
        let day = when::day_group(thread.last_moved_ms(), now, offset);
        match days.last_mut() {
            Some((last, threads)) if *last == day => threads.push(thread),
            _ => days.push((day, vec![thread])),
        }
    }
    days
}

/// Minutes this browser's clock is east of UTC.
fn utc_offset_minutes() -> i64 {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        -(js_sys::Date::new_0().get_timezone_offset() as i64)
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    0
}

/// One thread: the link holds its title; its dot and age are for the eye, and what it is
/// doing is said to a screen reader as the link's description.
#[component]
fn ThreadRow(thread: ThreadSummary, now: Signal<i64>, in_browser: RwSignal<bool>) -> impl IntoView {
    let inbox = use_inbox();
    let id = thread.id.clone();
    // The inbox's live state is the browser's to follow: the server marks no dot.
    let state = Memo::new(move |_| {
        in_browser
            .get()
            .then(|| inbox.and_then(|inbox| inbox.thread_state(&id)))
            .flatten()
    });
    let moved = thread.last_moved_ms();
    let age = move || when::short_age(now.get() - moved);
    let at = when::rfc3339(moved);
    let readable = format!("Last active {}", when::readable(&at));
    view! {
        <li>
            <A href=format!("/threads/{}", thread.id) attr:class="thread-link thread-row"
                attr:aria-description=move || state.get().map(ThreadState::description)>
                <span class="thread-dot" aria-hidden="true"
                    data-state=move || state.get().map(ThreadState::word)></span>
                <span class="thread-title">{thread.title}</span>
                <time class="thread-age" aria-hidden="true" datetime=at title=readable>{age}</time>
            </A>
        </li>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moved_at(id: &str, ms: i64) -> ThreadSummary {
        ThreadSummary {
            id: id.to_owned(),
            tenant_id: "acme".to_owned(),
            title: id.to_owned(),
            created_at_ms: 0,
            project_id: None,
            archived_at_ms: None,
            project_name: None,
            active_at_ms: Some(ms),
        }
    }

    #[test]
    fn threads_fall_into_runs_of_day_groups_in_their_order() {
        let noon = 1_764_676_800_000;
        let hour = 3_600_000;
        let threads = vec![
            moved_at("a", noon - hour),
            moved_at("b", noon - 2 * hour),
            moved_at("c", noon - 20 * hour),
            moved_at("d", noon - 30 * 24 * hour),
        ];
        let days: Vec<(DayGroup, usize)> = by_day(threads, noon, 0)
            .into_iter()
            .map(|(day, threads)| (day, threads.len()))
            .collect();
        assert_eq!(
            days,
            [
                (DayGroup::Today, 2),
                (DayGroup::Yesterday, 1),
                (DayGroup::Earlier, 1)
            ]
        );
    }
}
