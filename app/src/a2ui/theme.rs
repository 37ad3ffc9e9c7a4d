//! A surface's `createSurface.theme`, as far as the console honours it: a primary colour
//! (a hex code, used to tint the surface, never to fill text's background), and the name
//! and icon the agent gives itself — shown as the agent's own claim, since an agent may
//! name itself anything.

use serde_json::Value;

use crate::catalog::values::{http_url, inline_image};

/// Longest display name shown.
const MOST_NAME_CHARS: usize = 80;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Theme {
    /// `#rgb` or `#rrggbb`.
    pub primary_color: Option<String>,
    pub agent_display_name: Option<String>,
    /// A web address (behind the remote-media consent) or inline image data.
    pub icon_url: Option<String>,
}

impl Theme {
    /// What of `theme` can be honoured; anything else is left out.
    pub fn read(theme: Option<&Value>) -> Self {
        let text = |key: &str| {
            theme
                .and_then(|theme| theme.get(key))
                .and_then(Value::as_str)
        };
        Theme {
            primary_color: text("primaryColor")
                .filter(|color| is_hex_color(color))
                .map(str::to_owned),
            agent_display_name: text("agentDisplayName").and_then(display_name),
            icon_url: text("iconUrl").and_then(|url| http_url(url).or_else(|| inline_image(url))),
        }
    }
}

fn is_hex_color(text: &str) -> bool {
    text.strip_prefix('#').is_some_and(|digits| {
        matches!(digits.len(), 3 | 6) && digits.chars().all(|c| c.is_ascii_hexdigit())
    })
}

fn display_name(text: &str) -> Option<String> {
    let name: String = text
        .chars()
        .filter(|c| !c.is_control())
        .take(MOST_NAME_CHARS)
        .collect();
    let name = name.trim();
    (!name.is_empty()).then(|| name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_can_be_honoured_is_kept_and_the_rest_left_out() {
        let theme = Theme::read(Some(&json!({
            "primaryColor": "#00BFFF", "agentDisplayName": "  Weather\u{7}Bot ",
            "iconUrl": "https://example.org/icon.png"
        })));
        assert_eq!(
            theme,
            Theme {
                primary_color: Some("#00BFFF".into()),
                agent_display_name: Some("WeatherBot".into()),
                icon_url: Some("https://example.org/icon.png".into()),
            }
        );
        let hostile = Theme::read(Some(&json!({
            "primaryColor": "red; background: url(https://evil.example/x)",
            "agentDisplayName": "x".repeat(500),
            "iconUrl": "javascript:alert(1)"
        })));
        assert_eq!(hostile.primary_color, None);
        assert_eq!(hostile.agent_display_name.unwrap().len(), MOST_NAME_CHARS);
        assert_eq!(hostile.icon_url, None);
        assert_eq!(Theme::read(None), Theme::default());
        assert!(is_hex_color("#abc") && !is_hex_color("#abcd") && !is_hex_color("abc"));
    }
}
