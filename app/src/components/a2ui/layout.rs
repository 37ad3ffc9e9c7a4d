//! The basic catalog's layout components: Row, Column, List, Card, Tabs (a tab list with
//! arrow keys), Modal (a native dialog opened by its trigger) and Divider. Alignment comes
//! from fixed words mapped to the console's own classes; no agent text becomes CSS.

use leptos::html;
use leptos::prelude::*;
use serde_json::Value;

use super::content::choice;
use super::node::{At, Ctx, children, single};
use crate::components::focus::focus_by_id;
use crate::components::id_fragment;

const JUSTIFY: &[&str] = &[
    "start",
    "center",
    "end",
    "spaceBetween",
    "spaceAround",
    "spaceEvenly",
    "stretch",
];
const ALIGN: &[&str] = &["start", "center", "end", "stretch"];

pub(super) fn flex(ctx: Ctx, props: Value, at: At, row: bool) -> AnyView {
    let justify = choice(&props, "justify", JUSTIFY, "start");
    let align = choice(
        &props,
        "align",
        ALIGN,
        if row { "center" } else { "stretch" },
    );
    let class = if row { "a2ui-row" } else { "a2ui-column" };
    view! {
        <div class=class data-justify=justify data-align=align>
            {children(ctx, &props, "children", &at, false)}
        </div>
    }
    .into_any()
}

pub(super) fn list(ctx: Ctx, props: Value, at: At) -> AnyView {
    let direction = choice(&props, "direction", &["vertical", "horizontal"], "vertical");
    let align = choice(&props, "align", ALIGN, "stretch");
    view! {
        <div class="a2ui-list" role="list" data-direction=direction data-align=align>
            {children(ctx, &props, "children", &at, true)}
        </div>
    }
    .into_any()
}

pub(super) fn card(ctx: Ctx, props: Value, at: At) -> AnyView {
    view! { <div class="a2ui-card">{single(ctx, &props, "child", &at)}</div> }.into_any()
}

pub(super) fn divider(props: &Value) -> AnyView {
    let axis = choice(props, "axis", &["horizontal", "vertical"], "horizontal");
    view! { <div class="a2ui-divider" role="separator" aria-orientation=axis data-axis=axis></div> }
        .into_any()
}

/// Tabs: `tabs: [{title, child}]`; the arrow keys, Home and End move between tabs.
pub(super) fn tabs(ctx: Ctx, props: Value, at: At) -> AnyView {
    let entries: Vec<Value> = props
        .get("tabs")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let count = entries.len();
    if count == 0 {
        return ().into_any();
    }
    let selected = RwSignal::new(0usize);
    let base = id_fragment(&format!(
        "a2ui-{}-{}-{}",
        ctx.surface_id.get_value(),
        at.id,
        at.scope.base
    ));
    let tab_id = {
        let base = base.clone();
        move |n: usize| format!("{base}-tab-{n}")
    };
    let panel_id = {
        let base = base.clone();
        move |n: usize| format!("{base}-panel-{n}")
    };
    let list_ref = NodeRef::<html::Div>::new();
    let on_key = {
        let tab_id = tab_id.clone();
        move |event: leptos::ev::KeyboardEvent| {
            let now = selected.get_untracked();
            let next = match event.key().as_str() {
                "ArrowRight" | "ArrowDown" => (now + 1) % count,
                "ArrowLeft" | "ArrowUp" => (now + count - 1) % count,
                "Home" => 0,
                "End" => count - 1,
                _ => return,
            };
            event.prevent_default();
            selected.set(next);
            focus_by_id(&tab_id(next));
        }
    };
    let buttons = entries
        .iter()
        .enumerate()
        .map(|(n, entry)| {
            let scope = at.scope.clone();
            let entry = entry.clone();
            let title = move || ctx.shown(&entry, "title", &scope);
            view! {
                <button type="button" role="tab" id=tab_id(n) aria-controls=panel_id(n)
                    aria-selected=move || (selected.get() == n).to_string()
                    tabindex=move || if selected.get() == n { "0" } else { "-1" }
                    on:click=move |_| selected.set(n)>
                    {title}
                </button>
            }
        })
        .collect_view();
    let panels = entries
        .iter()
        .enumerate()
        .map(|(n, entry)| {
            view! {
                <div role="tabpanel" id=panel_id(n) aria-labelledby=tab_id(n) class="a2ui-tabpanel"
                    hidden=move || selected.get() != n>
                    {single(ctx, entry, "child", &at)}
                </div>
            }
        })
        .collect_view();
    view! {
        <div class="a2ui-tabs">
            <div role="tablist" class="a2ui-tablist" node_ref=list_ref on:keydown=on_key>{buttons}</div>
            {panels}
        </div>
    }
    .into_any()
}

/// Modal: its `trigger` drawn in place opens its `content` in a native dialog (focus is
/// kept inside; Escape or Close ends it).
pub(super) fn modal(ctx: Ctx, props: Value, at: At) -> AnyView {
    let dialog = NodeRef::<html::Dialog>::new();
    let open = move |_| crate::components::focus::show_modal(dialog);
    let close = move |_| {
        #[cfg(any(feature = "hydrate", feature = "csr"))]
        if let Some(dialog) = dialog.get_untracked() {
            dialog.close();
        }
    };
    view! {
        <div class="a2ui-modal">
            <div class="a2ui-modal-trigger" on:click=open>{single(ctx, &props, "trigger", &at)}</div>
            <dialog class="a2ui-dialog" node_ref=dialog aria-label="Surface dialog">
                {single(ctx, &props, "content", &at)}
                <form method="dialog" class="a2ui-dialog-close">
                    <button type="button" class="button small ghost" on:click=close>"Close"</button>
                </form>
            </dialog>
        </div>
    }
    .into_any()
}
