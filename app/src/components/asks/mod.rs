//! Blocking asks and their receipts: approval_card, option_list, question_flow, the
//! password and secret prompts, code_diff and frontend tools (tool-ui's contracts and
//! accessibility conventions). Every answer goes to the exact pending ask as a typed
//! receipt through a server function — never as chat text.

use leptos::prelude::*;
use serde_json::{Value, json};

use crate::api::answer_ask;
use crate::model::AnswerOutcome;
use crate::protocol::ask::{Ask, AskKind, AskState, Component, Question};

mod approval;
mod credential;
mod detail;
mod edit;
mod questions;
mod receipt;
mod tool;

use self::approval::ApprovalCard;
use self::credential::CredentialPrompt;
use self::detail::{Metadata, ToolCallBlock};
use self::edit::EditReview;
use self::questions::{OptionList, QuestionFlow};
pub use self::receipt::AskReceipt;
use self::tool::FrontendTool;

/// The receipt envelope for `ask`.
pub(crate) fn receipt(ask: &Ask, action: &str, data: Value) -> String {
    json!({
        "channel": "tool-result",
        "receipt": {
            "toolCallId": ask.id,
            "component": ask.component.as_str(),
            "action": action,
            "data": data,
            "ts": crate::when::now_ms(),
        }
    })
    .to_string()
}

/// A DOM id fragment for an ask (its id may hold any character).
fn dom_id(run_id: &str, ask: &Ask) -> String {
    use crate::components::id_fragment;
    format!("ask-{}-{}", id_fragment(run_id), id_fragment(&ask.id))
}

/// The question an ask answers with free text alone — one question, no choices — so the
/// composer can be its reply box.
pub fn free_text_question(ask: &Ask) -> Option<&Question> {
    match (ask.component, ask.questions.as_slice()) {
        (Component::QuestionFlow, [question]) if question.choices.is_empty() => Some(question),
        _ => None,
    }
}

/// The receipt that answers a free-text question with `text`.
pub fn free_text_receipt(ask: &Ask, text: &str) -> Option<String> {
    let question = free_text_question(ask)?;
    Some(receipt(
        ask,
        "answer",
        json!({ "answers": { question.id.clone(): text } }),
    ))
}

/// What the user sees while and after an answer travels.
#[derive(Clone, Copy)]
struct Sender {
    sending: RwSignal<bool>,
    notice: RwSignal<Option<String>>,
    run_id: StoredValue<String>,
    ask: StoredValue<Ask>,
    on_answered: Callback<()>,
    may_act: Signal<bool>,
}

impl Sender {
    fn send(self, action: &str, data: Value) {
        if self.sending.get_untracked() || !self.may_act.get_untracked() {
            return;
        }
        self.sending.set(true);
        self.notice.set(None);
        let envelope = self.ask.with_value(|ask| receipt(ask, action, data));
        let run_id = self.run_id.get_value();
        let ask_id = self.ask.with_value(|ask| ask.id.clone());
        // The card may be gone by the time the answer comes back (the closing event can
        // arrive first): every touch of its state below tolerates that.
        leptos::task::spawn_local(async move {
            match answer_ask(run_id, ask_id, envelope).await {
                Ok(AnswerOutcome::Accepted) => {
                    let _ = self.on_answered.try_run(());
                }
                Ok(AnswerOutcome::AlreadyClosed { state, answered_by }) => {
                    let how = match &state {
                        AskState::Resolved { answer } => answer.summary.clone(),
                        other => format!("It is {}", other.label()),
                    };
                    let who = answered_by
                        .map(|who| format!(" by {who}"))
                        .unwrap_or_default();
                    self.notice
                        .try_set(Some(format!("Already answered{who}: {how}.")));
                    self.sending.try_set(false);
                    let _ = self.on_answered.try_run(());
                }
                Err(error) => {
                    self.notice.try_set(Some(error.say()));
                    self.sending.try_set(false);
                }
            }
        });
    }
}

/// One pending ask, rendered by its component. A card takes focus as it arrives unless
/// `quiet` (a list of many, where the operator moves between them).
#[component]
pub fn AskCard(
    run_id: String,
    ask: Ask,
    #[prop(into)] on_answered: Callback<()>,
    #[prop(optional)] quiet: bool,
) -> impl IntoView {
    let id = dom_id(&run_id, &ask);
    let may_act = crate::components::identity::may_act();
    let sender = Sender {
        sending: RwSignal::new(false),
        notice: RwSignal::new(None),
        run_id: StoredValue::new(run_id),
        ask: StoredValue::new(ask.clone()),
        on_answered,
        may_act,
    };
    let notice = move || {
        sender
            .notice
            .get()
            .map(|text| view! { <p class="ask-notice" role="alert">{text}</p> })
    };
    let body = match ask.component {
        Component::ApprovalCard => {
            view! { <ApprovalCard ask=ask.clone() id=id.clone() sender /> }.into_any()
        }
        Component::OptionList => {
            view! { <OptionList ask=ask.clone() id=id.clone() sender /> }.into_any()
        }
        Component::QuestionFlow => {
            view! { <QuestionFlow ask=ask.clone() id=id.clone() sender /> }.into_any()
        }
        Component::SudoPrompt | Component::SecretPrompt => {
            view! { <CredentialPrompt ask=ask.clone() id=id.clone() sender /> }.into_any()
        }
        Component::CodeDiff => {
            view! { <EditReview ask=ask.clone() id=id.clone() sender /> }.into_any()
        }
        Component::FrontendTool => {
            view! { <FrontendTool ask=ask.clone() id=id.clone() sender /> }.into_any()
        }
    };
    let card: NodeRef<leptos::html::Div> = NodeRef::new();
    if !quiet {
        take_focus_on_arrival(card);
    }
    view! {
        <div class="ask-card" node_ref=card data-ask-id=ask.id.clone() data-slot=ask.component.as_str()
            aria-busy=move || sender.sending.get().to_string() on:keydown=move |event| on_card_key(card, &event)
            data-read-only=move || (!may_act.get()).then_some("true")>
            // A viewer sees the ask as it is, every control disabled, and why on hover (the
            // page says it once, by the composer or above the inbox).
            <fieldset class="bare" disabled=move || !may_act.get()
                title=move || (!may_act.get()).then_some(crate::components::identity::VIEWER_NOTE)>{body}</fieldset>
            {notice}
        </div>
    }
}

/// How long the agent still waits for the answer, counted down each second; the ask
/// closes as expired when it is over (the server closes it, and the card follows).
#[component]
fn AskDeadline(at: Option<i64>) -> impl IntoView {
    at.map(|at| {
        let now = RwSignal::new(crate::when::now_ms());
        #[cfg(any(feature = "hydrate", feature = "csr"))]
        if let Ok(handle) = set_interval_with_handle(
            move || {
                now.try_set(crate::when::now_ms());
            },
            std::time::Duration::from_secs(1),
        ) {
            on_cleanup(move || handle.clear());
        }
        let left = move || at - now.get();
        view! {
            <p class="ask-deadline" class:urgent=move || left() < 15_000>
                {move || {
                    let left = left();
                    if left > 0 {
                        format!("This ask {}.", crate::when::time_left(left))
                    } else {
                        "This ask has expired.".to_owned()
                    }
                }}
            </p>
        }
    })
}

/// An ask takes focus as it arrives, unless the operator is typing or another ask
/// already has it.
fn take_focus_on_arrival(card: NodeRef<leptos::html::Div>) {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    Effect::new(move |done: Option<bool>| {
        if done == Some(true) {
            return true;
        }
        let Some(element) = card.get() else {
            return false;
        };
        let another_has_it = document()
            .active_element()
            .and_then(|active| active.closest(".ask-lane").ok().flatten())
            .is_some();
        if !another_has_it && !crate::components::focus::is_typing() {
            crate::components::focus::focus_answer_control(&element);
        }
        true
    });
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    let _ = card;
}

/// Keys that work anywhere in a card: Esc goes back to the composer; 1–9 pick an option
/// (outside a text field).
fn on_card_key(card: NodeRef<leptos::html::Div>, event: &leptos::ev::KeyboardEvent) {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        use wasm_bindgen::JsCast;
        if event.is_composing() || event.ctrl_key() || event.meta_key() || event.alt_key() {
            return;
        }
        let key = event.key();
        if key == "Escape" {
            event.prevent_default();
            crate::components::focus::focus_composer();
            return;
        }
        let in_text_field = event.target().is_some_and(|target| {
            target.dyn_ref::<web_sys::HtmlTextAreaElement>().is_some()
                || target.dyn_ref::<web_sys::HtmlInputElement>().is_some()
        });
        if let (Some(number), false, Some(element)) = (
            key.parse::<u32>().ok().filter(|n| (1..=9).contains(n)),
            in_text_field,
            card.get_untracked(),
        ) && crate::components::focus::pick_option(&element, number)
        {
            event.prevent_default();
        }
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    let _ = (card, event);
}

/// An ask's kind in words, as its card heads it.
pub fn kind_label(kind: AskKind) -> &'static str {
    match kind {
        AskKind::Approval => "Approval",
        AskKind::Clarify => "Question",
        AskKind::Sudo => "Password",
        AskKind::Secret => "Secret",
        AskKind::TerminalRead => "Terminal",
        AskKind::Interrupt => "Input needed",
        AskKind::FrontendTool => "Tool for the console",
        AskKind::Edit => "Edit",
    }
}

/// The head most ask cards share: kind, the title that labels the card, and the command.
#[component]
fn AskHead(ask: Ask, id: String) -> impl IntoView {
    view! {
        <header class="ask-head">
            <span class="ask-kind">{kind_label(ask.kind)}</span>
            <h3 id=format!("{id}-title")>{ask.title}</h3>
            <AskDeadline at=ask.expires_at_ms />
        </header>
        {ask.command.map(|command| view! { <pre class="command"><code>{command}</code></pre> })}
        {ask.tool.map(|tool| view! { <ToolCallBlock tool /> })}
    }
}
