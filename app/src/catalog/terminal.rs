//! `terminal`: a command that ran, its output and its exit code.

use serde::Serialize;
use serde_json::Value;

use super::actions::{self, ResponseActions};
use super::{Base, Fields, Invalid};

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Terminal {
    #[serde(flatten)]
    pub base: Base,
    pub command: String,
    pub stdout: Option<String>,
    pub stderr: Option<String>,
    pub exit_code: i64,
    pub duration_ms: Option<f64>,
    pub cwd: Option<String>,
    /// The output was cut short before it reached the console.
    pub truncated: bool,
    pub max_collapsed_lines: Option<i64>,
    pub response_actions: Option<ResponseActions>,
}

pub fn parse(value: &Value) -> Result<Terminal, Invalid> {
    let fields = Fields::of(value, "")?;
    Ok(Terminal {
        base: Base::surface(&fields)?,
        command: fields.text("command")?,
        stdout: fields.opt_text("stdout")?,
        stderr: fields.opt_text("stderr")?,
        exit_code: fields.int("exitCode")?,
        duration_ms: fields.opt_non_negative("durationMs")?,
        cwd: fields.opt_text("cwd")?,
        truncated: fields.bool_or("truncated", false)?,
        max_collapsed_lines: fields.opt_int("maxCollapsedLines", 1)?,
        response_actions: actions::read(&fields, "responseActions")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::refusal;
    use serde_json::json;

    #[test]
    fn a_finished_command_is_read_with_its_output() {
        let run = parse(
            &json!({"id": "terminal-test", "command": "cargo test", "stdout": "ok", "exitCode": 101,
            "durationMs": 5321, "cwd": "/work"}),
        )
        .expect("valid");
        assert_eq!((run.exit_code, run.truncated), (101, false));
    }

    #[test]
    fn a_command_without_an_exit_code_is_refused() {
        assert_eq!(
            refusal(parse(&json!({"id": "t", "command": "ls"}))),
            "exitCode: required, a whole number"
        );
    }

    #[test]
    fn an_exit_code_given_as_text_is_refused() {
        assert_eq!(
            refusal(parse(
                &json!({"id": "t", "command": "ls", "exit_code": "0"})
            )),
            "exit_code: must be a whole number (got \"0\")"
        );
    }

    #[test]
    fn a_terminal_without_a_command_is_refused() {
        assert_eq!(
            refusal(parse(&json!({"id": "t", "exitCode": 0}))),
            "command: required, a non-empty string"
        );
    }
}
