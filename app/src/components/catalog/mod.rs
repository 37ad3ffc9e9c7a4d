//! The tool-ui component catalog, rendered: [`CatalogView`] reads a payload against its
//! component's schema and draws the component, or — when it does not fit — shows the
//! payload as readable JSON under a line naming the field and the reason. Interactive
//! components report the operator's choice through `on_action` (the caller turns it into
//! a receipt); without it they render read-only.

use leptos::prelude::*;
use serde_json::Value;

use crate::catalog::{Invalid, Payload, parse};

mod actions;
mod chart;
mod controls;
mod decision;
mod format;
mod links;
mod listbox;
mod media;
mod output;
mod outside;
mod progress;
mod stats;
mod table;

pub use actions::ActionBar;

/// Where an interactive component sends `(action, data)`; `None` renders it read-only.
pub type OnAction = Option<Callback<(String, Value)>>;

/// Longest payload shown as JSON when it does not fit its schema; the rest stays in the
/// run's event log.
const MOST_JSON_SHOWN: usize = 200 * 1024;

/// The component `component` drawn from `data`, or the payload with why it does not fit.
///
/// The catalog is a lazy part of the browser bundle (docs/build.md#lazy-chunks): it is
/// drawn once the page runs in the browser and the part has loaded. The server's page and
/// the hydrating browser both show "Loading…" there, so they agree.
#[component]
pub fn CatalogView(
    #[prop(into)] component: String,
    data: Value,
    #[prop(optional)] on_action: OnAction,
) -> impl IntoView {
    let mounted = RwSignal::new(false);
    Effect::new(move |_| mounted.set(true));
    let input = StoredValue::new((component, data));
    view! {
        <Suspense fallback=|| view! { <p class="muted catalog-loading" role="status">"Loading…"</p> }>
            {move || mounted.get().then(|| {
                let (component, data) = input.get_value();
                Suspend::new(async move { draw(component, data, on_action).await })
            })}
        </Suspense>
    }
}

/// The split point: everything only this reaches (the schemas, every renderer) loads
/// with it, on first use.
#[cfg_attr(all(feature = "hydrate", target_arch = "wasm32"), lazy)]
pub async fn draw(component: String, data: Value, on_action: OnAction) -> AnyView {
    match parse(&component, &data) {
        Ok(payload) => payload_view(payload, on_action),
        Err(invalid) => view! { <InvalidPayload component invalid data /> }.into_any(),
    }
}

fn payload_view(payload: Payload, on_action: OnAction) -> AnyView {
    match payload {
        Payload::Plan(plan) => view! { <progress::PlanView plan on_action /> }.into_any(),
        Payload::ProgressTracker(tracker) => {
            view! { <progress::ProgressTrackerView tracker on_action /> }.into_any()
        }
        Payload::ApprovalCard(card) => {
            view! { <decision::ApprovalCardView card on_action /> }.into_any()
        }
        Payload::OptionList(list) => {
            view! { <decision::OptionListView list on_action /> }.into_any()
        }
        Payload::QuestionFlow(flow) => {
            view! { <decision::QuestionFlowView flow on_action /> }.into_any()
        }
        Payload::PreferencesPanel(panel) => {
            view! { <controls::PreferencesPanelView panel on_action /> }.into_any()
        }
        Payload::ParameterSlider(sliders) => {
            view! { <controls::ParameterSliderView sliders on_action /> }.into_any()
        }
        Payload::Terminal(terminal) => view! { <output::TerminalView terminal /> }.into_any(),
        Payload::CodeBlock(block) => view! { <output::CodeBlockView block /> }.into_any(),
        Payload::CodeDiff(diff) => view! { <output::CodeDiffView diff on_action /> }.into_any(),
        Payload::DataTable(table) => view! { <table::DataTableView table /> }.into_any(),
        Payload::Chart(payload) => view! { <chart::ChartView payload /> }.into_any(),
        Payload::StatsDisplay(payload) => view! { <stats::StatsDisplayView payload /> }.into_any(),
        Payload::Image(payload) => view! { <media::ImageView payload /> }.into_any(),
        Payload::ImageGallery(payload) => view! { <media::ImageGalleryView payload /> }.into_any(),
        Payload::Audio(payload) => view! { <media::AudioView payload /> }.into_any(),
        Payload::Video(payload) => view! { <media::VideoView payload /> }.into_any(),
        Payload::LinkPreview(payload) => view! { <links::LinkPreviewView payload /> }.into_any(),
        Payload::Citation(payload) => view! { <links::CitationView payload /> }.into_any(),
        Payload::CitationList(payload) => view! { <links::CitationListView payload /> }.into_any(),
    }
}

/// A payload that does not fit its schema: the field and the reason, then the payload
/// itself, laid out (nothing is dropped; an enormous one is cut for display only).
#[component]
pub fn InvalidPayload(component: String, invalid: Invalid, data: Value) -> impl IntoView {
    let mut pretty = serde_json::to_string_pretty(&data).unwrap_or_default();
    let total = pretty.len();
    let cut = (total > MOST_JSON_SHOWN).then(|| {
        let mut end = MOST_JSON_SHOWN;
        while !pretty.is_char_boundary(end) {
            end -= 1;
        }
        pretty.truncate(end);
        format!(
            "Showing the first {} KB of {} KB; the whole payload is in the run's event log.",
            MOST_JSON_SHOWN / 1024,
            total / 1024
        )
    });
    let name = component.replace('_', " ");
    view! {
        <section class="invalid-payload" data-slot=component.clone() data-invalid="true"
            aria-label=format!("{name}: payload does not fit its schema")>
            <p class="invalid-reason" role="note">
                <strong>{format!("This {name} payload does not fit its schema")}</strong>
                " — " <code class="invalid-field">{invalid.to_string()}</code>
            </p>
            {cut.map(|note| view! { <p class="muted">{note}</p> })}
            <pre class="json"><code>{pretty}</code></pre>
        </section>
    }
}

/// Whether `component` is one the catalog draws.
pub fn is_catalog_component(component: &str) -> bool {
    let name = component.replace('-', "_");
    crate::catalog::component_names().contains(&name.as_str())
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;
    use crate::components::inert::assert_inert;

    /// `draw` completes without waiting (it only reads and builds), so one poll runs it.
    fn drawn(component: &str, data: Value) -> String {
        let owner = Owner::new();
        owner.with(|| {
            let mut future = Box::pin(draw(component.to_owned(), data, None));
            let mut context = std::task::Context::from_waker(std::task::Waker::noop());
            match future.as_mut().poll(&mut context) {
                std::task::Poll::Ready(view) => view.to_html(),
                std::task::Poll::Pending => panic!("draw waited"),
            }
        })
    }

    #[test]
    fn every_hostile_surface_renders_inert_and_loads_nothing() {
        let corpus: Value =
            serde_json::from_str(include_str!("../../../../fixtures/catalog/hostile.json"))
                .unwrap();
        for artifact in corpus["artifacts"].as_array().unwrap() {
            let kind = artifact["kind"].as_str().unwrap();
            let html = drawn(kind, artifact["content"].clone());
            assert_inert(kind, &html);
        }
    }

    #[test]
    fn every_gallery_payload_draws_its_component_or_names_its_fault() {
        let gallery: serde_json::Map<String, Value> =
            serde_json::from_str(include_str!("../../../../fixtures/catalog/gallery.json"))
                .unwrap();
        // A2UI surfaces are drawn by their own renderer (components::a2ui, tested there).
        for (component, examples) in gallery
            .into_iter()
            .filter(|(component, _)| component != crate::a2ui::ARTIFACT_KIND)
        {
            let valid = drawn(&component, examples["valid"].clone());
            assert!(!valid.contains("data-invalid"), "{component}: {valid}");
            assert!(valid.contains("data-tool-ui-id"), "{component}: {valid}");
            let invalid = drawn(&component, examples["invalid"].clone());
            assert!(
                invalid.contains("data-invalid=\"true\""),
                "{component}: {invalid}"
            );
            assert!(invalid.contains("invalid-field"), "{component}");
        }
    }
}
