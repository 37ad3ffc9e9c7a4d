//! `parameter_slider`: numeric parameters the user tunes before applying them.

use serde::Serialize;
use serde_json::Value;

use super::actions::{self, ResponseActions};
use super::{Base, Fields, Invalid, unique};

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParameterSlider {
    #[serde(flatten)]
    pub base: Base,
    pub sliders: Vec<Slider>,
    pub response_actions: Option<ResponseActions>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Slider {
    pub id: String,
    pub label: String,
    pub min: f64,
    pub max: f64,
    pub step: Option<f64>,
    pub value: f64,
    pub unit: Option<String>,
    /// Decimals shown.
    pub precision: Option<i64>,
}

const MAX_SLIDERS: usize = 20;
/// More decimals than an f64 carries would only show noise.
const MAX_PRECISION: i64 = 15;

pub fn parse(value: &Value) -> Result<ParameterSlider, Invalid> {
    let fields = Fields::of(value, "")?;
    let base = Base::identity(&fields)?;
    let sliders = fields
        .list("sliders", 1, MAX_SLIDERS)?
        .iter()
        .map(slider)
        .collect::<Result<Vec<_>, _>>()?;
    unique(
        &fields.path_of("sliders"),
        "id",
        sliders.iter().map(|s| s.id.as_str()),
    )?;
    Ok(ParameterSlider {
        base,
        sliders,
        response_actions: actions::read(&fields, "responseActions")?,
    })
}

fn slider(fields: &Fields<'_>) -> Result<Slider, Invalid> {
    let id = fields.text("id")?;
    let label = fields.text("label")?;
    let min = fields.number("min")?;
    let max = fields.number("max")?;
    if min >= max {
        return Err(fields.invalid(
            "max",
            format!("must be greater than min, {min} (got {max})"),
        ));
    }
    let step = fields.opt_positive("step")?;
    if let Some(step) = step.filter(|step| *step > max - min) {
        return Err(fields.invalid(
            "step",
            format!("must not exceed the range, {} (got {step})", max - min),
        ));
    }
    let value = fields.number("value")?;
    if !(min..=max).contains(&value) {
        return Err(fields.invalid(
            "value",
            format!("must be within {min}..{max} (got {value})"),
        ));
    }
    let precision = fields.opt_int("precision", 0)?;
    if let Some(p) = precision.filter(|p| *p > MAX_PRECISION) {
        return Err(fields.invalid(
            "precision",
            format!("must be at most {MAX_PRECISION} (got {p})"),
        ));
    }
    Ok(Slider {
        id,
        label,
        min,
        max,
        step,
        value,
        unit: fields.opt_text("unit")?,
        precision,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::refusal;
    use serde_json::json;

    fn sliders(slider: Value) -> Value {
        json!({"id": "parameter-slider-audio", "sliders": [slider]})
    }

    #[test]
    fn a_slider_within_its_range_is_read() {
        let panel = parse(&sliders(
            json!({"id": "gain", "label": "Gain", "min": -12, "max": 12, "step": 0.5,
            "value": 3, "unit": "dB", "precision": 1}),
        ))
        .expect("valid");
        assert_eq!(
            panel.sliders.first().map(|s| (s.value, s.step)),
            Some((3.0, Some(0.5)))
        );
    }

    #[test]
    fn a_slider_whose_min_is_not_below_its_max_is_refused() {
        let refused = refusal(parse(&sliders(
            json!({"id": "g", "label": "G", "min": 5, "max": 5, "value": 5}),
        )));
        assert_eq!(
            refused,
            "sliders[0].max: must be greater than min, 5 (got 5)"
        );
    }

    #[test]
    fn a_value_outside_the_range_is_refused() {
        let refused = refusal(parse(&sliders(
            json!({"id": "g", "label": "G", "min": 0, "max": 10, "value": 11}),
        )));
        assert_eq!(refused, "sliders[0].value: must be within 0..10 (got 11)");
    }

    #[test]
    fn a_step_of_zero_is_refused() {
        let refused = refusal(parse(&sliders(
            json!({"id": "g", "label": "G", "min": 0, "max": 1, "step": 0, "value": 0}),
        )));
        assert_eq!(refused, "sliders[0].step: must be greater than 0 (got 0)");
    }

    #[test]
    fn a_fractional_precision_is_refused() {
        let refused = refusal(parse(&sliders(
            json!({"id": "g", "label": "G", "min": 0, "max": 1, "value": 0, "precision": 1.5}),
        )));
        assert_eq!(
            refused,
            "sliders[0].precision: must be a whole number (got 1.5)"
        );
    }

    #[test]
    fn a_slider_without_a_value_is_refused() {
        let refused = refusal(parse(&sliders(
            json!({"id": "g", "label": "G", "min": 0, "max": 1}),
        )));
        assert_eq!(refused, "sliders[0].value: required, a number");
    }
}
