//! Test support: whether rendered markup is inert — what the hostile-content tests of
//! every renderer check.

/// Every opening or closing tag of a page: text escapes every `<`.
pub fn tags(html: &str) -> Vec<String> {
    html.split('<')
        .skip(1)
        .filter_map(|rest| {
            rest.split_once('>')
                .map(|(tag, _)| tag.to_ascii_lowercase())
        })
        .collect()
}

/// A tag's attributes as `(name, value)`; values are always double-quoted and
/// escaped by the renderer, so a quote ends one.
pub fn attributes(tag: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = tag
        .split_once(char::is_whitespace)
        .map_or("", |(_, rest)| rest);
    while !rest.trim().is_empty() {
        rest = rest.trim_start();
        let name_end = rest.find(['=', ' ']).unwrap_or(rest.len());
        let name = rest[..name_end].trim_end_matches('/').to_owned();
        rest = &rest[name_end..];
        let value = if let Some(quoted) = rest.strip_prefix("=\"") {
            let end = quoted.find('"').unwrap_or(quoted.len());
            let value = quoted[..end].to_owned();
            rest = quoted.get(end + 1..).unwrap_or("");
            value
        } else {
            String::new()
        };
        if !name.is_empty() {
            out.push((name, value));
        }
    }
    out
}

/// Fails unless `html` holds nothing that could run, call out or restyle the page: no
/// script, style, frame, object or remote media element, no handler attribute, no link or
/// source but web addresses and fragments, no `url(` in a style.
pub fn assert_inert(label: &str, html: &str) {
    for tag in tags(html) {
        let name = tag
            .trim_start_matches('/')
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_owned();
        assert!(
            ![
                "script",
                "style",
                "iframe",
                "object",
                "embed",
                "foreignobject",
                "video",
                "audio"
            ]
            .contains(&name.as_str()),
            "{label} made <{tag}>"
        );
        // An image before the operator's consent only from inline data, which loads
        // nothing (and runs no script inside an image).
        if name == "img" {
            assert!(tag.contains(" src=\"data:image/"), "{label} made <{tag}>");
            continue;
        }
        for (attribute, value) in attributes(&tag) {
            assert!(!attribute.starts_with("on"), "{label} made <{tag}>");
            assert!(
                attribute != "style" || !value.contains("url("),
                "{label} made <{tag}>"
            );
            if ["href", "src", "poster", "action", "formaction"].contains(&attribute.as_str()) {
                assert!(
                    value.starts_with("https://")
                        || value.starts_with("http://")
                        || value.starts_with('#'),
                    "{label} made <{tag}>"
                );
            }
        }
    }
}
