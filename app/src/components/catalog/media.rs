//! Media surfaces: `image`, `image_gallery` (thumbnails, and a lightbox in a native
//! dialog), `audio` and `video`. Nothing remote loads before the operator's consent: every
//! image, player, poster and artwork waits behind [`RemoteMedia`]; favicons are left out.

use leptos::html;
use leptos::prelude::*;

use super::outside::{OutLink, domain_of, remote_image};
use crate::catalog::media::{
    Audio, AudioVariant, GalleryImage, Image, ImageGallery, Source, Video,
};
use crate::catalog::{Fit, Ratio};
use crate::components::remote_media::RemoteMedia;
use crate::markdown::host_of;

/// "5:12", or "1:02:03" past the hour.
fn duration(ms: i64) -> String {
    let seconds = ms.max(0) / 1000;
    let (hours, minutes, seconds) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if hours > 0 {
        format!("{hours}:{minutes:02}:{seconds:02}")
    } else {
        format!("{minutes}:{seconds:02}")
    }
}

/// "4.2 MB": bytes in the largest unit that keeps a number of at least 1.
fn file_size(bytes: i64) -> String {
    let mut size = bytes.max(0) as f64;
    let mut units = ["bytes", "KB", "MB", "GB", "TB"].into_iter().peekable();
    let mut unit = "bytes";
    while let Some(next) = units.next() {
        unit = next;
        if size < 1024.0 || units.peek().is_none() {
            break;
        }
        size /= 1024.0;
    }
    if unit == "bytes" {
        format!("{size:.0} {unit}")
    } else {
        format!("{size:.1} {unit}")
    }
}

/// "Source: label", linked when the source has an address.
fn source_line(source: Option<&Source>) -> Option<AnyView> {
    let source = source?;
    let name = source.label.clone();
    Some(match source.url.clone() {
        Some(url) => {
            view! { <span class="media-source">"Source: " <OutLink href=url>{name}</OutLink></span> }
                .into_any()
        }
        None => view! { <span class="media-source">{format!("Source: {name}")}</span> }.into_any(),
    })
}

/// The title (a link when the media has a page), description and a line of facts.
fn caption(
    title: Option<String>,
    description: Option<String>,
    href: Option<String>,
    facts: Vec<String>,
    source: Option<&Source>,
) -> Option<impl IntoView + use<>> {
    let source = source_line(source);
    if title.is_none()
        && description.is_none()
        && href.is_none()
        && facts.is_empty()
        && source.is_none()
    {
        return None;
    }
    let heading = match (title, href) {
        (Some(title), Some(href)) => {
            Some(view! { <OutLink href class="media-title">{title}</OutLink> }.into_any())
        }
        (None, Some(href)) => {
            let site = domain_of(None, &href);
            Some(
                view! { <OutLink href class="media-title">{format!("Open on {site}")}</OutLink> }
                    .into_any(),
            )
        }
        (Some(title), None) => {
            Some(view! { <strong class="media-title">{title}</strong> }.into_any())
        }
        (None, None) => None,
    };
    let facts = (!facts.is_empty())
        .then(|| view! { <span class="media-facts muted">{facts.join(" · ")}</span> });
    Some(view! {
        <figcaption class="media-caption">
            {heading}
            {description.map(|d| view! { <span class="media-description">{d}</span> })}
            {facts}
            {source}
        </figcaption>
    })
}

#[component]
pub fn ImageView(payload: Image) -> impl IntoView {
    let media = remote_image(payload.src.clone(), payload.alt.clone());
    let description = format!("Image: {}", payload.alt);
    let facts: Vec<String> = [
        payload.domain.clone(),
        payload.file_size_bytes.map(file_size),
    ]
    .into_iter()
    .flatten()
    .collect();
    let (title, text, href) = (payload.title, payload.description, payload.href);
    let caption = caption(title, text, href, facts, payload.source.as_ref());
    let (ratio, fit) = (
        payload.ratio.map(Ratio::as_str),
        payload.fit.map(Fit::as_str),
    );
    view! {
        <figure class="catalog-media media-image" data-slot="image" data-tool-ui-id=payload.base.id>
            <div class="media-frame" data-ratio=ratio data-fit=fit>
                <RemoteMedia src=payload.src what="images" description media />
            </div>
            {caption}
        </figure>
    }
}

/// The gallery's images grouped by host, in order of first appearance: one consent
/// covers a host's images, however they interleave with others.
fn by_host(images: &[GalleryImage]) -> Vec<Vec<usize>> {
    let mut groups: Vec<(Option<String>, Vec<usize>)> = Vec::new();
    for (n, image) in images.iter().enumerate() {
        let host = host_of(&image.src);
        match groups.iter_mut().find(|(h, _)| *h == host) {
            Some((_, members)) => members.push(n),
            None => groups.push((host, vec![n])),
        }
    }
    groups.into_iter().map(|(_, members)| members).collect()
}

#[component]
pub fn ImageGalleryView(payload: ImageGallery) -> impl IntoView {
    let total = payload.images.len();
    let groups = by_host(&payload.images);
    let images = StoredValue::new(payload.images);
    let image = move |n: usize| images.with_value(|all| all.get(n).cloned());
    // The image on show, and the thumbnail that opened the lightbox (focus goes back there).
    let open = RwSignal::new(None::<usize>);
    let opener = RwSignal::new(0_usize);
    let dialog = NodeRef::<html::Dialog>::new();
    let thumbs = StoredValue::new(
        (0..total)
            .map(|_| NodeRef::<html::Button>::new())
            .collect::<Vec<_>>(),
    );
    let thumb_ref = move |n: usize| {
        thumbs
            .with_value(|refs| refs.get(n).copied())
            .unwrap_or_default()
    };
    let step = move |by: usize| open.update(|at| *at = at.map(|n| (n + by) % total.max(1)));
    let thumbnail = move |n: usize| {
        let shown = image(n)?;
        let place = format!(" (image {} of {total})", n + 1);
        let caption = shown
            .caption
            .map(|c| view! { <span class="gallery-caption muted">{c}</span> });
        let open_here = move |_| {
            opener.set(n);
            open.set(Some(n));
            crate::components::focus::show_modal(dialog);
        };
        Some(view! {
            <li class="gallery-item">
                <button type="button" class="gallery-thumb" node_ref=thumb_ref(n)
                    aria-haspopup="dialog" on:click=open_here>
                    <img src=shown.src alt=shown.alt referrerpolicy="no-referrer" loading="lazy"
                        decoding="async" />
                    <span class="visually-hidden">{place}</span>
                </button>
                {caption}
            </li>
        })
    };
    let grids = groups.into_iter().map(|members| {
        let first = members.first().and_then(|n| image(*n));
        let src = first.as_ref().map(|i| i.src.clone()).unwrap_or_default();
        let description = match (members.len(), first) {
            (1, Some(only)) => format!("Image: {}", only.alt),
            (count, _) => format!("{count} images"),
        };
        let media = move || {
            let thumbnails = members.iter().map(|n| thumbnail(*n)).collect_view();
            view! { <ul class="gallery-grid">{thumbnails}</ul> }
        };
        view! { <RemoteMedia src what="images" description media /> }
    });
    let shown = move || {
        let (n, image) = open.get().and_then(|n| image(n).map(|i| (n, i)))?;
        let media = remote_image(image.src.clone(), image.alt.clone());
        let description = format!("Image {}: {}", n + 1, image.alt);
        let title = image
            .title
            .map(|t| view! { <strong class="media-title">{t}</strong> });
        let text = image.caption.unwrap_or(image.alt);
        let source = source_line(image.source.as_ref());
        Some(view! {
            <figure class="lightbox-figure">
                <RemoteMedia src=image.src what="images" description media />
                <figcaption class="media-caption">
                    {title}
                    <span class="media-description">{text}</span>
                    {source}
                </figcaption>
            </figure>
        })
    };
    let closed = move |_| {
        open.set(None);
        #[cfg(any(feature = "hydrate", feature = "csr"))]
        if let Some(button) = thumb_ref(opener.get_untracked()).get_untracked() {
            let _ = button.focus();
        }
    };
    let keys = move |event: leptos::ev::KeyboardEvent| {
        let by = match event.key().as_str() {
            "ArrowRight" => 1,
            "ArrowLeft" => total.saturating_sub(1),
            _ => return,
        };
        event.prevent_default();
        step(by);
    };
    let moves = (total > 1).then(|| {
        view! {
            <button type="button" class="button small" on:click=move |_| step(total - 1)>"Previous"</button>
            <button type="button" class="button small" on:click=move |_| step(1)>"Next"</button>
        }
    });
    let name = payload.title.clone().unwrap_or_else(|| "Images".to_owned());
    let heading = payload
        .title
        .map(|t| view! { <h4 class="media-heading">{t}</h4> });
    let text = payload
        .description
        .map(|d| view! { <p class="muted">{d}</p> });
    view! {
        <section class="catalog-media image-gallery" data-slot="image_gallery"
            data-tool-ui-id=payload.base.id aria-label=name>
            {heading}
            {text}
            {grids.collect_view()}
            <dialog node_ref=dialog class="lightbox" aria-label="Image viewer" on:close=closed
                on:keydown=keys>
                {shown}
                <div class="lightbox-bar">
                    <p class="lightbox-count" aria-live="polite">
                        {move || open.get().map(|n| format!("{} of {total}", n + 1))}
                    </p>
                    {moves}
                    <form method="dialog">
                        <button type="submit" class="button small primary">"Close"</button>
                    </form>
                </div>
            </dialog>
        </section>
    }
}

#[component]
pub fn AudioView(payload: Audio) -> impl IntoView {
    let title = payload.title.clone().unwrap_or_else(|| "Audio".to_owned());
    let full = payload.variant == AudioVariant::Full;
    let artwork = payload.artwork.clone().filter(|_| full).map(|art| {
        let media = remote_image(art.clone(), String::new());
        let description = format!("Artwork: {title}");
        view! {
            <div class="media-artwork"><RemoteMedia src=art what="images" description media /></div>
        }
    });
    let (src, name) = (payload.src.clone(), title.clone());
    let media = move || {
        view! { <audio controls=true preload="none" src=src.clone() aria-label=name.clone()></audio> }
    };
    let facts: Vec<String> = [
        payload.duration_ms.map(duration),
        payload.file_size_bytes.map(file_size),
    ]
    .into_iter()
    .flatten()
    .collect();
    let text = payload.description.filter(|_| full);
    let caption = caption(
        Some(title.clone()),
        text,
        None,
        facts,
        payload.source.as_ref(),
    );
    let description = format!("Audio: {title}");
    view! {
        <figure class="catalog-media media-audio" data-slot="audio" data-tool-ui-id=payload.base.id
            data-variant=payload.variant.as_str()>
            {artwork}
            <div class="media-audio-body">
                {caption}
                <RemoteMedia src=payload.src what="audio" description media />
            </div>
        </figure>
    }
}

#[component]
pub fn VideoView(payload: Video) -> impl IntoView {
    let title = payload.title.clone().unwrap_or_else(|| "Video".to_owned());
    // The one consent covers the video's host; a poster elsewhere would call a second host.
    let poster = payload
        .poster
        .clone()
        .filter(|p| host_of(p) == host_of(&payload.src));
    let (src, name, muted) = (payload.src.clone(), title.clone(), payload.default_muted);
    // Never autoplays, whatever autoPlay says: it plays when the operator presses play.
    let media = move || {
        view! {
            <video controls=true preload="none" playsinline=true muted=muted prop:muted=muted
                poster=poster.clone() src=src.clone() aria-label=name.clone()></video>
        }
    };
    let facts: Vec<String> = [payload.domain.clone(), payload.duration_ms.map(duration)]
        .into_iter()
        .flatten()
        .collect();
    let description = format!("Video: {title}");
    let (title, text, href) = (payload.title, payload.description, payload.href);
    let caption = caption(title, text, href, facts, payload.source.as_ref());
    let (ratio, fit) = (
        payload.ratio.map(Ratio::as_str),
        payload.fit.map(Fit::as_str),
    );
    view! {
        <figure class="catalog-media media-video" data-slot="video" data-tool-ui-id=payload.base.id>
            <div class="media-frame" data-ratio=ratio data-fit=fit>
                <RemoteMedia src=payload.src what="videos" description media />
            </div>
            {caption}
        </figure>
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nothing_remote_loads_before_consent() {
        let image = crate::catalog::media::parse_image(&json!({"id": "image-a", "assetId": "a",
            "src": "https://images.example.org/a.png", "alt": "A bridge", "title": "Bridge"}))
        .expect("valid");
        let page = Owner::new().with(|| view! { <ImageView payload=image /> }.to_html());
        assert!(
            !page.contains("<img") && page.contains("Load images from images.example.org"),
            "{page}"
        );
        let gallery = crate::catalog::media::parse_gallery(&json!({"id": "g", "images": [
            {"id": "a", "src": "https://one.example/a.png", "alt": "A", "width": 4, "height": 3},
            {"id": "b", "src": "https://two.example/b.png", "alt": "B", "width": 4, "height": 3},
            {"id": "c", "src": "https://one.example/c.png", "alt": "C", "width": 4, "height": 3}]}))
        .expect("valid");
        let page = Owner::new().with(|| view! { <ImageGalleryView payload=gallery /> }.to_html());
        assert!(!page.contains("<img") && !page.contains(" open"), "{page}");
        assert_eq!(
            page.matches("class=\"media-gate\"").count(),
            2,
            "one gate per host"
        );
        let video = crate::catalog::media::parse_video(&json!({"id": "v", "assetId": "v",
            "src": "https://media.example/v.mp4", "poster": "https://media.example/p.jpg",
            "autoPlay": true}))
        .expect("valid");
        let page = Owner::new().with(|| view! { <VideoView payload=video /> }.to_html());
        assert!(
            !page.contains("<video") && !page.contains("p.jpg"),
            "{page}"
        );
    }

    #[test]
    fn sizes_and_durations_read_naturally() {
        assert_eq!(duration(312_000), "5:12");
        assert_eq!(duration(3_723_000), "1:02:03");
        assert_eq!(file_size(512), "512 bytes");
        assert_eq!(file_size(4_404_019), "4.2 MB");
    }
}
