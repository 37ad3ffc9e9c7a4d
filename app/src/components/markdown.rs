//! Renders Markdown as elements built one by one from the safe tree of
//! [`crate::markdown`]: never an HTML string, so nothing in a document can run.

use leptos::prelude::*;

use crate::markdown::{Kind, Node, parse};

/// A Markdown document, rendered safely.
#[component]
pub fn Markdown(#[prop(into)] text: String) -> impl IntoView {
    view! { <div class="markdown">{render(parse(&text))}</div> }
}

fn render(nodes: Vec<Node>) -> AnyView {
    nodes.into_iter().map(node_view).collect_view().into_any()
}

fn node_view(node: Node) -> AnyView {
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
        Node::Element(Kind::Table, children) => table(children),
        Node::Element(kind, children) => element(kind, render(children)),
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
        Kind::CodeBlock(lang) => {
            view! { <pre><code data-lang=lang>{inner}</code></pre> }.into_any()
        }
        Kind::List(Some(start)) => view! { <ol start=start.to_string()>{inner}</ol> }.into_any(),
        Kind::List(None) => view! { <ul>{inner}</ul> }.into_any(),
        Kind::Item => view! { <li>{inner}</li> }.into_any(),
        Kind::Emphasis => view! { <em>{inner}</em> }.into_any(),
        Kind::Strong => view! { <strong>{inner}</strong> }.into_any(),
        Kind::Strikethrough => view! { <del>{inner}</del> }.into_any(),
        Kind::Link(href) => {
            view! { <a href=href rel="noopener noreferrer" target="_blank">{inner}</a> }.into_any()
        }
        Kind::TableHead => view! { <thead><tr>{inner}</tr></thead> }.into_any(),
        Kind::TableRow => view! { <tr>{inner}</tr> }.into_any(),
        Kind::TableCell => view! { <td>{inner}</td> }.into_any(),
        Kind::Table | Kind::Plain => inner,
    }
}

/// A table with its body rows in `<tbody>`, as a browser's parser would put them (so the
/// server's page and the hydrated one agree).
fn table(children: Vec<Node>) -> AnyView {
    let (head, rows): (Vec<Node>, Vec<Node>) = children
        .into_iter()
        .partition(|node| matches!(node, Node::Element(Kind::TableHead, _)));
    view! { <table>{render(head)}<tbody>{render(rows)}</tbody></table> }.into_any()
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;

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

    /// The markup of a page: text escapes every `<`, so each one left opens a real tag.
    fn tags(html: &str) -> Vec<String> {
        html.split('<')
            .skip(1)
            .filter_map(|rest| {
                rest.split_once('>')
                    .map(|(tag, _)| tag.to_ascii_lowercase())
            })
            .collect()
    }

    #[test]
    fn hostile_markdown_renders_as_inert_text() {
        for document in CORPUS {
            let html = rendered(document);
            for tag in tags(&html) {
                let name = tag
                    .trim_start_matches('/')
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_owned();
                assert!(
                    !["script", "svg", "style", "iframe", "img", "object", "embed"]
                        .contains(&name.as_str()),
                    "{document:?} made a <{tag}>: {html}"
                );
                for attribute in [" on", "style=", "javascript:", "data:", "vbscript:"] {
                    assert!(
                        !tag.contains(attribute),
                        "{document:?} made <{tag}>: {html}"
                    );
                }
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
