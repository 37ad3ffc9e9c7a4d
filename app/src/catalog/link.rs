//! Links out: `link_preview` (a card for one URL), `citation` (a source the answer leans
//! on) and `citation_list`. Every href, image and favicon is an absolute http(s) URL.

use serde::Serialize;
use serde_json::Value;

use super::{Base, Fields, Fit, Invalid, Ratio, unique};

choice! {
    CitationType {
        Webpage = "webpage",
        Document = "document",
        Article = "article",
        Api = "api",
        Code = "code",
        Other = "other",
    }
}

choice! {
    /// A card, a chip inside the text, or a pile of overlapping favicons.
    CitationVariant { Default = "default", Inline = "inline", Stacked = "stacked" }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkPreview {
    #[serde(flatten)]
    pub base: Base,
    pub href: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub image: Option<String>,
    pub domain: Option<String>,
    pub favicon: Option<String>,
    pub ratio: Option<Ratio>,
    pub fit: Option<Fit>,
    pub created_at: Option<String>,
    pub locale: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Citation {
    #[serde(flatten)]
    pub base: Base,
    pub href: String,
    pub title: String,
    pub snippet: Option<String>,
    pub domain: Option<String>,
    pub favicon: Option<String>,
    pub author: Option<String>,
    pub published_at: Option<String>,
    #[serde(rename = "type")]
    pub citation_type: Option<CitationType>,
    pub locale: Option<String>,
    pub variant: CitationVariant,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CitationList {
    #[serde(flatten)]
    pub base: Base,
    pub citations: Vec<Citation>,
    pub variant: CitationVariant,
    /// Citations shown before the rest go into a popover.
    pub max_visible: Option<i64>,
}

const MAX_CITATIONS: usize = 100;

pub fn parse_preview(value: &Value) -> Result<LinkPreview, Invalid> {
    let fields = Fields::of(value, "")?;
    Ok(LinkPreview {
        base: Base::surface(&fields)?,
        href: fields.href("href")?,
        title: fields.opt_text("title")?,
        description: fields.opt_text("description")?,
        image: fields.opt_href("image")?,
        domain: fields.opt_text("domain")?,
        favicon: fields.opt_href("favicon")?,
        ratio: fields.opt_one_of("ratio")?,
        fit: fields.opt_one_of("fit")?,
        created_at: fields.opt_date("createdAt")?,
        locale: fields.opt_nonblank("locale")?,
    })
}

pub fn parse_citation(value: &Value) -> Result<Citation, Invalid> {
    citation(&Fields::of(value, "")?)
}

pub fn parse_citation_list(value: &Value) -> Result<CitationList, Invalid> {
    let fields = Fields::of(value, "")?;
    let base = Base::identity(&fields)?;
    let citations = fields
        .list("citations", 1, MAX_CITATIONS)?
        .iter()
        .map(citation)
        .collect::<Result<Vec<_>, _>>()?;
    unique(
        &fields.path_of("citations"),
        "id",
        citations.iter().map(|c| c.base.id.as_str()),
    )?;
    Ok(CitationList {
        base,
        citations,
        variant: fields.one_of("variant", Some(CitationVariant::Default))?,
        max_visible: fields.opt_int("maxVisible", 1)?,
    })
}

fn citation(fields: &Fields<'_>) -> Result<Citation, Invalid> {
    Ok(Citation {
        base: Base::surface(fields)?,
        href: fields.href("href")?,
        title: fields.text("title")?,
        snippet: fields.opt_text("snippet")?,
        domain: fields.opt_text("domain")?,
        favicon: fields.opt_href("favicon")?,
        author: fields.opt_text("author")?,
        published_at: fields.opt_date("publishedAt")?,
        citation_type: fields.opt_one_of("type")?,
        locale: fields.opt_nonblank("locale")?,
        variant: fields.one_of("variant", Some(CitationVariant::Default))?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::refusal;
    use serde_json::json;

    fn cite(id: &str, href: &str) -> Value {
        json!({"id": id, "href": href, "title": "Rust 2024", "type": "article",
            "publishedAt": "2025-02-20T00:00:00Z"})
    }

    #[test]
    fn a_link_preview_is_read() {
        let preview = parse_preview(
            &json!({"id": "link-preview-docs", "href": "https://docs.rs",
            "image": "https://docs.rs/og.png", "title": "Docs.rs"}),
        )
        .expect("valid");
        assert_eq!(preview.href, "https://docs.rs");
    }

    #[test]
    fn a_link_preview_with_a_javascript_href_is_refused() {
        let refused = refusal(parse_preview(
            &json!({"id": "l", "href": "javascript:alert(1)"}),
        ));
        assert_eq!(
            refused,
            "href: must be an absolute http(s) URL (got \"javascript:alert(1)\")"
        );
    }

    #[test]
    fn a_link_preview_with_a_relative_image_is_refused() {
        let refused = refusal(parse_preview(
            &json!({"id": "l", "href": "https://a.test", "image": "/og.png"}),
        ));
        assert_eq!(
            refused,
            "image: must be an absolute http(s) URL (got \"/og.png\")"
        );
    }

    #[test]
    fn a_citation_is_read_with_the_default_variant() {
        let citation =
            parse_citation(&cite("citation-1", "https://blog.rust-lang.org")).expect("valid");
        assert_eq!(
            (citation.variant, citation.citation_type),
            (CitationVariant::Default, Some(CitationType::Article))
        );
    }

    #[test]
    fn a_citation_published_on_a_day_is_read() {
        let mut value = cite("c", "https://a.test");
        value["publishedAt"] = json!("2017-12-01");
        let citation = parse_citation(&value).expect("valid");
        assert_eq!(citation.published_at.as_deref(), Some("2017-12-01"));
    }

    #[test]
    fn a_citation_without_a_title_is_refused() {
        let refused = refusal(parse_citation(
            &json!({"id": "c", "href": "https://a.test"}),
        ));
        assert_eq!(refused, "title: required, a non-empty string");
    }

    #[test]
    fn a_citation_list_names_the_bad_citation() {
        let refused = refusal(parse_citation_list(&json!({"id": "cl", "citations": [
            cite("a", "https://a.test"), cite("b", "mailto:b@b.test")
        ]})));
        assert_eq!(
            refused,
            "citations[1].href: must be an absolute http(s) URL (got \"mailto:b@b.test\")"
        );
    }

    #[test]
    fn an_empty_citation_list_is_refused() {
        let refused = refusal(parse_citation_list(&json!({"id": "cl", "citations": []})));
        assert_eq!(refused, "citations: must have at least 1 item (got 0)");
    }

    #[test]
    fn a_citation_list_reads_its_citations() {
        let list = parse_citation_list(&json!({"id": "cl", "maxVisible": 2, "variant": "stacked",
            "citations": [cite("a", "https://a.test"), cite("b", "https://b.test")]}))
        .expect("valid");
        assert_eq!((list.citations.len(), list.max_visible), (2, Some(2)));
    }
}
