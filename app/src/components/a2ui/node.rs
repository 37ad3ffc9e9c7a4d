//! Drawing a surface's component tree: each component by type, its properties resolved
//! against the data model as it changes, its children placed in their scopes. A dangling
//! id draws nothing; a cycle, a depth past the limit or a flood of components stops there.

use std::collections::BTreeMap;

use leptos::prelude::*;
use serde_json::Value;

use super::{OnSurfaceAction, content, inputs, layout};
use crate::a2ui::bind::{self, Scope};
use crate::a2ui::tree::{self, ChildList, MOST_DEPTH, MOST_NODES, ROOT};
use crate::a2ui::{LocalEdits, Surface, pointer};

/// Longest text drawn as it is; the rest is summarised.
const MOST_SHOWN_CHARS: usize = 4_000;

/// What every component of one drawn surface shares.
#[derive(Clone, Copy)]
pub(super) struct Ctx {
    pub surface_id: StoredValue<String>,
    components: StoredValue<BTreeMap<String, Value>>,
    /// The data model: the agent's, with the operator's edits made locally.
    pub data: RwSignal<Value>,
    /// The agent's model as drawn, and the operator's edits over it.
    agent_data: StoredValue<Value>,
    edits: StoredValue<LocalEdits>,
    pub on_action: OnSurfaceAction,
    /// Component instances drawn so far (templates multiply them).
    drawn: StoredValue<usize>,
    /// The last thing an action did, said once under the surface.
    pub notice: RwSignal<Option<String>>,
    /// Whether actions carry the data model (`createSurface.sendDataModel`).
    pub send_data_model: bool,
}

impl Ctx {
    /// Property `key` resolved, tracking the data model.
    pub fn value(&self, props: &Value, key: &str, scope: &Scope) -> Value {
        props.get(key).map_or(Value::Null, |value| {
            self.data.with(|data| bind::resolve(value, data, scope))
        })
    }

    /// Property `key` as text, tracking the data model.
    pub fn text(&self, props: &Value, key: &str, scope: &Scope) -> String {
        bind::text(&self.value(props, key, scope))
    }

    /// Property `key` as text to read, cut at [`MOST_SHOWN_CHARS`]: an enormous string is
    /// a layout bomb in a flex row, and the whole of it stays in the run's event log.
    pub fn shown(&self, props: &Value, key: &str, scope: &Scope) -> String {
        let mut text = self.text(props, key, scope);
        if let Some((cut, _)) = text.char_indices().nth(MOST_SHOWN_CHARS) {
            let rest = text[cut..].chars().count();
            text.truncate(cut);
            text.push_str(&format!(" … ({rest} more characters)"));
        }
        text
    }

    /// The operator's edit of the value at `pointer` (local; nothing is sent).
    pub fn write(&self, at: &str, value: Value) {
        self.agent_data.with_value(|agent| {
            self.edits
                .update_value(|edits| edits.record(agent, at, value.clone()))
        });
        self.data.update(|data| {
            let _ = pointer::set(data, at, Some(value));
        });
    }
}

/// Where a component is drawn: its id, its template item, and the ids above it.
#[derive(Clone)]
pub(super) struct At {
    pub id: String,
    pub scope: Scope,
    above: Vec<String>,
}

/// `surface` from its root.
pub(super) fn draw(
    surface: Surface,
    edits: StoredValue<LocalEdits>,
    on_action: OnSurfaceAction,
) -> AnyView {
    let foreign = (!surface.uses_basic_catalog()).then(|| {
        format!(
            "The agent named the catalog {:?}; this console draws the basic catalog, and shows any other component as JSON.",
            surface.catalog_id
        )
    });
    let ctx = Ctx {
        surface_id: StoredValue::new(surface.id),
        components: StoredValue::new(surface.components),
        data: RwSignal::new(
            edits
                .try_update_value(|edits| edits.overlay(&surface.data))
                .unwrap_or_else(|| surface.data.clone()),
        ),
        agent_data: StoredValue::new(surface.data),
        edits,
        on_action,
        drawn: StoredValue::new(0),
        notice: RwSignal::new(None),
        send_data_model: surface.send_data_model,
    };
    let read_only = on_action.is_none();
    // Built untracked: a value read while building (a label, a slider's bounds) must not
    // make the operator's typing redraw the surface; what changes is read reactively.
    let root = untrack(|| child(ctx, ROOT, Scope::default(), &[]));
    view! {
        <div class="a2ui" data-read-only=read_only.then_some("true")>
            {foreign.map(|text| view! { <p class="muted">{text}</p> })}
            {root}
            {move || ctx.notice.get().map(|text| view! { <p class="a2ui-notice" role="status">{text}</p> })}
        </div>
    }
    .into_any()
}

/// Component `id` drawn in `scope` below `above`.
pub(super) fn child(ctx: Ctx, id: &str, scope: Scope, above: &[String]) -> AnyView {
    if above.len() > MOST_DEPTH {
        return skipped(format!("nested deeper than {MOST_DEPTH}"));
    }
    if above.iter().any(|ancestor| ancestor == id) {
        return skipped(format!("{id} contains itself"));
    }
    let Some(props) = ctx.components.with_value(|all| all.get(id).cloned()) else {
        return ().into_any();
    };
    let count = ctx.drawn.get_value();
    if count >= MOST_NODES {
        return skipped(format!("more than {MOST_NODES} components"));
    }
    ctx.drawn.set_value(count + 1);
    let mut above = above.to_vec();
    above.push(id.to_owned());
    let at = At {
        id: id.to_owned(),
        scope,
        above,
    };
    let kind = props
        .get("component")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    match kind.as_str() {
        "Text" => content::text(ctx, props, at),
        "Image" => content::image(ctx, props, at),
        "Icon" => content::icon(ctx, props, at),
        "Video" | "AudioPlayer" => content::player(ctx, props, at, kind == "Video"),
        "Row" | "Column" => layout::flex(ctx, props, at, kind == "Row"),
        "List" => layout::list(ctx, props, at),
        "Card" => layout::card(ctx, props, at),
        "Tabs" => layout::tabs(ctx, props, at),
        "Modal" => layout::modal(ctx, props, at),
        "Divider" => layout::divider(&props),
        "Button" => inputs::button(ctx, props, at),
        "TextField" => inputs::text_field(ctx, props, at),
        "CheckBox" => inputs::check_box(ctx, props, at),
        "ChoicePicker" => inputs::choice_picker(ctx, props, at),
        "Slider" => inputs::slider(ctx, props, at),
        "DateTimeInput" => inputs::date_time(ctx, props, at),
        _ => unknown(&kind, props),
    }
}

fn skipped(reason: String) -> AnyView {
    view! { <span class="a2ui-skipped muted">{format!("(not drawn: {reason})")}</span> }.into_any()
}

fn unknown(kind: &str, props: Value) -> AnyView {
    let label = format!("{kind:?} is not a component of the basic catalog");
    view! {
        <details class="a2ui-unknown">
            <summary>{label}</summary>
            <crate::components::artifacts::JsonBlock value=props />
        </details>
    }
    .into_any()
}

/// The component property `key` names by id (`child`, `trigger`, `content`), drawn.
pub(super) fn single(ctx: Ctx, props: &Value, key: &str, at: &At) -> AnyView {
    match props.get(key).and_then(Value::as_str) {
        Some(id) => child(ctx, id, at.scope.clone(), &at.above),
        None => ().into_any(),
    }
}

/// The children property `key` lists, drawn; each wrapped as a list item when `items`.
/// A template follows its array: items appear and go as its length changes.
pub(super) fn children(ctx: Ctx, props: &Value, key: &str, at: &At, items: bool) -> AnyView {
    let wrap = move |view: AnyView| {
        if items {
            view! { <div role="listitem" class="a2ui-item">{view}</div> }.into_any()
        } else {
            view
        }
    };
    match tree::child_list(props.get(key)) {
        ChildList::Ids(ids) => ids
            .into_iter()
            .map(|id| wrap(child(ctx, &id, at.scope.clone(), &at.above)))
            .collect_view()
            .into_any(),
        ChildList::Template { component_id, path } => {
            let list = at.scope.absolute(&path);
            let count = Memo::new({
                let list = list.clone();
                move |_| {
                    ctx.data.with(|data| match pointer::get(data, &list) {
                        Some(Value::Array(entries)) => entries.len().min(MOST_NODES),
                        _ => 0,
                    })
                }
            });
            let above = at.above.clone();
            (move || {
                let total = count.get();
                let room = MOST_NODES.saturating_sub(ctx.drawn.get_value());
                let shown = total.min(room);
                // Only the list's length redraws it; what its items read is theirs.
                let mut views: Vec<AnyView> = untrack(|| {
                    (0..shown)
                        .map(|index| {
                            wrap(child(ctx, &component_id, Scope::item(&list, index), &above))
                        })
                        .collect()
                });
                if shown < total {
                    views.push(skipped(format!(
                        "{} more items: a surface draws at most {MOST_NODES} components",
                        total - shown
                    )));
                }
                views
            })
            .into_any()
        }
    }
}

/// The accessible label a component declares (`accessibility.label`), resolved.
pub(super) fn accessible_label(ctx: Ctx, props: &Value, scope: &Scope) -> Option<String> {
    let label = props.get("accessibility")?.get("label")?;
    let text = ctx
        .data
        .with(|data| bind::text(&bind::resolve(label, data, scope)));
    (!text.is_empty()).then_some(text)
}
