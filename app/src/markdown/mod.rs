//! Markdown (CommonMark with GitHub tables, strikethrough, task lists and footnotes)
//! parsed into a tree of a fixed set of safe nodes, for notes and agent text. Safe by
//! construction: raw HTML becomes literal text, a link keeps its target only when it is
//! http(s) or mailto, an image only when it is http(s) — there is no node that could carry
//! script, a style or an event handler, and the renderer builds elements, never HTML
//! strings. Nesting deeper than [`MAX_DEPTH`] is flattened, so a hostile document cannot
//! exhaust the renderer's stack.

pub mod blocks;

use pulldown_cmark::{Alignment, CodeBlockKind, Event, Options, Parser, Tag};

/// Deepest element nesting kept; deeper elements give their content to the one above.
pub const MAX_DEPTH: usize = 24;

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
    /// A reference to footnote `label`.
    FootnoteRef(String),
}

/// A table column's alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    None,
    Left,
    Center,
    Right,
}

/// What an element is. Links and images carry only a target that passed [`safe_href`]
/// (images: [`safe_media_src`]).
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
    /// An image at a web address; its children are its description.
    Image(String),
    Table(Vec<Align>),
    TableHead,
    TableRow,
    TableCell,
    /// Footnote `label`'s text.
    FootnoteDefinition(String),
    /// Anything else the parser knows (definition lists, metadata…): its children only.
    Plain,
}

/// The link targets a document may carry: web pages and mail addresses.
pub fn safe_href(target: &str) -> Option<String> {
    scheme_in(target, &["http://", "https://", "mailto:"])
}

/// The addresses an image or other media may load from: web addresses only.
pub fn safe_media_src(target: &str) -> Option<String> {
    scheme_in(target, &["http://", "https://"])
}

fn scheme_in(target: &str, schemes: &[&str]) -> Option<String> {
    let target = target.trim();
    let scheme_ok = schemes.iter().any(|scheme| {
        target
            .get(..scheme.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(scheme))
    });
    (scheme_ok && !target.chars().any(char::is_control)).then(|| target.to_owned())
}

/// The host of a web address (`https://user@Example.org:8443/x` → `example.org`), which
/// the console names when it asks before loading remote media. Read as browsers read it
/// (the WHATWG URL standard, by the `url` crate): `https://evil.example\@cdn.example/x`
/// loads from `evil.example`, and that is the host named. `None` for anything but an
/// `http` or `https` address with a host.
pub fn host_of(address: &str) -> Option<String> {
    let parsed = url::Url::parse(address.trim()).ok()?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return None;
    }
    match parsed.host()? {
        url::Host::Domain(name) => Some(name.to_owned()),
        url::Host::Ipv4(address) => Some(address.to_string()),
        url::Host::Ipv6(address) => Some(address.to_string()),
    }
}

/// `text` as a host an operator may let media load from (`Example.org` → `example.org`):
/// a name or address of at most 253 characters, letters, digits, dots, hyphens and the
/// colons of an IPv6 address; `None` for anything else.
pub fn media_host(text: &str) -> Option<String> {
    let host = text.trim().to_ascii_lowercase();
    let fits = !host.is_empty()
        && host.len() <= 253
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':'))
        && !host.starts_with(['.', '-']);
    fits.then_some(host)
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
                    lang.len() <= 32
                        && lang
                            .chars()
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
        Tag::Link { dest_url, .. } => safe_href(&dest_url).map_or(Kind::Plain, Kind::Link),
        Tag::Image { dest_url, .. } => safe_media_src(&dest_url).map_or(Kind::Plain, Kind::Image),
        Tag::Table(alignments) => Kind::Table(
            alignments
                .into_iter()
                .map(|alignment| match alignment {
                    Alignment::None => Align::None,
                    Alignment::Left => Align::Left,
                    Alignment::Center => Align::Center,
                    Alignment::Right => Align::Right,
                })
                .collect(),
        ),
        Tag::TableHead => Kind::TableHead,
        Tag::TableRow => Kind::TableRow,
        Tag::TableCell => Kind::TableCell,
        Tag::FootnoteDefinition(label) => Kind::FootnoteDefinition(label.into_string()),
        _ => Kind::Plain,
    }
}

/// Parses `text` into its safe tree.
pub fn parse(text: &str) -> Vec<Node> {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    // The open elements, innermost last; the document's top level at the bottom.
    let mut open: Vec<(Kind, Vec<Node>)> = vec![(Kind::Plain, Vec::new())];
    // Elements opened beyond MAX_DEPTH: not kept, their content goes to the deepest kept.
    let mut flattened = 0usize;
    for event in Parser::new_ext(text, options) {
        let node = match event {
            Event::Start(tag) => {
                if open.len() > MAX_DEPTH {
                    flattened += 1;
                } else {
                    open.push((kind_of(tag), Vec::new()));
                }
                continue;
            }
            Event::End(_) => {
                if flattened > 0 {
                    flattened -= 1;
                    continue;
                }
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
            Event::FootnoteReference(label) => Node::FootnoteRef(label.into_string()),
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

/// The footnote labels `text` defines (`[^label]: …` at a line's start).
pub fn footnote_labels(text: &str) -> Vec<String> {
    let mut labels: Vec<String> = text
        .lines()
        .filter_map(|line| {
            let line = line
                .strip_prefix("   ")
                .or_else(|| line.strip_prefix("  "))
                .or_else(|| line.strip_prefix(' '))
                .unwrap_or(line);
            let rest = line.strip_prefix("[^")?;
            let (label, after) = rest.split_once("]:")?;
            let _ = after;
            (!label.is_empty() && !label.contains([' ', ']'])).then(|| label.to_owned())
        })
        .collect();
    labels.sort();
    labels.dedup();
    labels
}

/// Parses one block of a longer document that defines the footnotes `labels` elsewhere:
/// a reference to one of them stays a reference (the definition renders in its own block).
pub fn parse_block(text: &str, labels: &[String]) -> Vec<Node> {
    let own = footnote_labels(text);
    let borrowed: Vec<&String> = labels
        .iter()
        .filter(|label| !own.contains(label) && text.contains(&format!("[^{label}]")))
        .collect();
    if borrowed.is_empty() {
        return parse(text);
    }
    let mut with_definitions = text.to_owned();
    for label in &borrowed {
        with_definitions.push_str(&format!("\n\n[^{label}]: .\n"));
    }
    parse(&with_definitions)
        .into_iter()
        .filter(|node| {
            !matches!(node, Node::Element(Kind::FootnoteDefinition(label), _) if borrowed.contains(&label))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links(nodes: &[Node], found: &mut Vec<String>) {
        for node in nodes {
            if let Node::Element(kind, children) = node {
                if let Kind::Link(href) | Kind::Image(href) = kind {
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
        assert!(matches!(&doc[3], Node::Element(Kind::Table(_), _)));
    }

    #[test]
    fn footnotes_and_column_alignment_are_kept() {
        let doc = parse("Said[^src].\n\n[^src]: The source.\n\n|n|name|\n|-:|:-|\n|1|a|\n");
        let Node::Element(Kind::Paragraph, words) = &doc[0] else {
            panic!("{doc:?}")
        };
        assert!(
            words.contains(&Node::FootnoteRef("src".into())),
            "{words:?}"
        );
        assert!(
            doc.iter().any(|node| matches!(node, Node::Element(Kind::FootnoteDefinition(label), _) if label == "src")),
            "{doc:?}"
        );
        assert!(doc.iter().any(
            |node| matches!(node, Node::Element(Kind::Table(aligns), _) if aligns == &[Align::Right, Align::Left])
        ));
    }

    fn depth(nodes: &[Node]) -> usize {
        nodes
            .iter()
            .map(|node| match node {
                Node::Element(_, children) => 1 + depth(children),
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn deep_nesting_is_flattened_and_keeps_its_words() {
        let doc = parse(&format!("{}deep words", "> ".repeat(5000)));
        assert!(depth(&doc) <= MAX_DEPTH, "{}", depth(&doc));
        let mut text = String::new();
        texts(&doc, &mut text);
        assert_eq!(text, "deep words");
    }

    #[test]
    fn a_block_keeps_its_reference_to_a_footnote_defined_in_another() {
        let labels = footnote_labels("That is all.[^1]\n\n[^1]: Measured.\n");
        assert_eq!(labels, ["1"]);
        let block = parse_block("That is all.[^1]\n\n", &labels);
        assert_eq!(block.len(), 1, "{block:?}");
        let Node::Element(Kind::Paragraph, words) = &block[0] else {
            panic!("{block:?}")
        };
        assert!(words.contains(&Node::FootnoteRef("1".into())), "{words:?}");
    }

    #[test]
    fn a_host_is_read_from_any_web_address() {
        assert_eq!(
            host_of("https://Example.org/a.png").as_deref(),
            Some("example.org")
        );
        assert_eq!(
            host_of("http://u:p@cdn.example.org:8443/x?y#z").as_deref(),
            Some("cdn.example.org")
        );
        assert_eq!(host_of("https://[::1]:80/").as_deref(), Some("::1"));
        assert_eq!(host_of("ftp://example.org/x"), None);
        assert_eq!(host_of("not a url"), None);
    }

    #[test]
    fn a_host_is_the_one_a_browser_would_load_from() {
        // A backslash ends the authority in a web address, as `/` does.
        assert_eq!(
            host_of(r"https://evil.example\@cdn.example/x.png").as_deref(),
            Some("evil.example")
        );
        assert_eq!(
            host_of("https://cdn.example%2eevil.example/x").as_deref(),
            Some("cdn.example.evil.example")
        );
        assert_eq!(host_of("https://0x7f.1/x").as_deref(), Some("127.0.0.1"));
        assert_eq!(
            host_of("https://EXAMPLE.org./x").as_deref(),
            Some("example.org.")
        );
        assert_eq!(host_of("https:///x").as_deref(), Some("x"));
    }

    #[test]
    fn a_media_host_is_a_plain_lowercase_name_or_address() {
        assert_eq!(media_host(" Example.ORG ").as_deref(), Some("example.org"));
        assert_eq!(media_host("::1").as_deref(), Some("::1"));
        for refused in [
            "",
            "evil.example/x",
            "a b",
            "-x.org",
            ".org",
            "x\ny",
            "é.org",
        ] {
            assert_eq!(media_host(refused), None, "{refused:?}");
        }
        assert_eq!(media_host(&"a".repeat(254)), None);
    }
}
