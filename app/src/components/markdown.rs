//! Renders Markdown as elements built one by one from the safe tree of
//! [`crate::markdown`]: never an HTML string, so nothing in a document can run. Code
//! fences become [`Code`] blocks (Copy, colours from the server), images wait behind
//! [`RemoteMedia`], footnotes link within their document.

use leptos::prelude::*;

use crate::components::code::Code;
use crate::components::id_fragment;
use crate::components::remote_media::RemoteMedia;
use crate::markdown::{Align, Kind, Node, parse, parse_block};

/// A Markdown document, rendered safely. `scope` keeps its footnote anchors apart from
/// other documents on the page.
#[component]
pub fn Markdown(
    #[prop(into)] text: String,
    #[prop(optional, into)] scope: String,
) -> impl IntoView {
    let scope = id_fragment(&scope);
    view! { <div class="markdown">{render(parse(&text), &scope)}</div> }
}

/// One block of a longer document (see [`crate::markdown::blocks`]) that defines the
/// footnotes `labels` somewhere. Only a block that refers to a footnote follows `labels`
/// (a definition arriving later turns its reference into a link).
#[component]
pub fn MarkdownBlock(
    #[prop(into)] text: String,
    #[prop(into)] scope: String,
    #[prop(into)] labels: Signal<Vec<String>>,
) -> impl IntoView {
    let content = if text.contains("[^") {
        (move || labels.with(|labels| render(parse_block(&text, labels), &scope))).into_any()
    } else {
        render(parse(&text), &scope)
    };
    view! { <div class="md-block">{content}</div> }
}

fn render(nodes: Vec<Node>, scope: &str) -> AnyView {
    nodes
        .into_iter()
        .map(|node| node_view(node, scope))
        .collect_view()
        .into_any()
}

fn plain_text(nodes: &[Node], out: &mut String) {
    for node in nodes {
        match node {
            Node::Text(text) | Node::Code(text) => out.push_str(text),
            Node::SoftBreak | Node::HardBreak => out.push('\n'),
            Node::Element(_, children) => plain_text(children, out),
            _ => {}
        }
    }
}

fn node_view(node: Node, scope: &str) -> AnyView {
    match node {
        Node::Text(text) => text.into_any(),
        Node::Code(code) => view! { <code>{code}</code> }.into_any(),
        Node::SoftBreak => "\n".into_any(),
        Node::HardBreak => view! { <br /> }.into_any(),
        Node::Rule => view! { <hr /> }.into_any(),
        Node::Task(done) => {
            view! { <input type="checkbox" disabled=true checked=done aria-label=if done { "done" } else { "to do" } /> }
                .into_any()
        }
        Node::FootnoteRef(label) => {
            let slug = id_fragment(&label);
            view! {
                <sup class="footnote-ref">
                    <a href=format!("#fn-{scope}-{slug}") id=format!("fnref-{scope}-{slug}")>{label}</a>
                </sup>
            }
            .into_any()
        }
        Node::Element(Kind::Table(aligns), children) => table(children, &aligns, scope),
        Node::Element(Kind::CodeBlock(language), children) => {
            let mut code = String::new();
            plain_text(&children, &mut code);
            view! { <Code code language=language.unwrap_or_default() /> }.into_any()
        }
        Node::Element(Kind::Image(src), children) => {
            let mut alt = String::new();
            plain_text(&children, &mut alt);
            let description = if alt.is_empty() { "Image".to_owned() } else { format!("Image: {alt}") };
            let media_src = src.clone();
            view! {
                <RemoteMedia src what="images" description media=move || view! {
                    <img class="md-image" src=media_src.clone() alt=alt.clone() referrerpolicy="no-referrer" loading="lazy" />
                } />
            }
            .into_any()
        }
        Node::Element(Kind::FootnoteDefinition(label), children) => {
            let slug = id_fragment(&label);
            view! {
                <div class="footnote" id=format!("fn-{scope}-{slug}")>
                    <a class="footnote-label" href=format!("#fnref-{scope}-{slug}") aria-label=format!("Back to reference {label}")>{label.clone()}</a>
                    {render(children, scope)}
                </div>
            }
            .into_any()
        }
        Node::Element(kind, children) => element(kind, render(children, scope)),
    }
}

fn element(kind: Kind, inner: AnyView) -> AnyView {
    match kind {
        Kind::Paragraph => view! { <p>{inner}</p> }.into_any(),
        Kind::Heading(1) => view! { <h1>{inner}</h1> }.into_any(),
        Kind::Heading(2) => view! { <h2>{inner}</h2> }.into_any(),
        Kind::Heading(3) => view! { <h3>{inner}</h3> }.into_any(),
        Kind::Heading(4) => view! { <h4>{inner}</h4> }.into_any(),
        Kind::Heading(5) => view! { <h5>{inner}</h5> }.into_any(),
        Kind::Heading(_) => view! { <h6>{inner}</h6> }.into_any(),
        Kind::BlockQuote => view! { <blockquote>{inner}</blockquote> }.into_any(),
        Kind::List(Some(start)) => view! { <ol start=start.to_string()>{inner}</ol> }.into_any(),
        Kind::List(None) => view! { <ul>{inner}</ul> }.into_any(),
        Kind::Item => view! { <li>{inner}</li> }.into_any(),
        Kind::Emphasis => view! { <em>{inner}</em> }.into_any(),
        Kind::Strong => view! { <strong>{inner}</strong> }.into_any(),
        Kind::Strikethrough => view! { <del>{inner}</del> }.into_any(),
        Kind::Link(href) => {
            view! { <a href=href rel="noopener noreferrer" target="_blank">{inner}</a> }.into_any()
        }
        // Rendered by their own arms above; kept whole here so no content is lost.
        Kind::CodeBlock(_) | Kind::Image(_) | Kind::FootnoteDefinition(_) => inner,
        Kind::TableHead | Kind::TableRow | Kind::TableCell | Kind::Table(_) | Kind::Plain => inner,
    }
}

fn align_class(align: Align) -> Option<&'static str> {
    match align {
        Align::None | Align::Left => None,
        Align::Center => Some("align-center"),
        Align::Right => Some("align-right"),
    }
}

/// A table with its head cells as `<th scope="col">`, each cell aligned as its column is,
/// and the body rows in `<tbody>`, as a browser's parser would put them (so the server's
/// page and the hydrated one agree).
fn table(children: Vec<Node>, aligns: &[Align], scope: &str) -> AnyView {
    let cells = |row: Vec<Node>, head: bool| {
        row.into_iter()
            .enumerate()
            .map(|(column, cell)| {
                let class = align_class(aligns.get(column).copied().unwrap_or(Align::None));
                let inner = match cell {
                    Node::Element(_, content) => render(content, scope),
                    other => node_view(other, scope),
                };
                match (head, class) {
                    (true, Some(class)) => {
                        view! { <th scope="col" class=class>{inner}</th> }.into_any()
                    }
                    (true, None) => view! { <th scope="col">{inner}</th> }.into_any(),
                    (false, Some(class)) => view! { <td class=class>{inner}</td> }.into_any(),
                    (false, None) => view! { <td>{inner}</td> }.into_any(),
                }
            })
            .collect_view()
    };
    let mut head = Vec::new();
    let mut rows = Vec::new();
    for node in children {
        match node {
            Node::Element(Kind::TableHead, row) => head.push(view! { <tr>{cells(row, true)}</tr> }),
            Node::Element(Kind::TableRow, row) => rows.push(view! { <tr>{cells(row, false)}</tr> }),
            _ => {}
        }
    }
    view! {
        <div class="table-scroll">
            <table><thead>{head}</thead><tbody>{rows}</tbody></table>
        </div>
    }
    .into_any()
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;
    use crate::components::inert::{assert_inert, attributes, tags};

    /// Hostile documents: script and handlers as raw HTML, script URLs in every link
    /// form, SVG and CSS.
    const CORPUS: &[&str] = &[
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "<svg onload=alert(1)><script>alert(2)</script></svg>",
        "<style>body{display:none}</style><div style=\"background:url(javascript:alert(1))\">x</div>",
        "[click](javascript:alert(1))",
        "[click](JAVASCRIPT:alert(1))",
        "[click]( javascript:alert(1) )",
        "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "![x](javascript:alert(1))",
        "<a href=\"javascript:alert(1)\">x</a>",
        "[ref]\n\n[ref]: javascript:alert(1)",
        "<iframe src=\"https://evil.example\"></iframe>",
        "```html\n<script>alert(1)</script>\n```",
        "`<script>`",
        "<https://fine.example/?q=<script>>",
    ];

    fn rendered(text: &str) -> String {
        let owner = Owner::new();
        owner
            .with(|| view! { <Markdown text=text.to_owned() /> }.to_html())
            .replace("<!>", "")
    }

    #[test]
    fn hostile_markdown_renders_as_inert_text() {
        let corpus: serde_json::Value =
            serde_json::from_str(include_str!("../../../fixtures/catalog/hostile.json")).unwrap();
        let more: Vec<String> = corpus["markdown"]
            .as_array()
            .unwrap()
            .iter()
            .chain(corpus["tool_results"].as_array().unwrap())
            .map(|text| text.as_str().unwrap().to_owned())
            .collect();
        for document in CORPUS
            .iter()
            .copied()
            .chain(more.iter().map(String::as_str))
        {
            let html = rendered(document);
            assert_inert(document, &html);
            // Markdown draws no image before consent and no style at all.
            for tag in tags(&html) {
                assert!(
                    !tag.starts_with("img") && !tag.starts_with("svg"),
                    "{document:?} made <{tag}>"
                );
                assert!(
                    attributes(&tag).iter().all(|(name, _)| name != "style"),
                    "{document:?} made <{tag}>"
                );
            }
        }
    }

    #[test]
    fn links_open_safely_and_tables_keep_their_body() {
        let html = rendered("[docs](https://example.com/a)\n\n|a|b|\n|-|-|\n|1|2|\n");
        assert!(
            html.contains("<a href=\"https://example.com/a\" rel=\"noopener noreferrer\" target=\"_blank\">docs</a>"),
            "{html}"
        );
        assert!(html.contains("<tbody><tr><td>1</td>"), "{html}");
    }
}
