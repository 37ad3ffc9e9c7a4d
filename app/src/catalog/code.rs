//! `code_block` (code to read and copy) and `code_diff` (a change, as a patch or as the
//! file before and after).

use serde::Serialize;
use serde_json::Value;

use super::actions::{self, ResponseActions};
use super::{Base, Fields, Invalid};

choice! {
    /// Whether a diff shows line numbers.
    LineNumbers { Visible = "visible", Hidden = "hidden" }
}

choice! {
    /// One column of changes, or old and new side by side.
    DiffStyle { Unified = "unified", Split = "split" }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CodeBlock {
    #[serde(flatten)]
    pub base: Base,
    pub code: String,
    pub language: String,
    pub filename: Option<String>,
    pub show_line_numbers: bool,
    /// 1-based lines to emphasise.
    pub highlight_lines: Vec<i64>,
    pub max_collapsed_lines: Option<i64>,
    pub response_actions: Option<ResponseActions>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CodeDiff {
    #[serde(flatten)]
    pub base: Base,
    #[serde(flatten)]
    pub change: Change,
    pub language: String,
    pub filename: Option<String>,
    pub line_numbers: LineNumbers,
    pub diff_style: DiffStyle,
    pub max_collapsed_lines: Option<i64>,
    pub response_actions: Option<ResponseActions>,
}

/// What a diff shows: a unified patch, or both sides of the file.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Change {
    Patch {
        patch: String,
    },
    /// A side left out is empty: the file was created or deleted.
    Files {
        #[serde(rename = "oldCode")]
        old_code: String,
        #[serde(rename = "newCode")]
        new_code: String,
    },
}

const MAX_HIGHLIGHTS: usize = 10_000;

pub fn parse_block(value: &Value) -> Result<CodeBlock, Invalid> {
    let fields = Fields::of(value, "")?;
    let base = Base::surface(&fields)?;
    let code = fields.string("code")?;
    let highlight_lines = match fields.get("highlightLines") {
        None => Vec::new(),
        Some(_) => {
            let lines = fields
                .opt_numbers("highlightLines", MAX_HIGHLIGHTS)?
                .unwrap_or_default();
            let at = fields.path_of("highlightLines");
            lines
                .iter()
                .enumerate()
                .map(|(i, n)| match *n {
                    n if n >= 1.0 && n.fract() == 0.0 && n <= 1e15 => Ok(n as i64),
                    n => Err(Invalid::new(
                        format!("{at}[{i}]"),
                        format!("must be a line number, 1 or more (got {n})"),
                    )),
                })
                .collect::<Result<_, _>>()?
        }
    };
    Ok(CodeBlock {
        base,
        code,
        language: language(&fields)?,
        filename: fields.opt_text("filename")?,
        show_line_numbers: fields.bool_or("showLineNumbers", true)?,
        highlight_lines,
        max_collapsed_lines: fields.opt_int("maxCollapsedLines", 1)?,
        response_actions: actions::read(&fields, "responseActions")?,
    })
}

pub fn parse_diff(value: &Value) -> Result<CodeDiff, Invalid> {
    let fields = Fields::of(value, "")?;
    let base = Base::surface(&fields)?;
    let patch = fields.opt_text("patch")?;
    let old_code = fields.opt_text("oldCode")?;
    let new_code = fields.opt_text("newCode")?;
    let change = match (patch, old_code, new_code) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            let side = if fields.get("oldCode").is_some() {
                "oldCode"
            } else {
                "newCode"
            };
            return Err(fields.invalid(
                side,
                "not allowed with patch: give either patch or oldCode/newCode",
            ));
        }
        (Some(patch), None, None) if patch.trim().is_empty() => {
            return Err(fields.invalid("patch", "must be a non-empty patch"));
        }
        (Some(patch), None, None) => Change::Patch { patch },
        (None, None, None) => {
            return Err(Invalid::new("", "needs either patch or oldCode/newCode"));
        }
        (None, old, new) => Change::Files {
            old_code: old.unwrap_or_default(),
            new_code: new.unwrap_or_default(),
        },
    };
    Ok(CodeDiff {
        base,
        change,
        language: language(&fields)?,
        filename: fields.opt_text("filename")?,
        line_numbers: fields.one_of("lineNumbers", Some(LineNumbers::Visible))?,
        diff_style: fields.one_of("diffStyle", Some(DiffStyle::Unified))?,
        max_collapsed_lines: fields.opt_int("maxCollapsedLines", 1)?,
        response_actions: actions::read(&fields, "responseActions")?,
    })
}

/// The highlighter's language name; "text" when absent. It becomes a class name, so it is
/// limited to the characters language names use.
fn language(fields: &Fields<'_>) -> Result<String, Invalid> {
    let Some(language) = fields.opt_nonblank("language")? else {
        return Ok("text".to_owned());
    };
    let named = |c: char| c.is_ascii_alphanumeric() || "+-_.#".contains(c);
    if language.len() > 32 || !language.chars().all(named) {
        return Err(fields.invalid("language", "must be a language name such as rust or c++"));
    }
    Ok(language)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::refusal;
    use serde_json::json;

    #[test]
    fn a_code_block_defaults_to_text_with_line_numbers() {
        let block = parse_block(
            &json!({"id": "code-block-main", "code": "fn main() {}", "highlightLines": [1]}),
        )
        .expect("valid");
        assert_eq!(
            (block.language.as_str(), block.show_line_numbers),
            ("text", true)
        );
        assert_eq!(block.highlight_lines, vec![1]);
    }

    #[test]
    fn a_code_block_without_code_is_refused() {
        assert_eq!(
            refusal(parse_block(&json!({"id": "c"}))),
            "code: required, a string"
        );
    }

    #[test]
    fn a_highlighted_line_zero_is_refused() {
        let refused = refusal(parse_block(
            &json!({"id": "c", "code": "x", "highlightLines": [2, 0]}),
        ));
        assert_eq!(
            refused,
            "highlightLines[1]: must be a line number, 1 or more (got 0)"
        );
    }

    #[test]
    fn a_language_that_could_break_its_class_name_is_refused() {
        let refused = refusal(parse_block(
            &json!({"id": "c", "code": "x", "language": "rust\" onclick=\""}),
        ));
        assert!(
            refused.starts_with("language: must be a language name"),
            "{refused}"
        );
    }

    #[test]
    fn a_patch_diff_is_unified_with_visible_line_numbers() {
        let diff = parse_diff(&json!({"id": "code-diff-fix", "patch": "@@ -1 +1 @@\n-a\n+b\n"}))
            .expect("valid");
        assert_eq!(
            (diff.diff_style, diff.line_numbers),
            (DiffStyle::Unified, LineNumbers::Visible)
        );
        assert!(matches!(diff.change, Change::Patch { .. }));
    }

    #[test]
    fn a_new_file_diff_has_an_empty_old_side() {
        let diff =
            parse_diff(&json!({"id": "d", "newCode": "a\n", "diffStyle": "split"})).expect("valid");
        assert_eq!(
            diff.change,
            Change::Files {
                old_code: String::new(),
                new_code: "a\n".into()
            }
        );
    }

    #[test]
    fn a_diff_with_both_a_patch_and_files_is_refused() {
        let refused = refusal(parse_diff(
            &json!({"id": "d", "patch": "@@", "oldCode": "a", "newCode": "b"}),
        ));
        assert_eq!(
            refused,
            "oldCode: not allowed with patch: give either patch or oldCode/newCode"
        );
    }

    #[test]
    fn a_diff_with_neither_a_patch_nor_files_is_refused() {
        assert_eq!(
            refusal(parse_diff(&json!({"id": "d"}))),
            "needs either patch or oldCode/newCode"
        );
    }

    #[test]
    fn a_diff_style_outside_the_two_is_refused() {
        let refused = refusal(parse_diff(
            &json!({"id": "d", "patch": "@@", "diffStyle": "side-by-side"}),
        ));
        assert_eq!(
            refused,
            "diffStyle: must be one of unified, split (got \"side-by-side\")"
        );
    }
}
