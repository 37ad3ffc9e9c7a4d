//! Blocking asks: one model for every request an agent makes of the user.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::channel::Channel;
use crate::tagged::internally_tagged;

/// What the agent is asking for.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AskKind {
    /// Permission to run something (Hermes approval, an AG-UI approval interrupt).
    Approval,
    /// A clarifying question, with or without choices; possibly several at once.
    Clarify,
    /// A sudo password.
    Sudo,
    /// A secret value for an environment variable.
    Secret,
    /// Text read from the user's terminal.
    TerminalRead,
    /// Any other AG-UI interrupt, rendered from its message and response schema.
    Interrupt,
    /// A call to a tool the client offered, waiting for the client's result.
    FrontendTool,
    /// A proposed edit to accept or reject.
    Edit,
}

impl AskKind {
    pub fn channel(self) -> Channel {
        match self {
            AskKind::Approval | AskKind::Sudo => Channel::Approval,
            AskKind::Clarify
            | AskKind::Secret
            | AskKind::TerminalRead
            | AskKind::Interrupt
            | AskKind::FrontendTool => Channel::Question,
            AskKind::Edit => Channel::Edit,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            AskKind::Approval => "approval",
            AskKind::Clarify => "clarify",
            AskKind::Sudo => "sudo",
            AskKind::Secret => "secret",
            AskKind::TerminalRead => "terminal_read",
            AskKind::Interrupt => "interrupt",
            AskKind::FrontendTool => "frontend_tool",
            AskKind::Edit => "edit",
        }
    }
}

/// The UI component that renders the ask; a receipt names it in `component`.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Component {
    ApprovalCard,
    OptionList,
    QuestionFlow,
    SudoPrompt,
    SecretPrompt,
    CodeDiff,
    FrontendTool,
}

impl Component {
    pub fn as_str(self) -> &'static str {
        match self {
            Component::ApprovalCard => "approval_card",
            Component::OptionList => "option_list",
            Component::QuestionFlow => "question_flow",
            Component::SudoPrompt => "sudo_prompt",
            Component::SecretPrompt => "secret_prompt",
            Component::CodeDiff => "code_diff",
            Component::FrontendTool => "frontend_tool",
        }
    }
}

/// One question of a clarify ask (Hermes batches up to five).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    pub id: String,
    pub text: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
    #[serde(default)]
    pub multi_select: bool,
}

/// A tool call an ask is about: shown as the tool's name and its arguments laid out, never
/// as one line of JSON.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolPreview {
    pub name: String,
    #[serde(default)]
    pub arguments: Value,
}

impl ToolPreview {
    /// A call as its producer sent it: the arguments' JSON text, laid out when it parses
    /// and kept as text when it does not.
    pub fn from_call(name: &str, arguments: &str) -> Self {
        ToolPreview {
            name: name.to_owned(),
            arguments: crate::codec::from_json::<Value>(arguments)
                .unwrap_or_else(|_| Value::String(arguments.to_owned())),
        }
    }
}

/// A diff shown with an edit ask.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffPreview {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// A unified diff.
    pub patch: String,
}

/// What a KsADK runtime needs to resume an interrupt: the session holding it, and how
/// many actions it reviews (one decision goes back for each).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KsAdkInterrupt {
    /// Unknown when the stream did not say (KsADK's Chat Completions stream never does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The user the session belongs to, when it is not the runtime's default one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    pub actions: usize,
}

/// Where an ask came from, which decides how its answer travels back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case")]
pub enum AskOrigin {
    /// An AG-UI `RUN_FINISHED` interrupt; answered by a resume run covering every
    /// open interrupt. `approval_schema` is true when the agent expects
    /// `{approved: bool}` (a refusal is then `resolved`, not `cancelled`).
    AgUiInterrupt {
        interrupt_id: String,
        #[serde(default)]
        approval_schema: bool,
    },
    /// A LangGraph-style interrupt sent as CUSTOM `on_interrupt`; answered through
    /// `forwardedProps.command.resume`.
    AgUiCustomInterrupt,
    /// A frontend tool call left unanswered; answered by a tool message next run.
    AgUiFrontendTool {
        tool_name: String,
        /// The call's arguments as the agent streamed them (JSON text).
        #[serde(default)]
        arguments: String,
    },
    /// A Responses `mcp_approval_request`; answered by an `mcp_approval_response` input
    /// item in the request that continues the response — or, from a KsADK runtime, by
    /// its own `ksadk_resume` item in the session that holds the interrupt.
    OpenAiApproval {
        approval_request_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ksadk: Option<KsAdkInterrupt>,
    },
    /// A Hermes `*.request` event, answered by calling `method` (older form).
    HermesEvent {
        method: String,
        session_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_id: Option<String>,
    },
    /// A Hermes server-to-client JSON-RPC request, answered by a response (newer form).
    HermesRequest {
        rpc_id: String,
        method: String,
        session_id: String,
    },
}

internally_tagged!(AskOrigin, "type");

/// The answer as recorded: secrets are replaced by `redacted`, never stored.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedAnswer {
    pub action: String,
    #[serde(default)]
    pub data: Value,
    /// Human-readable past-tense summary, e.g. "Approved once".
    pub summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// Where an ask stands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(remote = "Self", rename_all = "snake_case")]
pub enum AskState {
    #[default]
    Pending,
    Resolved {
        answer: RecordedAnswer,
    },
    Expired,
    Cancelled {
        reason: String,
    },
}

internally_tagged!(AskState, "state");

impl AskState {
    pub fn is_pending(&self) -> bool {
        matches!(self, AskState::Pending)
    }

    pub fn label(&self) -> &'static str {
        match self {
            AskState::Pending => "pending",
            AskState::Resolved { .. } => "resolved",
            AskState::Expired => "expired",
            AskState::Cancelled { .. } => "cancelled",
        }
    }

    /// How an ask still open when its run fails is closed: nothing is left to take its
    /// answer. The store and the projection both close it so, from the failure alone.
    pub fn closed_by_failed_run() -> AskState {
        AskState::Cancelled {
            reason: "The run failed before this was answered".into(),
        }
    }
}

/// How an ask ended, as the console tells it apart: each has its own sign and colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Pending,
    Approved,
    Denied,
    Answered,
    Skipped,
    Cancelled,
    Expired,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pending => "pending",
            Outcome::Approved => "approved",
            Outcome::Denied => "denied",
            Outcome::Answered => "answered",
            Outcome::Skipped => "skipped",
            Outcome::Cancelled => "cancelled",
            Outcome::Expired => "expired",
        }
    }
}

impl AskState {
    pub fn outcome(&self) -> Outcome {
        match self {
            AskState::Pending => Outcome::Pending,
            AskState::Expired => Outcome::Expired,
            AskState::Cancelled { .. } => Outcome::Cancelled,
            AskState::Resolved { answer } => match answer.action.as_str() {
                "once" | "session" | "always" | "approve" | "accept" => Outcome::Approved,
                "deny" | "reject" => Outcome::Denied,
                "skip" => Outcome::Skipped,
                "cancel" => Outcome::Cancelled,
                _ => Outcome::Answered,
            },
        }
    }
}

/// One blocking request of an agent.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ask {
    /// The id a receipt names in `toolCallId`.
    pub id: String,
    pub kind: AskKind,
    pub component: Component,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// One line saying what is asked.
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The tool call the ask is about, shown as its name and arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<ToolPreview>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<Question>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env_var: Option<String>,
    /// Context shown with the ask; never holds a secret.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metadata: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<DiffPreview>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pattern_keys: Vec<String>,
    /// The command looks destructive: render it with destructive styling.
    #[serde(default)]
    pub dangerous: bool,
    /// The actions a receipt may carry, in display order.
    pub actions: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at_ms: Option<i64>,
    pub origin: AskOrigin,
    #[serde(default)]
    pub state: AskState,
}

/// The actions that say no, most explicit first: what a policy that refuses every ask of
/// unattended work answers with.
const REFUSALS: [&str; 5] = ["deny", "reject", "decline", "cancel", "skip"];

impl Ask {
    /// The action of this ask that says no (deny, reject, cancel, skip…), if it has one.
    pub fn refusal(&self) -> Option<&'static str> {
        REFUSALS
            .into_iter()
            .find(|refusal| self.actions.iter().any(|action| action == refusal))
    }

    /// A pending ask with nothing but what every ask has; the rest is set by name
    /// (`Ask { tool, ..Ask::new(…) }`).
    pub fn new(
        id: String,
        kind: AskKind,
        component: Component,
        title: String,
        actions: Vec<String>,
        origin: AskOrigin,
    ) -> Ask {
        Ask {
            id,
            kind,
            component,
            tool_call_id: None,
            title,
            command: None,
            tool: None,
            description: None,
            questions: Vec::new(),
            env_var: None,
            metadata: Vec::new(),
            diff: None,
            pattern_keys: Vec::new(),
            dangerous: false,
            actions,
            response_schema: None,
            expires_at_ms: None,
            origin,
            state: AskState::Pending,
        }
    }

    /// Whether a denial's reason reaches the agent. AG-UI resumes and KsADK's rejections
    /// carry it; a Hermes approval answer has no field for one, so the console does not
    /// ask for it there.
    pub fn denial_reason_reaches_agent(&self) -> bool {
        matches!(
            self.origin,
            AskOrigin::AgUiInterrupt { .. }
                | AskOrigin::AgUiCustomInterrupt
                | AskOrigin::OpenAiApproval { ksadk: Some(_), .. }
        )
    }
}

/// Approval choices in Hermes semantics.
pub const APPROVAL_CHOICES: [&str; 4] = ["once", "session", "always", "deny"];

/// The approval choices to offer: all four, minus `always` when permanent approval is not
/// allowed (callers pass false for a destructive command: nobody should approve `rm -rf`
/// forever with one click), and only once/deny after a smart deny. An explicit upstream
/// list is honoured but never widened beyond those rules.
pub fn approval_actions(
    offered: Option<&[String]>,
    allow_permanent: bool,
    smart_denied: bool,
) -> Vec<String> {
    APPROVAL_CHOICES
        .iter()
        .filter(|choice| match **choice {
            "always" => allow_permanent && !smart_denied,
            "session" => !smart_denied,
            _ => true,
        })
        .filter(|choice| offered.is_none_or(|list| list.iter().any(|o| o == *choice)))
        .map(|choice| (*choice).to_owned())
        .collect()
}

/// Commands that delete, overwrite or escalate get destructive styling.
pub fn looks_dangerous(command: &str) -> bool {
    const MARKERS: [&str; 12] = [
        "rm -rf",
        "rm -r",
        "rm -f",
        "mkfs",
        "dd if=",
        "shutdown",
        "reboot",
        "chmod -R",
        "chown -R",
        "drop table",
        "truncate",
        "> /dev/",
    ];
    let lower = command.to_ascii_lowercase();
    MARKERS.iter().any(|marker| lower.contains(marker)) || lower.starts_with("sudo ")
}

/// The strings of a JSON array (others left out); `None` when it is not an array. Ask
/// builders read choices, pattern keys and the like with it.
pub(crate) fn strings(value: Option<&Value>) -> Option<Vec<String>> {
    Some(
        value?
            .as_array()?
            .iter()
            .filter_map(|item| item.as_str().map(str::to_owned))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_of_an_ask_is_its_own_action_that_says_no() {
        let ask = |component, actions: &[&str]| {
            Ask::new(
                "a".into(),
                AskKind::Approval,
                component,
                "t".into(),
                actions.iter().map(|action| (*action).to_owned()).collect(),
                AskOrigin::AgUiCustomInterrupt,
            )
        };
        let approval = ask(Component::ApprovalCard, &["once", "always", "deny"]);
        assert_eq!(approval.refusal(), Some("deny"));
        let diff = ask(Component::CodeDiff, &["accept", "reject"]);
        assert_eq!(diff.refusal(), Some("reject"));
        let question = ask(Component::OptionList, &["answer", "cancel"]);
        assert_eq!(question.refusal(), Some("cancel"));
        let sudo = ask(Component::SudoPrompt, &["submit", "skip"]);
        assert_eq!(sudo.refusal(), Some("skip"));
        assert_eq!(ask(Component::FrontendTool, &["submit"]).refusal(), None);
    }

    #[test]
    fn every_way_an_ask_ends_has_its_own_outcome() {
        let resolved = |action: &str| AskState::Resolved {
            answer: RecordedAnswer {
                action: action.into(),
                data: Value::Null,
                summary: String::new(),
                actor: None,
                at: None,
            },
        };
        let outcomes: Vec<Outcome> = ["once", "session", "always", "accept", "deny", "reject"]
            .into_iter()
            .chain(["skip", "cancel", "answer", "submit", "save"])
            .map(|action| resolved(action).outcome())
            .collect();
        use Outcome::*;
        assert_eq!(
            outcomes,
            [
                Approved, Approved, Approved, Approved, Denied, Denied, Skipped, Cancelled,
                Answered, Answered, Answered
            ]
        );
        assert_eq!(AskState::Expired.outcome(), Expired);
        let cancelled = AskState::Cancelled {
            reason: "interrupted".into(),
        };
        assert_eq!(cancelled.outcome(), Cancelled);
        assert_eq!(AskState::Pending.outcome(), Pending);
    }

    #[test]
    fn always_is_not_offered_when_permanent_approval_is_not_allowed() {
        assert_eq!(
            approval_actions(None, false, false),
            ["once", "session", "deny"]
        );
        assert_eq!(
            approval_actions(None, true, false),
            ["once", "session", "always", "deny"]
        );
    }

    #[test]
    fn only_once_and_deny_are_offered_after_a_smart_deny() {
        assert_eq!(approval_actions(None, true, true), ["once", "deny"]);
    }

    #[test]
    fn an_upstream_choice_list_narrows_the_offer_but_never_widens_it() {
        let offered = vec!["once".to_owned(), "always".to_owned(), "deny".to_owned()];
        assert_eq!(
            approval_actions(Some(&offered), false, false),
            ["once", "deny"]
        );
    }

    #[test]
    fn destructive_commands_are_flagged() {
        assert!(looks_dangerous("rm -rf build/"));
        assert!(looks_dangerous("sudo apt-get remove x"));
        assert!(!looks_dangerous("ls -la"));
    }
}
