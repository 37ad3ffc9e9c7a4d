//! Terminal output with ANSI colour codes read into styled runs. Only SGR colours and
//! weight are kept (as one of a fixed set of classes); every other escape sequence (cursor
//! moves, titles, hyperlinks) is dropped, so output cannot restyle or retitle the page.

/// The style of a run: a colour index 0–15 (`None` is the default) and weight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    pub fg: Option<u8>,
    pub bold: bool,
    pub dim: bool,
    pub underline: bool,
}

impl Style {
    /// The stylesheet's classes for the run (`style/catalog.css`), space-separated.
    pub fn classes(self) -> String {
        let mut out = Vec::new();
        if let Some(fg) = self.fg {
            out.push(format!("ansi-fg{fg}"));
        }
        if self.bold {
            out.push("ansi-bold".to_owned());
        }
        if self.dim {
            out.push("ansi-dim".to_owned());
        }
        if self.underline {
            out.push("ansi-underline".to_owned());
        }
        out.join(" ")
    }

    fn apply(&mut self, codes: &[u16]) {
        let mut codes = codes.iter().copied().peekable();
        if codes.peek().is_none() {
            *self = Style::default();
        }
        while let Some(code) = codes.next() {
            match code {
                0 => *self = Style::default(),
                1 => self.bold = true,
                2 => self.dim = true,
                4 => self.underline = true,
                22 => {
                    self.bold = false;
                    self.dim = false;
                }
                24 => self.underline = false,
                30..=37 => self.fg = u8::try_from(code - 30).ok(),
                39 => self.fg = None,
                90..=97 => self.fg = u8::try_from(code - 90 + 8).ok(),
                // 256-colour and true-colour forms: the first 16 of 256 map onto the
                // palette, anything else keeps the default colour; their arguments are
                // consumed so they are not read as codes.
                38 => match codes.next() {
                    Some(5) => {
                        let index = codes.next().unwrap_or(0);
                        self.fg = u8::try_from(index).ok().filter(|i| *i < 16);
                    }
                    Some(2) => {
                        codes.next();
                        codes.next();
                        codes.next();
                        self.fg = None;
                    }
                    _ => {}
                },
                48 => match codes.next() {
                    Some(5) => {
                        codes.next();
                    }
                    Some(2) => {
                        codes.next();
                        codes.next();
                        codes.next();
                    }
                    _ => {}
                },
                _ => {}
            }
        }
    }
}

/// `text` as `(style, text)` runs, escape sequences removed.
pub fn runs(text: &str) -> Vec<(Style, String)> {
    let mut out: Vec<(Style, String)> = Vec::new();
    let mut style = Style::default();
    let mut push = |style: Style, piece: &str| {
        if piece.is_empty() {
            return;
        }
        match out.last_mut() {
            Some((last, run)) if *last == style => run.push_str(piece),
            _ => out.push((style, piece.to_owned())),
        }
    };
    let mut rest = text;
    while let Some(at) = rest.find('\u{1b}') {
        push(style, &rest[..at]);
        let after = &rest[at + 1..];
        rest = match after.as_bytes().first() {
            Some(b'[') => {
                // CSI: parameters and intermediates, then one final byte 0x40–0x7e.
                let body = &after[1..];
                let end = body
                    .bytes()
                    .position(|b| (0x40..=0x7e).contains(&b))
                    .unwrap_or(body.len());
                if body.as_bytes().get(end) == Some(&b'm') {
                    let codes: Vec<u16> = body[..end]
                        .split([';', ':'])
                        .map(|code| code.parse().unwrap_or(0))
                        .collect();
                    style.apply(&codes);
                }
                body.get(end + 1..).unwrap_or("")
            }
            Some(b']') => {
                // OSC (titles, hyperlinks): up to BEL or ESC \.
                let body = &after[1..];
                match (body.find('\u{7}'), body.find("\u{1b}\\")) {
                    (Some(bel), Some(st)) if st < bel => &body[st + 2..],
                    (Some(bel), _) => &body[bel + 1..],
                    (None, Some(st)) => &body[st + 2..],
                    (None, None) => "",
                }
            }
            Some(_) => after.get(1..).unwrap_or(""),
            None => "",
        };
    }
    push(style, rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_and_weight_become_styles_and_reset_ends_them() {
        let out = runs("plain \u{1b}[1;31merror\u{1b}[0m done");
        assert_eq!(out.len(), 3);
        assert_eq!(out[1].0.fg, Some(1));
        assert!(out[1].0.bold);
        assert_eq!(out[1].1, "error");
        assert_eq!(out[2].0, Style::default());
        assert_eq!(out[1].0.classes(), "ansi-fg1 ansi-bold");
    }

    #[test]
    fn bright_and_256_colours_map_onto_the_palette() {
        assert_eq!(runs("\u{1b}[92mok")[0].0.fg, Some(10));
        assert_eq!(runs("\u{1b}[38;5;4mblue")[0].0.fg, Some(4));
        assert_eq!(runs("\u{1b}[38;5;200mpink")[0].0.fg, None);
        assert_eq!(runs("\u{1b}[38;2;1;2;3mrgb")[0].1, "rgb");
    }

    #[test]
    fn cursor_moves_titles_and_links_are_dropped() {
        let out = runs("a\u{1b}[2Jb\u{1b}]0;evil title\u{7}c\u{1b}]8;;https://x\u{1b}\\d\u{1b}");
        let text: String = out.into_iter().map(|(_, t)| t).collect();
        assert_eq!(text, "abcd");
    }
}
