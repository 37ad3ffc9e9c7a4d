//! Links out: a link preview card, a citation and a numbered list of citations with a
//! card on hover and focus. Links open in a new tab with no opener and no referrer.

use leptos::prelude::*;

use crate::catalog::link::{Citation, CitationList, LinkPreview};
use crate::markdown::host_of;

fn domain_of(given: Option<&String>, href: &str) -> String {
    given.cloned().or_else(|| host_of(href)).unwrap_or_default()
}

#[component]
fn OutLink(href: String, children: Children) -> impl IntoView {
    view! {
        <a href=href rel="noopener noreferrer" target="_blank">
            {children()}
            <span class="visually-hidden">" (opens in a new tab)"</span>
        </a>
    }
}

#[component]
pub fn LinkPreviewView(payload: LinkPreview) -> impl IntoView {
    let domain = domain_of(payload.domain.as_ref(), &payload.href);
    let title = payload
        .title
        .clone()
        .unwrap_or_else(|| payload.href.clone());
    view! {
        <article class="catalog link-preview" data-slot="link_preview" data-tool-ui-id=payload.base.id.clone()>
            <OutLink href=payload.href.clone()><strong>{title}</strong></OutLink>
            <p class="muted link-domain">{domain}</p>
            {payload.description.clone().map(|d| view! { <p>{d}</p> })}
        </article>
    }
}

fn citation_card(citation: &Citation) -> impl IntoView + use<> {
    let domain = domain_of(citation.domain.as_ref(), &citation.href);
    let byline = [citation.author.clone(), citation.published_at.clone()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ");
    view! {
        <span class="citation-card" role="tooltip">
            <strong>{citation.title.clone()}</strong>
            <span class="muted">{domain}</span>
            {(!byline.is_empty()).then(|| view! { <span class="muted">{byline}</span> })}
            {citation.snippet.clone().map(|s| view! { <span>{s}</span> })}
        </span>
    }
}

#[component]
pub fn CitationView(payload: Citation) -> impl IntoView {
    let domain = domain_of(payload.domain.as_ref(), &payload.href);
    view! {
        <article class="catalog citation" data-slot="citation" data-tool-ui-id=payload.base.id.clone()>
            <OutLink href=payload.href.clone()><strong>{payload.title.clone()}</strong></OutLink>
            <p class="muted">{domain}{payload.author.clone().map(|a| format!(" · {a}"))}{payload.published_at.clone().map(|d| format!(" · {d}"))}</p>
            {payload.snippet.clone().map(|s| view! { <p>{s}</p> })}
        </article>
    }
}

#[component]
pub fn CitationListView(payload: CitationList) -> impl IntoView {
    let visible = payload
        .max_visible
        .and_then(|n| usize::try_from(n).ok())
        .filter(|n| *n > 0)
        .unwrap_or(usize::MAX);
    let total = payload.citations.len();
    let all = RwSignal::new(false);
    let citations = payload.citations.clone();
    view! {
        <section class="catalog citation-list" data-slot="citation_list" data-tool-ui-id=payload.base.id.clone() aria-label="Sources">
            <ol class="citations">
                {move || {
                    let limit = if all.get() { usize::MAX } else { visible };
                    citations.iter().take(limit).cloned().enumerate().map(|(n, citation)| view! {
                        <li class="citation-item">
                            <span class="citation-number" tabindex="0">{format!("[{}]", n + 1)}{citation_card(&citation)}</span>
                            " "
                            <OutLink href=citation.href.clone()>{citation.title.clone()}</OutLink>
                        </li>
                    }).collect_view()
                }}
            </ol>
            {(total > visible).then(|| view! {
                <button type="button" class="button small ghost" on:click=move |_| all.update(|a| *a = !*a)>
                    {move || if all.get() { "Show fewer".to_owned() } else { format!("Show {} more", total - visible) }}
                </button>
            })}
        </section>
    }
}
