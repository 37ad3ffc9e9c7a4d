//! A2UI v0.9 surfaces: the operations an agent sends (create, update components, update
//! the data model, delete) folded into the surfaces they describe, with data binding
//! ([`bind`]), the component tree ([`tree`]) and the actions an operator may send back
//! ([`action`]). Pure: the browser draws from it and the server validates with it.

pub mod action;
pub mod bind;
pub mod date;
pub mod pattern;
pub mod pointer;
pub mod template;
pub mod theme;
pub mod tree;

use std::collections::BTreeMap;

use serde_json::Value;

/// The catalog every surface here is drawn with.
pub const BASIC_CATALOG: &str = "https://a2ui.org/specification/v0_9/basic_catalog.json";

/// The one wire version understood.
pub const VERSION: &str = "v0.9";

/// Most components one surface keeps; a flood beyond is refused and reported.
pub const MOST_COMPONENTS: usize = 2_000;

/// Most surfaces a thread keeps showing.
pub const MOST_SURFACES: usize = 64;

/// One surface as its operations have left it.
#[derive(Clone, Debug, PartialEq)]
pub struct Surface {
    pub id: String,
    pub catalog_id: String,
    /// Every component by id, as sent (`{id, component, …props}`).
    pub components: BTreeMap<String, Value>,
    pub data: Value,
    /// `createSurface.sendDataModel`: every action carries the data model as the operator
    /// left it (AG-UI `forwardedProps.a2uiClientDataModel`).
    pub send_data_model: bool,
    /// What of `createSurface.theme` the console honours.
    pub theme: theme::Theme,
}

impl Surface {
    /// Drawing waits for the component named `root`.
    pub fn ready(&self) -> bool {
        self.components.contains_key(tree::ROOT)
    }

    /// Whether the agent asked for the catalog this console draws.
    pub fn uses_basic_catalog(&self) -> bool {
        self.catalog_id == BASIC_CATALOG || self.catalog_id.ends_with("/basic_catalog.json")
    }
}

/// An operation that could not be applied, in A2UI's `VALIDATION_FAILED` terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub surface_id: Option<String>,
    /// Where in the operation (`updateComponents.components[3].id`).
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.surface_id {
            Some(surface) => write!(f, "surface {surface:?}: {}: {}", self.path, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

/// Every surface the operations so far describe, in the order they were created, and
/// what could not be applied.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Surfaces {
    pub surfaces: Vec<Surface>,
    pub problems: Vec<Problem>,
}

/// The artifact kind A2UI operations arrive in.
pub const ARTIFACT_KIND: &str = "a2ui_surface";

/// The surfaces a thread's artifacts describe (each run's, oldest run first, in the
/// order they first appeared): every A2UI operation applied in that order.
pub fn of_artifacts<'a>(
    artifacts: impl IntoIterator<Item = &'a crate::projection::ArtifactView>,
) -> Surfaces {
    Surfaces::fold(
        artifacts
            .into_iter()
            .filter(|artifact| artifact.kind == ARTIFACT_KIND)
            .flat_map(|artifact| operations(&artifact.data)),
    )
}

/// The operations an artifact of kind `a2ui_surface` carries.
pub fn operations(artifact_data: &Value) -> &[Value] {
    artifact_data
        .get("a2ui_operations")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The surface ids an artifact's operations name, in order, each once.
pub fn surface_ids(artifact_data: &Value) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for operation in operations(artifact_data) {
        if let Some((_, body)) = payload(operation)
            && let Some(id) = body.get("surfaceId").and_then(Value::as_str)
            && !ids.iter().any(|known| known == id)
        {
            ids.push(id.to_owned());
        }
    }
    ids
}

/// The one payload key of an operation and its body.
fn payload(operation: &Value) -> Option<(&str, &Value)> {
    let fields = operation.as_object()?;
    fields
        .iter()
        .find(|(key, _)| key.as_str() != "version")
        .map(|(key, body)| (key.as_str(), body))
}

impl Surfaces {
    /// The surfaces `operations` describe, applied in order.
    pub fn fold<'a>(operations: impl IntoIterator<Item = &'a Value>) -> Self {
        let mut surfaces = Self::default();
        for operation in operations {
            surfaces.apply(operation);
        }
        surfaces
    }

    pub fn get(&self, surface_id: &str) -> Option<&Surface> {
        self.surfaces
            .iter()
            .find(|surface| surface.id == surface_id)
    }

    fn get_mut(&mut self, surface_id: &str) -> Option<&mut Surface> {
        self.surfaces
            .iter_mut()
            .find(|surface| surface.id == surface_id)
    }

    fn problem(&mut self, surface_id: Option<&str>, path: &str, message: impl Into<String>) {
        self.problems.push(Problem {
            surface_id: surface_id.map(str::to_owned),
            path: path.to_owned(),
            message: message.into(),
        });
    }

    /// Applies one operation; one that cannot be applied leaves the surfaces as they were
    /// and is reported.
    pub fn apply(&mut self, operation: &Value) {
        match operation.get("version").and_then(Value::as_str) {
            Some(VERSION) => {}
            Some(other) => {
                return self.problem(None, "version", format!("{other:?} is not {VERSION:?}"));
            }
            None => return self.problem(None, "version", "missing"),
        }
        let Some((kind, body)) = payload(operation) else {
            return self.problem(None, "", "the operation has no payload");
        };
        let Some(surface_id) = body.get("surfaceId").and_then(Value::as_str) else {
            return self.problem(
                None,
                &format!("{kind}.surfaceId"),
                "missing or not a string",
            );
        };
        let surface_id = surface_id.to_owned();
        match kind {
            "createSurface" => self.create(&surface_id, body),
            "updateComponents" => self.update_components(&surface_id, body),
            "updateDataModel" => self.update_data(&surface_id, body),
            "deleteSurface" => {
                let before = self.surfaces.len();
                self.surfaces.retain(|surface| surface.id != surface_id);
                if self.surfaces.len() == before {
                    self.problem(Some(&surface_id), "deleteSurface", "no such surface");
                }
            }
            other => self.problem(
                Some(&surface_id),
                other,
                "not an operation of A2UI v0.9 (createSurface, updateComponents, updateDataModel, deleteSurface)",
            ),
        }
    }

    fn create(&mut self, surface_id: &str, body: &Value) {
        if self.get(surface_id).is_some() {
            return self.problem(
                Some(surface_id),
                "createSurface.surfaceId",
                "a surface with this id already exists",
            );
        }
        if self.surfaces.len() >= MOST_SURFACES {
            return self.problem(
                Some(surface_id),
                "createSurface",
                format!("more than {MOST_SURFACES} surfaces"),
            );
        }
        let Some(catalog_id) = body.get("catalogId").and_then(Value::as_str) else {
            return self.problem(Some(surface_id), "createSurface.catalogId", "missing");
        };
        self.surfaces.push(Surface {
            id: surface_id.to_owned(),
            catalog_id: catalog_id.to_owned(),
            components: BTreeMap::new(),
            data: Value::Object(serde_json::Map::new()),
            send_data_model: body.get("sendDataModel") == Some(&Value::Bool(true)),
            theme: theme::Theme::read(body.get("theme")),
        });
    }

    fn update_components(&mut self, surface_id: &str, body: &Value) {
        let Some(components) = body.get("components").and_then(Value::as_array) else {
            return self.problem(
                Some(surface_id),
                "updateComponents.components",
                "missing or not an array",
            );
        };
        let mut accepted = Vec::with_capacity(components.len());
        for (position, component) in components.iter().enumerate() {
            let path = format!("updateComponents.components[{position}]");
            match (
                component.get("id").and_then(Value::as_str),
                component.get("component").and_then(Value::as_str),
            ) {
                (Some(id), Some(_)) if !id.is_empty() => {
                    accepted.push((id.to_owned(), component.clone()))
                }
                (None, _) | (Some(_), Some(_)) => {
                    self.problem(Some(surface_id), &format!("{path}.id"), "missing or empty")
                }
                (Some(_), None) => {
                    self.problem(Some(surface_id), &format!("{path}.component"), "missing")
                }
            }
        }
        let Some(surface) = self.get_mut(surface_id) else {
            return self.problem(
                Some(surface_id),
                "updateComponents.surfaceId",
                "no such surface (createSurface must come first)",
            );
        };
        let mut refused = 0;
        for (id, component) in accepted {
            if surface.components.len() >= MOST_COMPONENTS && !surface.components.contains_key(&id)
            {
                refused += 1;
                continue;
            }
            surface.components.insert(id, component);
        }
        if refused > 0 {
            self.problem(
                Some(surface_id),
                "updateComponents.components",
                format!("{refused} components beyond the {MOST_COMPONENTS} a surface may hold were dropped"),
            );
        }
    }

    fn update_data(&mut self, surface_id: &str, body: &Value) {
        let path = body
            .get("path")
            .and_then(Value::as_str)
            .unwrap_or("/")
            .to_owned();
        let value = body.get("value").cloned();
        let Some(surface) = self.get_mut(surface_id) else {
            return self.problem(
                Some(surface_id),
                "updateDataModel.surfaceId",
                "no such surface (createSurface must come first)",
            );
        };
        if let Err(error) = pointer::set(&mut surface.data, &path, value) {
            self.problem(Some(surface_id), "updateDataModel.path", error.to_string());
        }
    }
}

/// The operator's edits of a surface's data model (inputs write locally), kept across the
/// agent's updates: an edit stays until the agent changes the value it was made over.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LocalEdits {
    /// Pointer → (the operator's value, the agent's value there when it was made).
    edits: BTreeMap<String, (Value, Option<Value>)>,
}

impl LocalEdits {
    /// Records the operator's `value` at `at`, over the agent's model `agent`.
    pub fn record(&mut self, agent: &Value, at: &str, value: Value) {
        let under = self
            .edits
            .remove(at)
            .map_or_else(|| pointer::get(agent, at).cloned(), |(_, under)| under);
        self.edits.insert(at.to_owned(), (value, under));
    }

    /// The agent's model `agent` with the operator's edits laid over it; an edit whose
    /// value the agent has since changed is dropped (the agent's later word wins).
    pub fn overlay(&mut self, agent: &Value) -> Value {
        self.edits
            .retain(|at, (_, under)| pointer::get(agent, at) == under.as_ref());
        let mut data = agent.clone();
        for (at, (value, _)) in &self.edits {
            let _ = pointer::set(&mut data, at, Some(value.clone()));
        }
        data
    }
}

#[cfg(test)]
mod tests;
