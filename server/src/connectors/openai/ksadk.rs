//! Answering a KsADK runtime's interrupts: one `ksadk_resume` item per approval, alone in
//! the session that holds them — the form its LangChain human-in-the-loop graphs accept
//! (the standard `mcp_approval_response` fails there and uses the approval up). Sent
//! once: a second answer to the same interrupt is never made.

use app::error::ApiError;
use app::protocol::ask::AskOrigin;
use app::protocol::openai::ksadk::resume_item;
use app::protocol::openai::request::Conversation;
use serde_json::Value;

use super::super::Paused;
use super::approves;

/// What a run given no answer to an approval tells the runtime.
const UNANSWERED: &str = "The operator did not answer this approval";

/// The user KsADK's AG-UI side runs its sessions as; an answer to one of its interrupts
/// on the Responses API is accepted only from the same user.
const AGUI_USER: &str = "agui-user";

/// One interrupt to answer: its id, the session holding it and how many actions it reviews.
struct Held<'a> {
    interrupt_id: &'a str,
    session_id: Option<&'a str>,
    actions: usize,
}

/// The request that answers a paused run's approvals from KsADK's Responses or Chat
/// streams, or None when it paused on none; an error says why they cannot be answered.
pub fn resume(paused: &Paused) -> Result<Option<Conversation>, ApiError> {
    answers(paused, None, |origin| match origin {
        AskOrigin::OpenAiApproval {
            approval_request_id,
            ksadk: Some(interrupt),
        } => Some(Held {
            interrupt_id: approval_request_id,
            session_id: interrupt.session_id.as_deref(),
            actions: interrupt.actions,
        }),
        _ => None,
    })
}

/// The request that answers, on KsADK's Responses API, the interrupts a run on its AG-UI
/// side paused on: its AG-UI resume fails (0.8.5: `RUN_ERROR "Runtime execution
/// failed"`), and the thread is the session that holds them.
pub fn resume_agui(paused: &Paused) -> Result<Option<Conversation>, ApiError> {
    let thread = paused.run.input.get("threadId").and_then(Value::as_str);
    answers(paused, Some(AGUI_USER), |origin| match origin {
        AskOrigin::AgUiInterrupt { interrupt_id, .. } => Some(Held {
            interrupt_id,
            session_id: thread,
            actions: 1,
        }),
        _ => None,
    })
}

fn answers<'a>(
    paused: &'a Paused,
    user: Option<&str>,
    held: impl Fn(&'a AskOrigin) -> Option<Held<'a>>,
) -> Result<Option<Conversation>, ApiError> {
    let mut session = None;
    let mut items = Vec::new();
    let mut others = 0;
    for record in &paused.asks {
        let Some(interrupt) = held(&record.ask.origin) else {
            others += 1;
            continue;
        };
        let Some(held_in) = interrupt.session_id else {
            return Err(ApiError::Conflict(format!(
                "the runtime did not say which of its sessions holds approval {:?} \
                 (KsADK's Chat Completions stream never does), so it cannot be answered from here",
                interrupt.interrupt_id
            )));
        };
        session = Some(held_in.to_owned());
        let (approve, reason) = match paused.answers.get(&record.ask.id) {
            Some(answer) => (
                approves(&answer.action),
                answer
                    .data
                    .get("reason")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            ),
            None => (false, Some(UNANSWERED.to_owned())),
        };
        items.push(resume_item(
            interrupt.interrupt_id,
            approve,
            reason.as_deref(),
            interrupt.actions,
        ));
    }
    if items.is_empty() {
        return Ok(None);
    }
    if others > 0 {
        return Err(ApiError::Conflict(
            "KsADK's approvals are answered alone, and this run also waits on other asks".into(),
        ));
    }
    if paused.message.is_some() {
        return Err(ApiError::Conflict(
            "KsADK takes an approval's answer alone in its session: answer or deny the approval, then send the message".into(),
        ));
    }
    Ok(Some(Conversation {
        ksadk_resumes: items,
        session_id: session,
        user: user.map(str::to_owned),
        ..Conversation::default()
    }))
}
