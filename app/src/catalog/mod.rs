//! The tool-ui component catalog: agents' component payloads, checked against their schemas.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

/// An enum of fixed JSON strings: its variants, their spellings and the table `one_of`
/// reads them by and lists in its errors.
macro_rules! choice {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
        pub enum $name {
            $(#[serde(rename = $text)] $variant),+
        }

        impl $name {
            /// The spelling on the wire.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $text),+
                }
            }
        }

        impl $crate::catalog::Choice for $name {
            const ALL: &'static [(&'static str, Self)] = &[$(($text, Self::$variant)),+];
        }
    };
}

pub mod actions;
pub mod approval;
pub mod chart;
pub mod code;
mod fields;
pub mod link;
pub mod media;
pub mod options;
pub mod plan;
pub mod preferences;
pub mod progress;
pub mod question_flow;
pub mod receipt;
#[cfg(test)]
mod round_trip;
pub mod slider;
pub mod stats;
pub mod table;
pub mod terminal;
pub(crate) mod values;

pub(crate) use fields::Fields;
pub(crate) use values::unique;

/// Why a payload does not fit its component's schema. Nothing of the payload is dropped:
/// the caller keeps the raw JSON and shows it beside this.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    /// Where, e.g. `todos[1].status`; empty for the payload itself.
    pub path: String,
    pub reason: String,
}

impl Invalid {
    pub fn new(path: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.reason)
        } else {
            write!(f, "{}: {}", self.path, self.reason)
        }
    }
}

impl std::error::Error for Invalid {}

/// An enum read from one of a fixed set of strings.
pub trait Choice: Copy + 'static {
    const ALL: &'static [(&'static str, Self)];
}

choice! {
    /// What a surface is for in the conversation.
    Role {
        Information = "information",
        Decision = "decision",
        Control = "control",
        State = "state",
        Composite = "composite",
    }
}

/// The fields every surface carries.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Base {
    pub id: String,
    pub role: Option<Role>,
    pub receipt: Option<receipt::Receipt>,
}

impl Base {
    /// `id`, `role?` and `receipt?`.
    pub(crate) fn surface(fields: &Fields<'_>) -> Result<Self, Invalid> {
        Ok(Self {
            receipt: fields
                .opt_object("receipt")?
                .map(|r| receipt::read(&r))
                .transpose()?,
            ..Self::identity(fields)?
        })
    }

    /// `id` and `role?`, for the components whose schema has no `receipt`.
    pub(crate) fn identity(fields: &Fields<'_>) -> Result<Self, Invalid> {
        Ok(Self {
            id: fields.text("id")?,
            role: fields.opt_one_of("role")?,
            receipt: None,
        })
    }
}

choice! {
    /// How a media frame is shaped.
    Ratio { Auto = "auto", Square = "1:1", Classic = "4:3", Wide = "16:9", Tall = "9:16" }
}

choice! {
    /// How media fills its frame.
    Fit { Cover = "cover", Contain = "contain" }
}

/// A payload of any component in the catalog.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "component", content = "payload", rename_all = "snake_case")]
pub enum Payload {
    Plan(plan::Plan),
    ProgressTracker(progress::ProgressTracker),
    ApprovalCard(approval::ApprovalCard),
    OptionList(options::OptionList),
    QuestionFlow(question_flow::QuestionFlow),
    PreferencesPanel(preferences::PreferencesPanel),
    ParameterSlider(slider::ParameterSlider),
    Terminal(terminal::Terminal),
    CodeBlock(code::CodeBlock),
    CodeDiff(code::CodeDiff),
    DataTable(table::DataTable),
    Chart(chart::Chart),
    StatsDisplay(stats::StatsDisplay),
    Image(media::Image),
    ImageGallery(media::ImageGallery),
    Audio(media::Audio),
    Video(media::Video),
    LinkPreview(link::LinkPreview),
    Citation(link::Citation),
    CitationList(link::CitationList),
}

const NAMES: &[&str] = &[
    "plan",
    "progress_tracker",
    "approval_card",
    "option_list",
    "question_flow",
    "preferences_panel",
    "parameter_slider",
    "terminal",
    "code_block",
    "code_diff",
    "data_table",
    "chart",
    "stats_display",
    "image",
    "image_gallery",
    "audio",
    "video",
    "link_preview",
    "citation",
    "citation_list",
];

/// The components an agent may call as a tool the operator answers: the call's arguments
/// are the payload, and the operator's decision goes back as the call's result.
pub const ANSWERED_AS_TOOLS: &[&str] = &[
    "approval_card",
    "option_list",
    "question_flow",
    "preferences_panel",
    "parameter_slider",
];

/// The tool definitions offered to agents for [`ANSWERED_AS_TOOLS`].
pub fn answer_tool_definitions() -> Vec<Value> {
    ANSWERED_AS_TOOLS
        .iter()
        .map(|name| {
            serde_json::json!({
                "name": name,
                "description": format!(
                    "Show the operator a tool-ui {name} (the arguments are its payload, with an `id`) \
                     and wait for their decision, which comes back as the result \
                     {{\"action\": …, \"data\": …}}."
                ),
                "parameters": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
            })
        })
        .collect()
}

/// Every component the catalog reads, by its snake_case name.
pub fn component_names() -> &'static [&'static str] {
    NAMES
}

/// Reads `value` as the payload of `component`, named in snake_case or, as tool-ui's
/// `data-slot` spells it, kebab-case.
pub fn parse(component: &str, value: &Value) -> Result<Payload, Invalid> {
    Ok(match component.replace('-', "_").as_str() {
        "plan" => Payload::Plan(plan::parse(value)?),
        "progress_tracker" => Payload::ProgressTracker(progress::parse(value)?),
        "approval_card" => Payload::ApprovalCard(approval::parse(value)?),
        "option_list" => Payload::OptionList(options::parse(value)?),
        "question_flow" => Payload::QuestionFlow(question_flow::parse(value)?),
        "preferences_panel" => Payload::PreferencesPanel(preferences::parse(value)?),
        "parameter_slider" => Payload::ParameterSlider(slider::parse(value)?),
        "terminal" => Payload::Terminal(terminal::parse(value)?),
        "code_block" => Payload::CodeBlock(code::parse_block(value)?),
        "code_diff" => Payload::CodeDiff(code::parse_diff(value)?),
        "data_table" => Payload::DataTable(table::parse(value)?),
        "chart" => Payload::Chart(chart::parse(value)?),
        "stats_display" => Payload::StatsDisplay(stats::parse(value)?),
        "image" => Payload::Image(media::parse_image(value)?),
        "image_gallery" => Payload::ImageGallery(media::parse_gallery(value)?),
        "audio" => Payload::Audio(media::parse_audio(value)?),
        "video" => Payload::Video(media::parse_video(value)?),
        "link_preview" => Payload::LinkPreview(link::parse_preview(value)?),
        "citation" => Payload::Citation(link::parse_citation(value)?),
        "citation_list" => Payload::CitationList(link::parse_citation_list(value)?),
        _ => {
            return Err(Invalid::new(
                "",
                format!(
                    "unknown component {} (the catalog has {})",
                    values::shown(&Value::String(component.to_owned())),
                    NAMES.join(", ")
                ),
            ));
        }
    })
}

/// A string-keyed record of strings (`identifiers`, `error`), capped at `max` entries.
pub(crate) fn string_record(
    fields: &Fields<'_>,
    key: &str,
    max: usize,
) -> Result<Option<BTreeMap<String, String>>, Invalid> {
    let Some(record) = fields.opt_object(key)? else {
        return Ok(None);
    };
    let map: &Map<String, Value> = record.map();
    if map.len() > max {
        return Err(fields.invalid(
            key,
            format!("must have at most {max} entries (got {})", map.len()),
        ));
    }
    map.iter()
        .map(|(name, value)| match value {
            Value::String(text) => Ok((name.clone(), text.clone())),
            other => Err(Invalid::new(
                record.path_of(name),
                format!("must be a string (got {})", values::shown(other)),
            )),
        })
        .collect::<Result<_, _>>()
        .map(Some)
}

#[cfg(test)]
pub(crate) fn refusal<T: fmt::Debug>(result: Result<T, Invalid>) -> String {
    match result {
        Ok(value) => panic!("expected a refusal, got {value:?}"),
        Err(invalid) => invalid.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_error_reads_as_path_then_reason_or_reason_alone() {
        assert_eq!(Invalid::new("alt", "required").to_string(), "alt: required");
        assert_eq!(
            Invalid::new("", "must be an object").to_string(),
            "must be an object"
        );
    }

    #[test]
    fn every_named_component_is_dispatched() {
        for name in component_names() {
            let refused = refusal(parse(name, &json!({})));
            assert!(!refused.contains("unknown component"), "{name}: {refused}");
        }
    }

    #[test]
    fn an_unknown_component_is_refused_by_name() {
        assert!(
            refusal(parse("weather_widget", &json!({})))
                .starts_with("unknown component \"weather_widget\"")
        );
    }

    #[test]
    fn a_kebab_case_name_reaches_its_component() {
        let plan = json!({"id": "plan-1", "title": "Ship", "todos": [{"id": "a", "label": "A",
            "status": "pending"}]});
        assert!(matches!(parse("plan", &plan), Ok(Payload::Plan(_))));
        let list = json!({"id": "o", "options": [{"id": "a", "label": "A"}]});
        assert!(matches!(
            parse("option-list", &list),
            Ok(Payload::OptionList(_))
        ));
    }

    #[test]
    fn a_payload_that_is_not_an_object_is_refused_at_the_root() {
        assert_eq!(
            refusal(parse("plan", &json!([1]))),
            "must be an object (got a list)"
        );
    }

    #[test]
    fn a_role_outside_the_five_is_refused() {
        let plan = json!({"id": "p", "role": "boss", "title": "T", "todos": [{"id": "a",
            "label": "A", "status": "pending"}]});
        assert_eq!(
            refusal(plan::parse(&plan)),
            "role: must be one of information, decision, control, state, composite (got \"boss\")"
        );
    }
}
