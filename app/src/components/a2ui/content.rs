//! The basic catalog's content components: Text, Image, Icon, Video and AudioPlayer.
//! Text is text (never markup); images and players load only web addresses, and only
//! after the operator's consent, like every remote medium here.

use leptos::prelude::*;
use serde_json::Value;

use super::node::{At, Ctx, accessible_label};
use crate::components::remote_media::RemoteMedia;
use crate::markdown::safe_media_src;

/// An address media may load from: a web address (behind consent), or inline image data.
fn media_src(src: &str, images: bool) -> Option<String> {
    let inline = [
        "data:image/png",
        "data:image/jpeg",
        "data:image/gif",
        "data:image/webp",
    ];
    if images && inline.iter().any(|prefix| src.starts_with(prefix)) {
        return Some(src.to_owned());
    }
    safe_media_src(src)
}

/// A fixed value of an enum property, or `fallback`: the page only ever sees its own words.
pub(super) fn choice(
    props: &Value,
    key: &str,
    allowed: &[&'static str],
    fallback: &'static str,
) -> &'static str {
    props
        .get(key)
        .and_then(Value::as_str)
        .and_then(|value| allowed.iter().find(|known| **known == value).copied())
        .unwrap_or(fallback)
}

pub(super) fn text(ctx: Ctx, props: Value, at: At) -> AnyView {
    let variant = choice(
        &props,
        "variant",
        &["h1", "h2", "h3", "h4", "h5", "caption", "body"],
        "body",
    );
    // Headings sit under the pane's own: an agent's h1 is a level-3 heading here.
    let scope = at.scope;
    let words = move || ctx.shown(&props, "text", &scope);
    match variant {
        "h1" => view! { <h3 class="a2ui-text" data-variant=variant>{words}</h3> }.into_any(),
        "h2" => view! { <h4 class="a2ui-text" data-variant=variant>{words}</h4> }.into_any(),
        "h3" => view! { <h5 class="a2ui-text" data-variant=variant>{words}</h5> }.into_any(),
        "h4" | "h5" => view! { <h6 class="a2ui-text" data-variant=variant>{words}</h6> }.into_any(),
        _ => view! { <span class="a2ui-text" data-variant=variant>{words}</span> }.into_any(),
    }
}

pub(super) fn image(ctx: Ctx, props: Value, at: At) -> AnyView {
    let fit = choice(
        &props,
        "fit",
        &[
            "contain",
            "cover",
            "fill",
            "none",
            "scale-down",
            "scaleDown",
        ],
        "contain",
    );
    let variant = choice(
        &props,
        "variant",
        &[
            "icon",
            "avatar",
            "smallFeature",
            "mediumFeature",
            "largeFeature",
            "header",
        ],
        "mediumFeature",
    );
    let scope = at.scope.clone();
    let description = accessible_label(ctx, &props, &at.scope)
        .or_else(|| Some(ctx.shown(&props, "description", &at.scope)).filter(|d| !d.is_empty()))
        .unwrap_or_else(|| "An image from the agent".into());
    let src = move || ctx.text(&props, "url", &scope);
    view! {
        <div class="a2ui-image" data-fit=fit data-variant=variant>
            {move || match media_src(&src(), true) {
                Some(src) => {
                    let alt = description.clone();
                    let shown = src.clone();
                    let media = move || view! { <img src=shown.clone() alt=alt.clone() referrerpolicy="no-referrer" decoding="async" /> };
                    view! { <RemoteMedia src what="images" description=description.clone() media /> }.into_any()
                }
                None => view! { <span class="media-refused">{format!("Not loaded (no web address): {description}")}</span> }.into_any(),
            }}
        </div>
    }
    .into_any()
}

/// The basic catalog's icon names drawn as symbols; any other is spoken and shown as a dot.
const ICONS: &[(&str, &str)] = &[
    ("accountCircle", "👤"),
    ("add", "+"),
    ("arrowBack", "←"),
    ("arrowForward", "→"),
    ("attachFile", "📎"),
    ("calendarToday", "📅"),
    ("call", "☎"),
    ("camera", "📷"),
    ("check", "✓"),
    ("close", "✕"),
    ("delete", "🗑"),
    ("download", "⬇"),
    ("edit", "✎"),
    ("event", "📅"),
    ("error", "⚠"),
    ("fastForward", "⏩"),
    ("favorite", "♥"),
    ("favoriteOff", "♡"),
    ("folder", "📁"),
    ("help", "?"),
    ("home", "⌂"),
    ("info", "ℹ"),
    ("locationOn", "📍"),
    ("lock", "🔒"),
    ("lockOpen", "🔓"),
    ("mail", "✉"),
    ("menu", "☰"),
    ("moreVert", "⋮"),
    ("moreHoriz", "⋯"),
    ("notificationsOff", "🔕"),
    ("notifications", "🔔"),
    ("pause", "⏸"),
    ("payment", "💳"),
    ("person", "👤"),
    ("phone", "☎"),
    ("photo", "🖼"),
    ("play", "▶"),
    ("print", "🖨"),
    ("refresh", "↻"),
    ("rewind", "⏪"),
    ("search", "🔍"),
    ("send", "➤"),
    ("settings", "⚙"),
    ("share", "⇪"),
    ("shoppingCart", "🛒"),
    ("skipNext", "⏭"),
    ("skipPrevious", "⏮"),
    ("star", "★"),
    ("starHalf", "⯪"),
    ("starOff", "☆"),
    ("stop", "⏹"),
    ("upload", "⬆"),
    ("visibility", "👁"),
    ("visibilityOff", "🙈"),
    ("volumeDown", "🔉"),
    ("volumeMute", "🔈"),
    ("volumeOff", "🔇"),
    ("volumeUp", "🔊"),
    ("warning", "⚠"),
];

/// Longest `svgPath` drawn; path data is geometry only (it cannot run or load anything).
const MOST_SVG_PATH: usize = 4_096;

pub(super) fn icon(ctx: Ctx, props: Value, at: At) -> AnyView {
    let label = accessible_label(ctx, &props, &at.scope);
    if let Some(path) = props
        .get("name")
        .and_then(|name| name.get("svgPath"))
        .and_then(Value::as_str)
        .filter(|path| path.len() <= MOST_SVG_PATH)
    {
        let label = label.unwrap_or_else(|| "icon".into());
        return view! {
            <svg class="a2ui-icon" viewBox="0 0 24 24" width="18" height="18" role="img" aria-label=label>
                <path d=path.to_owned() fill="currentColor"></path>
            </svg>
        }
        .into_any();
    }
    let scope = at.scope;
    let name = move || ctx.shown(&props, "name", &scope);
    let symbol = {
        let name = name.clone();
        move || {
            let name = name();
            ICONS
                .iter()
                .find(|(known, _)| *known == name)
                .map_or("•", |(_, symbol)| *symbol)
        }
    };
    let spoken = move || label.clone().unwrap_or_else(&name);
    view! {
        <span class="a2ui-icon" role="img" aria-label=spoken>{symbol}</span>
    }
    .into_any()
}

pub(super) fn player(ctx: Ctx, props: Value, at: At, video: bool) -> AnyView {
    let what = if video { "videos" } else { "audio" };
    let description = accessible_label(ctx, &props, &at.scope)
        .or_else(|| Some(ctx.shown(&props, "description", &at.scope)).filter(|d| !d.is_empty()))
        .unwrap_or_else(|| {
            if video {
                "A video from the agent".into()
            } else {
                "Audio from the agent".into()
            }
        });
    let scope = at.scope;
    let src = move || ctx.text(&props, "url", &scope);
    view! {
        <div class="a2ui-player">
            {move || match media_src(&src(), false) {
                Some(src) => {
                    let shown = src.clone();
                    let label = description.clone();
                    let media = move || {
                        if video {
                            view! { <video src=shown.clone() controls=true preload="metadata" aria-label=label.clone()></video> }.into_any()
                        } else {
                            view! { <audio src=shown.clone() controls=true preload="metadata" aria-label=label.clone()></audio> }.into_any()
                        }
                    };
                    view! { <RemoteMedia src what description=description.clone() media /> }.into_any()
                }
                None => view! { <span class="media-refused">{format!("Not loaded (no web address): {description}")}</span> }.into_any(),
            }}
        </div>
    }
    .into_any()
}
