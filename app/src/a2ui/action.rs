//! An operator's action on a surface, on its way back to the agent: the browser builds it
//! from the component's declared `action.event` and the data model as the operator left
//! it; the server checks it against the surface as stored before any agent sees it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::Surfaces;
use super::bind::{Scope, resolve_context};

/// Largest context an action may carry (serialized).
pub const MOST_CONTEXT_BYTES: usize = 64 * 1024;
/// Largest data model an action may carry (serialized).
pub const MOST_DATA_MODEL_BYTES: usize = 256 * 1024;

/// What the browser sends: the action the component declares and its resolved context.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ActionRequest {
    pub surface_id: String,
    pub source_component_id: String,
    pub name: String,
    #[serde(default)]
    pub context: Map<String, Value>,
    /// The surface's data model as the operator left it, when the surface asked for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_model: Option<Value>,
}

/// An action checked against its surface, ready for the agent.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserAction {
    pub name: String,
    pub surface_id: String,
    pub source_component_id: String,
    /// ISO-8601, set by the console when it accepts the action.
    pub timestamp: String,
    pub context: Map<String, Value>,
    /// The surface's data model, for a surface created with `sendDataModel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_model: Option<Value>,
}

impl UserAction {
    /// AG-UI's `forwardedProps`: the action as A2UI's `userAction` (`a2uiAction`), and the
    /// surface's data model as A2UI's client data model (`a2uiClientDataModel`) when the
    /// surface asked for it.
    pub fn forwarded_props(&self) -> Value {
        let user_action = json!({
            "name": self.name,
            "surfaceId": self.surface_id,
            "sourceComponentId": self.source_component_id,
            "timestamp": self.timestamp,
            "context": self.context,
        });
        let mut props = json!({ "a2uiAction": { "userAction": user_action } });
        if let Some(model) = &self.data_model {
            props["a2uiClientDataModel"] =
                json!({ "surfaces": { self.surface_id.clone(): model } });
        }
        props
    }
}

/// Why an action was refused: the field and the reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct Refused {
    pub field: &'static str,
    pub reason: String,
}

fn refuse(field: &'static str, reason: impl Into<String>) -> Refused {
    Refused {
        field,
        reason: reason.into(),
    }
}

/// The event a component declares (`action: {event: {name, context?}}`), if any.
pub fn declared_event(component: &Value) -> Option<&Value> {
    component.get("action")?.get("event")
}

/// The request a component's action makes, with its context resolved from `data` as
/// drawn in `scope`, and `data` itself when the surface asked for its data model.
pub fn request_for(
    surface_id: &str,
    component_id: &str,
    component: &Value,
    data: &Value,
    scope: &Scope,
    send_data_model: bool,
) -> Option<ActionRequest> {
    let event = declared_event(component)?;
    let name = event.get("name")?.as_str()?.to_owned();
    Some(ActionRequest {
        surface_id: surface_id.to_owned(),
        source_component_id: component_id.to_owned(),
        name,
        context: resolve_context(event.get("context"), data, scope),
        data_model: send_data_model.then(|| data.clone()),
    })
}

/// `request` checked against `surfaces`: the surface is showing, the component exists and
/// declares this action, the context names only what the action declares, and a context
/// value the agent fixed (a literal) is the one it sent. Values bound to the data model
/// are the operator's to change.
pub fn validate(
    surfaces: &Surfaces,
    request: &ActionRequest,
    timestamp: String,
) -> Result<UserAction, Refused> {
    let surface = surfaces.get(&request.surface_id).ok_or_else(|| {
        refuse(
            "surfaceId",
            format!(
                "no surface {:?} is showing in this thread",
                request.surface_id
            ),
        )
    })?;
    let component = surface
        .components
        .get(&request.source_component_id)
        .ok_or_else(|| {
            refuse(
                "sourceComponentId",
                format!(
                    "surface {:?} has no component {:?}",
                    surface.id, request.source_component_id
                ),
            )
        })?;
    let event = declared_event(component)
        .filter(|event| event.get("name").and_then(Value::as_str) == Some(&request.name))
        .ok_or_else(|| {
            refuse(
                "name",
                format!(
                    "component {:?} declares no action {:?}",
                    request.source_component_id, request.name
                ),
            )
        })?;
    let declared = event.get("context").and_then(Value::as_object);
    for (key, value) in &request.context {
        let Some(template) = declared.and_then(|declared| declared.get(key)) else {
            return Err(refuse(
                "context",
                format!("{key:?} is not part of action {:?}", request.name),
            ));
        };
        let bound = template
            .as_object()
            .is_some_and(|fields| fields.contains_key("path") || fields.contains_key("call"));
        if !bound && template != value {
            return Err(refuse(
                "context",
                format!("{key:?} must be the value the agent set"),
            ));
        }
    }
    let size = serde_json::to_string(&request.context).map_or(usize::MAX, |text| text.len());
    if size > MOST_CONTEXT_BYTES {
        return Err(refuse(
            "context",
            format!("{size} bytes; at most {MOST_CONTEXT_BYTES}"),
        ));
    }
    let data_model = match (&request.data_model, surface.send_data_model) {
        (Some(_), false) => {
            return Err(refuse(
                "dataModel",
                format!("surface {:?} did not ask for its data model", surface.id),
            ));
        }
        (Some(model), true) => {
            let size = serde_json::to_string(model).map_or(usize::MAX, |text| text.len());
            if size > MOST_DATA_MODEL_BYTES {
                return Err(refuse(
                    "dataModel",
                    format!("{size} bytes; at most {MOST_DATA_MODEL_BYTES}"),
                ));
            }
            Some(model.clone())
        }
        // A client that sends none (the REST API, say) gives the model as the agent left it.
        (None, true) => Some(surface.data.clone()),
        (None, false) => None,
    };
    Ok(UserAction {
        name: request.name.clone(),
        surface_id: surface.id.clone(),
        source_component_id: request.source_component_id.clone(),
        timestamp,
        context: request.context.clone(),
        data_model,
    })
}
