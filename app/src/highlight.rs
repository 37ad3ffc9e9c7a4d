//! Syntax highlighting as token runs: a fixed set of token classes and, on the server,
//! the highlighter that cuts code into runs of them. The browser receives only
//! `(class, length)` pairs for code it already has, so no highlighter ships in the bundle
//! and no class name comes from the agent.

use serde::{Deserialize, Serialize};

/// Longest code highlighted; longer code is shown plain.
pub const MAX_HIGHLIGHT_BYTES: usize = 64 * 1024;

/// What a run of code is, as far as colour goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum TokenClass {
    Plain = 0,
    Comment,
    Keyword,
    String,
    Number,
    Constant,
    Function,
    Type,
    Tag,
    Attribute,
    Variable,
    Inserted,
    Deleted,
    Heading,
}

impl TokenClass {
    const ALL: [TokenClass; 14] = [
        TokenClass::Plain,
        TokenClass::Comment,
        TokenClass::Keyword,
        TokenClass::String,
        TokenClass::Number,
        TokenClass::Constant,
        TokenClass::Function,
        TokenClass::Type,
        TokenClass::Tag,
        TokenClass::Attribute,
        TokenClass::Variable,
        TokenClass::Inserted,
        TokenClass::Deleted,
        TokenClass::Heading,
    ];

    pub fn from_u8(value: u8) -> TokenClass {
        TokenClass::ALL
            .get(usize::from(value))
            .copied()
            .unwrap_or(TokenClass::Plain)
    }

    /// The stylesheet's class for the run (`style/code.css`).
    pub fn css_class(self) -> &'static str {
        match self {
            TokenClass::Plain => "",
            TokenClass::Comment => "tok-comment",
            TokenClass::Keyword => "tok-keyword",
            TokenClass::String => "tok-string",
            TokenClass::Number => "tok-number",
            TokenClass::Constant => "tok-constant",
            TokenClass::Function => "tok-function",
            TokenClass::Type => "tok-type",
            TokenClass::Tag => "tok-tag",
            TokenClass::Attribute => "tok-attr",
            TokenClass::Variable => "tok-variable",
            TokenClass::Inserted => "tok-inserted",
            TokenClass::Deleted => "tok-deleted",
            TokenClass::Heading => "tok-heading",
        }
    }
}

/// Highlighted code: consecutive runs `(class, byte length)` covering the code exactly.
pub type Runs = Vec<(u8, u32)>;

/// `code` cut into `(class, text)` pieces by `runs`; `None` when the runs do not cover
/// this code exactly (they were made for other text), so the caller shows it plain.
pub fn pieces<'a>(code: &'a str, runs: &[(u8, u32)]) -> Option<Vec<(TokenClass, &'a str)>> {
    let mut at = 0usize;
    let mut out = Vec::with_capacity(runs.len());
    for (class, len) in runs {
        let end = at.checked_add(usize::try_from(*len).ok()?)?;
        let piece = code.get(at..end)?;
        out.push((TokenClass::from_u8(*class), piece));
        at = end;
    }
    (at == code.len()).then_some(out)
}

#[cfg(feature = "ssr")]
pub use server::highlight;

#[cfg(feature = "ssr")]
mod server {
    use std::sync::OnceLock;

    use two_face::re_exports::syntect::parsing::{
        ParseState, Scope, ScopeStack, SyntaxReference, SyntaxSet,
    };

    use two_face::re_exports::syntect::easy::ScopeRangeIterator;

    use super::{MAX_HIGHLIGHT_BYTES, Runs, TokenClass};

    fn syntaxes() -> &'static SyntaxSet {
        static SET: OnceLock<SyntaxSet> = OnceLock::new();
        SET.get_or_init(two_face::syntax::extra_newlines)
    }

    /// Scope prefixes in the order they are tried against a piece's innermost scope first.
    fn classes() -> &'static [(Scope, TokenClass)] {
        static CLASSES: OnceLock<Vec<(Scope, TokenClass)>> = OnceLock::new();
        CLASSES.get_or_init(|| {
            [
                ("comment", TokenClass::Comment),
                ("string", TokenClass::String),
                ("constant.numeric", TokenClass::Number),
                ("constant.character.escape", TokenClass::String),
                ("constant", TokenClass::Constant),
                ("markup.inserted", TokenClass::Inserted),
                ("markup.deleted", TokenClass::Deleted),
                ("markup.heading", TokenClass::Heading),
                ("meta.diff.range", TokenClass::Heading),
                ("entity.name.function", TokenClass::Function),
                ("support.function", TokenClass::Function),
                ("variable.function", TokenClass::Function),
                ("entity.name.tag", TokenClass::Tag),
                ("entity.other.attribute-name", TokenClass::Attribute),
                ("entity.name.type", TokenClass::Type),
                ("entity.name.class", TokenClass::Type),
                ("entity.name.struct", TokenClass::Type),
                ("entity.name.enum", TokenClass::Type),
                ("support.type", TokenClass::Type),
                ("support.class", TokenClass::Type),
                ("storage.type", TokenClass::Keyword),
                ("storage.modifier", TokenClass::Keyword),
                ("keyword", TokenClass::Keyword),
                ("variable.parameter", TokenClass::Variable),
                ("variable.language", TokenClass::Constant),
            ]
            .into_iter()
            .filter_map(|(name, class)| Some((Scope::new(name).ok()?, class)))
            .collect()
        })
    }

    fn class_of(stack: &ScopeStack) -> TokenClass {
        for scope in stack.as_slice().iter().rev() {
            for (prefix, class) in classes() {
                if prefix.is_prefix_of(*scope) {
                    return *class;
                }
            }
        }
        TokenClass::Plain
    }

    fn syntax_for(language: &str) -> Option<&'static SyntaxReference> {
        let set = syntaxes();
        let name = language.trim().to_ascii_lowercase();
        let alias = match name.as_str() {
            "shell" | "sh" | "zsh" | "console" => "bash",
            "ts" | "typescript" => "ts",
            "tsx" => "tsx",
            "js" | "javascript" | "jsx" | "mjs" => "js",
            "py" | "python3" => "py",
            "yml" => "yaml",
            "rs" => "rs",
            "patch" => "diff",
            other => other,
        };
        set.find_syntax_by_token(alias)
            .or_else(|| set.find_syntax_by_extension(alias))
    }

    /// `code` in `language` as token runs; `None` for an unknown language, code over
    /// [`MAX_HIGHLIGHT_BYTES`], or code the grammar cannot read.
    pub fn highlight(language: &str, code: &str) -> Option<Runs> {
        if code.len() > MAX_HIGHLIGHT_BYTES {
            return None;
        }
        let syntax = syntax_for(language)?;
        let mut state = ParseState::new(syntax);
        let mut stack = ScopeStack::new();
        let mut runs: Runs = Vec::new();
        let mut push = |class: TokenClass, len: usize| {
            if len == 0 {
                return;
            }
            let class = class as u8;
            let len = u32::try_from(len).unwrap_or(u32::MAX);
            match runs.last_mut() {
                Some((last, total)) if *last == class => *total = total.saturating_add(len),
                _ => runs.push((class, len)),
            }
        };
        for line in code.split_inclusive('\n') {
            let ops = state.parse_line(line, syntaxes()).ok()?;
            for (range, op) in ScopeRangeIterator::new(&ops, line) {
                stack.apply(op).ok()?;
                push(class_of(&stack), range.len());
            }
        }
        Some(runs)
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::highlight::pieces;

        #[test]
        fn rust_keywords_strings_and_comments_get_their_classes() {
            let code = "fn main() {\n    // hi\n    let s = \"x\";\n}\n";
            let runs = highlight("rust", code).expect("rust is known");
            let pieces = pieces(code, &runs).expect("runs cover the code");
            let class_of = |text: &str| {
                pieces
                    .iter()
                    .find(|(_, piece)| piece.contains(text))
                    .map(|(class, _)| *class)
            };
            assert_eq!(class_of("fn"), Some(TokenClass::Keyword));
            assert_eq!(class_of("// hi"), Some(TokenClass::Comment));
            assert_eq!(class_of("\"x\""), Some(TokenClass::String));
        }

        #[test]
        fn languages_beyond_the_defaults_and_aliases_are_known() {
            for language in [
                "ts",
                "typescript",
                "toml",
                "sh",
                "python",
                "yml",
                "diff",
                "json",
            ] {
                assert!(highlight(language, "x = 1\n").is_some(), "{language}");
            }
            assert_eq!(highlight("no-such-language", "x"), None);
        }

        #[test]
        fn oversized_code_is_left_plain() {
            assert_eq!(
                highlight("rust", &"a".repeat(MAX_HIGHLIGHT_BYTES + 1)),
                None
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_for_other_text_are_refused() {
        assert!(pieces("abc", &[(1, 2), (0, 1)]).is_some());
        assert_eq!(pieces("abc", &[(1, 2)]), None);
        assert_eq!(pieces("abc", &[(1, 4)]), None);
        // A run ending inside a character.
        assert_eq!(pieces("é", &[(1, 1), (0, 1)]), None);
    }
}
