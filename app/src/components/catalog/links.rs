//! Links out: `link_preview`, `citation` and `citation_list`. Every link opens in a new tab
//! with no opener and no referrer, and says so to screen readers; a preview's image waits
//! behind the operator's consent, and favicons are left out (each would call its host).

use leptos::prelude::*;

use super::outside::{OutLink, domain_of, remote_image};
use crate::catalog::link::{Citation, CitationList, CitationType, CitationVariant, LinkPreview};
use crate::catalog::{Fit, Ratio};
use crate::components::remote_media::RemoteMedia;

/// An ISO date or date-time as its day, the precision a reader of sources wants.
fn day(date: &str) -> String {
    date.split('T').next().unwrap_or(date).to_owned()
}

/// A DOM id from payload ids: only letters, digits and dashes survive.
fn dom_id(parts: &[&str]) -> String {
    let joined = parts.join("-");
    let safe = joined.chars().take(96);
    safe.map(|c| {
        if c.is_ascii_alphanumeric() || c == '-' {
            c
        } else {
            '_'
        }
    })
    .collect()
}

fn type_name(kind: CitationType) -> &'static str {
    match kind {
        CitationType::Webpage => "Web page",
        CitationType::Document => "Document",
        CitationType::Article => "Article",
        CitationType::Api => "API",
        CitationType::Code => "Code",
        CitationType::Other => "Source",
    }
}

/// "author · day", or whichever of the two there is.
fn byline(citation: &Citation) -> Option<String> {
    let parts: Vec<String> = [
        citation.author.clone(),
        citation.published_at.as_deref().map(day),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| parts.join(" · "))
}

#[component]
pub fn LinkPreviewView(payload: LinkPreview) -> impl IntoView {
    let domain = domain_of(payload.domain.as_ref(), &payload.href);
    let title = payload.title.clone().unwrap_or_else(|| domain.clone());
    let (ratio, fit) = (
        payload.ratio.map(Ratio::as_str),
        payload.fit.map(Fit::as_str),
    );
    let image = payload.image.clone().map(|src| {
        let description = format!("Preview image for {domain}");
        // Decorative: the title beside it says what the page is.
        let media = remote_image(src.clone(), String::new());
        view! {
            <div class="media-frame link-preview-image" data-ratio=ratio data-fit=fit>
                <RemoteMedia src what="images" description media />
            </div>
        }
    });
    let created = payload.created_at.as_deref().map(|date| {
        view! { " · " <time datetime=date.to_owned()>{day(date)}</time> }
    });
    let text = payload
        .description
        .map(|d| view! { <p class="link-preview-text">{d}</p> });
    view! {
        <article class="catalog-link link-preview" data-slot="link_preview"
            data-tool-ui-id=payload.base.id>
            {image}
            <div class="link-preview-body">
                <OutLink href=payload.href class="link-preview-title">{title}</OutLink>
                {text}
                <p class="link-domain muted">{domain}{created}</p>
            </div>
        </article>
    }
}

/// What a citation's number shows on hover and focus: title, site, byline, snippet.
fn citation_card(citation: &Citation, id: String) -> impl IntoView + use<> {
    let domain = domain_of(citation.domain.as_ref(), &citation.href);
    let kind = citation
        .citation_type
        .map(|k| format!(" · {}", type_name(k)));
    let byline = byline(citation).map(|b| view! { <span class="muted">{b}</span> });
    let snippet = citation.snippet.clone();
    let snippet = snippet.map(|s| view! { <span class="citation-snippet">{s}</span> });
    view! {
        <span class="citation-card" role="tooltip" id=id>
            <strong class="citation-card-title">{citation.title.clone()}</strong>
            <span class="muted">{domain}{kind}</span>
            {byline}
            {snippet}
        </span>
    }
}

#[component]
pub fn CitationView(payload: Citation) -> impl IntoView {
    let domain = domain_of(payload.domain.as_ref(), &payload.href);
    if payload.variant == CitationVariant::Inline {
        // A chip within the text: the site's name, the rest on hover and focus.
        let card_id = dom_id(&["citation", &payload.base.id, "card"]);
        let card = citation_card(&payload, card_id.clone());
        let title = format!(": {}", payload.title);
        return view! {
            <span class="citation-inline citation-item" data-slot="citation"
                data-tool-ui-id=payload.base.id>
                <OutLink href=payload.href class="citation-chip" described_by=card_id>
                    {domain}<span class="visually-hidden">{title}</span>
                </OutLink>
                {card}
            </span>
        }
        .into_any();
    }
    let kind = payload
        .citation_type
        .map(|k| format!(" · {}", type_name(k)));
    let byline = byline(&payload).map(|b| view! { <p class="citation-byline muted">{b}</p> });
    let snippet = payload
        .snippet
        .map(|s| view! { <p class="citation-snippet">{s}</p> });
    view! {
        <article class="catalog-link citation" data-slot="citation" data-tool-ui-id=payload.base.id>
            <p class="citation-meta muted">{domain}{kind}</p>
            <OutLink href=payload.href class="citation-title">{payload.title}</OutLink>
            {snippet}
            {byline}
        </article>
    }
    .into_any()
}

#[component]
pub fn CitationListView(payload: CitationList) -> impl IntoView {
    let total = payload.citations.len();
    let shown = payload
        .max_visible
        .and_then(|n| usize::try_from(n).ok())
        .filter(|n| *n > 0);
    let shown = shown.unwrap_or(total).min(total);
    let expanded = RwSignal::new(false);
    let chips = payload.variant != CitationVariant::Default;
    let items = payload.citations.iter().enumerate().map(|(n, citation)| {
        let number = format!("[{}]", n + 1);
        let card_id = dom_id(&["citations", &payload.base.id, &citation.base.id]);
        let card = citation_card(citation, card_id.clone());
        let hidden = move || n >= shown && !expanded.get();
        let (href, title) = (citation.href.clone(), citation.title.clone());
        let link = if chips {
            view! {
                <OutLink href class="citation-chip" described_by=card_id>
                    {number}<span class="visually-hidden">{format!(" {title}")}</span>
                </OutLink>
            }
            .into_any()
        } else {
            let domain = domain_of(citation.domain.as_ref(), &href);
            view! {
                <span class="citation-number">{number}</span>
                <OutLink href class="citation-title" described_by=card_id>{title}</OutLink>
                <span class="citation-domain muted">{domain}</span>
            }
            .into_any()
        };
        view! { <li class="citation-item" hidden=hidden>{link}{card}</li> }
    });
    let more = (total > shown).then(|| {
        let label = move || {
            if expanded.get() {
                "Show fewer".to_owned()
            } else {
                format!("Show {} more", total - shown)
            }
        };
        view! {
            <button type="button" class="button small ghost citation-more"
                aria-expanded=move || expanded.get().to_string()
                on:click=move |_| expanded.update(|open| *open = !*open)>
                {label}
            </button>
        }
    });
    let items = items.collect_view();
    view! {
        <section class="catalog-link citation-list" data-slot="citation_list"
            data-tool-ui-id=payload.base.id.clone() data-variant=payload.variant.as_str()
            aria-label="Sources">
            <ol class=if chips { "citation-chips" } else { "citation-items" }>{items}</ol>
            {more}
        </section>
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_list_numbers_its_sources_and_folds_the_overflow() {
        let cite =
            |id: &str| json!({"id": id, "href": format!("https://{id}.example/a"), "title": id});
        let list = crate::catalog::link::parse_citation_list(
            &json!({"id": "sources", "maxVisible": 2, "citations": [cite("a"), cite("b"), cite("c")]}),
        )
        .expect("valid");
        let page = Owner::new().with(|| view! { <CitationListView payload=list /> }.to_html());
        for text in [
            "[1]",
            "[2]",
            "[3]",
            "Show 1 more",
            "(opens in a new tab)",
            "noopener noreferrer",
        ] {
            assert!(page.contains(text), "{text} missing from {page}");
        }
        assert_eq!(
            page.matches("hidden").count() - page.matches("visually-hidden").count(),
            1
        );
        assert_eq!(page.matches("role=\"tooltip\"").count(), 3);
    }
}
