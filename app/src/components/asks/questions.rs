//! Questions: the single-choice list and the step-by-step flow, on a keyboard-navigable listbox.

use leptos::prelude::*;
use serde_json::{Value, json};

use super::{AskDeadline, Sender, kind_label};
use crate::protocol::ask::Ask;

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

/// A single-choice listbox with a roving tab stop: arrows and Home/End move, Space
/// chooses, Enter chooses and submits (number keys are the card's: see `AskCard`).
#[component]
fn Choices(
    id: String,
    label_id: String,
    choices: Vec<String>,
    selected: RwSignal<Option<usize>>,
    on_submit: Callback<()>,
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
                " " => {
                    event.prevent_default();
                    selected.set(Some(current));
                }
                "Enter" => {
                    event.prevent_default();
                    selected.set(Some(current));
                    on_submit.run(());
                }
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
pub(super) fn OptionList(ask: Ask, id: String, sender: Sender) -> impl IntoView {
    let question = ask.questions.first().cloned();
    let choices = question
        .as_ref()
        .map(|q| q.choices.clone())
        .unwrap_or_default();
    let label_id = format!("{id}-label");
    let (section_label, heading_label) = (label_id.clone(), label_id.clone());
    let selected = RwSignal::new(None::<usize>);
    let answer = Callback::new({
        let choices = choices.clone();
        move |()| {
            if let Some(choice) = selected
                .get_untracked()
                .and_then(|index| choices.get(index).cloned())
            {
                sender.send("answer", json!({ "answer": choice }));
            }
        }
    });
    view! {
        <section class="ask question" role="form" aria-labelledby=section_label>
            <header class="ask-head">
                <span class="ask-kind">{kind_label(ask.kind)}</span>
                <h3 id=heading_label>{question.map(|q| q.text).unwrap_or_else(|| ask.title.clone())}</h3>
                <AskDeadline at=ask.expires_at_ms />
            </header>
            <Choices id=id.clone() label_id choices selected on_submit=answer />
            <footer class="ask-actions">
                <button type="button" class="button primary" data-primary="true"
                    disabled=move || sender.sending.get() || selected.get().is_none() on:click=move |_| answer.run(())>
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

/// One or several questions, one step at a time; a text field or choices per question.
#[component]
pub(super) fn QuestionFlow(ask: Ask, id: String, sender: Sender) -> impl IntoView {
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
    let advance = Callback::new({
        let flow_id = id.clone();
        let read_step = read_step.clone();
        let questions = questions.clone();
        move |()| {
            let current = step.get_untracked();
            let value = read_step(current);
            answers.update(|answers| answers[current] = value);
            if current + 1 < total {
                step.set(current + 1);
                let field_id = format!("{flow_id}-q{}", current + 1);
                request_animation_frame(move || {
                    focus(&format!("{field_id}-option-0"));
                    focus(&field_id);
                });
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
    });
    let steps = questions
        .iter()
        .enumerate()
        .map(|(index, question)| {
            let field_id = format!("{id}-q{index}");
            let label_id = format!("{field_id}-label");
            let input = if question.choices.is_empty() {
                // Enter answers, Shift+Enter breaks the line, as in the composer.
                view! { <textarea id=field_id.clone() node_ref=texts[index] rows="3" aria-labelledby=label_id.clone()
                    on:keydown=move |event: leptos::ev::KeyboardEvent| {
                        if crate::components::focus::sends(&event) {
                            event.prevent_default();
                            advance.run(());
                        }
                    }></textarea> }
                    .into_any()
            } else {
                view! { <Choices id=field_id.clone() label_id=label_id.clone() choices=question.choices.clone() selected=picks[index] on_submit=advance /> }
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
                <AskDeadline at=ask.expires_at_ms />
            </header>
            {steps}
            <footer class="ask-actions">
                {(total > 1).then(|| view! {
                    <button type="button" class="button ghost" disabled=move || step.get() == 0
                        on:click=move |_| step.update(|step| *step = step.saturating_sub(1))>"Back"</button>
                })}
                <button type="button" class="button primary" data-primary="true" disabled=move || sender.sending.get()
                    on:click=move |_| advance.run(())>
                    {move || if step.get() + 1 < total { "Next" } else { "Answer" }}
                </button>
                <button type="button" class="button ghost" disabled=move || sender.sending.get()
                    on:click=move |_| sender.send("cancel", Value::Null)>"Cancel"</button>
            </footer>
        </section>
    }
}
