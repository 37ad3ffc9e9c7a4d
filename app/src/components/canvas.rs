//! The canvas: one artifact or edit shown whole beside the thread (about half the window,
//! resizable; the whole screen on a phone or when expanded), with Copy, Download and, for
//! an artifact the agent redrew during its run, each version it kept. Its code is a lazy
//! part of the browser bundle, fetched the first time something is opened in it.

use leptos::prelude::*;

use crate::components::a2ui::SurfacePreview;
use crate::components::artifacts::{JsonBlock, catalog_name, drawable};
use crate::components::catalog::CatalogView;
use crate::components::code_diff::CodeDiff;
use crate::components::context_pane::RunSignals;
use crate::components::copy::copy_from_button;
use crate::components::on_demand::OnDemand;
use crate::components::output_card::{Selection, ThreadSurfaces};
use crate::output::{self, Export};
use crate::projection::{ArtifactView, EditView};

/// Narrowest canvas, and the least the thread keeps beside it, in pixels.
const NARROWEST: i32 = 360;
const THREAD_KEEPS: i32 = 420;

#[derive(Clone, Debug, PartialEq)]
enum Shown {
    Artifact(ArtifactView),
    Edit(EditView),
}

#[component]
pub fn Canvas(
    #[prop(into)] runs: Signal<Vec<RunSignals>>,
    selection: RwSignal<Option<Selection>>,
) -> impl IntoView {
    let fallback = || {
        view! {
            <aside class="canvas" aria-label="Canvas">
                <p class="muted catalog-loading" role="status">"Loading…"</p>
            </aside>
        }
    };
    view! {
        <OnDemand wanted=Signal::derive(move || selection.with(Option::is_some))
            draw=move || draw_canvas(runs, selection) fallback />
    }
}

/// The split point of the canvas.
#[cfg_attr(all(feature = "hydrate", target_arch = "wasm32"), lazy)]
async fn draw_canvas(
    runs: Signal<Vec<RunSignals>>,
    selection: RwSignal<Option<Selection>>,
) -> AnyView {
    view! { <CanvasFrame runs selection /> }.into_any()
}

#[component]
fn CanvasFrame(
    runs: Signal<Vec<RunSignals>>,
    selection: RwSignal<Option<Selection>>,
) -> impl IntoView {
    let shown = Memo::new(move |_| {
        let selected = selection.get()?;
        runs.with(|runs| match &selected {
            Selection::Artifact { run, id } => runs
                .get(*run)
                .and_then(|r| r.view.with(|v| v.artifact(id).cloned()))
                .map(Shown::Artifact),
            Selection::Edit { run, id } => runs
                .get(*run)
                .and_then(|r| r.view.with(|v| v.edit(id).cloned()))
                .map(Shown::Edit),
        })
    });
    // Where focus was when the canvas opened: it goes back there when it closes. (A
    // browser's element lives in its thread; the server renders no focus.)
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        let opener = StoredValue::new_local(None::<web_sys::Element>);
        Effect::new(move |was_open: Option<bool>| {
            let open = selection.with(Option::is_some);
            if open && was_open != Some(true) {
                opener.set_value(document().active_element());
            }
            if open {
                request_animation_frame(|| crate::components::focus::focus_by_id("canvas-title"));
            } else if was_open == Some(true) {
                web_sys_element::restore(opener.get_value());
            }
            open
        });
    }
    // A new selection draws a new panel (its version and size choices start afresh).
    move || {
        selection
            .with(Option::is_some)
            .then(|| view! { <CanvasPanel shown selection /> })
    }
}

#[component]
fn CanvasPanel(
    shown: Memo<Option<Shown>>,
    selection: RwSignal<Option<Selection>>,
) -> impl IntoView {
    let close = move || selection.set(None);
    let expanded = RwSignal::new(false);
    // `None`: the latest version, following the run as it changes.
    let version = RwSignal::new(None::<usize>);
    let layout = use_context::<crate::components::layout::Layout>();
    let title = move || {
        shown.with(|shown| match shown {
            Some(Shown::Artifact(artifact)) => output::title(artifact),
            Some(Shown::Edit(edit)) => output::edit_title(edit),
            None => "Gone".to_owned(),
        })
    };
    let kind = move || {
        shown.with(|shown| match shown {
            Some(Shown::Artifact(artifact)) => output::kind_word(&artifact.kind),
            Some(Shown::Edit(_)) => "Edit".to_owned(),
            None => String::new(),
        })
    };
    let versions = move || {
        shown.with(|shown| match shown {
            Some(Shown::Artifact(artifact)) => artifact.versions(),
            _ => 1,
        })
    };
    // What Copy and Download take: the version on screen.
    let export = move || -> Option<Export> {
        shown.with(|shown| match shown {
            Some(Shown::Artifact(artifact)) => {
                let data = version
                    .get()
                    .and_then(|n| artifact.version(n))
                    .unwrap_or(&artifact.data);
                Some(output::export(artifact, data))
            }
            Some(Shown::Edit(edit)) => Some(output::export_edit(edit)),
            None => None,
        })
    };
    let body = move || {
        let chosen = version.get();
        let shown = shown.get();
        match shown {
            None => view! {
                <p class="muted">"This output is no longer in the thread."</p>
            }
            .into_any(),
            Some(Shown::Edit(edit)) => view! {
                <CodeDiff patch=edit.patch filename=edit.filename split=true />
            }
            .into_any(),
            Some(Shown::Artifact(artifact)) if artifact.kind == crate::a2ui::ARTIFACT_KIND => {
                match use_context::<ThreadSurfaces>() {
                    Some(thread) => view! {
                        <SurfacePreview data=artifact.data surfaces=thread.surfaces on_action=thread.on_action />
                    }
                    .into_any(),
                    None => view! { <JsonBlock value=artifact.data /> }.into_any(),
                }
            }
            Some(Shown::Artifact(artifact)) => {
                let data = chosen
                    .and_then(|n| artifact.version(n).cloned())
                    .unwrap_or_else(|| artifact.data.clone());
                match catalog_name(&artifact.kind) {
                    Some(component) => {
                        let data = drawable(&data, &artifact.artifact_id);
                        view! { <CatalogView component=component.to_owned() data /> }.into_any()
                    }
                    None => view! { <JsonBlock value=data /> }.into_any(),
                }
            }
        }
    };
    // A surface redraws only when what it names changes: the operator's edits stay.
    let surface = Memo::new(move |_| {
        shown.with(|shown| {
            matches!(shown, Some(Shown::Artifact(a)) if a.kind == crate::a2ui::ARTIFACT_KIND)
        })
    });
    let drawn = move || {
        if surface.get() { untrack(body) } else { body() }
    };
    let on_keydown = move |event: leptos::ev::KeyboardEvent| {
        if event.key() == "Escape" && !event.default_prevented() {
            event.prevent_default();
            if expanded.get_untracked() {
                expanded.set(false);
            } else {
                close();
            }
        }
    };
    view! {
        <aside class="canvas" id="canvas" aria-labelledby="canvas-title"
            data-expanded=move || expanded.get().then_some("true") on:keydown=on_keydown>
            {layout.map(|layout| view! { <CanvasResizer layout /> })}
            <header class="canvas-head">
                <span class="output-kind">{kind}</span>
                <h2 id="canvas-title" tabindex="-1">{title}</h2>
                {move || (versions() > 1).then(|| {
                    let total = versions();
                    view! {
                        <label class="canvas-versions">
                            <span class="visually-hidden">"Version"</span>
                            <select on:change=move |event| {
                                let n = event_target_value(&event).parse::<usize>().ok();
                                version.set(n.filter(|&n| n != total));
                            }>
                                {(1..=total).rev().map(|n| {
                                    let selected = version.get_untracked().unwrap_or(total) == n;
                                    let label = if n == total { format!("Version {n} (latest)") } else { format!("Version {n}") };
                                    view! { <option value=n.to_string() selected=selected>{label}</option> }
                                }).collect_view()}
                            </select>
                        </label>
                    }
                })}
                <div class="canvas-actions">
                    <button type="button" class="button small ghost"
                        on:click=move |event| if let Some(export) = export() { copy_from_button(&event, export.text, "Copy") }>
                        "Copy"
                    </button>
                    <button type="button" class="button small ghost" on:click=move |_| if let Some(export) = export() { download(&export) }>
                        "Download"
                    </button>
                    <button type="button" class="button small ghost" aria-pressed=move || expanded.get().to_string()
                        on:click=move |_| expanded.update(|e| *e = !*e)>
                        {move || if expanded.get() { "Shrink" } else { "Expand" }}
                    </button>
                    <button type="button" class="button small ghost" aria-label="Close the canvas" title="Close the canvas (Esc)"
                        on:click=move |_| close()>
                        <span aria-hidden="true">"✕"</span>
                    </button>
                </div>
            </header>
            {move || version.get().map(|n| view! {
                <p class="notice canvas-older" role="status">
                    {format!("An earlier version ({n} of {}). ", versions())}
                    <button type="button" class="link-button" on:click=move |_| version.set(None)>"Show the latest"</button>
                </p>
            })}
            <div class="canvas-body">{drawn}</div>
        </aside>
    }
}

/// The canvas's left edge: drag it, or focus it and use the arrow keys.
#[component]
fn CanvasResizer(layout: crate::components::layout::Layout) -> impl IntoView {
    let width = layout.canvas_width;
    let drag = RwSignal::new(None::<(i32, i32)>);
    // As the stylesheet bounds it: the sidebar and the thread's least width stay beside it.
    let bounds = move || {
        let window = web_sys_element::window_width().unwrap_or(1440);
        let sidebar = if layout.sidebar_open.get_untracked() {
            layout.sidebar_width.get_untracked()
        } else {
            0
        };
        (NARROWEST, (window - sidebar - THREAD_KEEPS).max(NARROWEST))
    };
    let current = move || {
        let chosen = width.get_untracked();
        if chosen > 0 {
            chosen
        } else {
            web_sys_element::window_width().unwrap_or(1440) / 2
        }
    };
    let set = move |value: i32| {
        let (min, max) = bounds();
        width.set(value.clamp(min, max));
    };
    let on_pointerdown = move |event: leptos::ev::PointerEvent| {
        drag.set(Some((event.client_x(), current())));
        web_sys_element::capture_pointer(&event);
    };
    let on_pointermove = move |event: leptos::ev::PointerEvent| {
        if let Some((start_x, start_width)) = drag.get_untracked() {
            set(start_width + start_x - event.client_x());
        }
    };
    let on_keydown = move |event: leptos::ev::KeyboardEvent| {
        let step = if event.shift_key() { 64 } else { 16 };
        let (min, max) = bounds();
        let next = match event.key().as_str() {
            "ArrowLeft" => current() + step,
            "ArrowRight" => current() - step,
            "Home" => max,
            "End" => min,
            _ => return,
        };
        event.prevent_default();
        set(next);
    };
    view! {
        <div class="canvas-resizer" role="separator" aria-orientation="vertical" tabindex="0"
            aria-label="Resize the canvas" aria-controls="canvas"
            aria-valuemin=NARROWEST.to_string() aria-valuenow=move || { width.track(); current().to_string() }
            on:pointerdown=on_pointerdown on:pointermove=on_pointermove
            on:pointerup=move |_| drag.set(None) on:pointercancel=move |_| drag.set(None)
            on:keydown=on_keydown>
        </div>
    }
}

/// Saves `export` as a file through the browser's download.
fn download(export: &Export) {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        use wasm_bindgen::JsCast;
        let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(&export.text));
        let options = web_sys::BlobPropertyBag::new();
        options.set_type(export.mime);
        let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else {
            return;
        };
        let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
            return;
        };
        if let Some(anchor) = document()
            .create_element("a")
            .ok()
            .and_then(|element| element.dyn_into::<web_sys::HtmlAnchorElement>().ok())
        {
            anchor.set_href(&url);
            anchor.set_download(&export.filename);
            anchor.click();
        }
        let _ = web_sys::Url::revoke_object_url(&url);
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    let _ = export;
}

/// The few DOM calls the canvas makes, with nothing to do on the server.
mod web_sys_element {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    pub fn restore(element: Option<web_sys::Element>) {
        use wasm_bindgen::JsCast;
        let focused = element
            .filter(|element| element.is_connected())
            .and_then(|element| element.dyn_into::<web_sys::HtmlElement>().ok())
            .is_some_and(|element| element.focus().is_ok());
        if !focused {
            crate::components::focus::focus_by_id("main");
        }
    }

    pub fn window_width() -> Option<i32> {
        #[cfg(any(feature = "hydrate", feature = "csr"))]
        return leptos::prelude::window()
            .inner_width()
            .ok()
            .and_then(|width| width.as_f64())
            .map(|width| width as i32);
        #[cfg(not(any(feature = "hydrate", feature = "csr")))]
        None
    }

    pub fn capture_pointer(event: &leptos::ev::PointerEvent) {
        #[cfg(any(feature = "hydrate", feature = "csr"))]
        {
            use wasm_bindgen::JsCast;
            if let Some(target) = event
                .target()
                .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
            {
                let _ = target.set_pointer_capture(event.pointer_id());
            }
        }
        #[cfg(not(any(feature = "hydrate", feature = "csr")))]
        let _ = event;
    }
}
