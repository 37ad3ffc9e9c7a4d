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

/// The request that answers a paused run's KsADK approvals, or None when it paused on
/// none; an error says why they cannot be answered.
pub fn resume(paused: &Paused) -> Result<Option<Conversation>, ApiError> {
    let mut session = None;
    let mut items = Vec::new();
    let mut others = 0;
    for record in &paused.asks {
        let AskOrigin::OpenAiApproval {
            approval_request_id,
            ksadk: Some(interrupt),
        } = &record.ask.origin
        else {
            others += 1;
            continue;
        };
        let Some(held_in) = &interrupt.session_id else {
            return Err(ApiError::Conflict(format!(
                "the runtime did not say which of its sessions holds approval {approval_request_id:?} \
                 (KsADK's Chat Completions stream never does), so it cannot be answered from here"
            )));
        };
        session = Some(held_in.clone());
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
            approval_request_id,
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
        ..Conversation::default()
    }))
}
