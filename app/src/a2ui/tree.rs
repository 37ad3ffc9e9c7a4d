//! The component tree of a surface: components are a flat list that name their children
//! by id (`child`, `children`, a template over a data array, tabs, a modal's trigger and
//! content). Walking it from `root` skips dangling ids and cycles, and stops at a depth
//! and a node count, so a hostile surface cannot hang the page.

use serde_json::Value;

use super::Surface;
use super::bind::Scope;

/// The component drawing starts from.
pub const ROOT: &str = "root";

/// Deepest nesting drawn; what is deeper is left out with a note.
pub const MOST_DEPTH: usize = 24;

/// Most component instances one surface draws (templates multiply them).
pub const MOST_NODES: usize = 2_000;

/// The children a component names: ids, or one component repeated per array item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChildList {
    Ids(Vec<String>),
    Template { component_id: String, path: String },
}

/// A `ChildList` property (`children`).
pub fn child_list(value: Option<&Value>) -> ChildList {
    match value {
        Some(Value::Array(ids)) => ChildList::Ids(
            ids.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        ),
        Some(Value::Object(template)) => match (
            template.get("componentId").and_then(Value::as_str),
            template.get("path").and_then(Value::as_str),
        ) {
            (Some(component_id), Some(path)) => ChildList::Template {
                component_id: component_id.to_owned(),
                path: path.to_owned(),
            },
            _ => ChildList::Ids(Vec::new()),
        },
        _ => ChildList::Ids(Vec::new()),
    }
}

/// Each child of a list with the scope it is drawn in: ids keep the parent's scope; a
/// template gives each array item its own.
pub fn expand(list: &ChildList, data: &Value, scope: &Scope) -> Vec<(String, Scope)> {
    match list {
        ChildList::Ids(ids) => ids.iter().map(|id| (id.clone(), scope.clone())).collect(),
        ChildList::Template { component_id, path } => {
            let absolute = scope.absolute(path);
            let count = match super::pointer::get(data, &absolute) {
                Some(Value::Array(items)) => items.len().min(MOST_NODES),
                _ => 0,
            };
            (0..count)
                .map(|index| (component_id.clone(), Scope::item(&absolute, index)))
                .collect()
        }
    }
}

/// Every component a component draws inside itself, with the scope of each, in order.
pub fn children_of(component: &Value, data: &Value, scope: &Scope) -> Vec<(String, Scope)> {
    let mut found = Vec::new();
    let single = |key: &str| {
        component
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    for key in ["child", "trigger", "content"] {
        if let Some(id) = single(key) {
            found.push((id, scope.clone()));
        }
    }
    if component.get("children").is_some() {
        found.extend(expand(&child_list(component.get("children")), data, scope));
    }
    if let Some(Value::Array(tabs)) = component.get("tabs") {
        for tab in tabs {
            if let Some(id) = tab.get("child").and_then(Value::as_str) {
                found.push((id.to_owned(), scope.clone()));
            }
        }
    }
    found
}

/// One component placed in the drawn tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    pub id: String,
    pub scope: Scope,
    pub depth: usize,
}

/// The components drawn from `root`, depth first, with the ids that were skipped and why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Walk {
    pub placed: Vec<Placed>,
    pub skipped: Vec<String>,
}

/// Walks `surface` from `root` as the renderer does.
pub fn walk(surface: &Surface) -> Walk {
    let mut walk = Walk::default();
    let mut path = Vec::new();
    visit(surface, ROOT, &Scope::default(), 0, &mut path, &mut walk);
    walk
}

fn visit(
    surface: &Surface,
    id: &str,
    scope: &Scope,
    depth: usize,
    path: &mut Vec<String>,
    walk: &mut Walk,
) {
    if walk.placed.len() >= MOST_NODES {
        walk.skipped
            .push(format!("{id}: more than {MOST_NODES} components"));
        return;
    }
    if depth > MOST_DEPTH {
        walk.skipped
            .push(format!("{id}: nested deeper than {MOST_DEPTH}"));
        return;
    }
    if path.iter().any(|on_path| on_path == id) {
        walk.skipped.push(format!("{id}: contains itself"));
        return;
    }
    let Some(component) = surface.components.get(id) else {
        walk.skipped.push(format!("{id}: no such component"));
        return;
    };
    walk.placed.push(Placed {
        id: id.to_owned(),
        scope: scope.clone(),
        depth,
    });
    path.push(id.to_owned());
    for (child, child_scope) in children_of(component, &surface.data, scope) {
        visit(surface, &child, &child_scope, depth + 1, path, walk);
    }
    path.pop();
}
