//! A closed ask in the timeline: what happened, in a word with its own sign and colour,
//! who answered, and when (on hover).

use leptos::prelude::*;

use crate::components::code_diff::CodeDiff;
use crate::protocol::ask::{Ask, AskState, Outcome};

/// The sign each outcome is shown with (the word beside it carries the meaning).
fn sign(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pending => "…",
        Outcome::Approved => "✓",
        Outcome::Denied => "⊘",
        Outcome::Answered => "↩",
        Outcome::Skipped => "↷",
        Outcome::Cancelled => "–",
        Outcome::Expired => "⌛",
    }
}

#[component]
pub fn AskReceipt(ask: Ask) -> impl IntoView {
    let outcome = ask.state.outcome();
    let subject = ask.command.clone().unwrap_or_else(|| ask.title.clone());
    let (word, actor, at) = match &ask.state {
        AskState::Resolved { answer } => (
            answer.summary.clone(),
            answer.actor.clone(),
            answer.at.clone(),
        ),
        AskState::Expired => ("Expired".to_owned(), None, None),
        AskState::Cancelled { reason } => (format!("Cancelled ({reason})"), None, None),
        AskState::Pending => ("Waiting for you".to_owned(), None, None),
    };
    let hover = match (&actor, &at) {
        (Some(actor), Some(at)) => Some(format!(
            "{word} by {actor} at {}",
            crate::when::readable(at)
        )),
        (None, Some(at)) => Some(format!("{word} at {}", crate::when::readable(at))),
        (Some(actor), None) => Some(format!("{word} by {actor}")),
        (None, None) => None,
    };
    let label = match &ask.state {
        AskState::Resolved { answer } => answer.summary.clone(),
        AskState::Expired => "Expired".to_owned(),
        AskState::Cancelled { .. } => "Cancelled".to_owned(),
        AskState::Pending => "Waiting".to_owned(),
    };
    // The change reviewed stays in history under its receipt, folded.
    let reviewed = ask.diff.clone().map(|diff| {
        view! {
            <details class="receipt-diff">
                <summary>"The change reviewed"</summary>
                <CodeDiff patch=diff.patch filename=diff.filename />
            </details>
        }
    });
    view! {
        <div class="receipt" data-receipt="true" data-state=ask.state.label() data-outcome=outcome.as_str() role="status"
            aria-label=label title=hover>
            <span class="receipt-mark" aria-hidden="true">{sign(outcome)}</span>
            <span class="receipt-word">{word}</span>
            <span class="receipt-subject">" — " {subject}</span>
            {actor.map(|actor| view! { <span class="receipt-actor muted">" · " {actor}</span> })}
            {at.map(|at| view! { <time class="visually-hidden" datetime=at.clone()>{crate::when::readable(&at)}</time> })}
        </div>
        {reviewed}
    }
}
