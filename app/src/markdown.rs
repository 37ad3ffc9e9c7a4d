//! Markdown (CommonMark with GitHub tables, strikethrough and task lists) parsed into a
//! tree of a fixed set of safe nodes, for notes and agent text. Safe by construction:
//! raw HTML becomes literal text, a link keeps its target only when it is http(s) or
//! mailto, and an image becomes a link to it — there is no node that could carry script,
//! a style or an event handler, and the renderer builds elements, never HTML strings.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag};

/// One node of a rendered document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    Element(Kind, Vec<Node>),
    Text(String),
    /// Inline code.
    Code(String),
    SoftBreak,
    HardBreak,
    Rule,
    /// A task list item's box: checked or not (shown, never editable).
    Task(bool),
}

/// What an element is. Links carry only a target that passed [`safe_href`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Paragraph,
    Heading(u8),
    BlockQuote,
    /// A fenced or indented code block, with its language when given.
    CodeBlock(Option<String>),
    /// `Some(start)` for a numbered list.
    List(Option<u64>),
    Item,
    Emphasis,
    Strong,
    Strikethrough,
    Link(String),
    Table,
    TableHead,
    TableRow,
    TableCell,
    /// Anything else the parser knows (footnotes, definition lists…): its children only.
    Plain,
}

/// The link targets a document may carry: web pages and mail addresses.
pub fn safe_href(target: &str) -> Option<String> {
    let target = target.trim();
    let scheme_ok = ["http://", "https://", "mailto:"].iter().any(|scheme| {
        target
            .get(..scheme.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(scheme))
    });
    (scheme_ok && !target.chars().any(char::is_control)).then(|| target.to_owned())
}

fn kind_of(tag: Tag<'_>) -> Kind {
    match tag {
        Tag::Paragraph => Kind::Paragraph,
        Tag::Heading { level, .. } => Kind::Heading(level as u8),
        Tag::BlockQuote(_) => Kind::BlockQuote,
        Tag::CodeBlock(CodeBlockKind::Fenced(info)) => Kind::CodeBlock(
            info.split_whitespace()
                .next()
                .filter(|lang| {
                    lang.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "+-_.#".contains(c))
                })
                .map(str::to_owned),
        ),
        Tag::CodeBlock(CodeBlockKind::Indented) => Kind::CodeBlock(None),
        Tag::List(start) => Kind::List(start),
        Tag::Item => Kind::Item,
        Tag::Emphasis => Kind::Emphasis,
        Tag::Strong => Kind::Strong,
        Tag::Strikethrough => Kind::Strikethrough,
        Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
            safe_href(&dest_url).map_or(Kind::Plain, Kind::Link)
        }
        Tag::Table(_) => Kind::Table,
        Tag::TableHead => Kind::TableHead,
        Tag::TableRow => Kind::TableRow,
        Tag::TableCell => Kind::TableCell,
        _ => Kind::Plain,
    }
}

/// Parses `text` into its safe tree.
pub fn parse(text: &str) -> Vec<Node> {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    // The open elements, innermost last; the document's top level at the bottom.
    let mut open: Vec<(Kind, Vec<Node>)> = vec![(Kind::Plain, Vec::new())];
    for event in Parser::new_ext(text, options) {
        let node = match event {
            Event::Start(tag) => {
                open.push((kind_of(tag), Vec::new()));
                continue;
            }
            // An image's description (its alt text) becomes the words of its link.
            Event::End(_) => {
                if open.len() < 2 {
                    continue;
                }
                let (kind, children) = open.pop().unwrap_or((Kind::Plain, Vec::new()));
                Node::Element(kind, children)
            }
            Event::Text(text) | Event::Html(text) | Event::InlineHtml(text) => {
                Node::Text(text.into_string())
            }
            Event::Code(code) => Node::Code(code.into_string()),
            Event::SoftBreak => Node::SoftBreak,
            Event::HardBreak => Node::HardBreak,
            Event::Rule => Node::Rule,
            Event::TaskListMarker(done) => Node::Task(done),
            Event::FootnoteReference(label) => Node::Text(format!("[{label}]")),
            Event::InlineMath(math) | Event::DisplayMath(math) => Node::Code(math.into_string()),
        };
        if let Some((_, children)) = open.last_mut() {
            children.push(node);
        }
    }
    while open.len() > 1 {
        let (kind, children) = open.pop().unwrap_or((Kind::Plain, Vec::new()));
        if let Some((_, parent)) = open.last_mut() {
            parent.push(Node::Element(kind, children));
        }
    }
    open.pop().map(|(_, nodes)| nodes).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links(nodes: &[Node], found: &mut Vec<String>) {
        for node in nodes {
            if let Node::Element(kind, children) = node {
                if let Kind::Link(href) = kind {
                    found.push(href.clone());
                }
                links(children, found);
            }
        }
    }

    fn texts(nodes: &[Node], found: &mut String) {
        for node in nodes {
            match node {
                Node::Text(text) | Node::Code(text) => found.push_str(text),
                Node::Element(_, children) => texts(children, found),
                _ => {}
            }
        }
    }

    #[test]
    fn only_web_and_mail_links_keep_their_target() {
        let doc = parse(
            "[a](https://example.com/x) [b](javascript:alert(1)) [c](JaVaScRiPt:alert(1)) \
             [d](data:text/html,<script>x</script>) [e](vbscript:x) [f](mailto:ops@example.com) \
             [g](/relative) ![img](https://example.com/i.png) ![bad](javascript:x) <https://auto.example>",
        );
        let mut found = Vec::new();
        links(&doc, &mut found);
        assert_eq!(
            found,
            [
                "https://example.com/x",
                "mailto:ops@example.com",
                "https://example.com/i.png",
                "https://auto.example"
            ]
        );
    }

    #[test]
    fn raw_html_is_literal_text() {
        let doc =
            parse("<script>alert(1)</script>\n\nhi <img src=x onerror=alert(1)> <svg onload=x>");
        let mut text = String::new();
        texts(&doc, &mut text);
        assert!(text.contains("<script>alert(1)</script>"), "{text}");
        assert!(text.contains("<img src=x onerror=alert(1)>"), "{text}");
    }

    #[test]
    fn the_usual_markdown_has_its_structure() {
        let doc = parse(
            "# Title\n\n- [x] done\n- [ ] todo\n\n```rust\nfn main() {}\n```\n\n|a|b|\n|-|-|\n|1|2|\n",
        );
        assert!(matches!(&doc[0], Node::Element(Kind::Heading(1), _)));
        assert!(matches!(&doc[1], Node::Element(Kind::List(None), items) if items.len() == 2));
        assert!(matches!(&doc[2], Node::Element(Kind::CodeBlock(Some(lang)), _) if lang == "rust"));
        assert!(matches!(&doc[3], Node::Element(Kind::Table, _)));
    }
}
