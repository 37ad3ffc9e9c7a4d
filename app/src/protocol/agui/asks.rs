//! AG-UI interrupts and unanswered frontend tool calls, turned into [`Ask`]s.

use serde_json::{Map, Value};

use crate::protocol::ask::{
    Ask, AskKind, AskOrigin, AskState, Component, DiffPreview, Question, ToolPreview,
    approval_actions, looks_dangerous, strings,
};

fn text(object: &Map<String, Value>, key: &str) -> Option<String> {
    object.get(key)?.as_str().map(str::to_owned)
}

/// Scalar metadata worth showing beside the ask; structured keys are rendered elsewhere.
fn display_metadata(metadata: Option<&Map<String, Value>>) -> Vec<(String, String)> {
    const RENDERED: [&str; 13] = [
        "description",
        "tool_name",
        "arguments",
        "prompt",
        "choices",
        "allowPermanent",
        "patch",
        "filename",
        "language",
        "command",
        "questions",
        "patternKeys",
        "envVar",
    ];
    let Some(metadata) = metadata else {
        return Vec::new();
    };
    metadata
        .iter()
        .filter(|(key, _)| !RENDERED.contains(&key.as_str()))
        .map(|(key, value)| {
            // Structured values keep their shape (laid out, behind the card's details).
            let shown = match value {
                Value::String(text) => text.clone(),
                Value::Object(_) | Value::Array(_) => {
                    serde_json::to_string_pretty(value).unwrap_or_default()
                }
                other => other.to_string(),
            };
            (key.clone(), shown)
        })
        .collect()
}

/// Builds the ask for one interrupt. `origin` says how the answer travels back.
pub fn ask_from_interrupt(value: &Value, origin_hint: InterruptSource) -> Result<Ask, String> {
    let Some(object) = value.as_object() else {
        return Err(format!("an interrupt must be an object, got {value}"));
    };
    let tool_call_id = text(object, "toolCallId");
    let id = match (text(object, "id"), &origin_hint) {
        (Some(id), _) => id,
        (None, InterruptSource::Custom { fallback_id }) => {
            tool_call_id.clone().unwrap_or_else(|| fallback_id.clone())
        }
        (None, InterruptSource::Outcome) => return Err("an interrupt has no `id`".into()),
    };
    let reason = text(object, "reason").unwrap_or_default();
    let reason = reason
        .strip_prefix("agent-os:")
        .unwrap_or(&reason)
        .to_owned();
    let message = text(object, "message");
    let schema = object
        .get("responseSchema")
        .filter(|s| !s.is_null())
        .cloned();
    let metadata = object.get("metadata").and_then(Value::as_object);
    let meta_text = |key: &str| metadata.and_then(|m| text(m, key));
    let approval_schema = schema
        .as_ref()
        .and_then(|s| s.get("properties")?.get("approved"))
        .is_some();
    let origin = match origin_hint {
        InterruptSource::Outcome => AskOrigin::AgUiInterrupt {
            interrupt_id: id.clone(),
            approval_schema,
        },
        InterruptSource::Custom { .. } => AskOrigin::AgUiCustomInterrupt,
    };
    let choices = strings(metadata.and_then(|m| m.get("choices")));
    // The call in question: an `action`, or (KsADK) `metadata.tool_name` and `arguments`.
    let tool = object
        .get("action")
        .and_then(|action| {
            Some(ToolPreview {
                name: action.get("name")?.as_str()?.to_owned(),
                arguments: action.get("args").cloned().unwrap_or(Value::Null),
            })
        })
        .or_else(|| {
            Some(ToolPreview {
                name: meta_text("tool_name")?,
                arguments: metadata?.get("arguments").cloned().unwrap_or(Value::Null),
            })
        });
    let command = meta_text("command");
    // What danger is judged on: the command, else the call as one line.
    let judged = command.clone().or_else(|| {
        tool.as_ref()
            .map(|tool| format!("{}({})", tool.name, tool.arguments))
    });
    let mut ask = Ask {
        id,
        kind: AskKind::Interrupt,
        component: Component::QuestionFlow,
        tool_call_id,
        title: message.clone().unwrap_or_else(|| {
            if reason.is_empty() {
                "The agent is waiting for input".to_owned()
            } else {
                format!("The agent paused: {reason}")
            }
        }),
        command: None,
        tool: None,
        description: None,
        questions: Vec::new(),
        env_var: None,
        metadata: display_metadata(metadata),
        diff: None,
        pattern_keys: strings(metadata.and_then(|m| m.get("patternKeys"))).unwrap_or_default(),
        dangerous: false,
        actions: Vec::new(),
        response_schema: schema,
        expires_at_ms: object.get("expiresAt").and_then(Value::as_i64),
        origin,
        state: AskState::Pending,
    };
    let patch = meta_text("patch");
    match reason.as_str() {
        "edit" | "edit_preview" | "code_edit" => {}
        _ if patch.is_some() => {}
        "tool_call" | "tool_approval" | "confirmation" | "approval" => {}
        "tool" if tool.is_some() => {}
        _ if approval_schema => {}
        "clarify" => ask.kind = AskKind::Clarify,
        "sudo" => ask.kind = AskKind::Sudo,
        "secret" => ask.kind = AskKind::Secret,
        "terminal_read" => ask.kind = AskKind::TerminalRead,
        _ => ask.kind = AskKind::Interrupt,
    }
    let is_edit =
        matches!(reason.as_str(), "edit" | "edit_preview" | "code_edit") || patch.is_some();
    let is_approval = !is_edit
        && (matches!(
            reason.as_str(),
            "tool_call" | "tool_approval" | "confirmation" | "approval"
        ) || (reason == "tool" && tool.is_some())
            || approval_schema);
    if is_edit {
        ask.kind = AskKind::Edit;
        ask.component = Component::CodeDiff;
        ask.actions = vec!["accept".into(), "reject".into()];
        ask.diff = Some(DiffPreview {
            filename: meta_text("filename"),
            language: meta_text("language"),
            patch: patch.unwrap_or_default(),
        });
    } else if is_approval {
        ask.kind = AskKind::Approval;
        ask.component = Component::ApprovalCard;
        ask.dangerous = judged.as_deref().is_some_and(looks_dangerous)
            || metadata
                .and_then(|m| m.get("dangerous"))
                .and_then(Value::as_bool)
                == Some(true);
        ask.command = command;
        // A call gated by the runtime's own review (KsADK): named by the call, its message
        // (which repeats the call) kept as the description.
        if reason == "tool"
            && let Some(tool) = &tool
        {
            ask.title = crate::plain_call::question(&tool.name, &tool.arguments, None);
            ask.description = message.clone();
        }
        ask.tool = tool;
        if ask.description.is_none() {
            ask.description = meta_text("description");
        }
        ask.actions = match &choices {
            Some(offered) => {
                let allow_permanent = metadata
                    .and_then(|m| m.get("allowPermanent"))
                    .and_then(Value::as_bool)
                    .unwrap_or(true);
                approval_actions(Some(offered), allow_permanent && !ask.dangerous, false)
            }
            // The agent only learns approved yes/no: session and always cannot be honoured.
            None => vec!["once".into(), "deny".into()],
        };
    } else {
        match ask.kind {
            AskKind::Sudo => {
                ask.component = Component::SudoPrompt;
                ask.command = command;
                ask.tool = tool;
                ask.actions = vec!["submit".into(), "skip".into()];
            }
            AskKind::Secret => {
                ask.component = Component::SecretPrompt;
                ask.env_var = meta_text("envVar");
                ask.description = meta_text("prompt");
                ask.actions = vec!["save".into(), "skip".into()];
            }
            _ => {
                let questions = metadata
                    .and_then(|m| m.get("questions"))
                    .and_then(Value::as_array)
                    .map(|list| list.iter().filter_map(question_from).collect::<Vec<_>>())
                    .filter(|list| !list.is_empty());
                ask.questions = questions.unwrap_or_else(|| {
                    vec![Question {
                        id: "answer".into(),
                        text: message.clone().unwrap_or_else(|| ask.title.clone()),
                        choices: choices.clone().unwrap_or_default(),
                        multi_select: false,
                    }]
                });
                ask.component = if ask.questions.len() == 1 && !ask.questions[0].choices.is_empty()
                {
                    Component::OptionList
                } else {
                    Component::QuestionFlow
                };
                ask.actions = vec!["answer".into(), "cancel".into()];
            }
        }
    }
    Ok(ask)
}

/// Reads a question in either spelling: ours (`id`, `text`) or Hermes' (`qid`, `question`).
pub fn question_from(value: &Value) -> Option<Question> {
    let object = value.as_object()?;
    Some(Question {
        id: text(object, "id").or_else(|| text(object, "qid"))?,
        text: text(object, "text").or_else(|| text(object, "question"))?,
        choices: strings(object.get("choices")).unwrap_or_default(),
        multi_select: object
            .get("multiSelect")
            .or_else(|| object.get("multi_select"))
            .and_then(Value::as_bool)
            .unwrap_or(false),
    })
}

/// Where an interrupt arrived.
#[derive(Clone, Debug)]
pub enum InterruptSource {
    /// In `RUN_FINISHED.outcome.interrupts`.
    Outcome,
    /// As a CUSTOM `on_interrupt` event (LangGraph); `fallback_id` names it when the
    /// interrupt carries neither an id nor a tool call id.
    Custom { fallback_id: String },
}

/// The ask for a frontend tool call the agent left for the client to run.
pub fn ask_for_frontend_tool(tool_call_id: &str, tool_name: &str, arguments: &str) -> Ask {
    Ask {
        tool_call_id: Some(tool_call_id.to_owned()),
        tool: Some(ToolPreview::from_call(tool_name, arguments)),
        metadata: vec![("tool".into(), tool_name.to_owned())],
        ..Ask::new(
            tool_call_id.to_owned(),
            AskKind::FrontendTool,
            Component::FrontendTool,
            format!("The agent asks the console to run {tool_name}"),
            vec!["submit".into(), "cancel".into()],
            AskOrigin::AgUiFrontendTool {
                tool_name: tool_name.to_owned(),
                arguments: arguments.to_owned(),
            },
        )
    }
}
