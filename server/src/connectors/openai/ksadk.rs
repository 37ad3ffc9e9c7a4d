//! Answering a KsADK runtime's interrupts: one `ksadk_resume` item per approval, alone in
//! the session that holds them — the form its LangChain human-in-the-loop graphs accept
//! (the standard `mcp_approval_response` fails there and uses the approval up). Sent
//! once: a second answer to the same interrupt is never made. A thread of its AG-UI side
//! answered so goes on in that session over the Responses API.

use app::error::ApiError;
use app::protocol::ask::{AskKind, AskOrigin};
use app::protocol::channel::EventDraft;
use app::protocol::openai::ksadk::resume_item;
use app::protocol::openai::request::{Conversation, responses_body};
use app::protocol::openai::{OpenAiApi, OpenAiNormalizer};
use serde_json::Value;

use super::super::sse_stream::{self, StreamRequest};
use super::super::{Host, Paused, Turn};
use super::{approves, console_notice, negotiate};
use crate::store::RunRecord;

/// What a run given no answer to an approval tells the runtime.
const UNANSWERED: &str = "The operator did not answer this approval";

/// The user KsADK's AG-UI side runs its sessions as; an answer to one of its interrupts
/// on the Responses API is accepted only from the same user.
const AGUI_USER: &str = "agui-user";

/// One interrupt to answer: its id, the session holding it and how many actions it reviews.
struct Held<'a> {
    interrupt_id: &'a str,
    session_id: Option<&'a str>,
    user: Option<&'a str>,
    actions: usize,
}

/// The request that answers a paused run's approvals from KsADK's Responses or Chat
/// streams, or None when it paused on none; an error says why they cannot be answered.
pub fn resume(paused: &Paused) -> Result<Option<Conversation>, ApiError> {
    answers(paused, |ask| match &ask.origin {
        AskOrigin::OpenAiApproval {
            approval_request_id,
            ksadk: Some(interrupt),
        } => Some(Held {
            interrupt_id: approval_request_id,
            session_id: interrupt.session_id.as_deref(),
            user: interrupt.user.as_deref(),
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
    answers(paused, |ask| match &ask.origin {
        // Only its tool reviews take decisions; a graph's own question is another matter.
        AskOrigin::AgUiInterrupt { interrupt_id, .. } if ask.kind == AskKind::Approval => {
            Some(Held {
                interrupt_id,
                session_id: thread,
                user: Some(AGUI_USER),
                actions: 1,
            })
        }
        _ => None,
    })
}

fn answers<'a>(
    paused: &'a Paused,
    held: impl Fn(&'a app::protocol::ask::Ask) -> Option<Held<'a>>,
) -> Result<Option<Conversation>, ApiError> {
    let mut session: Option<&str> = None;
    let mut user = None;
    let mut items = Vec::new();
    let mut others = 0;
    // A message sent in the answers' place reaches the agent as the reason each approval
    // left open is rejected: KsADK takes nothing else while it holds an interrupt.
    let instead = paused.message.as_ref().map(|turn| turn.text.as_str());
    for record in &paused.asks {
        let Some(interrupt) = held(&record.ask) else {
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
        if session.is_some_and(|known| known != held_in) {
            return Err(ApiError::Conflict(
                "this run's approvals are held in different sessions of the runtime".into(),
            ));
        }
        session = Some(held_in);
        user = user.or(interrupt.user);
        let (approve, reason) = match paused.answers.get(&record.ask.id) {
            Some(answer) => (
                approves(&answer.action),
                answer
                    .data
                    .get("reason")
                    .and_then(Value::as_str)
                    .or(instead),
            ),
            None => (false, Some(instead.unwrap_or(UNANSWERED))),
        };
        items.push(resume_item(
            interrupt.interrupt_id,
            approve,
            reason,
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
    Ok(Some(Conversation {
        ksadk_resumes: items,
        session_id: session.map(str::to_owned),
        user: user.map(str::to_owned),
        ..Conversation::default()
    }))
}

/// A turn of a thread of KsADK's AG-UI side whose interrupt was answered on its Responses
/// API: the AG-UI side still counts that run as active (0.8.5 refuses the thread's next
/// AG-UI run, "thread … already has an active run"), so the thread goes on in the same
/// session over the Responses API, which keeps the conversation: the new message alone.
/// The first such turn says so. None for any other thread.
pub fn session_turn(runs: &[RunRecord], turn: &Turn) -> Option<(Conversation, Vec<EventDraft>)> {
    let answered_in_session = |run: &RunRecord| {
        run.input.get("session_id").and_then(Value::as_str) == Some(turn.thread_id.as_str())
            && run.input.get("user").and_then(Value::as_str) == Some(AGUI_USER)
    };
    let first_time = runs
        .iter()
        .rev()
        .find(|run| run.id != turn.run_id)
        .is_some_and(|last| answered_in_session(last) && !last.input["ksadk_resumes"].is_null());
    if !runs.iter().any(answered_in_session) {
        return None;
    }
    let conversation = Conversation {
        messages: vec![turn.as_message()],
        instructions: super::instructions(&turn.context),
        session_id: Some(turn.thread_id.clone()),
        user: Some(AGUI_USER.to_owned()),
        ..Conversation::default()
    };
    let mut first = vec![turn.user_message()];
    if first_time {
        first.push(console_notice(format!(
            "KsADK's AG-UI side still holds this thread's answered interrupt and would refuse its next run, so the thread goes on over its Responses API, in session {}, which keeps the conversation",
            turn.thread_id
        )));
    }
    Some((conversation, first))
}

/// What the run carrying the answers begins with: the message sent instead (if any), and
/// the console saying how the answers go.
pub fn first_events(paused: &Paused, said: String) -> Vec<EventDraft> {
    let mut first: Vec<EventDraft> = paused
        .message
        .as_ref()
        .map(|turn| turn.user_message())
        .into_iter()
        .collect();
    let said = match &paused.message {
        Some(_) => format!(
            "{said}; the message goes as the reason each open approval is rejected (KsADK takes nothing else while it holds one)"
        ),
        None => said,
    };
    first.push(console_notice(said));
    first
}

/// Sends KsADK's interrupts their answers on its Responses API at `url` (where they are
/// answered whichever API raised them), once: never tried again, whatever the answer.
pub async fn answer(
    host: &Host,
    tenant_id: &str,
    run_id: &str,
    url: &str,
    model: &str,
    conversation: &Conversation,
    bearer: Option<&str>,
) -> Result<(), String> {
    let body = responses_body(model, conversation);
    let once = StreamRequest {
        url,
        body: &body,
        bearer,
        retries: 0,
    };
    let response = sse_stream::send(host, &once).await.map_err(|error| {
        format!(
            "{} (an answer is sent once: KsADK would refuse or repeat a second)",
            negotiate::worded(error, OpenAiApi::Responses, bearer.is_some())
        )
    })?;
    let mut normalizer = OpenAiNormalizer::new(OpenAiApi::Responses)
        .for_user(conversation.user.clone())
        .when_silent(
            "the runtime answered with nothing: it no longer holds this approval (answered already?), and nothing was resumed",
        );
    sse_stream::read(host, tenant_id, run_id, url, response, &mut normalizer).await
}
