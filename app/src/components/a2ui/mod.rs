//! A2UI surfaces in the preview pane: each surface an artifact names, drawn from every
//! operation the thread has received so far, with what could not be applied listed under
//! it. The drawing ([`draw_surface`]) is a lazy part of the bundle; buttons that declare
//! an action send it back through `on_action` (read-only without one).

use leptos::prelude::*;
use serde_json::Value;

use crate::a2ui::action::ActionRequest;
use crate::a2ui::theme::Theme;
use crate::a2ui::{LocalEdits, Surface, Surfaces, surface_ids};
use crate::components::remote_media::RemoteMedia;

mod content;
mod inputs;
mod layout;
mod node;

/// Where a surface's actions go; `None` draws it read-only.
pub type OnSurfaceAction = Option<Callback<ActionRequest>>;

/// The surfaces artifact `data` names, as `surfaces` (the whole thread's) has them now.
#[component]
pub fn SurfacePreview(
    data: Value,
    #[prop(into)] surfaces: Signal<Surfaces>,
    on_action: OnSurfaceAction,
) -> impl IntoView {
    let ids = surface_ids(&data);
    if ids.is_empty() {
        return view! {
            <p class="muted">"This artifact names no A2UI surface; here is what it holds."</p>
            <super::artifacts::JsonBlock value=data />
        }
        .into_any();
    }
    ids.into_iter()
        .map(|id| {
            // The operator's edits outlive the agent's updates to the surface.
            let edits = StoredValue::new(LocalEdits::default());
            let surface = Memo::new({
                let id = id.clone();
                move |_| surfaces.with(|all| all.get(&id).cloned())
            });
            let problems = Memo::new({
                let id = id.clone();
                move |_| {
                    surfaces.with(|all| {
                        all.problems
                            .iter()
                            .filter(|problem| {
                                problem.surface_id.as_deref().is_none_or(|named| named == id)
                            })
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                    })
                }
            });
            let theme = Memo::new(move |_| {
                surface.with(|surface| surface.as_ref().map(|surface| surface.theme.clone()))
            });
            let primary = move || theme.with(|theme| theme.as_ref().and_then(|t| t.primary_color.clone()));
            view! {
                <section class="a2ui-surface" data-surface=id.clone() aria-label=format!("Surface {id}")
                    data-primary=move || primary().map(|_| "") style:--a2ui-primary=primary>
                    {move || theme.get().map(|theme| view! { <Attribution theme /> })}
                    {move || match surface.get() {
                        Some(surface) if surface.ready() => view! { <SurfaceView surface edits on_action /> }.into_any(),
                        Some(_) => view! {
                            <p class="muted" role="status">"Waiting for the agent to send this surface's root component…"</p>
                        }.into_any(),
                        None => view! {
                            <p class="muted">"The agent has removed this surface."</p>
                        }.into_any(),
                    }}
                    {move || {
                        let list = problems.get();
                        (!list.is_empty()).then(|| view! {
                            <details class="a2ui-problems">
                                <summary>{format!("{} of the agent's operations could not be applied", list.len())}</summary>
                                <ul>{list.into_iter().map(|problem| view! { <li><code>{problem}</code></li> }).collect_view()}</ul>
                            </details>
                        })
                    }}
                </section>
            }
        })
        .collect_view()
        .into_any()
}

/// The name and icon the agent gives itself in the surface's theme, said to be its own
/// claim (an agent may name itself anything); nothing when it gives neither.
#[component]
fn Attribution(theme: Theme) -> impl IntoView {
    let Theme {
        agent_display_name: name,
        icon_url: icon,
        ..
    } = theme;
    if name.is_none() && icon.is_none() {
        return ().into_any();
    }
    let icon = icon.map(|src| {
        let media = {
            let src = src.clone();
            move || view! { <img class="a2ui-attribution-icon" src=src.clone() alt="" referrerpolicy="no-referrer" /> }
        };
        view! { <RemoteMedia src what="images" description="The agent's icon" media /> }
    });
    view! {
        <p class="a2ui-attribution muted">
            {icon}
            {name.map(|name| view! { "From " <strong>{name}</strong> ", as the agent names itself" })}
        </p>
    }
    .into_any()
}

/// One surface, drawn once the page runs in the browser and the renderer has loaded (the
/// server's page and the hydrating browser both show "Loading…", so they agree).
#[component]
pub fn SurfaceView(
    surface: Surface,
    edits: StoredValue<LocalEdits>,
    on_action: OnSurfaceAction,
) -> impl IntoView {
    let mounted = RwSignal::new(false);
    Effect::new(move |_| mounted.set(true));
    let input = StoredValue::new(surface);
    view! {
        <Suspense fallback=|| view! { <p class="muted catalog-loading" role="status">"Loading…"</p> }>
            {move || mounted.get().then(|| {
                let surface = input.get_value();
                Suspend::new(async move { draw_surface(surface, edits, on_action).await })
            })}
        </Suspense>
    }
}

/// The split point: the A2UI renderer loads with it, on first use.
#[cfg_attr(all(feature = "hydrate", target_arch = "wasm32"), lazy)]
pub async fn draw_surface(
    surface: Surface,
    edits: StoredValue<LocalEdits>,
    on_action: OnSurfaceAction,
) -> AnyView {
    node::draw(surface, edits, on_action)
}

#[cfg(all(test, feature = "ssr"))]
mod tests;
