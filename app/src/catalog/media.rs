//! Media surfaces: `image`, `image_gallery`, `audio` and `video`. Every address they load
//! or link to is an absolute http(s) URL; every image has alt text.

use serde::Serialize;
use serde_json::Value;

use super::{Base, Fields, Fit, Invalid, Ratio, unique};

choice! {
    /// The audio player's size.
    AudioVariant { Full = "full", Compact = "compact" }
}

/// Where a piece of media comes from.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    pub label: String,
    pub icon_url: Option<String>,
    pub url: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Image {
    #[serde(flatten)]
    pub base: Base,
    pub asset_id: String,
    pub src: String,
    pub alt: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub href: Option<String>,
    pub domain: Option<String>,
    pub ratio: Option<Ratio>,
    pub fit: Option<Fit>,
    pub file_size_bytes: Option<i64>,
    pub created_at: Option<String>,
    pub locale: Option<String>,
    pub source: Option<Source>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageGallery {
    #[serde(flatten)]
    pub base: Base,
    pub images: Vec<GalleryImage>,
    pub title: Option<String>,
    pub description: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GalleryImage {
    pub id: String,
    pub src: String,
    pub alt: String,
    pub width: f64,
    pub height: f64,
    pub title: Option<String>,
    pub caption: Option<String>,
    pub source: Option<Source>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Audio {
    #[serde(flatten)]
    pub base: Base,
    pub asset_id: String,
    pub src: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub artwork: Option<String>,
    pub duration_ms: Option<i64>,
    pub file_size_bytes: Option<i64>,
    pub created_at: Option<String>,
    pub locale: Option<String>,
    pub source: Option<Source>,
    pub variant: AudioVariant,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Video {
    #[serde(flatten)]
    pub base: Base,
    pub asset_id: String,
    pub src: String,
    pub poster: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub href: Option<String>,
    pub domain: Option<String>,
    pub duration_ms: Option<i64>,
    pub ratio: Option<Ratio>,
    pub fit: Option<Fit>,
    pub created_at: Option<String>,
    pub locale: Option<String>,
    pub source: Option<Source>,
    pub auto_play: bool,
    /// Starts muted unless told otherwise, so a video never plays sound unasked.
    pub default_muted: bool,
}

const MAX_IMAGES: usize = 200;

pub fn parse_image(value: &Value) -> Result<Image, Invalid> {
    let fields = Fields::of(value, "")?;
    Ok(Image {
        base: Base::surface(&fields)?,
        asset_id: fields.string("assetId")?,
        src: fields.image_src("src")?,
        alt: fields.text("alt")?,
        title: fields.opt_text("title")?,
        description: fields.opt_text("description")?,
        href: fields.opt_href("href")?,
        domain: fields.opt_text("domain")?,
        ratio: fields.opt_one_of("ratio")?,
        fit: fields.opt_one_of("fit")?,
        file_size_bytes: fields.opt_int("fileSizeBytes", 1)?,
        created_at: fields.opt_date("createdAt")?,
        locale: fields.opt_nonblank("locale")?,
        source: source(&fields)?,
    })
}

pub fn parse_gallery(value: &Value) -> Result<ImageGallery, Invalid> {
    let fields = Fields::of(value, "")?;
    let base = Base::surface(&fields)?;
    let images = fields
        .list("images", 1, MAX_IMAGES)?
        .iter()
        .map(|image| {
            Ok(GalleryImage {
                id: image.text("id")?,
                src: image.image_src("src")?,
                alt: image.text("alt")?,
                width: positive(image, "width")?,
                height: positive(image, "height")?,
                title: image.opt_text("title")?,
                caption: image.opt_text("caption")?,
                source: source(image)?,
            })
        })
        .collect::<Result<Vec<_>, Invalid>>()?;
    unique(
        &fields.path_of("images"),
        "id",
        images.iter().map(|i| i.id.as_str()),
    )?;
    Ok(ImageGallery {
        base,
        images,
        title: fields.opt_text("title")?,
        description: fields.opt_text("description")?,
    })
}

pub fn parse_audio(value: &Value) -> Result<Audio, Invalid> {
    let fields = Fields::of(value, "")?;
    Ok(Audio {
        base: Base::surface(&fields)?,
        asset_id: fields.string("assetId")?,
        src: fields.href("src")?,
        title: fields.opt_text("title")?,
        description: fields.opt_text("description")?,
        artwork: fields.opt_href("artwork")?,
        duration_ms: fields.opt_int("durationMs", 1)?,
        file_size_bytes: fields.opt_int("fileSizeBytes", 1)?,
        created_at: fields.opt_date("createdAt")?,
        locale: fields.opt_nonblank("locale")?,
        source: source(&fields)?,
        variant: fields.one_of("variant", Some(AudioVariant::Full))?,
    })
}

pub fn parse_video(value: &Value) -> Result<Video, Invalid> {
    let fields = Fields::of(value, "")?;
    Ok(Video {
        base: Base::surface(&fields)?,
        asset_id: fields.string("assetId")?,
        src: fields.href("src")?,
        poster: fields.opt_href("poster")?,
        title: fields.opt_text("title")?,
        description: fields.opt_text("description")?,
        href: fields.opt_href("href")?,
        domain: fields.opt_text("domain")?,
        duration_ms: fields.opt_int("durationMs", 1)?,
        ratio: fields.opt_one_of("ratio")?,
        fit: fields.opt_one_of("fit")?,
        created_at: fields.opt_date("createdAt")?,
        locale: fields.opt_nonblank("locale")?,
        source: source(&fields)?,
        auto_play: fields.bool_or("autoPlay", false)?,
        default_muted: fields.bool_or("defaultMuted", true)?,
    })
}

fn source(fields: &Fields<'_>) -> Result<Option<Source>, Invalid> {
    let Some(source) = fields.opt_object("source")? else {
        return Ok(None);
    };
    Ok(Some(Source {
        label: source.text("label")?,
        icon_url: source.opt_href("iconUrl")?,
        url: source.opt_href("url")?,
    }))
}

fn positive(fields: &Fields<'_>, key: &str) -> Result<f64, Invalid> {
    let found = fields.opt_positive(key)?;
    found.ok_or_else(|| fields.invalid(key, "required, a number greater than 0"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::refusal;
    use serde_json::json;

    fn image(extra: Value) -> Value {
        let mut value = json!({"id": "image-bridge", "assetId": "a1",
            "src": "https://cdn.example.com/b.jpg",
            "alt": "A bridge at dusk"});
        if let (Some(map), Value::Object(more)) = (value.as_object_mut(), extra) {
            map.extend(more);
        }
        value
    }

    #[test]
    fn an_image_with_alt_text_and_an_https_src_is_read() {
        let image = parse_image(&image(json!({"ratio": "16:9", "fit": "cover",
            "source": {"label": "Example", "url": "https://example.com"}})))
        .expect("valid");
        assert_eq!(
            (image.ratio, image.fit),
            (Some(Ratio::Wide), Some(Fit::Cover))
        );
    }

    #[test]
    fn an_image_without_alt_text_is_refused() {
        let mut value = image(json!({}));
        value["alt"] = json!("");
        assert_eq!(
            refusal(parse_image(&value)),
            "alt: required, a non-empty string"
        );
    }

    #[test]
    fn an_image_with_a_javascript_src_is_refused() {
        let refused = refusal(parse_image(&image(json!({"src": "javascript:alert(1)"}))));
        assert_eq!(
            refused,
            "src: must be an absolute http(s) URL or an inline data:image URL (got \"javascript:alert(1)\")"
        );
    }

    #[test]
    fn an_inline_image_is_kept_and_any_other_data_src_is_refused() {
        assert!(parse_image(&image(json!({"src": "data:image/png;base64,iVBORw0KGgo="}))).is_ok());
        let refused = refusal(parse_image(&image(
            json!({"src": "data:text/html;base64,PHNjcmlwdD4="}),
        )));
        assert!(
            refused.starts_with("src: must be an absolute http(s) URL"),
            "{refused}"
        );
    }

    #[test]
    fn a_mailto_source_link_is_refused() {
        let refused = refusal(parse_image(&image(
            json!({"source": {"label": "Me", "url": "mailto:me@example.com"}}),
        )));
        assert!(
            refused.starts_with("source.url: must be an absolute http(s) URL"),
            "{refused}"
        );
    }

    #[test]
    fn a_gallery_reads_each_image() {
        let gallery = parse_gallery(&json!({"id": "g", "images": [
            {"id": "1", "src": "https://x.test/1.jpg", "alt": "One", "width": 640, "height": 480}
        ]}))
        .expect("valid");
        assert_eq!(
            gallery.images.first().map(|i| (i.width, i.height)),
            Some((640.0, 480.0))
        );
    }

    #[test]
    fn a_gallery_image_of_zero_width_is_refused() {
        let refused = refusal(parse_gallery(&json!({"id": "g", "images": [
            {"id": "1", "src": "https://x.test/1.jpg", "alt": "One", "width": 0, "height": 480}
        ]})));
        assert_eq!(refused, "images[0].width: must be greater than 0 (got 0)");
    }

    #[test]
    fn an_empty_gallery_is_refused() {
        assert_eq!(
            refusal(parse_gallery(&json!({"id": "g", "images": []}))),
            "images: must have at least 1 item (got 0)"
        );
    }

    #[test]
    fn a_gallery_past_the_cap_is_refused() {
        let one =
            json!({"id": "x", "src": "https://x.test/1.jpg", "alt": "A", "width": 1, "height": 1});
        let refused = refusal(parse_gallery(&json!({"id": "g", "images": vec![one; 201]})));
        assert_eq!(refused, "images: must have at most 200 items (got 201)");
    }

    #[test]
    fn audio_reads_in_the_full_player_by_default() {
        let audio = parse_audio(
            &json!({"id": "a", "assetId": "a1", "src": "https://x.test/a.mp3", "durationMs": 1000}),
        )
        .expect("valid");
        assert_eq!(audio.variant, AudioVariant::Full);
    }

    #[test]
    fn audio_with_fractional_duration_is_refused() {
        let refused = refusal(parse_audio(
            &json!({"id": "a", "assetId": "a1", "src": "https://x.test/a.mp3", "durationMs": 1.5}),
        ));
        assert_eq!(refused, "durationMs: must be a whole number (got 1.5)");
    }

    #[test]
    fn audio_without_a_src_is_refused() {
        assert_eq!(
            refusal(parse_audio(&json!({"id": "a", "assetId": "a1"}))),
            "src: required, an http(s) URL"
        );
    }

    #[test]
    fn a_video_starts_muted_by_default() {
        let video =
            parse_video(&json!({"id": "v", "assetId": "v1", "src": "https://x.test/v.mp4"}))
                .expect("valid");
        assert!(video.default_muted && !video.auto_play);
    }

    #[test]
    fn a_video_poster_on_another_scheme_is_refused() {
        let refused = refusal(parse_video(
            &json!({"id": "v", "assetId": "v1", "src": "https://x.test/v.mp4",
            "poster": "file:///etc/passwd"}),
        ));
        assert!(
            refused.starts_with("poster: must be an absolute http(s) URL"),
            "{refused}"
        );
    }

    #[test]
    fn a_video_created_on_a_day_that_does_not_exist_is_refused() {
        let refused = refusal(parse_video(
            &json!({"id": "v", "assetId": "v1", "src": "https://x.test/v.mp4",
            "createdAt": "2026-02-30"}),
        ));
        assert!(
            refused.starts_with("createdAt: must be an ISO 8601 date or date-time"),
            "{refused}"
        );
    }
}
