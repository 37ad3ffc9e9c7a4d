//! What an agent made, as a card in the timeline: its kind and title, a preview (the first
//! rows, the chart itself, the first lines, the form), and Open to see it whole in the
//! canvas. A proposed edit is a card too: its file, the lines it adds and removes.

use std::collections::HashMap;

use leptos::prelude::*;

use crate::a2ui::Surfaces;
use crate::components::a2ui::{OnSurfaceAction, SurfacePreview};
use crate::components::artifacts::{JsonBlock, catalog_name, drawable};
use crate::components::catalog::CatalogView;
use crate::output;
use crate::projection::RunView;

/// What the canvas shows: an output or an edit of one of the thread's runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    Artifact { run: usize, id: String },
    Edit { run: usize, id: String },
}

/// What the canvas shows, shared by the thread so a card knows it is open there.
#[derive(Clone, Copy)]
pub struct CanvasSelection(pub RwSignal<Option<Selection>>);

/// The thread's A2UI surfaces (every run's operations folded) and where their actions go.
/// A surface is drawn live in one place only, so the operator's edits have one home: the
/// canvas when it shows the surface, else the last card that drew it.
#[derive(Clone, Copy)]
pub struct ThreadSurfaces {
    pub surfaces: Memo<Surfaces>,
    /// Surface id → the card (run position, artifact id) that drew it last.
    pub last_drawn: Memo<HashMap<String, (usize, String)>>,
    /// The surfaces the canvas shows.
    pub in_canvas: Memo<Vec<String>>,
    pub on_action: OnSurfaceAction,
}

/// Where a card's surface is drawn live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DrawnAt {
    Here,
    Canvas,
    LaterCard,
}

fn shown_in_canvas(selection: &Selection) -> Signal<bool> {
    let selection = selection.clone();
    let canvas = use_context::<CanvasSelection>();
    Signal::derive(move || {
        canvas.is_some_and(|canvas| canvas.0.with(|open| open.as_ref() == Some(&selection)))
    })
}

#[component]
pub fn OutputCard(
    run: usize,
    view: RwSignal<RunView>,
    artifact_id: String,
    on_select: Callback<Selection>,
) -> impl IntoView {
    let selection = Selection::Artifact {
        run,
        id: artifact_id.clone(),
    };
    let open = shown_in_canvas(&selection);
    let artifact = Memo::new(move |_| view.with(|view| view.artifact(&artifact_id).cloned()));
    let Some(first) = artifact.get_untracked() else {
        return ().into_any();
    };
    let kind = first.kind.clone();
    let heading_id = format!(
        "output-{run}-{}",
        crate::components::id_fragment(&first.artifact_id)
    );
    let title = Memo::new(move |_| {
        artifact
            .with(|a| a.as_ref().map(output::title))
            .unwrap_or_default()
    });
    let versions = Memo::new(move |_| artifact.with(|a| a.as_ref().map_or(1, |a| a.versions())));
    let surface = kind == crate::a2ui::ARTIFACT_KIND;
    let surfaces = use_context::<ThreadSurfaces>();
    let surface_ids = crate::a2ui::surface_ids(&first.data);
    let card = (run, first.artifact_id.clone());
    let drawn_at = Memo::new(move |_| {
        let Some(thread) = surfaces else {
            return DrawnAt::Here;
        };
        if thread
            .in_canvas
            .with(|shown| surface_ids.iter().any(|id| shown.contains(id)))
        {
            DrawnAt::Canvas
        } else if !surface_ids.is_empty()
            && thread
                .last_drawn
                .with(|last| surface_ids.iter().all(|id| last.get(id) != Some(&card)))
        {
            DrawnAt::LaterCard
        } else {
            DrawnAt::Here
        }
    });
    let body = move || {
        // A surface is drawn from the thread's surfaces, not from this artifact's data: it
        // is drawn once, so the operator's edits outlive the agent's updates.
        if surface {
            let artifact = artifact.get_untracked()?;
            return Some(match (drawn_at.get(), surfaces) {
                (DrawnAt::Canvas, _) => view! { <p class="muted shown-elsewhere">"Open in the canvas."</p> }.into_any(),
                (DrawnAt::LaterCard, _) => view! {
                    <p class="muted shown-elsewhere">"The agent drew this surface again further down; it is shown there."</p>
                }
                .into_any(),
                (DrawnAt::Here, Some(thread)) => view! {
                    <SurfacePreview data=artifact.data surfaces=thread.surfaces on_action=thread.on_action />
                }
                .into_any(),
                (DrawnAt::Here, None) => view! { <JsonBlock value=artifact.data /> }.into_any(),
            });
        }
        let artifact = artifact.get()?;
        let preview = output::preview(&artifact.kind, &artifact.data);
        let drawn = match catalog_name(&artifact.kind) {
            Some(component) => {
                let data = drawable(&preview.data, &artifact.artifact_id);
                view! { <CatalogView component=component.to_owned() data /> }.into_any()
            }
            None => view! { <JsonBlock value=preview.data /> }.into_any(),
        };
        Some(
            view! {
                {drawn}
                {preview.left_out.map(|note| view! { <p class="muted left-out">{note}</p> })}
            }
            .into_any(),
        )
    };
    let open_label = move || format!("Open {} in the canvas", title.get());
    view! {
        <article class="output-card" data-kind=kind aria-labelledby=heading_id.clone()>
            <header class="output-head">
                <span class="output-kind">{output::kind_word(&first.kind)}</span>
                <h3 id=heading_id.clone()>{move || title.get()}</h3>
                {move || (versions.get() > 1).then(|| view! {
                    <span class="muted output-versions">{format!("{} versions", versions.get())}</span>
                })}
                <button type="button" class="button small" aria-label=open_label title=open_label
                    aria-pressed=move || open.get().to_string()
                    on:click=move |_| on_select.run(selection.clone())>"Open"</button>
            </header>
            <div class="output-body">{body}</div>
        </article>
    }
    .into_any()
}

#[component]
pub fn EditCard(
    run: usize,
    view: RwSignal<RunView>,
    edit_id: String,
    on_select: Callback<Selection>,
) -> impl IntoView {
    let selection = Selection::Edit {
        run,
        id: edit_id.clone(),
    };
    let open = shown_in_canvas(&selection);
    let edit = Memo::new(move |_| view.with(|view| view.edit(&edit_id).cloned()));
    let title = move || {
        edit.with(|e| e.as_ref().map(output::edit_title))
            .unwrap_or_default()
    };
    let counts = move || {
        edit.with(|e| e.as_ref().map(|e| output::edit_counts(&e.patch)))
            .unwrap_or_default()
    };
    let open_label = move || format!("Open the edit to {} in the canvas", title());
    view! {
        <article class="output-card edit-card" data-kind="edit">
            <header class="output-head">
                <span class="output-kind">"Edit"</span>
                <h3><code>{title}</code></h3>
                <span class="diff-counts">
                    <span class="added">{move || format!("+{}", counts().0)}</span>" "
                    <span class="removed">{move || format!("\u{2212}{}", counts().1)}</span>
                </span>
                <button type="button" class="button small" aria-label=open_label title=open_label
                    aria-pressed=move || open.get().to_string()
                    on:click=move |_| on_select.run(selection.clone())>"Open"</button>
            </header>
        </article>
    }
}
