//! The basic catalog's interactive components. Inputs (TextField, CheckBox, ChoicePicker,
//! Slider, DateTimeInput) write their bound path in the surface's data model, locally;
//! only a Button's declared action goes back to the agent, with its context resolved from
//! the model as the operator left it. A field that would take a secret is not drawn as
//! one: secrets reach agents through secret asks, which keep them out of the record.

use leptos::prelude::*;
use serde_json::{Value, json};

use super::content::choice;
use super::node::{At, Ctx, accessible_label, single};
use crate::a2ui::action::request_for;
use crate::a2ui::bind::{self, bound_path};
use crate::a2ui::pattern;
use crate::catalog::values::http_url;
use crate::components::id_fragment;
use crate::markdown::host_of;

/// A DOM id for the control of the component at `at`.
fn control_id(ctx: Ctx, at: &At) -> String {
    id_fragment(&format!(
        "a2ui-{}-{}-{}",
        ctx.surface_id.get_value(),
        at.id,
        at.scope.base
    ))
}

/// The failing `checks` of a component (each a logic expression with a `message`), as
/// their messages, and a TextField's `validationRegexp`. A check whose function this
/// console does not evaluate, or cannot (a malformed pattern), is skipped.
fn failing_checks(ctx: Ctx, props: &Value, at: &At) -> Vec<String> {
    let mut failing = Vec::new();
    if let Some(Value::String(pattern)) = props.get("validationRegexp") {
        let value = ctx.text(props, "value", &at.scope);
        if !value.is_empty() && pattern::matches(pattern, &value) == Some(false) {
            failing.push("This value is not in the form the agent expects.".to_owned());
        }
    }
    let Some(Value::Array(checks)) = props.get("checks") else {
        return failing;
    };
    let failed = checks.iter().filter(|check| {
        // The catalog's form is `{condition, message}`; an older one put the logic
        // expression itself beside `message`.
        let rule = match check.get("condition") {
            Some(condition) => condition.clone(),
            None => {
                let mut rule = (*check).clone();
                if let Some(fields) = rule.as_object_mut() {
                    fields.remove("message");
                }
                rule
            }
        };
        let calls = rule.get("call").and_then(Value::as_str);
        if calls.is_some_and(|name| !bind::known_function(name)) {
            return false;
        }
        let outcome = ctx.data.with(|data| bind::resolve(&rule, data, &at.scope));
        let not_evaluated = calls.is_some() && outcome.is_null();
        !not_evaluated && !bind::truthy(&outcome)
    });
    failing.extend(failed.map(|check| {
        let text = check
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if text.is_empty() {
            "This value is not accepted.".into()
        } else {
            text.to_owned()
        }
    }));
    failing
}

/// The check messages of a control, spoken with it.
fn check_messages(ctx: Ctx, props: Value, at: At, id: String) -> impl IntoView {
    move || {
        let failing = failing_checks(ctx, &props, &at);
        (!failing.is_empty()).then(|| {
            view! { <span class="a2ui-check error-text" id=format!("{id}-checks")>{failing.join(" ")}</span> }
        })
    }
}

pub(super) fn button(ctx: Ctx, props: Value, at: At) -> AnyView {
    let primary = choice(
        &props,
        "variant",
        &["primary", "default", "borderless"],
        "default",
    );
    let class = match primary {
        "primary" => "button small",
        "borderless" => "button small ghost",
        _ => "button small secondary",
    };
    if let Some(call) = props
        .get("action")
        .and_then(|a| a.get("functionCall"))
        .filter(|call| call.get("call").and_then(Value::as_str) == Some("openUrl"))
    {
        return open_url(ctx, call.clone(), &props, at, class);
    }
    let event_action = props.get("action").and_then(|a| a.get("event")).is_some();
    let label = accessible_label(ctx, &props, &at.scope);
    let checked = {
        let (props, at) = (props.clone(), at.clone());
        move || failing_checks(ctx, &props, &at)
    };
    let why_not = {
        let checked = checked.clone();
        move || {
            if !event_action {
                Some("This button runs a function this console does not have.".to_owned())
            } else if ctx.on_action.is_none() {
                Some("Read-only: you may look at this surface, not act on it.".to_owned())
            } else {
                let failing = checked();
                (!failing.is_empty()).then(|| failing.join(" "))
            }
        }
    };
    let click = {
        let (props, at) = (props.clone(), at.clone());
        move |_| {
            let Some(send) = ctx.on_action else { return };
            let request = ctx.data.with_untracked(|data| {
                request_for(
                    &ctx.surface_id.get_value(),
                    &at.id,
                    &props,
                    data,
                    &at.scope,
                    ctx.send_data_model,
                )
            });
            if let Some(request) = request {
                ctx.notice.set(Some(format!(
                    "Sent \u{201c}{}\u{201d} to the agent.",
                    request.name
                )));
                send.run(request);
            }
        }
    };
    // A button without an event is not disabled: inside a modal's trigger its click opens
    // the modal.
    let disabled = {
        let why_not = why_not.clone();
        move || event_action && why_not().is_some()
    };
    view! {
        <button type="button" class=class aria-label=label data-action=event_action.then_some("event")
            disabled=disabled title=move || why_not().unwrap_or_default() on:click=click>
            {single(ctx, &props, "child", &at)}
        </button>
    }
    .into_any()
}

/// A Button whose action is `openUrl`: a link to a web address, opened in a new tab
/// without telling the page who sent the operator there, and naming where it goes. Any
/// other address (`javascript:`, `data:`, a file) is not opened.
fn open_url(ctx: Ctx, call: Value, props: &Value, at: At, class: &'static str) -> AnyView {
    let target = {
        let scope = at.scope.clone();
        Memo::new(move |_| {
            let url = ctx
                .data
                .with(|data| bind::text(&bind::resolve(&call["args"]["url"], data, &scope)));
            http_url(&url).ok_or(url)
        })
    };
    let href = move || target.get().ok();
    let title = move || match target.get() {
        Ok(url) => format!("Opens {url} in a new tab"),
        Err(url) if url.is_empty() => "The agent gave no address to open.".to_owned(),
        Err(_) => "The agent's address is not a web address, so it is not opened.".to_owned(),
    };
    let host = move || match target.get() {
        Ok(url) => host_of(&url)
            .map(|host| format!(" \u{2197} {host}"))
            .unwrap_or_default(),
        Err(_) => " (not opened)".to_owned(),
    };
    view! {
        <a class=class href=href target="_blank" rel="noopener noreferrer" referrerpolicy="no-referrer"
            aria-label=accessible_label(ctx, props, &at.scope) title=title
            aria-disabled=move || href().is_none().then_some("true") data-action="open-url">
            {single(ctx, props, "child", &at)}
            <span class="a2ui-link-host">{host}</span>
        </a>
    }
    .into_any()
}

pub(super) fn text_field(ctx: Ctx, props: Value, at: At) -> AnyView {
    let variant = choice(
        &props,
        "variant",
        &["shortText", "longText", "number", "obscured"],
        "shortText",
    );
    let id = control_id(ctx, &at);
    let label = {
        let (props, scope) = (props.clone(), at.scope.clone());
        move || ctx.shown(&props, "label", &scope)
    };
    if variant == "obscured" {
        return view! {
            <div class="a2ui-field">
                <label for=id.clone()>{label}</label>
                <input id=id type="password" disabled=true value="" />
                <span class="muted">"This surface asks for a secret in a plain field. Secrets go to agents through a secret ask, which keeps them out of the record; ask the agent for one."</span>
            </div>
        }
        .into_any();
    }
    let Some(target) = props.get("value").and_then(|v| bound_path(v, &at.scope)) else {
        return read_only_value(ctx, props, at, id);
    };
    let current = {
        let (props, scope) = (props.clone(), at.scope.clone());
        move || ctx.text(&props, "value", &scope)
    };
    let write = {
        let target = target.clone();
        move |text: String| {
            let value = if variant == "number" {
                text.trim()
                    .parse::<f64>()
                    .map_or(Value::String(text), |n| json!(n))
            } else {
                Value::String(text)
            };
            ctx.write(&target, value);
        }
    };
    let checks = check_messages(ctx, props.clone(), at.clone(), id.clone());
    let control = if variant == "longText" {
        let write = write.clone();
        view! {
            <textarea id=id.clone() rows="4" prop:value=current aria-describedby=format!("{id}-checks")
                on:input=move |ev| write(event_target_value(&ev))></textarea>
        }
        .into_any()
    } else {
        let kind = if variant == "number" {
            "number"
        } else {
            "text"
        };
        view! {
            <input id=id.clone() type=kind prop:value=current aria-describedby=format!("{id}-checks")
                on:input=move |ev| write(event_target_value(&ev)) />
        }
        .into_any()
    };
    view! {
        <div class="a2ui-field">
            <label for=id.clone()>{label}</label>
            {control}
            {checks}
        </div>
    }
    .into_any()
}

/// A field whose value is fixed (not bound): shown, not editable.
fn read_only_value(ctx: Ctx, props: Value, at: At, id: String) -> AnyView {
    let label = ctx.shown(&props, "label", &at.scope);
    let value = ctx.shown(&props, "value", &at.scope);
    view! {
        <div class="a2ui-field">
            <label for=id.clone()>{label}</label>
            <input id=id type="text" readonly=true value=value />
        </div>
    }
    .into_any()
}

pub(super) fn check_box(ctx: Ctx, props: Value, at: At) -> AnyView {
    let id = control_id(ctx, &at);
    let label = ctx.shown(&props, "label", &at.scope);
    let target = props.get("value").and_then(|v| bound_path(v, &at.scope));
    let checked = {
        let (props, scope) = (props.clone(), at.scope.clone());
        move || bind::truthy(&ctx.value(&props, "value", &scope))
    };
    let editable = target.is_some();
    view! {
        <div class="a2ui-check-box">
            <input id=id.clone() type="checkbox" prop:checked=checked disabled=!editable
                on:change=move |ev| if let Some(target) = &target {
                    ctx.write(target, Value::Bool(event_target_checked(&ev)));
                } />
            <label for=id>{label}</label>
        </div>
    }
    .into_any()
}

/// ChoicePicker: `options: [{label, value}]`; one choice (radio buttons) or several
/// (check boxes), written to the bound path as a list of values.
pub(super) fn choice_picker(ctx: Ctx, props: Value, at: At) -> AnyView {
    let single_choice = choice(
        &props,
        "variant",
        &["mutuallyExclusive", "multipleSelection"],
        "multipleSelection",
    ) == "mutuallyExclusive";
    let id = control_id(ctx, &at);
    let legend = ctx.shown(&props, "label", &at.scope);
    let target = props.get("value").and_then(|v| bound_path(v, &at.scope));
    let options: Vec<(String, String)> = props
        .get("options")
        .and_then(Value::as_array)
        .map(|options| {
            options
                .iter()
                .map(|option| {
                    (
                        ctx.shown(option, "label", &at.scope),
                        ctx.text(option, "value", &at.scope),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let selected = {
        let (props, scope) = (props.clone(), at.scope.clone());
        move || match ctx.value(&props, "value", &scope) {
            Value::Array(values) => values.iter().map(bind::text).collect::<Vec<_>>(),
            Value::Null => Vec::new(),
            other => vec![bind::text(&other)],
        }
    };
    let rows = options
        .into_iter()
        .enumerate()
        .map(|(n, (label, value))| {
            let option_id = format!("{id}-{n}");
            let is_on = {
                let (selected, value) = (selected.clone(), value.clone());
                move || selected().contains(&value)
            };
            let toggle = {
                let (selected, target, value) = (selected.clone(), target.clone(), value.clone());
                move |ev: leptos::ev::Event| {
                    let Some(target) = &target else { return };
                    let on = event_target_checked(&ev);
                    let mut now = if single_choice {
                        Vec::new()
                    } else {
                        selected()
                    };
                    now.retain(|v| v != &value);
                    if on {
                        now.push(value.clone());
                    }
                    ctx.write(target, json!(now));
                }
            };
            let kind = if single_choice { "radio" } else { "checkbox" };
            view! {
                <div class="a2ui-option">
                    <input id=option_id.clone() type=kind name=id.clone() prop:checked=is_on
                        disabled=target.is_none() on:change=toggle />
                    <label for=option_id>{label}</label>
                </div>
            }
        })
        .collect_view();
    view! {
        <fieldset class="a2ui-choices">
            <legend>{legend}</legend>
            {rows}
        </fieldset>
    }
    .into_any()
}

pub(super) fn slider(ctx: Ctx, props: Value, at: At) -> AnyView {
    let id = control_id(ctx, &at);
    let number =
        |value: Value, fallback: f64| value.as_f64().filter(|n| n.is_finite()).unwrap_or(fallback);
    let min = number(ctx.value(&props, "min", &at.scope), 0.0);
    let max = number(ctx.value(&props, "max", &at.scope), 100.0).max(min);
    let label = ctx.shown(&props, "label", &at.scope);
    let target = props.get("value").and_then(|v| bound_path(v, &at.scope));
    let current = {
        let (props, scope) = (props.clone(), at.scope.clone());
        move || {
            let value = ctx.value(&props, "value", &scope);
            value
                .as_f64()
                .filter(|n| n.is_finite())
                .unwrap_or(min)
                .clamp(min, max)
        }
    };
    let shown = current.clone();
    let step = if min.fract() == 0.0 && max.fract() == 0.0 {
        "1"
    } else {
        "any"
    };
    view! {
        <div class="a2ui-slider">
            <label for=id.clone()>{label}</label>
            <input id=id type="range" min=min.to_string() max=max.to_string() step=step
                prop:value=move || current().to_string()
                aria-valuetext=move || shown().to_string()
                disabled=target.is_none()
                on:input=move |ev| if let (Some(target), Ok(n)) = (&target, event_target_value(&ev).parse::<f64>()) {
                    ctx.write(target, json!(n));
                } />
            <output>{move || ctx.shown(&props, "value", &at.scope)}</output>
        </div>
    }
    .into_any()
}

pub(super) fn date_time(ctx: Ctx, props: Value, at: At) -> AnyView {
    let flag =
        |key: &str, fallback: bool| props.get(key).and_then(Value::as_bool).unwrap_or(fallback);
    let (date, time) = (flag("enableDate", false), flag("enableTime", false));
    let kind = match (date, time) {
        (true, true) => "datetime-local",
        (false, true) => "time",
        _ => "date",
    };
    let id = control_id(ctx, &at);
    let label = ctx.shown(&props, "label", &at.scope);
    let target = props.get("value").and_then(|v| bound_path(v, &at.scope));
    let current = {
        let (props, scope) = (props.clone(), at.scope.clone());
        move || ctx.text(&props, "value", &scope)
    };
    let bound = |key: &str| Some(ctx.text(&props, key, &at.scope)).filter(|v| !v.is_empty());
    let (min, max) = (bound("min"), bound("max"));
    view! {
        <div class="a2ui-field">
            <label for=id.clone()>{label}</label>
            <input id=id type=kind prop:value=current disabled=target.is_none() min=min max=max
                on:input=move |ev| if let Some(target) = &target {
                    ctx.write(target, Value::String(event_target_value(&ev)));
                } />
        </div>
    }
    .into_any()
}
