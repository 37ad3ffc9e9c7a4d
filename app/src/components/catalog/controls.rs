//! Control surfaces: a preferences panel (switches, toggles, selects) and parameter
//! sliders. Nothing is sent until Save or Apply; Cancel and Reset stay local.

use std::collections::BTreeMap;

use leptos::prelude::*;
use serde_json::{Value, json};

use super::OnAction;
use crate::catalog::preferences::{Control, PreferencesPanel, Saved};
use crate::catalog::slider::{ParameterSlider, Slider};
use crate::components::id_fragment;

/// An item's starting value: what was saved, else the payload's default.
fn initial(control: &Control, saved: Option<&Saved>) -> Value {
    match (control, saved) {
        (_, Some(Saved::On(on))) => json!(on),
        (_, Some(Saved::Value(value))) => json!(value),
        (Control::Switch { default_checked }, None) => json!(default_checked.unwrap_or(false)),
        (
            Control::Toggle {
                options,
                default_value,
            },
            None,
        ) => json!(
            default_value
                .clone()
                .or_else(|| options.first().map(|o| o.value.clone()))
                .unwrap_or_default()
        ),
        (
            Control::Select {
                select_options,
                default_selected,
            },
            None,
        ) => json!(
            default_selected
                .clone()
                .or_else(|| select_options.first().map(|o| o.value.clone()))
                .unwrap_or_default()
        ),
    }
}

#[component]
pub fn PreferencesPanelView(panel: PreferencesPanel, on_action: OnAction) -> impl IntoView {
    let base = id_fragment(&panel.base.id);
    let receipt = panel.choice.is_some();
    let values: RwSignal<BTreeMap<String, Value>> = RwSignal::new(
        panel
            .sections
            .iter()
            .flat_map(|section| &section.items)
            .map(|item| {
                let saved = panel
                    .choice
                    .as_ref()
                    .and_then(|choice| choice.get(&item.id));
                (item.id.clone(), initial(&item.control, saved))
            })
            .collect(),
    );
    let starting = values.get_untracked();
    let saved = RwSignal::new(receipt);
    let errors = panel.error.clone().unwrap_or_default();
    let set = move |id: String, value: Value| {
        values.update(|all| {
            all.insert(id, value);
        })
    };
    let sections = panel.sections.into_iter().enumerate().map(|(s, section)| {
        let heading_id = format!("{base}-section-{s}");
        let items = section.items.into_iter().map(|item| {
            let field_id = format!("{base}-{}", id_fragment(&item.id));
            let error = errors.get(&item.id).cloned();
            let current = {
                let id = item.id.clone();
                move || values.with(|all| all.get(&id).cloned().unwrap_or(Value::Null))
            };
            let control = match item.control {
                Control::Switch { .. } => {
                    let id = item.id.clone();
                    let on = current.clone();
                    view! {
                        <input type="checkbox" role="switch" id=field_id.clone() disabled=move || saved.get()
                            prop:checked=move || on().as_bool().unwrap_or(false)
                            on:change=move |event| set(id.clone(), json!(event_target_checked(&event))) />
                    }
                    .into_any()
                }
                Control::Toggle { options, .. } => {
                    let group = field_id.clone();
                    view! {
                        <span class="segmented" role="radiogroup" aria-labelledby=format!("{field_id}-label")>
                            {options.into_iter().map(|option| {
                                let (id, value) = (item.id.clone(), option.value.clone());
                                let is = { let value = value.clone(); let current = current.clone(); move || current().as_str() == Some(value.as_str()) };
                                view! {
                                    <label class="segment">
                                        <input type="radio" name=group.clone() value=option.value.clone() disabled=move || saved.get()
                                            prop:checked=is on:change=move |_| set(id.clone(), json!(value.clone())) />
                                        {option.label}
                                    </label>
                                }
                            }).collect_view()}
                        </span>
                    }
                    .into_any()
                }
                Control::Select { select_options, .. } => {
                    let id = item.id.clone();
                    let chosen = current.clone();
                    view! {
                        <select id=field_id.clone() disabled=move || saved.get()
                            prop:value=move || chosen().as_str().unwrap_or_default().to_owned()
                            on:change=move |event| set(id.clone(), json!(event_target_value(&event)))>
                            {select_options.into_iter().map(|option| view! { <option value=option.value>{option.label}</option> }).collect_view()}
                        </select>
                    }
                    .into_any()
                }
            };
            view! {
                <div class="preference">
                    <span class="preference-text">
                        <label id=format!("{field_id}-label") for=field_id.clone()>{item.label}</label>
                        {item.description.map(|text| view! { <span class="muted">{text}</span> })}
                        {error.map(|text| view! { <span class="error-text" role="alert">{text}</span> })}
                    </span>
                    {control}
                </div>
            }
        }).collect_view();
        view! {
            <fieldset class="preference-section" aria-labelledby=heading_id.clone()>
                {section.heading.map(|heading| view! { <legend id=heading_id.clone()>{heading}</legend> })}
                {items}
            </fieldset>
        }
    }).collect_view();
    let save = move |_| {
        if let Some(send) = on_action {
            saved.set(true);
            let values: serde_json::Map<String, Value> =
                values.get_untracked().into_iter().collect();
            send.run((
                "save".to_owned(),
                json!({ "status": "saved", "values": values }),
            ));
        }
    };
    let cancel = move |_| values.set(starting.clone());
    view! {
        <section class="catalog preferences-panel" data-slot="preferences_panel" data-tool-ui-id=panel.base.id.clone()
            data-receipt=move || saved.get().then_some("true")
            aria-label=move || if saved.get() { "Confirmed preferences".to_owned() } else { panel.title.clone().unwrap_or_else(|| "Preferences".to_owned()) }>
            {panel.title.clone().map(|title| view! { <h4>{title}</h4> })}
            {sections}
            <Show when=move || !saved.get()>
                <footer class="catalog-actions">
                    <button type="button" class="button ghost" data-action="cancel" disabled=on_action.is_none() on:click=cancel.clone()>"Cancel"</button>
                    <button type="button" class="button primary" data-action="save" disabled=on_action.is_none() on:click=save>"Save changes"</button>
                </footer>
            </Show>
        </section>
    }
}

/// A value as its slider shows it: to its precision, with its unit.
fn shown(slider: &Slider, value: f64) -> String {
    let decimals = slider
        .precision
        .and_then(|p| usize::try_from(p.clamp(0, 10)).ok())
        .unwrap_or(if slider.step.is_some_and(|s| s.fract() != 0.0) {
            2
        } else {
            0
        });
    match &slider.unit {
        Some(unit) => format!("{value:.decimals$} {unit}"),
        None => format!("{value:.decimals$}"),
    }
}

#[component]
pub fn ParameterSliderView(sliders: ParameterSlider, on_action: OnAction) -> impl IntoView {
    let base = id_fragment(&sliders.base.id);
    let starting: Vec<f64> = sliders.sliders.iter().map(|s| s.value).collect();
    let values = RwSignal::new(starting.clone());
    let ids: Vec<String> = sliders.sliders.iter().map(|s| s.id.clone()).collect();
    let rows = sliders.sliders.into_iter().enumerate().map(|(n, slider)| {
        let field_id = format!("{base}-{}", id_fragment(&slider.id));
        let value = move || values.with(|all| all.get(n).copied().unwrap_or_default());
        let text = { let slider = slider.clone(); move || shown(&slider, value()) };
        let text_aria = text.clone();
        view! {
            <div class="slider-row">
                <label for=field_id.clone()>{slider.label.clone()}</label>
                <input type="range" id=field_id min=slider.min.to_string() max=slider.max.to_string()
                    step=slider.step.map_or_else(|| "any".to_owned(), |s| s.to_string())
                    prop:value=move || value().to_string() aria-valuetext=text_aria
                    on:input=move |event| {
                        if let Ok(v) = event_target_value(&event).parse::<f64>() {
                            values.update(|all| if let Some(slot) = all.get_mut(n) { *slot = v });
                        }
                    } />
                <output>{text}</output>
            </div>
        }
    }).collect_view();
    let apply = move |_| {
        if let Some(send) = on_action {
            let list: Vec<Value> = ids
                .iter()
                .zip(values.get_untracked())
                .map(|(id, value)| json!({ "id": id, "value": value }))
                .collect();
            send.run(("apply".to_owned(), json!({ "values": list })));
        }
    };
    view! {
        <section class="catalog parameter-slider" data-slot="parameter_slider" data-tool-ui-id=sliders.base.id.clone() aria-label="Parameters">
            {rows}
            <footer class="catalog-actions">
                <button type="button" class="button ghost" data-action="reset" disabled=on_action.is_none()
                    on:click=move |_| values.set(starting.clone())>"Reset"</button>
                <button type="button" class="button primary" data-action="apply" disabled=on_action.is_none() on:click=apply>"Apply"</button>
            </footer>
        </section>
    }
}
