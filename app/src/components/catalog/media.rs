//! Media surfaces: an image, a gallery with a lightbox, audio and video. Every remote
//! source waits behind the operator's consent ([`RemoteMedia`]).

use leptos::prelude::*;

use crate::catalog::media::{Audio, GalleryImage, Image, ImageGallery, Video};
use crate::components::remote_media::RemoteMedia;

#[component]
pub fn ImageView(payload: Image) -> impl IntoView {
    let (src, alt) = (payload.src.clone(), payload.alt.clone());
    let description = format!("Image: {}", payload.alt);
    view! {
        <figure class="catalog media-image" data-slot="image" data-tool-ui-id=payload.base.id.clone()>
            <RemoteMedia src=payload.src.clone() what="images" description media=move || view! {
                <img src=src.clone() alt=alt.clone() referrerpolicy="no-referrer" loading="lazy" />
            } />
            {(payload.title.is_some() || payload.description.is_some()).then(|| view! {
                <figcaption>
                    {payload.title.clone().map(|t| view! { <strong>{t}</strong> })}
                    {payload.description.clone().map(|d| view! { <span class="muted">" "{d}</span> })}
                </figcaption>
            })}
        </figure>
    }
}

/// Opens the gallery's dialog as a modal (browser only).
fn show_modal(dialog: NodeRef<leptos::html::Dialog>) {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    if let Some(dialog) = dialog.get_untracked() {
        let _ = dialog.show_modal();
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    let _ = dialog;
}

fn thumbnail_id(gallery: &str, n: usize) -> String {
    format!("{}-thumb-{n}", super::listbox::dom_fragment(gallery))
}

#[component]
pub fn ImageGalleryView(payload: ImageGallery) -> impl IntoView {
    let images: Vec<GalleryImage> = payload.images.clone();
    let total = images.len();
    let open = RwSignal::new(None::<usize>);
    // The thumbnail that opened the lightbox, which gets the focus back.
    let opener = RwSignal::new(0usize);
    let dialog: NodeRef<leptos::html::Dialog> = NodeRef::new();
    let gallery_id = payload.base.id.clone();
    let host_src = images.first().map(|i| i.src.clone()).unwrap_or_default();
    let thumbs = {
        let (images, gallery_id) = (images.clone(), gallery_id.clone());
        move || {
            images.iter().enumerate().map(|(n, image)| {
                let (src, alt) = (image.src.clone(), image.alt.clone());
                view! {
                    <li>
                        <button type="button" class="gallery-thumb" id=thumbnail_id(&gallery_id, n)
                            aria-label=format!("{} ({} of {total})", image.alt, n + 1)
                            on:click=move |_| { opener.set(n); open.set(Some(n)); show_modal(dialog); }>
                            <img src=src alt=alt referrerpolicy="no-referrer" loading="lazy" />
                        </button>
                        {image.caption.clone().map(|c| view! { <span class="muted">{c}</span> })}
                    </li>
                }
            }).collect_view()
        }
    };
    let shown = {
        let images = images.clone();
        move || {
            open.get()
                .and_then(|n| images.get(n).cloned().map(|image| (n, image)))
        }
    };
    let step = move |by: isize| {
        open.update(|at| {
            if let Some(n) = at {
                *n = (*n as isize + by).rem_euclid(total.max(1) as isize) as usize;
            }
        });
    };
    let closed = {
        #[cfg(any(feature = "hydrate", feature = "csr"))]
        let gallery_id = gallery_id.clone();
        move |_| {
            // Focus goes back to the thumbnail that opened the lightbox.
            #[cfg(any(feature = "hydrate", feature = "csr"))]
            if let Some(element) =
                document().get_element_by_id(&thumbnail_id(&gallery_id, opener.get_untracked()))
            {
                use wasm_bindgen::JsCast;
                if let Ok(element) = element.dyn_into::<web_sys::HtmlElement>() {
                    let _ = element.focus();
                }
            }
            open.set(None);
        }
    };
    view! {
        <section class="catalog image-gallery" data-slot="image_gallery" data-tool-ui-id=payload.base.id.clone()
            aria-label=payload.title.clone().unwrap_or_else(|| "Images".to_owned())>
            {payload.title.clone().map(|t| view! { <h4>{t}</h4> })}
            {payload.description.clone().map(|d| view! { <p class="muted">{d}</p> })}
            <RemoteMedia src=host_src what="images" description=format!("{total} images") media=move || view! {
                <ul class="gallery-grid">{thumbs.clone()}</ul>
            } />
            <dialog node_ref=dialog class="lightbox" aria-label="Image viewer" on:close=closed
                on:keydown=move |event: leptos::ev::KeyboardEvent| match event.key().as_str() {
                    "ArrowRight" => step(1),
                    "ArrowLeft" => step(-1),
                    _ => {}
                }>
                {move || shown().map(|(n, image)| view! {
                    <figure>
                        <img src=image.src.clone() alt=image.alt.clone() referrerpolicy="no-referrer" />
                        <figcaption>
                            {image.title.clone().or(image.caption.clone()).unwrap_or_else(|| image.alt.clone())}
                            <span class="muted">{format!(" {} of {total}", n + 1)}</span>
                        </figcaption>
                    </figure>
                })}
                <form method="dialog" class="lightbox-actions">
                    <button type="button" class="button small" on:click=move |_| step(-1)>"Previous"</button>
                    <button type="button" class="button small" on:click=move |_| step(1)>"Next"</button>
                    <button class="button small primary">"Close"</button>
                </form>
            </dialog>
        </section>
    }
}

fn duration(ms: i64) -> String {
    let seconds = ms.max(0) / 1000;
    format!("{}:{:02}", seconds / 60, seconds % 60)
}

#[component]
pub fn AudioView(payload: Audio) -> impl IntoView {
    let src = payload.src.clone();
    let title = payload.title.clone().unwrap_or_else(|| "Audio".to_owned());
    view! {
        <figure class="catalog media-audio" data-slot="audio" data-tool-ui-id=payload.base.id.clone()>
            <figcaption>
                <strong>{title.clone()}</strong>
                {payload.duration_ms.map(|ms| view! { <span class="muted">{format!(" {}", duration(ms))}</span> })}
            </figcaption>
            <RemoteMedia src=payload.src.clone() what="audio" description=format!("Audio: {title}") media=move || view! {
                <audio controls=true preload="none" src=src.clone()></audio>
            } />
        </figure>
    }
}

#[component]
pub fn VideoView(payload: Video) -> impl IntoView {
    let (src, poster) = (payload.src.clone(), payload.poster.clone());
    let muted = payload.default_muted;
    let title = payload.title.clone().unwrap_or_else(|| "Video".to_owned());
    view! {
        <figure class="catalog media-video" data-slot="video" data-tool-ui-id=payload.base.id.clone()>
            <figcaption><strong>{title.clone()}</strong></figcaption>
            // Never plays before the operator has chosen to load it, whatever autoPlay says.
            <RemoteMedia src=payload.src.clone() what="videos" description=format!("Video: {title}") media=move || view! {
                <video controls=true preload="none" muted=muted src=src.clone() poster=poster.clone()></video>
            } />
        </figure>
    }
}
