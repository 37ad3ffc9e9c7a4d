//! The command palette (Ctrl/Cmd+K), the key sheet (`?`) and the workspace's keys: `/`
//! searches the threads, `n` starts one. The palette lists the actions and the threads, and
//! narrows them as the operator types. The two dialogs are lazy parts of the browser
//! bundle, fetched the first time one is opened; the keys that open them are not.

use leptos::html::{Dialog, Input};
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

use crate::codec::Json;
use crate::components::focus::{once_placed, show_modal};
use crate::components::identity::may_act;
use crate::components::on_demand::OnDemand;
use crate::error::ApiError;
use crate::model::ThreadSummary;
use crate::model::section::Section;
use crate::search::holds_every;

/// Whether the palette and the key sheet are open.
#[derive(Clone, Copy)]
pub struct Overlays {
    pub palette: RwSignal<bool>,
    pub keys: RwSignal<bool>,
}

pub fn provide_overlays() -> Overlays {
    let overlays = Overlays {
        palette: RwSignal::new(false),
        keys: RwSignal::new(false),
    };
    provide_context(overlays);
    overlays
}

/// The most rows the palette lists at once.
const ROWS_MOST: usize = 40;

/// The workspace's keys, as the key sheet lists them.
const KEYS: [(&str, &str); 6] = [
    ("Ctrl K / ⌘ K", "Open the command palette"),
    ("/", "Search the threads"),
    ("N", "Start a new thread"),
    ("?", "Show these keys"),
    ("Esc", "Close a dialog, the canvas or a sheet"),
    ("Enter / Shift+Enter", "Send a message / start a new line"),
];

/// Where a thread is started.
const NEW_THREAD: &str = "/new";

#[derive(Clone, Debug, PartialEq)]
enum Target {
    Page(String),
    Keys,
}

#[derive(Clone, Debug, PartialEq)]
struct Row {
    label: String,
    kind: &'static str,
    target: Target,
}

/// The actions first, then the threads, newest move first; archived ones are left out.
fn rows(threads: &[ThreadSummary], may_act: bool, query: &str) -> Vec<Row> {
    let action = |label: &str, target: Target| Row {
        label: label.to_owned(),
        kind: "Action",
        target,
    };
    let mut all = Vec::new();
    if may_act {
        all.push(action("New thread", Target::Page(NEW_THREAD.to_owned())));
    }
    all.push(action("Inbox", Target::Page("/".to_owned())));
    for section in Section::NAVIGATION {
        all.push(action(
            section.title(),
            Target::Page(section.path().to_owned()),
        ));
    }
    all.push(action("Keyboard shortcuts", Target::Keys));
    let mut threads: Vec<&ThreadSummary> = threads
        .iter()
        .filter(|thread| thread.archived_at_ms.is_none())
        .collect();
    threads.sort_by_key(|thread| std::cmp::Reverse(thread.last_moved_ms()));
    all.extend(threads.into_iter().map(|thread| Row {
        label: thread.title.clone(),
        kind: "Thread",
        target: Target::Page(format!("/threads/{}", thread.id)),
    }));
    all.into_iter()
        .filter(|row| holds_every(&row.label, query))
        .take(ROWS_MOST)
        .collect()
}

type Threads = Resource<Result<Vec<ThreadSummary>, ApiError>, Json>;

/// The palette and the key sheet, each drawn once first opened, and the keys.
#[component]
pub fn Palette(threads: Threads) -> impl IntoView {
    let overlays = expect_context::<Overlays>();
    view! {
        <OnDemand wanted=overlays.palette draw=move || draw_palette(threads) />
        <OnDemand wanted=overlays.keys draw=draw_key_sheet />
        <GlobalKeys />
    }
}

/// The split point of the palette.
#[cfg_attr(all(feature = "hydrate", target_arch = "wasm32"), lazy)]
async fn draw_palette(threads: Threads) -> AnyView {
    view! { <PaletteDialog threads /> }.into_any()
}

/// The split point of the key sheet.
#[cfg_attr(all(feature = "hydrate", target_arch = "wasm32"), lazy)]
async fn draw_key_sheet() -> AnyView {
    view! { <KeySheet /> }.into_any()
}

#[component]
fn PaletteDialog(threads: Threads) -> impl IntoView {
    let overlays = expect_context::<Overlays>();
    let dialog: NodeRef<Dialog> = NodeRef::new();
    let field: NodeRef<Input> = NodeRef::new();
    let query = RwSignal::new(String::new());
    let active = RwSignal::new(0usize);
    let may_act = may_act();
    let navigate = use_navigate();
    // Nothing is listed while closed: the thread list is read only while it is open.
    let shown = Memo::new(move |_| {
        if !overlays.palette.get() {
            return Vec::new();
        }
        let threads = threads.get().and_then(Result::ok).unwrap_or_default();
        query.with(|query| rows(&threads, may_act.get(), query))
    });
    Effect::new(move |_| {
        if overlays.palette.get() {
            query.set(String::new());
            active.set(0);
            once_placed(dialog, move || {
                show_modal(dialog);
                if let Some(field) = field.get_untracked() {
                    let _ = field.focus();
                }
            });
        } else if let Some(open) = dialog.get_untracked().filter(|d| d.open()) {
            open.close();
        }
    });
    let go = move |row: Row| {
        overlays.palette.set(false);
        match row.target {
            Target::Page(path) => navigate(&path, Default::default()),
            Target::Keys => overlays.keys.set(true),
        }
    };
    let go_active = {
        let go = go.clone();
        move || {
            if let Some(row) = shown.with(|rows| rows.get(active.get_untracked()).cloned()) {
                go(row);
            }
        }
    };
    let on_keydown = move |event: leptos::ev::KeyboardEvent| {
        let count = shown.with(Vec::len);
        match event.key().as_str() {
            "ArrowDown" if count > 0 => {
                event.prevent_default();
                active.update(|at| *at = (*at + 1) % count);
            }
            "ArrowUp" if count > 0 => {
                event.prevent_default();
                active.update(|at| *at = (*at + count - 1) % count);
            }
            "Enter" => {
                event.prevent_default();
                go_active();
            }
            _ => {}
        }
    };
    let option_id = |at: usize| format!("palette-row-{at}");
    view! {
        <dialog class="palette" node_ref=dialog aria-label="Command palette"
            on:close=move |_| overlays.palette.set(false)
            on:click=move |event| close_on_backdrop(&event, overlays.palette)>
            <input type="text" node_ref=field class="palette-field" role="combobox"
                aria-label="Jump to a thread or an action" aria-expanded="true"
                aria-controls="palette-rows" autocomplete="off" spellcheck="false"
                placeholder="Jump to a thread or an action…"
                aria-activedescendant=move || shown.with(|rows| (!rows.is_empty()).then(|| option_id(active.get())))
                prop:value=move || query.get()
                on:input=move |event| {
                    query.set(event_target_value(&event));
                    active.set(0);
                }
                on:keydown=on_keydown />
            <ul class="palette-rows" id="palette-rows" role="listbox" aria-label="Results">
                {move || {
                    let go = go.clone();
                    shown.get().into_iter().enumerate().map(move |(at, row)| {
                        let go = go.clone();
                        let picked = row.clone();
                        view! {
                            <li role="option" id=option_id(at) class="palette-row"
                                aria-selected=move || if active.get() == at { "true" } else { "false" }
                                on:mousemove=move |_| if active.get_untracked() != at { active.set(at) }
                                on:click=move |_| go(picked.clone())>
                                <span class="palette-label">{row.label}</span>
                                <span class="palette-kind">{row.kind}</span>
                            </li>
                        }
                    }).collect_view()
                }}
            </ul>
            <p class="palette-empty muted" hidden=move || !shown.with(Vec::is_empty)>"Nothing matches."</p>
        </dialog>
    }
}

/// A click on a modal dialog's backdrop lands on the dialog itself: it closes it.
fn close_on_backdrop(event: &leptos::ev::MouseEvent, open: RwSignal<bool>) {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        use wasm_bindgen::JsCast;
        let on_dialog = event
            .target()
            .and_then(|target| target.dyn_into::<web_sys::HtmlDialogElement>().ok())
            .is_some();
        if on_dialog {
            open.set(false);
        }
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    let _ = (event, open);
}

/// The key sheet: every key of the workspace, in one dialog.
#[component]
fn KeySheet() -> impl IntoView {
    let overlays = expect_context::<Overlays>();
    let dialog: NodeRef<Dialog> = NodeRef::new();
    Effect::new(move |_| {
        if overlays.keys.get() {
            once_placed(dialog, move || show_modal(dialog));
        } else if let Some(open) = dialog.get_untracked().filter(|d| d.open()) {
            open.close();
        }
    });
    view! {
        <dialog class="key-sheet" node_ref=dialog aria-labelledby="key-sheet-heading"
            on:close=move |_| overlays.keys.set(false)
            on:click=move |event| close_on_backdrop(&event, overlays.keys)>
            <h2 id="key-sheet-heading">"Keyboard shortcuts"</h2>
            <dl class="key-list">
                {KEYS.into_iter().map(|(keys, what)| view! {
                    <div class="key-entry"><dt><kbd>{keys}</kbd></dt><dd>{what}</dd></div>
                }).collect_view()}
            </dl>
            <button type="button" class="button" autofocus on:click=move |_| overlays.keys.set(false)>"Close"</button>
        </dialog>
    }
}

/// The keys that work anywhere in the workspace but in a text box, where they type.
#[component]
fn GlobalKeys() -> impl IntoView {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        let overlays = expect_context::<Overlays>();
        let may_act = may_act();
        let layout = use_context::<crate::components::layout::Layout>();
        let navigate = leptos_router::hooks::use_navigate();
        let handle = window_event_listener(leptos::ev::keydown, move |event| {
            if event.default_prevented() || event.is_composing() {
                return;
            }
            let key = event.key();
            if (event.ctrl_key() || event.meta_key()) && key.eq_ignore_ascii_case("k") {
                event.prevent_default();
                overlays.keys.set(false);
                overlays.palette.update(|open| *open = !*open);
                return;
            }
            let open = overlays.palette.get_untracked() || overlays.keys.get_untracked();
            if open || event.ctrl_key() || event.meta_key() || event.alt_key() || typing(&event) {
                return;
            }
            match key.as_str() {
                "/" => {
                    event.prevent_default();
                    if let Some(layout) = layout {
                        layout.reveal_sidebar();
                    }
                    crate::components::focus::focus_by_id("thread-search");
                }
                "n" | "N" if may_act.get_untracked() => {
                    event.prevent_default();
                    navigate(NEW_THREAD, Default::default());
                }
                "?" => {
                    event.prevent_default();
                    overlays.keys.set(true);
                }
                _ => {}
            }
        });
        on_cleanup(move || handle.remove());
    }
}

/// Whether a key press goes to a text box, a select or an editable region.
#[cfg(any(feature = "hydrate", feature = "csr"))]
fn typing(event: &web_sys::KeyboardEvent) -> bool {
    use wasm_bindgen::JsCast;
    event
        .target()
        .and_then(|target| target.dyn_into::<web_sys::HtmlElement>().ok())
        .is_some_and(|element| {
            element.is_content_editable()
                || matches!(element.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
        })
}

/// The sidebar's way in, with its key where there is a keyboard.
#[component]
pub fn PaletteButton() -> impl IntoView {
    let overlays = expect_context::<Overlays>();
    // Which key the hint names is known in the browser only: both renderings start at Ctrl.
    let apple = RwSignal::new(false);
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    Effect::new(move |_| {
        let platform = window().navigator().user_agent().unwrap_or_default();
        apple.set(
            platform.contains("Mac OS") || platform.contains("iPhone") || platform.contains("iPad"),
        );
    });
    view! {
        <button type="button" class="palette-button" aria-keyshortcuts="Control+K Meta+K"
            on:click=move |_| overlays.palette.set(true)>
            <span>"Jump to…"</span>
            <kbd class="key-hint" aria-hidden="true">{move || if apple.get() { "⌘ K" } else { "Ctrl K" }}</kbd>
        </button>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread(id: &str, title: &str, moved: i64, archived: bool) -> ThreadSummary {
        ThreadSummary {
            id: id.to_owned(),
            tenant_id: "acme".to_owned(),
            title: title.to_owned(),
            created_at_ms: 0,
            project_id: None,
            archived_at_ms: archived.then_some(1),
            project_name: None,
            active_at_ms: Some(moved),
        }
    }

    #[test]
    fn the_palette_lists_actions_then_threads_by_latest_move_without_archived_ones() {
        let threads = [
            thread("a", "Offsite agenda", 10, false),
            thread("b", "Quarterly numbers", 30, false),
            thread("c", "Old offsite", 50, true),
        ];
        let labels: Vec<String> = rows(&threads, true, "")
            .into_iter()
            .map(|row| row.label)
            .collect();
        assert_eq!(labels[0], "New thread");
        assert_eq!(
            &labels[labels.len() - 2..],
            ["Quarterly numbers", "Offsite agenda"]
        );
        assert!(!labels.contains(&"Old offsite".to_owned()));
    }

    #[test]
    fn typing_narrows_the_palette_and_a_viewer_is_not_offered_a_new_thread() {
        let threads = [thread("a", "Offsite agenda", 10, false)];
        let found = rows(&threads, false, "offs");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].target, Target::Page("/threads/a".to_owned()));
        assert!(rows(&threads, false, "new").is_empty());
        assert_eq!(
            rows(&threads, true, "new")[0].target,
            Target::Page("/new".into())
        );
    }
}
