//! The inbox list: every pending ask of the tenant as its real card (answered right
//! there, with the same receipts and exactly-once rules as in its thread), with where it
//! comes from, its age and its deadline; filtered by kind, agent and project; most urgent
//! or newest first; triaged from the keyboard (j/k move, the card's own keys answer,
//! Enter opens the thread).

use leptos::prelude::*;

use super::TenantInbox;
use crate::components::asks::{AskCard, kind_label};
use crate::model::inbox::InboxAsk;
use crate::when;

/// Which asks are listed, and in which order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// An [`AskKind`](crate::protocol::ask::AskKind) name, or empty for every kind.
    pub kind: String,
    pub agent: String,
    /// A project id, `-` for asks from threads in no project, or empty for all.
    pub project: String,
    pub newest_first: bool,
}

impl Filter {
    pub fn admits(&self, ask: &InboxAsk) -> bool {
        (self.kind.is_empty() || ask.kind().as_str() == self.kind)
            && (self.agent.is_empty() || ask.agent == self.agent)
            && match self.project.as_str() {
                "" => true,
                "-" => ask.project_id.is_none(),
                id => ask.project_id.as_deref() == Some(id),
            }
    }

    /// The keys of the asks admitted, in the chosen order: most urgent is soonest
    /// deadline first, then newest; newest is by when each was opened. The asks of one
    /// run stay together, where the run's first ask in that order is.
    pub fn keys(&self, asks: &[InboxAsk]) -> Vec<String> {
        let mut admitted: Vec<&InboxAsk> = asks.iter().filter(|ask| self.admits(ask)).collect();
        if !self.newest_first {
            admitted.sort_by_key(|ask| {
                (
                    ask.ask.expires_at_ms.unwrap_or(i64::MAX),
                    std::cmp::Reverse(ask.opened_at_ms),
                )
            });
        }
        let mut runs: Vec<&str> = Vec::new();
        for ask in &admitted {
            if !runs.contains(&ask.run_id.as_str()) {
                runs.push(&ask.run_id);
            }
        }
        runs.into_iter()
            .flat_map(|run| admitted.iter().filter(move |ask| ask.run_id == run))
            .map(|ask| ask.key.clone())
            .collect()
    }
}

/// Whether the ask at `key` follows another of its run in `keys` (its row then leaves out
/// where it comes from, said by the row above).
fn continues_run(keys: &[String], key: &str) -> bool {
    let run = |key: &str| key.split_once(':').map(|(run, _)| run.to_owned());
    keys.iter()
        .position(|each| each == key)
        .and_then(|at| at.checked_sub(1))
        .is_some_and(|before| run(&keys[before]) == run(key))
}

/// The runs in progress, said at the top of the inbox (their list is further down).
fn running_summary(count: usize) -> Option<String> {
    match count {
        0 => None,
        1 => Some("1 run in progress".to_owned()),
        n => Some(format!("{n} runs in progress")),
    }
}

/// The choices a filter offers: what the listed asks have, each once, by name.
fn choices(
    asks: &[InboxAsk],
    of: impl Fn(&InboxAsk) -> Option<(String, String)>,
) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = asks.iter().filter_map(of).collect();
    found.sort_by(|a, b| a.1.cmp(&b.1));
    found.dedup();
    found
}

#[component]
pub fn InboxList(inbox: TenantInbox, now: Signal<i64>) -> impl IntoView {
    let filter = RwSignal::new(Filter::default());
    let keys = Memo::new(move |_| {
        filter.with(|filter| {
            inbox
                .with(|inbox| filter.keys(&inbox.asks))
                .unwrap_or_default()
        })
    });
    let total = move || inbox.with(|inbox| inbox.pending).unwrap_or(0);
    let on_answered = Callback::new(move |key: String| inbox.remove_ask(&key));
    let running = move || inbox.with(|inbox| inbox.running.len()).unwrap_or(0);
    keyboard::listen(keys);
    let summary = move || {
        let shown = keys.with(Vec::len) as u64;
        match (total(), shown) {
            (0, _) => "Nothing is waiting for you.".to_owned(),
            (all, shown) if shown == all => match all {
                1 => "1 ask is waiting.".to_owned(),
                n => format!("{n} asks are waiting."),
            },
            (all, shown) => format!("Showing {shown} of {all} waiting asks."),
        }
    };
    view! {
        <section class="inbox" aria-labelledby="inbox-heading">
            <header class="inbox-head">
                <h1 id="inbox-heading" tabindex="-1">"Inbox"</h1>
                <p class="muted" role="status" aria-live="polite">{summary}</p>
                {move || running_summary(running()).map(|text| view! {
                    <a class="running-summary" href="#running-now">{text}</a>
                })}
            </header>
            <Filters inbox filter />
            <p class="muted keys-hint" id="inbox-keys">
                "Keys: " <kbd>"j"</kbd> " / " <kbd>"k"</kbd> " move between asks; on an ask, "
                <kbd>"Tab"</kbd> " goes to its answer and its own keys answer it ("
                <kbd>"1"</kbd> "–" <kbd>"9"</kbd> " pick a choice), "
                <kbd>"Enter"</kbd> " opens its thread."
            </p>
            <ol class="inbox-list" id="inbox-list" aria-label="Waiting asks" aria-describedby="inbox-keys">
                <For each=move || keys.get() key=|key| key.clone() let:key>
                    {
                        // Read once: a card stays as it was drawn while the operator works on it.
                        let item = untrack(|| inbox.with(|inbox| {
                            inbox.asks.iter().find(|ask| ask.key == key).cloned()
                        }))
                        .flatten();
                        item.map(|item| view! { <InboxItem item inbox keys now on_answered /> })
                    }
                </For>
            </ol>
        </section>
    }
}

#[component]
fn Filters(inbox: TenantInbox, filter: RwSignal<Filter>) -> impl IntoView {
    let kinds = Memo::new(move |_| {
        inbox
            .with(|inbox| {
                choices(&inbox.asks, |ask| {
                    Some((
                        ask.kind().as_str().to_owned(),
                        kind_label(ask.kind()).to_owned(),
                    ))
                })
            })
            .unwrap_or_default()
    });
    let agents = Memo::new(move |_| {
        inbox
            .with(|inbox| {
                choices(&inbox.asks, |ask| {
                    Some((ask.agent.clone(), ask.agent.clone()))
                })
            })
            .unwrap_or_default()
    });
    let projects = Memo::new(move |_| {
        inbox
            .with(|inbox| {
                choices(&inbox.asks, |ask| {
                    let id = ask.project_id.clone()?;
                    let name = ask.project_name.clone().unwrap_or_else(|| id.clone());
                    Some((id, name))
                })
            })
            .unwrap_or_default()
    });
    let select = move |label: &'static str,
                       id: &'static str,
                       all: &'static str,
                       options: Memo<Vec<(String, String)>>,
                       extra: Option<(&'static str, &'static str)>,
                       set: fn(&mut Filter, String),
                       get: fn(&Filter) -> String| {
        view! {
            <label class="field-label" for=id>{label}</label>
            <select id=id prop:value=move || filter.with(get)
                on:change=move |event| {
                    let value = event_target_value(&event);
                    filter.update(|filter| set(filter, value));
                }>
                <option value="">{all}</option>
                {move || options.get().into_iter().map(|(value, name)| view! {
                    <option value=value>{name}</option>
                }).collect_view()}
                {extra.map(|(value, name)| view! { <option value=value>{name}</option> })}
            </select>
        }
    };
    view! {
        <form class="inbox-filters" aria-label="Filter the inbox" on:submit=|event| event.prevent_default()>
            <div class="field">
                {select("Kind", "inbox-kind", "All kinds", kinds, None,
                    |filter, value| filter.kind = value, |filter| filter.kind.clone())}
            </div>
            <div class="field">
                {select("Agent", "inbox-agent", "All agents", agents, None,
                    |filter, value| filter.agent = value, |filter| filter.agent.clone())}
            </div>
            <div class="field">
                {select("Project", "inbox-project", "All projects", projects, Some(("-", "No project")),
                    |filter, value| filter.project = value, |filter| filter.project.clone())}
            </div>
            <div class="field">
                <label class="field-label" for="inbox-order">"Order"</label>
                <select id="inbox-order" prop:value=move || if filter.with(|f| f.newest_first) { "newest" } else { "urgent" }
                    on:change=move |event| {
                        let newest = event_target_value(&event) == "newest";
                        filter.update(|filter| filter.newest_first = newest);
                    }>
                    <option value="urgent">"Most urgent first"</option>
                    <option value="newest">"Newest first"</option>
                </select>
            </div>
        </form>
    }
}

#[component]
fn InboxItem(
    item: InboxAsk,
    inbox: TenantInbox,
    keys: Memo<Vec<String>>,
    now: Signal<i64>,
    on_answered: Callback<String>,
) -> impl IntoView {
    let heading_id = format!("inbox-{}", crate::components::id_fragment(&item.key));
    let card_id = format!("{heading_id}-card");
    // A row is one line until it is opened: the top one (the most urgent) always is, as
    // is the one focus is in (CSS), so j/k open each in turn.
    let opened_here = RwSignal::new(false);
    let open = {
        let key = item.key.clone();
        Memo::new(move |_| opened_here.get() || keys.with(|keys| keys.first() == Some(&key)))
    };
    let question = item.ask.title.clone();
    let href = format!("/threads/{}", item.thread_id);
    let opened = item.opened_at_ms;
    let expires = item.ask.expires_at_ms;
    let age = move || when::ago(now.get() - opened);
    let deadline = move || expires.map(|at| when::time_left(at - now.get()));
    let short_run: String = item.run_id.chars().take(8).collect();
    let key = item.key.clone();
    let continues = {
        let key = item.key.clone();
        Memo::new(move |_| keys.with(|keys| continues_run(keys, &key)))
    };
    // The card stays as drawn; its thread's and project's names follow renames.
    let names = {
        let key = item.key.clone();
        let drawn = (item.thread_title.clone(), item.project_name.clone());
        Memo::new(move |_| {
            inbox
                .with(|inbox| {
                    inbox
                        .asks
                        .iter()
                        .find(|ask| ask.key == key)
                        .map(|ask| (ask.thread_title.clone(), ask.project_name.clone()))
                })
                .flatten()
                .unwrap_or_else(|| drawn.clone())
        })
    };
    let title = move || names.with(|(title, _)| title.clone());
    let agent = item.agent.clone();
    let where_from = move || {
        names.with(|(_, project)| match project {
            Some(project) => format!("{agent} · {project}"),
            None => agent.clone(),
        })
    };
    view! {
        <li class="inbox-item" tabindex="-1" data-key=item.key.clone() data-kind=item.kind().as_str()
            data-open=move || if open.get() { "true" } else { "false" }
            data-continues=move || continues.get().then_some("true")
            aria-labelledby=heading_id.clone()>
            <header class="inbox-meta">
                <button type="button" class="inbox-question" aria-controls=card_id.clone()
                    aria-expanded=move || if open.get() { "true" } else { "false" }
                    on:click=move |_| opened_here.update(|open| *open = !*open)>
                    <span class="ask-kind">{kind_label(item.kind())}</span>
                    <span class="inbox-question-text">{question}</span>
                    {move || continues.get().then(|| view! { <span class="visually-hidden">" (same run as above)"</span> })}
                </button>
                <a class="inbox-thread" id=heading_id.clone() href=href>{title}</a>
                <span class="muted inbox-from">{where_from}</span>
                <span class="muted inbox-run" title=format!("run {}", item.run_id)>"run " <code>{short_run}</code></span>
                <time class="muted" datetime=when::rfc3339(opened)>{age}</time>
                {move || deadline().map(|text| {
                    let expired = (text == "expired").then_some("true");
                    view! { <span class="deadline" data-expired=expired>{text}</span> }
                })}
            </header>
            <div class="inbox-card" id=card_id>
                <AskCard run_id=item.run_id.clone() ask=item.ask.clone() quiet=true
                    on_answered=move |()| on_answered.run(key.clone()) />
            </div>
        </li>
    }
}

/// j/k between items (wherever focus is, unless the operator is typing), and on a
/// focused item: Enter to its thread, Tab into its card, 1–9 to a choice of its card.
/// When an item leaves (answered here or in another tab) while focus was in it, focus
/// goes to the item now in its place, or the inbox's heading — never to the page body.
mod keyboard {
    use leptos::prelude::*;

    /// Listens for the inbox's keys while the list is on the page.
    pub fn listen(keys: Memo<Vec<String>>) {
        #[cfg(any(feature = "hydrate", feature = "csr"))]
        {
            let handle =
                window_event_listener(leptos::ev::keydown, move |event| browser::on_key(&event));
            // Where focus last was in the list, to put it back after an item leaves.
            let last = StoredValue::new(None::<usize>);
            let focusin = window_event_listener(leptos::ev::focusin, move |_| {
                last.set_value(browser::focused_index());
            });
            Effect::new(move |_| {
                keys.track();
                request_animation_frame(move || {
                    if let Some(index) = last.try_get_value().flatten() {
                        browser::refocus(index);
                    }
                });
            });
            on_cleanup(move || {
                handle.remove();
                focusin.remove();
            });
        }
        #[cfg(not(any(feature = "hydrate", feature = "csr")))]
        let _ = keys;
    }

    #[cfg(any(feature = "hydrate", feature = "csr"))]
    mod browser {
        use leptos::prelude::*;
        use wasm_bindgen::JsCast;
        use web_sys::{Element, HtmlElement};

        use crate::components::focus;

        /// The items as the page now shows them (found by id: the list element may have
        /// been drawn again since this inbox was).
        fn items() -> Vec<HtmlElement> {
            let Some(list) = document().get_element_by_id("inbox-list") else {
                return Vec::new();
            };
            let Ok(found) = list.query_selector_all(":scope > .inbox-item") else {
                return Vec::new();
            };
            (0..found.length())
                .filter_map(|index| found.item(index)?.dyn_into::<HtmlElement>().ok())
                .collect()
        }

        fn position_of_focus(items: &[HtmlElement]) -> Option<usize> {
            let active = document().active_element()?;
            items
                .iter()
                .position(|item| item.contains(Some(active.unchecked_ref())))
        }

        pub fn focused_index() -> Option<usize> {
            position_of_focus(&items())
        }

        /// Focus was lost (its item left, or its button disabled itself while the
        /// answer travels): the item at `index`, else the last, else the heading.
        pub fn refocus(index: usize) {
            if !focus::focus_is_lost() {
                return;
            }
            let items = items();
            match items.get(index).or(items.last()) {
                Some(item) => {
                    let _ = item.focus();
                }
                None => focus::focus_by_id("inbox-heading"),
            }
        }

        pub fn on_key(event: &web_sys::KeyboardEvent) {
            if event.is_composing() || event.ctrl_key() || event.meta_key() || event.alt_key() {
                return;
            }
            let Some(target) = event.target().and_then(|t| t.dyn_into::<Element>().ok()) else {
                return;
            };
            let typing = matches!(target.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                || target.has_attribute("contenteditable");
            if typing {
                return;
            }
            let on_item = target.class_list().contains("inbox-item")
                && document()
                    .get_element_by_id("inbox-list")
                    .is_some_and(|list| list.contains(Some(target.unchecked_ref())));
            let key = event.key();
            match key.as_str() {
                "j" | "k" => {
                    let items = items();
                    if items.is_empty() {
                        return;
                    }
                    event.prevent_default();
                    let next = match (position_of_focus(&items), key.as_str()) {
                        (None, _) => 0,
                        (Some(at), "j") => at + 1,
                        (Some(at), _) => at.saturating_sub(1),
                    };
                    let _ = items[next.min(items.len() - 1)].focus();
                }
                "Enter" if on_item => {
                    event.prevent_default();
                    if let Ok(Some(link)) = target.query_selector("a.inbox-thread")
                        && let Ok(link) = link.dyn_into::<HtmlElement>()
                    {
                        link.click();
                    }
                }
                "Tab" if on_item && !event.shift_key() => {
                    if let Ok(Some(card)) = target.query_selector(".ask-card")
                        && focus::focus_answer_control(&card)
                    {
                        event.prevent_default();
                    }
                }
                digit if on_item && digit.len() == 1 => {
                    if let Some(number) = digit.parse::<u32>().ok().filter(|n| (1..=9).contains(n))
                        && let Ok(Some(card)) = target.query_selector(".ask-card")
                        && focus::pick_option(&card, number)
                    {
                        event.prevent_default();
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Filter, continues_run, running_summary};
    use crate::model::inbox::InboxAsk;

    fn ask(run: &str, id: &str, opened_at_ms: i64, expires_at_ms: Option<i64>) -> InboxAsk {
        let mut ask = crate::protocol::openai::mcp_approval_ask(id, "delete", None, "{}");
        ask.expires_at_ms = expires_at_ms;
        InboxAsk {
            key: format!("{run}:{id}"),
            run_id: run.to_owned(),
            thread_id: format!("thread-{run}"),
            thread_title: run.to_owned(),
            agent: "demo".to_owned(),
            project_id: None,
            project_name: None,
            opened_at_ms,
            ask,
        }
    }

    #[test]
    fn the_asks_of_one_run_are_listed_together_where_its_most_urgent_one_is() {
        let asks = [
            ask("r1", "a", 10, None),
            ask("r2", "b", 20, Some(500)),
            ask("r1", "c", 30, Some(100)),
            ask("r3", "d", 40, None),
        ];
        let urgent = Filter::default().keys(&asks);
        assert_eq!(urgent, ["r1:c", "r1:a", "r2:b", "r3:d"]);
        let newest = Filter {
            newest_first: true,
            ..Filter::default()
        }
        .keys(&asks);
        assert_eq!(newest, ["r1:a", "r1:c", "r2:b", "r3:d"]);
        assert!(!continues_run(&urgent, "r1:c"));
        assert!(continues_run(&urgent, "r1:a"));
        assert!(!continues_run(&urgent, "r2:b"));
        assert!(!continues_run(&urgent, "gone:x"));
    }

    #[test]
    fn the_inbox_head_counts_the_runs_in_progress_only_when_there_are_any() {
        assert_eq!(running_summary(0), None);
        assert_eq!(running_summary(1).as_deref(), Some("1 run in progress"));
        assert_eq!(running_summary(3).as_deref(), Some("3 runs in progress"));
    }
}
