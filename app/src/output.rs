//! How an artifact reads outside its full view: its kind in words, its title (never an
//! id), the cut-down payload a timeline card previews, and the text Copy and Download give.

use serde_json::Value;

use crate::projection::{ArtifactView, EditView};

/// Rows of a table a timeline card shows; the canvas shows them all.
pub const PREVIEW_ROWS: usize = 5;
/// Lines of code or output a timeline card shows.
pub const PREVIEW_LINES: usize = 10;

/// The artifact kind as a person says it ("Table", not "data_table").
pub fn kind_word(kind: &str) -> String {
    let word = match kind.replace('-', "_").as_str() {
        "data_table" | "table" => "Table",
        "chart" => "Chart",
        "code_block" | "code" => "Code",
        "code_diff" => "Change",
        "terminal" => "Terminal output",
        "image" => "Image",
        "image_gallery" => "Images",
        "audio" => "Audio",
        "video" => "Video",
        "link_preview" => "Link",
        "citation" | "citation_list" => "Sources",
        "stats_display" => "Figures",
        "plan" => "Plan",
        "progress_tracker" => "Progress",
        "approval_card" => "Decision",
        "option_list" | "question_flow" | "preferences_panel" | "parameter_slider" => "Form",
        crate::a2ui::ARTIFACT_KIND => "Surface",
        other => return capitalised(&other.replace('_', " ")),
    };
    word.to_owned()
}

fn capitalised(text: &str) -> String {
    let mut chars = text.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => "Output".to_owned(),
    }
}

fn text<'a>(data: &'a Value, key: &str) -> Option<&'a str> {
    data.get(key)?
        .as_str()
        .map(str::trim)
        .filter(|text| !text.is_empty())
}

/// What the artifact is called: the title its producer gave it, else its payload's title or
/// file name, else its kind in words.
pub fn title(artifact: &ArtifactView) -> String {
    artifact
        .title
        .as_deref()
        .map(str::trim)
        .filter(|title| !title.is_empty())
        .or_else(|| text(&artifact.data, "title"))
        .or_else(|| text(&artifact.data, "filename"))
        .map(str::to_owned)
        .unwrap_or_else(|| kind_word(&artifact.kind))
}

/// A timeline card's cut of an artifact: the payload to draw and what was left out.
#[derive(Clone, Debug, PartialEq)]
pub struct Preview {
    pub data: Value,
    /// "First 5 of 40 rows", when the card shows less than the canvas.
    pub left_out: Option<String>,
}

/// The first rows of a table, the first lines of code or output; anything else whole.
pub fn preview(kind: &str, data: &Value) -> Preview {
    let mut data = data.clone();
    let left_out = match kind.replace('-', "_").as_str() {
        "data_table" | "table" => cut_array(&mut data, "data", PREVIEW_ROWS, "rows"),
        "code_block" | "code" => cut_lines(&mut data, "code", PREVIEW_LINES),
        "terminal" => cut_lines(&mut data, "stdout", PREVIEW_LINES),
        "image_gallery" => cut_array(&mut data, "images", 4, "images"),
        "citation_list" => cut_array(&mut data, "citations", 3, "sources"),
        _ => None,
    };
    Preview { data, left_out }
}

fn cut_array(data: &mut Value, key: &str, keep: usize, noun: &str) -> Option<String> {
    let list = data.get_mut(key)?.as_array_mut()?;
    let total = list.len();
    (total > keep).then(|| {
        list.truncate(keep);
        format!("First {keep} of {total} {noun}")
    })
}

fn cut_lines(data: &mut Value, key: &str, keep: usize) -> Option<String> {
    let field = data.get_mut(key)?;
    let whole = field.as_str()?;
    let total = whole.lines().count();
    if total <= keep {
        return None;
    }
    let first = whole.lines().take(keep).collect::<Vec<_>>().join("\n");
    *field = Value::String(first);
    Some(format!("First {keep} of {total} lines"))
}

/// What Copy puts on the clipboard and Download saves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Export {
    pub text: String,
    pub filename: String,
    pub mime: &'static str,
}

/// Code as its source, output as a transcript, a table as CSV, anything else as JSON.
pub fn export(artifact: &ArtifactView, data: &Value) -> Export {
    let name = file_stem(&title(artifact));
    match artifact.kind.replace('-', "_").as_str() {
        "code_block" | "code" => {
            let code = text_field(data, "code");
            let filename = text(data, "filename")
                .and_then(|path| path.rsplit('/').next())
                .map(file_stem)
                .filter(|file| file.contains('.'))
                .unwrap_or_else(|| format!("{name}.{}", extension(text(data, "language"))));
            Export {
                text: code,
                filename,
                mime: "text/plain",
            }
        }
        "terminal" => {
            let mut transcript = format!("$ {}\n", text_field(data, "command"));
            for key in ["stdout", "stderr"] {
                let output = text_field(data, key);
                if !output.is_empty() {
                    transcript.push_str(&output);
                    if !output.ends_with('\n') {
                        transcript.push('\n');
                    }
                }
            }
            Export {
                text: transcript,
                filename: format!("{name}.txt"),
                mime: "text/plain",
            }
        }
        "data_table" | "table" => Export {
            text: csv(data),
            filename: format!("{name}.csv"),
            mime: "text/csv",
        },
        _ => Export {
            text: serde_json::to_string_pretty(data).unwrap_or_default(),
            filename: format!("{name}.json"),
            mime: "application/json",
        },
    }
}

/// A proposed edit as a patch file.
pub fn export_edit(edit: &EditView) -> Export {
    let stem = edit
        .filename
        .as_deref()
        .and_then(|path| path.rsplit('/').next())
        .map(file_stem)
        .unwrap_or_else(|| "edit".to_owned());
    Export {
        text: edit.patch.clone(),
        filename: format!("{stem}.diff"),
        mime: "text/x-diff",
    }
}

/// What an edit is called: its file, else "Proposed edit" (never its id).
pub fn edit_title(edit: &EditView) -> String {
    edit.filename
        .as_deref()
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .unwrap_or("Proposed edit")
        .to_owned()
}

/// Lines a patch adds and removes.
pub fn edit_counts(patch: &str) -> (usize, usize) {
    patch
        .lines()
        .fold((0, 0), |(added, removed), line| match line.as_bytes() {
            [b'+', b'+', b'+', ..] | [b'-', b'-', b'-', ..] => (added, removed),
            [b'+', ..] => (added + 1, removed),
            [b'-', ..] => (added, removed + 1),
            _ => (added, removed),
        })
}

fn text_field(data: &Value, key: &str) -> String {
    data.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// A file name any system accepts: letters, digits, dot, dash and underscore.
fn file_stem(title: &str) -> String {
    let mut stem: String = title
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '-'
            }
        })
        .collect();
    stem = stem.trim_matches(['-', '.']).to_owned();
    stem.truncate(64);
    if stem.is_empty() {
        "output".to_owned()
    } else {
        stem
    }
}

fn extension(language: Option<&str>) -> &'static str {
    match language.unwrap_or_default().to_ascii_lowercase().as_str() {
        "rust" | "rs" => "rs",
        "python" | "py" => "py",
        "javascript" | "js" => "js",
        "typescript" | "ts" => "ts",
        "json" => "json",
        "toml" => "toml",
        "yaml" | "yml" => "yaml",
        "sql" => "sql",
        "shell" | "bash" | "sh" => "sh",
        "html" => "html",
        "css" => "css",
        "go" => "go",
        "markdown" | "md" => "md",
        _ => "txt",
    }
}

/// The table's columns as a header row, then its rows. A cell a spreadsheet would run as a
/// formula (`=`, `+`, `-`, `@` first) is written as text: the agent's data stays data.
fn csv(data: &Value) -> String {
    let columns: Vec<(&str, &str)> = data
        .get("columns")
        .and_then(Value::as_array)
        .map(|columns| {
            columns
                .iter()
                .filter_map(|column| {
                    let key = column.get("key")?.as_str()?;
                    Some((
                        key,
                        column.get("label").and_then(Value::as_str).unwrap_or(key),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut out = String::new();
    let line = |cells: Vec<String>| cells.join(",") + "\r\n";
    out.push_str(&line(
        columns.iter().map(|(_, label)| cell(label)).collect(),
    ));
    for row in data
        .get("data")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        out.push_str(&line(
            columns
                .iter()
                .map(|(key, _)| match row.get(*key) {
                    None | Some(Value::Null) => String::new(),
                    Some(Value::String(text)) => cell(text),
                    Some(other) => cell(&other.to_string()),
                })
                .collect(),
        ));
    }
    out
}

fn cell(text: &str) -> String {
    let guarded =
        if text.starts_with(['=', '+', '-', '@', '\t', '\r']) && text.parse::<f64>().is_err() {
            format!("'{text}")
        } else {
            text.to_owned()
        };
    if guarded.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", guarded.replace('"', "\"\""))
    } else {
        guarded
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn artifact(kind: &str, title: Option<&str>, data: Value) -> ArtifactView {
        ArtifactView {
            artifact_id: format!("{kind}-6-44891f6d"),
            kind: kind.into(),
            title: title.map(str::to_owned),
            data,
            earlier: Vec::new(),
            versions_dropped: 0,
        }
    }

    #[test]
    fn an_untitled_artifact_is_called_by_its_kind_never_by_its_id() {
        let untitled = artifact("code_block", None, json!({"code": "x"}));
        assert_eq!(title(&untitled), "Code");
        let named = artifact(
            "code_block",
            None,
            json!({"code": "x", "filename": "src/a.rs"}),
        );
        assert_eq!(title(&named), "src/a.rs");
        let given = artifact("chart", Some("Load"), json!({"title": "Other"}));
        assert_eq!(title(&given), "Load");
        assert_eq!(kind_word("a2ui_surface"), "Surface");
        assert_eq!(kind_word("weather_widget"), "Weather widget");
    }

    #[test]
    fn a_card_previews_the_first_rows_and_lines_and_says_what_it_left_out() {
        let rows: Vec<Value> = (0..40).map(|n| json!({"n": n})).collect();
        let table = preview("data_table", &json!({"columns": [], "data": rows}));
        assert_eq!(
            table.data["data"].as_array().map(Vec::len),
            Some(PREVIEW_ROWS)
        );
        assert_eq!(table.left_out.as_deref(), Some("First 5 of 40 rows"));
        let code: String = (1..=30).map(|n| format!("line {n}\n")).collect();
        let block = preview("code_block", &json!({"code": code}));
        assert_eq!(
            block.data["code"].as_str().map(|c| c.lines().count()),
            Some(10)
        );
        assert_eq!(block.left_out.as_deref(), Some("First 10 of 30 lines"));
        let small = preview("data_table", &json!({"data": [{"n": 1}]}));
        assert_eq!(small.left_out, None);
        let chart = json!({"type": "bar", "data": [1, 2, 3, 4, 5, 6, 7]});
        assert_eq!(preview("chart", &chart).data, chart);
    }

    #[test]
    fn a_table_exports_as_csv_with_formulas_kept_as_text() {
        let table = artifact(
            "data_table",
            Some("Q3 / costs"),
            json!({"columns": [{"key": "a", "label": "Name"}, {"key": "b", "label": "Cost"}],
                   "data": [{"a": "=HYPERLINK(\"x\")", "b": -3}, {"a": "one, two", "b": null}]}),
        );
        let export = export(&table, &table.data);
        assert_eq!(export.filename, "Q3---costs.csv");
        assert_eq!(export.mime, "text/csv");
        assert_eq!(
            export.text,
            "Name,Cost\r\n\"'=HYPERLINK(\"\"x\"\")\",-3\r\n\"one, two\",\r\n"
        );
    }

    #[test]
    fn code_exports_as_its_source_under_its_file_name_and_output_as_a_transcript() {
        let code = artifact(
            "code",
            Some("Task model"),
            json!({"code": "pub struct Task;\n", "language": "rust", "filename": "src/task.rs"}),
        );
        let export_code = export(&code, &code.data);
        assert_eq!(export_code.filename, "task.rs");
        assert_eq!(export_code.text, "pub struct Task;\n");
        let unnamed = artifact(
            "code_block",
            None,
            json!({"code": "x = 1", "language": "python"}),
        );
        assert_eq!(export(&unnamed, &unnamed.data).filename, "Code.py");
        let run = artifact(
            "terminal",
            Some("Build"),
            json!({"command": "cargo test", "stdout": "ok", "exitCode": 0}),
        );
        assert_eq!(export(&run, &run.data).text, "$ cargo test\nok\n");
        let other = artifact("chart", None, json!({"a": 1}));
        assert_eq!(export(&other, &other.data).filename, "Chart.json");
    }

    #[test]
    fn an_edit_counts_its_lines_without_the_file_headers() {
        let patch = "--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n-old\n+new\n+more\n";
        assert_eq!(edit_counts(patch), (2, 1));
        let edit = EditView {
            edit_id: "e-1".into(),
            tool_call_id: None,
            filename: Some("src/x.rs".into()),
            patch: patch.into(),
        };
        assert_eq!(export_edit(&edit).filename, "x.rs.diff");
        assert_eq!(edit_title(&edit), "src/x.rs");
    }
}
