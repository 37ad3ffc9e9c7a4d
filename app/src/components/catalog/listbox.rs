//! A keyboard-first listbox of options (tool-ui's option conventions): roving tabindex,
//! Arrow Up/Down wrap and skip disabled options, Home/End, Enter/Space toggle, Escape
//! clears. Single mode keeps one choice; multi mode up to `max`.

use leptos::prelude::*;

use crate::catalog::options::OptionItem;
use crate::components::focus::focus_by_id as focus;
use crate::components::id_fragment;

/// The options of `options`, choosing into `selected`. `read_only` shows only the
/// choice, as a receipt does.
#[component]
pub fn Listbox(
    #[prop(into)] id: String,
    #[prop(into)] label: String,
    options: Vec<OptionItem>,
    multi: bool,
    selected: RwSignal<Vec<String>>,
    #[prop(optional)] max: Option<usize>,
    #[prop(optional)] read_only: bool,
) -> impl IntoView {
    let enabled: Vec<usize> = options
        .iter()
        .enumerate()
        .filter(|(_, option)| !option.disabled)
        .map(|(n, _)| n)
        .collect();
    let active = RwSignal::new(enabled.first().copied().unwrap_or(0));
    let ids: Vec<String> = options.iter().map(|option| option.id.clone()).collect();
    let dom_ids: Vec<String> = options
        .iter()
        .map(|option| format!("{}-{}", id_fragment(&id), id_fragment(&option.id)))
        .collect();
    let toggle = move |option_id: String| {
        if read_only {
            return;
        }
        selected.update(|chosen| {
            if let Some(at) = chosen.iter().position(|c| *c == option_id) {
                chosen.remove(at);
            } else if multi {
                if max.is_none_or(|max| chosen.len() < max) {
                    chosen.push(option_id);
                }
            } else {
                *chosen = vec![option_id];
            }
        });
    };
    let keydown = {
        let (ids, dom_ids, enabled) = (ids.clone(), dom_ids.clone(), enabled.clone());
        move |event: leptos::ev::KeyboardEvent| {
            if enabled.is_empty() {
                return;
            }
            let now = active.get_untracked();
            let place = enabled.iter().position(|n| *n == now).unwrap_or(0);
            let next = match event.key().as_str() {
                "ArrowDown" => Some(enabled[(place + 1) % enabled.len()]),
                "ArrowUp" => Some(enabled[(place + enabled.len() - 1) % enabled.len()]),
                "Home" => enabled.first().copied(),
                "End" => enabled.last().copied(),
                " " | "Enter" => {
                    event.prevent_default();
                    if let Some(option_id) = ids.get(now) {
                        toggle(option_id.clone());
                    }
                    None
                }
                "Escape" if !read_only => {
                    selected.set(Vec::new());
                    None
                }
                _ => None,
            };
            if let Some(next) = next {
                event.prevent_default();
                active.set(next);
                if let Some(dom_id) = dom_ids.get(next) {
                    focus(dom_id);
                }
            }
        }
    };
    let items = options
        .into_iter()
        .enumerate()
        .filter(|(_, option)| {
            !read_only || selected.with_untracked(|chosen| chosen.contains(&option.id))
        })
        .map(|(n, option)| {
            let option_id = option.id.clone();
            let chosen = {
                let option_id = option_id.clone();
                move || selected.with(|chosen| chosen.contains(&option_id))
            };
            let disabled = option.disabled;
            let chosen_class = chosen.clone();
            view! {
                <li role="option" id=dom_ids[n].clone()
                    class=move || if chosen_class() { "option chosen" } else { "option" }
                    aria-selected=move || chosen().to_string()
                    aria-disabled=disabled.then_some("true")
                    tabindex=move || if active.get() == n { "0" } else { "-1" }
                    on:focus=move |_| active.set(n)
                    on:click=move |_| if !disabled {
                        active.set(n);
                        toggle(option_id.clone());
                    }>
                    <span class="option-box" aria-hidden="true"></span>
                    <span class="option-text">
                        <span class="option-label">{option.label}</span>
                        {option.description.map(|text| view! { <span class="muted option-description">{text}</span> })}
                    </span>
                </li>
            }
        })
        .collect_view();
    view! {
        <ul class="listbox" role="listbox" aria-label=label aria-multiselectable=multi.to_string()
            aria-readonly=read_only.then_some("true") on:keydown=keydown>
            {items}
        </ul>
    }
}
