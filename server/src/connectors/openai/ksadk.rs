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

/// A turn of a KsADK thread, in the runtime's session that is the thread (`session_id` =
/// the thread id, which KsADK takes as the caller's choice): the session keeps the
/// conversation, so once every earlier turn went there the request carries the new message
/// alone; a thread with turns sent otherwise sends its `history` once, to seed it. Over
/// KsADK's AG-UI side the thread already is that session, and only a thread whose
/// interrupt was answered on the Responses API goes on there: the AG-UI side still
/// counts the answered run as active (0.8.5 refuses the thread's next AG-UI run, "thread
/// … already has an active run"). None: the turn goes over AG-UI.
pub fn session_turn(
    runs: &[RunRecord],
    turn: &Turn,
    over_agui: bool,
    history: Vec<Value>,
) -> Option<(Conversation, Vec<EventDraft>)> {
    let thread = turn.thread_id.as_str();
    let in_session =
        |run: &RunRecord| run.input.get("session_id").and_then(Value::as_str) == Some(thread);
    let as_agui_user =
        |run: &RunRecord| run.input.get("user").and_then(Value::as_str) == Some(AGUI_USER);
    let earlier: Vec<&RunRecord> = runs.iter().filter(|run| run.id != turn.run_id).collect();
    let mut first = vec![turn.user_message()];
    let (user, held) = if over_agui {
        if !earlier
            .iter()
            .any(|run| in_session(run) && as_agui_user(run))
        {
            return None;
        }
        let moved_just_now = earlier
            .last()
            .is_some_and(|last| in_session(last) && !last.input["ksadk_resumes"].is_null());
        if moved_just_now {
            first.push(console_notice(format!(
                "KsADK's AG-UI side still holds this thread's answered interrupt and would refuse its next run, so the thread goes on over its Responses API, in session {thread}, which keeps the conversation"
            )));
        }
        (Some(AGUI_USER.to_owned()), true)
    } else {
        let held = earlier.iter().all(|run| in_session(run));
        if !held {
            first.push(console_notice(format!(
                "The thread's conversation goes to the runtime's session {thread} once, whole; later turns send their new message alone"
            )));
        }
        (None, held)
    };
    let mut messages = if held { Vec::new() } else { history };
    messages.push(turn.as_message());
    let conversation = Conversation {
        messages,
        instructions: super::instructions(&turn.context),
        session_id: Some(thread.to_owned()),
        user,
        ..Conversation::default()
    };
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

#[cfg(test)]
mod tests {
    use app::protocol::status::RunStatus;
    use serde_json::json;

    use super::*;

    fn run(id: &str, input: Value) -> RunRecord {
        RunRecord {
            id: id.into(),
            tenant_id: "t".into(),
            thread_id: "thread-1".into(),
            agent: "ks".into(),
            status: RunStatus::Succeeded,
            input,
            last_sequence: 0,
            upstream_count: 0,
            created_at_ms: 0,
            finished_at_ms: None,
        }
    }

    fn turn() -> Turn {
        Turn {
            tenant_id: "t".into(),
            thread_id: "thread-1".into(),
            run_id: "r3".into(),
            message_id: "m3".into(),
            text: "and now?".into(),
            context: Default::default(),
        }
    }

    fn history() -> Vec<Value> {
        vec![json!({"id": "m1", "role": "user", "content": "hi"})]
    }

    #[test]
    fn a_thread_whose_turns_all_went_to_its_session_sends_the_new_message_alone() {
        let runs = [run("r1", json!({"session_id": "thread-1"}))];
        let (conversation, first) = session_turn(&runs, &turn(), false, history()).unwrap();
        assert_eq!(conversation.session_id.as_deref(), Some("thread-1"));
        assert_eq!(conversation.messages, [turn().as_message()]);
        assert_eq!(first.len(), 1, "no note");
    }

    #[test]
    fn a_thread_with_turns_sent_otherwise_seeds_its_session_once_and_says_so() {
        let runs = [run("r1", json!({"messages": []}))];
        let (conversation, first) = session_turn(&runs, &turn(), false, history()).unwrap();
        assert_eq!(conversation.messages.len(), 2);
        assert_eq!(first.len(), 2, "the note");
    }

    #[test]
    fn an_agui_thread_stays_on_agui_until_an_answer_went_to_its_session() {
        let agui = [run("r1", json!({"threadId": "thread-1", "runId": "r1"}))];
        assert!(session_turn(&agui, &turn(), true, Vec::new()).is_none());
        let answered = [
            agui[0].clone(),
            run(
                "r1.resume",
                json!({"session_id": "thread-1", "user": AGUI_USER, "ksadk_resumes": [{}]}),
            ),
        ];
        let (conversation, first) = session_turn(&answered, &turn(), true, Vec::new()).unwrap();
        assert_eq!(conversation.user.as_deref(), Some(AGUI_USER));
        assert_eq!(conversation.messages, [turn().as_message()]);
        assert_eq!(first.len(), 2, "said the first time");
    }
}
