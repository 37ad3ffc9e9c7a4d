//! Decision surfaces: an approval card, an option list and a question flow. Each emits
//! the operator's decision once through `on_action`; given a `choice`, each is a
//! read-only receipt that shows only what was decided.

use leptos::prelude::*;
use serde_json::{Value, json};

use super::OnAction;
use super::listbox::Listbox;
use crate::catalog::approval::{ApprovalCard, ApprovalVariant, Decision};
use crate::catalog::options::{OptionList, Selection, SelectionMode};
use crate::catalog::question_flow::{FlowMode, QuestionFlow};
use crate::components::id_fragment;

fn selection_ids(selection: Option<&Selection>) -> Vec<String> {
    match selection {
        Some(Selection::One(id)) => vec![id.clone()],
        Some(Selection::Many(ids)) => ids.clone(),
        None => Vec::new(),
    }
}

#[component]
pub fn ApprovalCardView(card: ApprovalCard, on_action: OnAction) -> impl IntoView {
    let id = id_fragment(&card.base.id);
    let (title_id, description_id) = (format!("{id}-title"), format!("{id}-description"));
    let decided = RwSignal::new(card.choice);
    let decide = move |decision: Decision| {
        if decided.get_untracked().is_some() {
            return;
        }
        if let Some(send) = on_action {
            decided.set(Some(decision));
            let action = match decision {
                Decision::Approved => "confirm",
                Decision::Denied => "cancel",
            };
            send.run((action.to_owned(), json!(decision.as_str())));
        }
    };
    let destructive = card.variant == ApprovalVariant::Destructive;
    let title = card.title.clone();
    let description = card.description.clone();
    let metadata: Vec<(String, String)> = card
        .metadata
        .iter()
        .map(|item| (item.key.clone(), item.value.clone()))
        .collect();
    let body = move || {
        view! {
            <header class="catalog-head">
                <h4 id=title_id.clone()>{card.title.clone()}</h4>
            </header>
            <div id=description_id.clone()>
                {description.clone().map(|text| view! { <p>{text}</p> })}
                {(!metadata.is_empty()).then(|| view! {
                    <dl class="metadata">
                        {metadata.iter().map(|(key, value)| view! { <dt>{key.clone()}</dt><dd>{value.clone()}</dd> }).collect_view()}
                    </dl>
                })}
            </div>
        }
    };
    let (labelled_by, described_by) = (format!("{id}-title"), format!("{id}-description"));
    let tool_ui_id = card.base.id.clone();
    let (confirm_label, cancel_label) = (card.confirm_label.clone(), card.cancel_label.clone());
    move || {
        match decided.get() {
        Some(decision) => {
            let said = match decision {
                Decision::Approved => "Approved",
                Decision::Denied => "Denied",
            };
            view! {
                <article class="catalog approval-card" data-slot="approval_card" data-tool-ui-id=tool_ui_id.clone()
                    data-receipt="true" role="status" aria-label=said>
                    <p class="catalog-receipt"><strong>{said}</strong>{format!(" — {title}")}</p>
                </article>
            }
            .into_any()
        }
        None => view! {
            <article class=if destructive { "catalog approval-card destructive" } else { "catalog approval-card" }
                data-slot="approval_card" data-tool-ui-id=tool_ui_id.clone()
                role="dialog" aria-labelledby=labelled_by.clone() aria-describedby=described_by.clone()
                on:keydown=move |event: leptos::ev::KeyboardEvent| if event.key() == "Escape" { decide(Decision::Denied) }>
                {body.clone()()}
                <footer class="catalog-actions">
                    <button type="button" class="button ghost" data-action="cancel" disabled=on_action.is_none()
                        on:click=move |_| decide(Decision::Denied)>{cancel_label.clone()}</button>
                    <button type="button" class=if destructive { "button danger" } else { "button primary" }
                        data-action="confirm" disabled=on_action.is_none()
                        on:click=move |_| decide(Decision::Approved)>{confirm_label.clone()}</button>
                </footer>
            </article>
        }
        .into_any(),
    }
    }
}

#[component]
pub fn OptionListView(list: OptionList, on_action: OnAction) -> impl IntoView {
    let multi = list.selection_mode == SelectionMode::Multi;
    let receipt = list.choice.is_some();
    let chosen = selection_ids(list.choice.as_ref().or(list.default_value.as_ref()));
    let selected = RwSignal::new(chosen);
    let confirmed = RwSignal::new(receipt);
    let min = usize::try_from(list.min_selections.max(0)).unwrap_or(1);
    let max = list
        .max_selections
        .and_then(|max| usize::try_from(max).ok());
    let label = if multi {
        "Choose one or more"
    } else {
        "Choose one"
    };
    let value = move || {
        let chosen = selected.get_untracked();
        if multi {
            json!(chosen)
        } else {
            chosen.first().map_or(Value::Null, |id| json!(id))
        }
    };
    let confirm = move |_| {
        if let Some(send) = on_action
            && selected.with_untracked(|chosen| chosen.len() >= min)
        {
            confirmed.set(true);
            send.run(("confirm".to_owned(), value()));
        }
    };
    let options = list.options.clone();
    let id = list.base.id.clone();
    move || {
        let read_only = confirmed.get();
        let count = selected.with(Vec::len);
        view! {
            <section class="catalog option-list" data-slot="option_list" data-tool-ui-id=id.clone()
                data-receipt=read_only.then_some("true")
                role=read_only.then_some("status")
                aria-label=if read_only { "Confirmed selection" } else { label }>
                <Listbox id=id.clone() label=label options=options.clone() multi selected max=max.unwrap_or(usize::MAX) read_only />
                {(!read_only).then(|| view! {
                    <footer class="catalog-actions">
                        <button type="button" class="button ghost" data-action="cancel" disabled=on_action.is_none()
                            on:click=move |_| selected.set(Vec::new())>"Clear"</button>
                        <button type="button" class="button primary" data-action="confirm"
                            disabled=on_action.is_none() || count < min on:click=confirm>
                            {if multi && count > 0 { format!("Confirm ({count})") } else { "Confirm".to_owned() }}
                        </button>
                    </footer>
                })}
            </section>
        }
    }
}

#[component]
pub fn QuestionFlowView(flow: QuestionFlow, on_action: OnAction) -> impl IntoView {
    let id = flow.base.id.clone();
    let steps = match flow.mode {
        FlowMode::Receipt { choice } => {
            return view! {
                <section class="catalog question-flow" data-slot="question_flow" data-tool-ui-id=id
                    data-receipt="true" role="status" aria-label="Answers">
                    <h4>{choice.title}</h4>
                    <dl class="metadata">
                        {choice.summary.into_iter().map(|item| view! { <dt>{item.label}</dt><dd>{item.value}</dd> }).collect_view()}
                    </dl>
                </section>
            }
            .into_any();
        }
        FlowMode::Progressive(question) => vec![question],
        FlowMode::Upfront { steps } => steps,
    };
    let total = steps.len();
    let answers: Vec<RwSignal<Vec<String>>> =
        steps.iter().map(|_| RwSignal::new(Vec::new())).collect();
    let at = RwSignal::new(0usize);
    let done = RwSignal::new(false);
    let step_ids: Vec<String> = steps
        .iter()
        .enumerate()
        .map(|(n, step)| {
            if step.id.is_empty() {
                format!("step-{}", n + 1)
            } else {
                step.id.clone()
            }
        })
        .collect();
    let finish = {
        let (answers, step_ids) = (answers.clone(), step_ids.clone());
        move || {
            let Some(send) = on_action else { return };
            let map: serde_json::Map<String, Value> = step_ids
                .iter()
                .zip(&answers)
                .map(|(step, chosen)| (step.clone(), json!(chosen.get_untracked())))
                .collect();
            done.set(true);
            send.run(("complete".to_owned(), Value::Object(map)));
        }
    };
    let form_id = id_fragment(&id);
    let title_id = format!("{form_id}-title");
    let current = move || {
        let n = at.get();
        let Some(step) = steps.get(n).cloned() else {
            return ().into_any();
        };
        let chosen = answers[n];
        let multi = step.selection_mode == Some(SelectionMode::Multi);
        let last = n + 1 == total;
        let finish = finish.clone();
        let answered = move || chosen.with(|c| !c.is_empty());
        view! {
            <section class="catalog question-flow" data-slot="question_flow" data-tool-ui-id=id.clone()
                role="form" aria-labelledby=title_id.clone() data-receipt=done.get().then_some("true")>
                {(total > 1).then(|| view! {
                    <div class="flow-progress" role="progressbar" aria-valuemin="1" aria-valuemax=total.to_string()
                        aria-valuenow=(n + 1).to_string() aria-label="Question">
                        {format!("Question {} of {total}", n + 1)}
                    </div>
                })}
                <h4 id=title_id.clone()>{step.title.clone()}</h4>
                {step.description.clone().map(|text| view! { <p class="muted">{text}</p> })}
                <Listbox id=format!("{form_id}-{n}") label=step.title.clone() options=step.options.clone() multi selected=chosen read_only=done.get() />
                {(!done.get()).then(|| view! {
                    <footer class="catalog-actions">
                        {(n > 0).then(|| view! {
                            <button type="button" class="button ghost" data-action="back" on:click=move |_| at.set(n - 1)>"Back"</button>
                        })}
                        <button type="button" class="button primary" data-action=if last { "complete" } else { "next" }
                            disabled=move || on_action.is_none() || !answered()
                            on:click=move |_| if last { finish() } else { at.set(n + 1) }>
                            {if last { "Done" } else { "Next" }}
                        </button>
                    </footer>
                })}
            </section>
        }
        .into_any()
    };
    view! { {current} }.into_any()
}
