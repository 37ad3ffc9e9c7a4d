//! `/gallery`: every catalog component with a payload that fits its schema and one that
//! does not, for review and for the browser tests (which screenshot each, light and dark).
//! Interactive components answer into a log here instead of to an agent.

use leptos::prelude::*;
use leptos_meta::Title;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::a2ui::action::ActionRequest;
use crate::codec::Json;
use crate::components::a2ui::{OnSurfaceAction, SurfacePreview};
use crate::components::catalog::{CatalogView, OnAction};
use crate::components::layout::ContextFrame;
use crate::error::ApiError;

/// One component's examples.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GalleryEntry {
    pub component: String,
    pub valid: Vec<Value>,
    pub invalid: Value,
}

/// The gallery's payloads (`fixtures/catalog/gallery.json`), in catalog order.
#[server(prefix = "/fn", endpoint = "gallery_payloads")]
pub async fn gallery_payloads() -> Result<Vec<GalleryEntry>, ApiError> {
    let all: serde_json::Map<String, Value> =
        serde_json::from_str(include_str!("../../../fixtures/catalog/gallery.json"))
            .map_err(|error| ApiError::Internal(format!("the gallery fixture: {error}")))?;
    Ok(all
        .into_iter()
        .map(|(component, mut examples)| {
            let mut valid = vec![examples["valid"].take()];
            if let Some(Value::Array(more)) = examples.get_mut("more") {
                valid.append(more);
            }
            GalleryEntry {
                component,
                valid,
                invalid: examples["invalid"].take(),
            }
        })
        .collect())
}

/// One example: an A2UI surface drawn from its operations, or a catalog component.
fn example(
    component: &str,
    data: Value,
    on_action: OnAction,
    on_surface_action: OnSurfaceAction,
) -> AnyView {
    if component == crate::a2ui::ARTIFACT_KIND {
        let surfaces = Signal::stored(crate::a2ui::Surfaces::fold(crate::a2ui::operations(&data)));
        return view! { <SurfacePreview data surfaces on_action=on_surface_action /> }.into_any();
    }
    view! { <CatalogView component=component.to_owned() data on_action /> }.into_any()
}

#[component]
pub fn GalleryPage() -> impl IntoView {
    let entries = Resource::<_, Json>::new_with_options(|| (), |_| gallery_payloads(), false);
    let log = RwSignal::new(Vec::<String>::new());
    let on_action = Callback::new(move |(action, data): (String, Value)| {
        log.update(|lines| lines.push(format!("{action}: {data}")));
    });
    let on_surface_action = Callback::new(move |request: ActionRequest| {
        let context = Value::Object(request.context);
        log.update(|lines| lines.push(format!("{}: {context}", request.name)));
    });
    view! {
        <Title text="Component gallery" />
        <main class="main section-page gallery" id="main" tabindex="-1">
            <h1>"Component gallery"</h1>
            <p class="muted">"Every component agents can send, with a payload that fits its schema and one that does not."</p>
            <Transition fallback=|| view! { <p class="muted">"Loading the gallery…"</p> }>
                {move || Suspend::new(async move {
                    match entries.await {
                        Ok(list) => list.into_iter().map(|entry| {
                            let heading_id = format!("gallery-{}", entry.component);
                            let labelled_by = heading_id.clone();
                            let name = entry.component.replace('_', " ");
                            view! {
                                <section class="gallery-entry" id=entry.component.clone() aria-labelledby=labelled_by
                                    data-component=entry.component.clone()>
                                    <h2 id=heading_id>{name}</h2>
                                    <div class="gallery-valid" data-example="valid">
                                        {entry.valid.into_iter().map(|data| example(&entry.component, data, Some(on_action), Some(on_surface_action))).collect_view()}
                                    </div>
                                    <div class="gallery-invalid" data-example="invalid">
                                        {example(&entry.component, entry.invalid, None, None)}
                                    </div>
                                </section>
                            }
                        }).collect_view().into_any(),
                        Err(error) => view! {
                            <p class="error-text" role="alert">"The gallery could not be loaded: " {error.say()}</p>
                        }.into_any(),
                    }
                })}
            </Transition>
        </main>
        <ContextFrame>
            <section class="pane-section">
                <h2>"What the components sent"</h2>
                <ol class="gallery-log" aria-label="Actions" aria-live="polite">
                    {move || log.get().into_iter().map(|line| view! { <li><code>{line}</code></li> }).collect_view()}
                </ol>
            </section>
        </ContextFrame>
    }
}
