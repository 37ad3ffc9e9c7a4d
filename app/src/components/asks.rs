//! Blocking asks and their receipts: approval_card, option_list, question_flow, the
//! password and secret prompts, code_diff and frontend tools (tool-ui's contracts and
//! accessibility conventions). Every answer goes to the exact pending ask as a typed
//! receipt through a server function — never as chat text.

use leptos::prelude::*;
use serde_json::{Value, json};

use crate::api::answer_ask;
use crate::components::code_diff::CodeDiff;
use crate::console_tools::{ConsoleTool, failure};
use crate::model::AnswerOutcome;
use crate::protocol::ask::{Ask, AskKind, AskOrigin, AskState, Component};

/// The receipt envelope for `ask`.
fn receipt(ask: &Ask, action: &str, data: Value) -> String {
    json!({
        "channel": "tool-result",
        "receipt": {
            "toolCallId": ask.id,
            "component": ask.component.as_str(),
            "action": action,
            "data": data,
            "ts": now_ms(),
        }
    })
    .to_string()
}

/// Epoch milliseconds, as the contract writes a receipt's `ts`.
fn now_ms() -> i64 {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        js_sys::Date::now() as i64
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| {
                i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
            })
    }
}

/// A DOM id fragment for an ask (its id may hold any character).
fn dom_id(run_id: &str, ask: &Ask) -> String {
    let clean: String = format!("{run_id}-{}", ask.id)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("ask-{clean}")
}

/// What the user sees while and after an answer travels.
#[derive(Clone, Copy)]
struct Sender {
    sending: RwSignal<bool>,
    notice: RwSignal<Option<String>>,
    run_id: StoredValue<String>,
    ask: StoredValue<Ask>,
    on_answered: Callback<()>,
}

impl Sender {
    fn send(self, action: &str, data: Value) {
        if self.sending.get_untracked() {
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
                    self.notice.try_set(Some(error.to_string()));
                    self.sending.try_set(false);
                }
            }
        });
    }
}

/// The label tool-ui and Hermes use for an approval choice.
fn approval_label(action: &str) -> &str {
    match action {
        "once" => "Approve once",
        "session" => "Approve for session",
        "always" => "Always approve",
        "deny" => "Deny",
        other => other,
    }
}

/// One pending ask, rendered by its component.
#[component]
pub fn AskCard(run_id: String, ask: Ask, #[prop(into)] on_answered: Callback<()>) -> impl IntoView {
    let id = dom_id(&run_id, &ask);
    let sender = Sender {
        sending: RwSignal::new(false),
        notice: RwSignal::new(None),
        run_id: StoredValue::new(run_id),
        ask: StoredValue::new(ask.clone()),
        on_answered,
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
    view! {
        <div class="ask-card" data-ask-id=ask.id.clone() data-slot=ask.component.as_str() aria-busy=move || sender.sending.get().to_string()>
            {body}
            {notice}
        </div>
    }
}

#[component]
fn ApprovalCard(ask: Ask, id: String, sender: Sender) -> impl IntoView {
    let title_id = format!("{id}-title");
    let description_id = format!("{id}-description");
    let (labelled_by, described_by) = (title_id.clone(), description_id.clone());
    let class = if ask.dangerous {
        "ask approval destructive"
    } else {
        "ask approval"
    };
    let buttons = ask
        .actions
        .iter()
        .map(|action| {
            let action = action.clone();
            let class = match (action.as_str(), ask.dangerous) {
                ("deny", _) => "button ghost",
                (_, true) => "button danger",
                _ => "button primary",
            };
            let label = approval_label(&action).to_owned();
            view! {
                <button type="button" class=class disabled=move || sender.sending.get()
                    on:click=move |_| sender.send(&action, json!({}))>
                    {label}
                </button>
            }
        })
        .collect_view();
    let on_keydown = move |event: leptos::ev::KeyboardEvent| {
        if event.key() == "Escape"
            && sender
                .ask
                .with_value(|ask| ask.actions.iter().any(|a| a == "deny"))
        {
            sender.send("deny", json!({}));
        }
    };
    view! {
        <article class=class role="dialog" aria-labelledby=labelled_by aria-describedby=described_by on:keydown=on_keydown>
            <header class="ask-head">
                <span class="ask-kind">{if ask.dangerous { "Approval · destructive" } else { "Approval" }}</span>
                <h3 id=title_id>{ask.title.clone()}</h3>
            </header>
            <div id=description_id class="ask-body">
                {ask.command.clone().map(|command| view! { <pre class="command"><code>{command}</code></pre> })}
                {ask.description.clone().map(|text| view! { <p>{text}</p> })}
                {(!ask.pattern_keys.is_empty()).then(|| view! {
                    <p class="muted">"Pattern: " {ask.pattern_keys.join(", ")}</p>
                })}
                <Metadata pairs=ask.metadata.clone() />
            </div>
            <footer class="ask-actions">{buttons}</footer>
        </article>
    }
}

#[component]
fn Metadata(pairs: Vec<(String, String)>) -> impl IntoView {
    (!pairs.is_empty()).then(|| {
        view! {
            <dl class="metadata">
                {pairs
                    .into_iter()
                    .map(|(key, value)| view! { <dt>{key}</dt><dd>{value}</dd> })
                    .collect_view()}
            </dl>
        }
    })
}

/// Moves keyboard focus to an element, in the browser.
fn focus(id: &str) {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        use wasm_bindgen::JsCast;
        if let Some(element) = document().get_element_by_id(id)
            && let Ok(element) = element.dyn_into::<web_sys::HtmlElement>()
        {
            let _ = element.focus();
        }
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    let _ = id;
}

/// A single-choice listbox with a roving tab stop: arrows, Home/End, Enter/Space.
#[component]
fn Choices(
    id: String,
    label_id: String,
    choices: Vec<String>,
    selected: RwSignal<Option<usize>>,
) -> impl IntoView {
    let active = RwSignal::new(0usize);
    let count = choices.len();
    let option_id = {
        let id = id.clone();
        move |index: usize| format!("{id}-option-{index}")
    };
    let move_to = {
        let option_id = option_id.clone();
        move |index: usize| {
            active.set(index);
            focus(&option_id(index));
        }
    };
    let on_keydown = {
        let move_to = move_to.clone();
        move |event: leptos::ev::KeyboardEvent| {
            if count == 0 {
                return;
            }
            let current = active.get_untracked();
            match event.key().as_str() {
                "ArrowDown" | "ArrowRight" => {
                    event.prevent_default();
                    move_to((current + 1) % count);
                }
                "ArrowUp" | "ArrowLeft" => {
                    event.prevent_default();
                    move_to((current + count - 1) % count);
                }
                "Home" => {
                    event.prevent_default();
                    move_to(0);
                }
                "End" => {
                    event.prevent_default();
                    move_to(count - 1);
                }
                "Enter" | " " => {
                    event.prevent_default();
                    selected.set(Some(current));
                }
                "Escape" => selected.set(None),
                _ => {}
            }
        }
    };
    view! {
        <ul class="option-list" role="listbox" aria-labelledby=label_id on:keydown=on_keydown>
            {choices
                .into_iter()
                .enumerate()
                .map(|(index, choice)| {
                    let option_id = option_id(index);
                    view! {
                        <li id=option_id role="option" class="option"
                            aria-selected=move || (selected.get() == Some(index)).to_string()
                            tabindex=move || if active.get() == index { "0" } else { "-1" }
                            on:click=move |_| { active.set(index); selected.set(Some(index)); }>
                            <span class="option-mark" aria-hidden="true">
                                {move || if selected.get() == Some(index) { "●" } else { "○" }}
                            </span>
                            {choice}
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
}

#[component]
fn OptionList(ask: Ask, id: String, sender: Sender) -> impl IntoView {
    let question = ask.questions.first().cloned();
    let choices = question
        .as_ref()
        .map(|q| q.choices.clone())
        .unwrap_or_default();
    let label_id = format!("{id}-label");
    let (section_label, heading_label) = (label_id.clone(), label_id.clone());
    let selected = RwSignal::new(None::<usize>);
    let answer = {
        let choices = choices.clone();
        move |_| {
            if let Some(choice) = selected
                .get_untracked()
                .and_then(|index| choices.get(index).cloned())
            {
                sender.send("answer", json!({ "answer": choice }));
            }
        }
    };
    view! {
        <section class="ask question" role="form" aria-labelledby=section_label>
            <header class="ask-head">
                <span class="ask-kind">{kind_label(ask.kind)}</span>
                <h3 id=heading_label>{question.map(|q| q.text).unwrap_or_else(|| ask.title.clone())}</h3>
            </header>
            <Choices id=id.clone() label_id choices selected />
            <footer class="ask-actions">
                <button type="button" class="button primary"
                    disabled=move || sender.sending.get() || selected.get().is_none() on:click=answer>
                    "Answer"
                </button>
                <button type="button" class="button ghost" disabled=move || sender.sending.get()
                    on:click=move |_| sender.send("cancel", Value::Null)>
                    "Cancel"
                </button>
            </footer>
        </section>
    }
}

fn kind_label(kind: AskKind) -> &'static str {
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

/// One or several questions, one step at a time; a text field or choices per question.
#[component]
fn QuestionFlow(ask: Ask, id: String, sender: Sender) -> impl IntoView {
    let questions = ask.questions.clone();
    let total = questions.len().max(1);
    let step = RwSignal::new(0usize);
    let answers: RwSignal<Vec<Option<String>>> = RwSignal::new(vec![None; total]);
    let texts: Vec<NodeRef<leptos::html::Textarea>> = (0..total).map(|_| NodeRef::new()).collect();
    let picks: Vec<RwSignal<Option<usize>>> = (0..total).map(|_| RwSignal::new(None)).collect();
    let heading_id = format!("{id}-heading");
    let form_label = heading_id.clone();
    let read_step = {
        let questions = questions.clone();
        let texts = texts.clone();
        let picks = picks.clone();
        move |index: usize| -> Option<String> {
            let question = questions.get(index)?;
            if question.choices.is_empty() {
                texts[index]
                    .get_untracked()
                    .map(|field| field.value())
                    .filter(|text| !text.trim().is_empty())
            } else {
                picks[index]
                    .get_untracked()
                    .and_then(|pick| question.choices.get(pick).cloned())
            }
        }
    };
    let advance = {
        let read_step = read_step.clone();
        let questions = questions.clone();
        move |_| {
            let current = step.get_untracked();
            let value = read_step(current);
            answers.update(|answers| answers[current] = value);
            if current + 1 < total {
                step.set(current + 1);
                return;
            }
            let mut map = serde_json::Map::new();
            for (question, answer) in questions.iter().zip(answers.get_untracked()) {
                map.insert(
                    question.id.clone(),
                    answer.map_or(Value::Null, Value::String),
                );
            }
            sender.send("answer", json!({ "answers": map }));
        }
    };
    let steps = questions
        .iter()
        .enumerate()
        .map(|(index, question)| {
            let field_id = format!("{id}-q{index}");
            let label_id = format!("{field_id}-label");
            let input = if question.choices.is_empty() {
                view! { <textarea id=field_id.clone() node_ref=texts[index] rows="3" aria-labelledby=label_id.clone()></textarea> }
                    .into_any()
            } else {
                view! { <Choices id=field_id.clone() label_id=label_id.clone() choices=question.choices.clone() selected=picks[index] /> }
                    .into_any()
            };
            view! {
                <div class="question-step" hidden=move || step.get() != index>
                    <label id=label_id for=field_id>{question.text.clone()}</label>
                    {input}
                </div>
            }
        })
        .collect_view();
    view! {
        <section class="ask question" role="form" aria-labelledby=form_label>
            <header class="ask-head">
                <span class="ask-kind">{kind_label(ask.kind)}</span>
                <h3 id=heading_id>{ask.title.clone()}</h3>
                {(total > 1).then(|| view! {
                    <span class="progress" role="progressbar" aria-valuemin="1" aria-valuemax=total.to_string()
                        aria-valuenow=move || (step.get() + 1).to_string()>
                        {move || format!("Question {} of {total}", step.get() + 1)}
                    </span>
                })}
            </header>
            {steps}
            <footer class="ask-actions">
                {(total > 1).then(|| view! {
                    <button type="button" class="button ghost" disabled=move || step.get() == 0
                        on:click=move |_| step.update(|step| *step = step.saturating_sub(1))>"Back"</button>
                })}
                <button type="button" class="button primary" disabled=move || sender.sending.get() on:click=advance>
                    {move || if step.get() + 1 < total { "Next" } else { "Answer" }}
                </button>
                <button type="button" class="button ghost" disabled=move || sender.sending.get()
                    on:click=move |_| sender.send("cancel", Value::Null)>"Cancel"</button>
            </footer>
        </section>
    }
}

/// The head most ask cards share: kind, the title that labels the card, and the command.
#[component]
fn AskHead(ask: Ask, id: String) -> impl IntoView {
    view! {
        <header class="ask-head">
            <span class="ask-kind">{kind_label(ask.kind)}</span>
            <h3 id=format!("{id}-title")>{ask.title}</h3>
        </header>
        {ask.command.map(|command| view! { <pre class="command"><code>{command}</code></pre> })}
    }
}

/// A password or secret. The value is read from the field only when sent, never kept in
/// a signal or storage, and the field is emptied right after.
#[component]
fn CredentialPrompt(ask: Ask, id: String, sender: Sender) -> impl IntoView {
    let sudo = ask.component == Component::SudoPrompt;
    let field: NodeRef<leptos::html::Input> = NodeRef::new();
    let field_id = format!("{id}-value");
    let label = if sudo {
        "Password".to_owned()
    } else {
        ask.env_var.clone().unwrap_or_else(|| "Secret".to_owned())
    };
    let submit = move |_| {
        let Some(input) = field.get_untracked() else {
            return;
        };
        let value = input.value();
        input.set_value("");
        if value.is_empty() {
            return;
        }
        if sudo {
            sender.send("submit", json!({ "password": value }));
        } else {
            sender.send("save", json!({ "value": value }));
        }
    };
    let on_keydown = move |event: leptos::ev::KeyboardEvent| {
        if event.key() == "Enter" {
            event.prevent_default();
            submit(());
        }
    };
    view! {
        <section class="ask credential" role="form" aria-labelledby=format!("{id}-title")>
            <AskHead ask=ask.clone() id=id.clone() />
            {ask.description.clone().map(|text| view! { <p>{text}</p> })}
            <Metadata pairs=ask.metadata.clone() />
            <label for=field_id.clone() class="field-label">{label}</label>
            <input id=field_id type="password" autocomplete="off" spellcheck="false" node_ref=field on:keydown=on_keydown />
            <footer class="ask-actions">
                <button type="button" class="button primary" disabled=move || sender.sending.get() on:click=move |_| submit(())>
                    {if sudo { "Send password" } else { "Save secret" }}
                </button>
                <button type="button" class="button ghost" disabled=move || sender.sending.get()
                    on:click=move |_| sender.send("skip", Value::Null)>"Skip"</button>
            </footer>
        </section>
    }
}

#[component]
fn EditReview(ask: Ask, id: String, sender: Sender) -> impl IntoView {
    let diff = ask.diff.clone();
    view! {
        <section class="ask edit" role="dialog" aria-labelledby=format!("{id}-title")>
            <header class="ask-head">
                <span class="ask-kind">{kind_label(ask.kind)}</span>
                <h3 id=format!("{id}-title")>{ask.title.clone()}</h3>
            </header>
            {diff.map(|diff| view! { <CodeDiff patch=diff.patch filename=diff.filename /> })}
            <footer class="ask-actions">
                <button type="button" class="button primary" disabled=move || sender.sending.get()
                    on:click=move |_| sender.send("accept", Value::Null)>"Accept"</button>
                <button type="button" class="button ghost" disabled=move || sender.sending.get()
                    on:click=move |_| sender.send("reject", Value::Null)>"Reject"</button>
            </footer>
        </section>
    }
}

/// A tool the agent asked the console to run. One the console implements runs at once
/// and its result goes back by itself; for any other the operator gives the result.
#[component]
fn FrontendTool(ask: Ask, id: String, sender: Sender) -> impl IntoView {
    let console_tool = match &ask.origin {
        AskOrigin::AgUiFrontendTool {
            tool_name,
            arguments,
        } => ConsoleTool::from_call(tool_name, arguments),
        _ => None,
    };
    match console_tool {
        Some(call) => view! { <ConsoleToolRun ask id call sender /> }.into_any(),
        None => view! { <OperatorToolResult ask id sender /> }.into_any(),
    }
}

/// Runs a console tool once, in the browser, and sends what came of it.
#[component]
fn ConsoleToolRun(
    ask: Ask,
    id: String,
    call: Result<ConsoleTool, String>,
    sender: Sender,
) -> impl IntoView {
    let doing = match &call {
        Ok(tool) => tool.describe(),
        Err(problem) => problem.clone(),
    };
    let ran = StoredValue::new(false);
    // Effects run only in the browser, after hydration: the server never runs the tool.
    Effect::new(move |_| {
        if ran.get_value() {
            return;
        }
        ran.set_value(true);
        let result = match &call {
            Ok(tool) => run_in_browser(tool)
                .map(|()| tool.result())
                .unwrap_or_else(|problem| failure(&problem)),
            Err(problem) => failure(problem),
        };
        sender.send("submit", json!({ "result": result }));
    });
    view! {
        <section class="ask tool" role="form" aria-labelledby=format!("{id}-title")>
            <AskHead ask=ask.clone() id=id.clone() />
            <p class="muted" role="status">"The console runs this itself: " {doing}</p>
        </section>
    }
}

/// Applies a console tool to this page.
fn run_in_browser(tool: &ConsoleTool) -> Result<(), String> {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        use wasm_bindgen::JsCast;
        match tool {
            ConsoleTool::ChangeBackground { color } => {
                let document = document();
                // The browser is the judge of CSS: a colour it does not take reads back empty.
                let probe = document
                    .create_element("div")
                    .ok()
                    .and_then(|element| element.dyn_into::<web_sys::HtmlElement>().ok())
                    .ok_or("the page cannot check a colour")?;
                let _ = probe.style().set_property("color", color);
                if probe
                    .style()
                    .get_property_value("color")
                    .unwrap_or_default()
                    .is_empty()
                {
                    return Err(format!("this browser does not take {color:?} as a colour"));
                }
                let root = document
                    .document_element()
                    .and_then(|element| element.dyn_into::<web_sys::HtmlElement>().ok())
                    .ok_or("the page has no root element")?;
                root.style()
                    .set_property("--console-background", color)
                    .map_err(|_| "the colour could not be set".to_owned())
            }
        }
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    {
        let _ = tool;
        Err("tools run in the browser only".into())
    }
}

/// A tool the console does not implement: the operator gives its result.
#[component]
fn OperatorToolResult(ask: Ask, id: String, sender: Sender) -> impl IntoView {
    let field: NodeRef<leptos::html::Textarea> = NodeRef::new();
    let field_id = format!("{id}-result");
    let error = RwSignal::new(None::<String>);
    let submit = move |_| {
        let Some(area) = field.get_untracked() else {
            return;
        };
        match crate::codec::from_json::<Value>(&area.value()) {
            Ok(result) => {
                error.set(None);
                sender.send("submit", json!({ "result": result }));
            }
            Err(problem) => error.set(Some(format!("The result must be JSON: {problem}"))),
        }
    };
    view! {
        <section class="ask tool" role="form" aria-labelledby=format!("{id}-title")>
            <AskHead ask=ask.clone() id=id.clone() />
            <label for=field_id.clone() class="field-label">"Result (JSON)"</label>
            <textarea id=field_id node_ref=field rows="3">"{\"ok\": true}"</textarea>
            {move || error.get().map(|text| view! { <p class="ask-notice" role="alert">{text}</p> })}
            <footer class="ask-actions">
                <button type="button" class="button primary" disabled=move || sender.sending.get() on:click=submit>
                    "Send result"
                </button>
                <button type="button" class="button ghost" disabled=move || sender.sending.get()
                    on:click=move |_| sender.send("cancel", Value::Null)>"Decline"</button>
            </footer>
        </section>
    }
}

/// A closed ask in the timeline: read-only, past tense, e.g. "Approved once — rm -rf build/".
#[component]
pub fn AskReceipt(ask: Ask) -> impl IntoView {
    let subject = ask.command.clone().unwrap_or_else(|| ask.title.clone());
    let (label, text, outcome) = match &ask.state {
        AskState::Resolved { answer } => {
            let who = answer
                .actor
                .as_ref()
                .map(|who| format!(" (by {who})"))
                .unwrap_or_default();
            (
                answer.summary.clone(),
                format!("{} — {subject}{who}", answer.summary),
                "resolved",
            )
        }
        AskState::Expired => (
            "Expired".to_owned(),
            format!("Expired — {subject}"),
            "expired",
        ),
        AskState::Cancelled { reason } => (
            "Cancelled".to_owned(),
            format!("Cancelled ({reason}) — {subject}"),
            "cancelled",
        ),
        AskState::Pending => (
            "Waiting".to_owned(),
            format!("Waiting for you — {subject}"),
            "pending",
        ),
    };
    view! {
        <div class="receipt" data-receipt="true" data-outcome=outcome role="status" aria-label=label>
            <span class="receipt-mark" aria-hidden="true">{match outcome { "resolved" => "✓", "pending" => "…", _ => "×" }}</span>
            {text}
        </div>
    }
}
