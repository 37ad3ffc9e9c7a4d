//! Data binding: a component's property is a literal, `{"path": …}` into the surface's
//! data model (absolute, or relative to the template item it is drawn for), or a call of
//! one of the basic catalog's functions. Resolution never fails: what cannot be resolved
//! is null, and null shows as "".

use serde_json::{Map, Value};

use super::pointer;
use super::template::{self, Argument, Expression, Piece};

/// Where relative paths are resolved: the template item a component is drawn for.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Scope {
    /// The item's pointer (`/tasks/0`), or `""` outside any template.
    pub base: String,
    /// The item's position in its list (`@index`).
    pub index: Option<usize>,
}

impl Scope {
    /// Item `index` of the list at absolute pointer `list`.
    pub fn item(list: &str, index: usize) -> Self {
        Self {
            base: pointer::join(list, &index.to_string()),
            index: Some(index),
        }
    }

    /// The absolute pointer `path` names from here.
    pub fn absolute(&self, path: &str) -> String {
        if path.starts_with('/') {
            return path.to_owned();
        }
        let relative = path.trim_start_matches("./");
        if relative.is_empty() || relative == "." {
            return if self.base.is_empty() {
                "/".into()
            } else {
                self.base.clone()
            };
        }
        format!("{}/{relative}", self.base)
    }

    /// The value `path` names from here (`@index` is the item's position).
    pub fn lookup(&self, data: &Value, path: &str) -> Value {
        if path == "@index" {
            return self.index.map_or(Value::Null, Value::from);
        }
        pointer::get(data, &self.absolute(path))
            .cloned()
            .unwrap_or(Value::Null)
    }
}

/// The bound path of a property written by an input (`{"path": …}`), made absolute.
pub fn bound_path(value: &Value, scope: &Scope) -> Option<String> {
    let path = value.get("path")?.as_str()?;
    (path != "@index").then(|| scope.absolute(path))
}

/// The value a property stands for.
pub fn resolve(value: &Value, data: &Value, scope: &Scope) -> Value {
    let Value::Object(fields) = value else {
        return value.clone();
    };
    if let Some(Value::String(path)) = fields.get("path") {
        return scope.lookup(data, path);
    }
    if let Some(Value::String(name)) = fields.get("call") {
        let args = match fields.get("args") {
            Some(Value::Object(args)) => args
                .iter()
                .map(|(name, value)| (name.clone(), argument(value, data, scope)))
                .collect(),
            _ => Map::new(),
        };
        return call(name, &args, data, scope, 0);
    }
    if let Some(truth) = logic(fields, data, scope) {
        return Value::Bool(truth);
    }
    value.clone()
}

/// A LogicExpression's `and`, `or`, `not`, `true` or `false` form, if `fields` is one.
fn logic(fields: &Map<String, Value>, data: &Value, scope: &Scope) -> Option<bool> {
    let all = |key: &str| {
        fields.get(key).and_then(Value::as_array).map(|items| {
            items
                .iter()
                .map(|item| truthy(&resolve(item, data, scope)))
                .collect::<Vec<_>>()
        })
    };
    if let Some(values) = all("and") {
        return Some(values.iter().all(|v| *v));
    }
    if let Some(values) = all("or") {
        return Some(values.iter().any(|v| *v));
    }
    if let Some(inner) = fields.get("not") {
        return Some(!truthy(&resolve(inner, data, scope)));
    }
    if fields.get("true") == Some(&Value::Bool(true)) {
        return Some(true);
    }
    if fields.get("false") == Some(&Value::Bool(false)) {
        return Some(false);
    }
    None
}

/// Whether this console evaluates the basic catalog's function `name` (a check calling
/// one it does not is not held against the operator).
pub fn known_function(name: &str) -> bool {
    FUNCTIONS.contains(&name)
}

const FUNCTIONS: &[&str] = &[
    "formatString",
    "formatNumber",
    "formatCurrency",
    "pluralize",
    "not",
    "and",
    "or",
    "required",
    "length",
    "numeric",
    "email",
    "regex",
    "formatDate",
];

/// `number` with `decimals` places, grouped by thousands when `grouping`.
fn format_number(number: f64, decimals: usize, grouping: bool) -> String {
    let fixed = format!("{:.*}", decimals.min(10), number.abs());
    let (whole, fraction) = fixed
        .split_once('.')
        .map_or((fixed.as_str(), None), |(w, f)| (w, Some(f)));
    let mut out = String::new();
    for (n, digit) in whole.chars().enumerate() {
        if grouping && n > 0 && (whole.len() - n) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    if let Some(fraction) = fraction {
        out.push('.');
        out.push_str(fraction);
    }
    if number < 0.0 && number.abs() >= 0.5 * 10f64.powi(-(decimals.min(10) as i32)) {
        out.insert(0, '-');
    }
    out
}

/// A resolved value as text: null is "", a string itself, anything else compact JSON.
pub fn text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        Value::Bool(flag) => flag.to_string(),
        Value::Number(number) => number.to_string(),
        other => other.to_string(),
    }
}

/// A property as text.
pub fn text_of(value: Option<&Value>, data: &Value, scope: &Scope) -> String {
    value.map_or_else(String::new, |value| text(&resolve(value, data, scope)))
}

/// Whether a resolved value counts as true (A2UI's DynamicBoolean).
pub fn truthy(value: &Value) -> bool {
    match value {
        Value::Bool(flag) => *flag,
        Value::Null => false,
        Value::Number(number) => number.as_f64().is_some_and(|n| n != 0.0),
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(_) => true,
    }
}

/// A call's argument as the function reads it: resolved, and a list item by item (the
/// `values` of `and` and `or`). A value read from the data model is never resolved again.
fn argument(value: &Value, data: &Value, scope: &Scope) -> Value {
    match value {
        Value::Array(items) => items
            .iter()
            .map(|item| resolve(item, data, scope))
            .collect(),
        other => resolve(other, data, scope),
    }
}

/// The argument `name` of a call (null when absent).
fn arg(args: &Map<String, Value>, name: &str) -> Value {
    args.get(name).cloned().unwrap_or(Value::Null)
}

/// Deepest a template may expand templates it reads (a data value may be one, or name
/// itself); past it a template is shown as written.
const MOST_TEMPLATE_DEPTH: usize = 8;

/// The basic catalog's functions that compute a value; anything else is null (`openUrl`
/// is an action, drawn by the Button that declares it). A check whose function cannot
/// be evaluated (a malformed pattern) is null too, and not held against the operator.
fn call(name: &str, args: &Map<String, Value>, data: &Value, scope: &Scope, depth: usize) -> Value {
    match name {
        "formatString" => match arg(args, "value") {
            Value::String(template) if depth < MOST_TEMPLATE_DEPTH => {
                Value::String(expand(&template, data, scope, depth))
            }
            other => Value::String(text(&other)),
        },
        "formatNumber" | "formatCurrency" => {
            let Some(number) = arg(args, "value").as_f64().filter(|n| n.is_finite()) else {
                return Value::String(String::new());
            };
            let default_places = if name == "formatCurrency" { 2 } else { 0 };
            let decimals = arg(args, "decimals")
                .as_u64()
                .map_or(default_places, |d| d as usize);
            let grouping = match arg(args, "grouping") {
                Value::Null => true,
                other => truthy(&other),
            };
            let digits = format_number(number, decimals, grouping);
            Value::String(if name == "formatCurrency" {
                format!("{} {digits}", text(&arg(args, "currency")))
            } else {
                digits
            })
        }
        "pluralize" => {
            let count = arg(args, "value").as_f64().unwrap_or(f64::NAN);
            let category = match count {
                0.0 if args.get("zero").is_some() => "zero",
                1.0 => "one",
                2.0 if args.get("two").is_some() => "two",
                _ => "other",
            };
            let chosen = arg(args, category);
            Value::String(text(if chosen.is_null() {
                &Value::Null
            } else {
                &chosen
            }))
        }
        "not" => Value::Bool(!truthy(&arg(args, "value"))),
        "and" | "or" => {
            let values = match args.get("values") {
                Some(Value::Array(values)) => values.iter().map(truthy).collect::<Vec<_>>(),
                _ => Vec::new(),
            };
            Value::Bool(if name == "and" {
                values.iter().all(|v| *v)
            } else {
                values.iter().any(|v| *v)
            })
        }
        "required" => Value::Bool(truthy(&arg(args, "value"))),
        "length" => {
            let count = match arg(args, "value") {
                Value::String(text) => text.chars().count(),
                Value::Array(items) => items.len(),
                _ => 0,
            };
            let min = args.get("min").and_then(Value::as_u64).unwrap_or(0) as usize;
            let max = args
                .get("max")
                .and_then(Value::as_u64)
                .map_or(usize::MAX, |m| m as usize);
            Value::Bool(count >= min && count <= max)
        }
        "numeric" => {
            let number = match arg(args, "value") {
                Value::Number(n) => n.as_f64(),
                Value::String(text) => text.trim().parse::<f64>().ok(),
                _ => None,
            };
            let within = |bound: &str, ok: fn(f64, f64) -> bool| {
                args.get(bound)
                    .and_then(Value::as_f64)
                    .is_none_or(|limit| number.is_some_and(|n| ok(n, limit)))
            };
            Value::Bool(
                number.is_some_and(f64::is_finite)
                    && within("min", |n, l| n >= l)
                    && within("max", |n, l| n <= l),
            )
        }
        "email" => {
            let value = text(&arg(args, "value"));
            let valid = value.split_once('@').is_some_and(|(local, domain)| {
                !local.is_empty()
                    && domain.contains('.')
                    && !domain.starts_with('.')
                    && !domain.ends_with('.')
                    && !value.contains(char::is_whitespace)
            });
            Value::Bool(valid)
        }
        "regex" => {
            let value = text(&arg(args, "value"));
            let pattern = text(&arg(args, "pattern"));
            super::pattern::matches(&pattern, &value).map_or(Value::Null, Value::Bool)
        }
        "formatDate" => {
            let pattern = match arg(args, "format") {
                Value::String(pattern) if !pattern.is_empty() => pattern,
                _ => "yyyy-MM-dd HH:mm".to_owned(),
            };
            super::date::format_date(&arg(args, "value"), &pattern)
                .map_or(Value::Null, Value::String)
        }
        _ => Value::Null,
    }
}

/// `template` with each `${…}` replaced by its value's text: a path (absolute, relative
/// or `@index`) or a call of one of the functions above, whose arguments may nest
/// further expressions ([`template`](super::template)); `\${` stays literal.
pub fn format_string(template: &str, data: &Value, scope: &Scope) -> String {
    expand(template, data, scope, 0)
}

fn expand(template: &str, data: &Value, scope: &Scope, depth: usize) -> String {
    template::parse(template)
        .iter()
        .map(|piece| match piece {
            Piece::Text(plain) => plain.clone(),
            Piece::Expression(expression) => text(&evaluate(expression, data, scope, depth)),
        })
        .collect()
}

fn evaluate(expression: &Expression, data: &Value, scope: &Scope, depth: usize) -> Value {
    match expression {
        Expression::Path(path) => scope.lookup(data, path),
        Expression::Call { name, args } => {
            let args = args
                .iter()
                .map(|(name, argument)| {
                    let value = match argument {
                        Argument::Literal(value) => value.clone(),
                        Argument::Expression(inner) => evaluate(inner, data, scope, depth),
                    };
                    (name.clone(), value)
                })
                .collect();
            call(name, &args, data, scope, depth + 1)
        }
    }
}

/// An action's `context`, each value resolved (an object of name → value).
pub fn resolve_context(context: Option<&Value>, data: &Value, scope: &Scope) -> Map<String, Value> {
    match context {
        Some(Value::Object(fields)) => fields
            .iter()
            .map(|(name, value)| (name.clone(), resolve(value, data, scope)))
            .collect(),
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn data() -> Value {
        json!({"title": "Board", "tasks": [{"line": "one"}, {"line": "two"}], "n": 3})
    }

    #[test]
    fn a_path_is_absolute_or_relative_to_its_template_item() {
        let data = data();
        assert_eq!(
            resolve(&json!({"path": "/title"}), &data, &Scope::default()),
            json!("Board")
        );
        let item = Scope::item("/tasks", 1);
        assert_eq!(
            resolve(&json!({"path": "line"}), &data, &item),
            json!("two")
        );
        assert_eq!(resolve(&json!({"path": "@index"}), &data, &item), json!(1));
        assert_eq!(item.absolute("line"), "/tasks/1/line");
    }

    #[test]
    fn missing_values_show_as_empty_and_objects_as_compact_json() {
        let data = data();
        assert_eq!(
            text_of(Some(&json!({"path": "/nope"})), &data, &Scope::default()),
            ""
        );
        assert_eq!(
            text_of(Some(&json!({"path": "/tasks/0"})), &data, &Scope::default()),
            "{\"line\":\"one\"}"
        );
        assert_eq!(text_of(Some(&json!(3.5)), &data, &Scope::default()), "3.5");
    }

    #[test]
    fn format_string_interpolates_absolute_relative_and_index() {
        let data = data();
        let value = json!({"call": "formatString", "args": {"value": "${@index}: ${line} on ${/title} \\${x} ${/missing}"}});
        assert_eq!(
            resolve(&value, &data, &Scope::item("/tasks", 0)),
            json!("0: one on Board ${x} ")
        );
        assert_eq!(
            format_string("open ${", &data, &Scope::default()),
            "open ${"
        );
    }

    #[test]
    fn format_string_calls_functions_with_nested_expressions() {
        let data = json!({"due": "2026-12-07", "n": 1234.5, "tasks": [{"line": "one"}]});
        let value = json!({"call": "formatString", "args": {"value":
            "Due ${formatDate(value:${/due}, format:'EEE d MMM')}, ${formatNumber(value:${/n}, decimals:1)} — ${pluralize(value:1, one:'one task', other:'tasks')}"}});
        assert_eq!(
            resolve(&value, &data, &Scope::default()),
            json!("Due Mon 7 Dec, 1,234.5 — one task")
        );
        assert_eq!(
            format_string(
                "${formatString(value:'${line} #${@index}')}",
                &data,
                &Scope::item("/tasks", 0)
            ),
            "one #0"
        );
        assert_eq!(
            format_string("${nothing_known()}!", &data, &Scope::default()),
            "!"
        );
    }

    #[test]
    fn a_template_that_names_itself_stops_expanding() {
        let data = json!({"loop": "x${formatString(value:${/loop})}"});
        let shown = format_string("${formatString(value:${/loop})}", &data, &Scope::default());
        assert!(shown.starts_with("xxxxxxx"), "{shown}");
        assert!(shown.len() < 200, "{shown}");
        let value = json!({"call": "formatString", "args": {"value": {"path": "/loop"}}});
        assert!(text(&resolve(&value, &data, &Scope::default())).starts_with("xxx"));
    }

    #[test]
    fn logic_and_check_functions() {
        let data = json!({"email": "ada@example.org", "name": "", "age": "41"});
        let scope = Scope::default();
        let call =
            |name: &str, args: Value| resolve(&json!({"call": name, "args": args}), &data, &scope);
        assert_eq!(
            call("email", json!({"value": {"path": "/email"}})),
            json!(true)
        );
        assert_eq!(
            call("required", json!({"value": {"path": "/name"}})),
            json!(false)
        );
        assert_eq!(
            call("numeric", json!({"value": {"path": "/age"}, "min": 18})),
            json!(true)
        );
        assert_eq!(
            call("length", json!({"value": {"path": "/email"}, "max": 5})),
            json!(false)
        );
        assert_eq!(call("not", json!({"value": false})), json!(true));
        assert_eq!(
            call("and", json!({"values": [true, {"path": "/email"}]})),
            json!(true)
        );
        assert_eq!(call("unheard_of", json!({})), Value::Null);
        let logic = |expression: Value| resolve(&expression, &data, &scope);
        assert_eq!(
            logic(json!({"and": [{"true": true}, {"not": {"true": true}}]})),
            json!(false)
        );
        assert_eq!(
            logic(
                json!({"or": [{"call": "required", "args": {"value": {"path": "/email"}}}, {"false": false}]})
            ),
            json!(true)
        );
        assert_eq!(
            call("formatNumber", json!({"value": 1234567.891, "decimals": 2})),
            json!("1,234,567.89")
        );
        assert_eq!(
            call("formatNumber", json!({"value": -1234, "grouping": false})),
            json!("-1234")
        );
        assert_eq!(
            call("formatCurrency", json!({"value": 12.5, "currency": "EUR"})),
            json!("EUR 12.50")
        );
        assert_eq!(
            call(
                "pluralize",
                json!({"value": 1, "one": "1 task", "other": "many tasks"})
            ),
            json!("1 task")
        );
        assert_eq!(
            call(
                "pluralize",
                json!({"value": 3, "one": "1 task", "other": "many tasks"})
            ),
            json!("many tasks")
        );
        assert_eq!(
            call(
                "regex",
                json!({"value": {"path": "/age"}, "pattern": "^\\d+$"})
            ),
            json!(true)
        );
        assert_eq!(
            call(
                "regex",
                json!({"value": {"path": "/email"}, "pattern": "("})
            ),
            Value::Null
        );
        assert_eq!(
            call(
                "formatDate",
                json!({"value": "2026-02-02T15:17:00Z", "format": "MMM d, h:mm a"})
            ),
            json!("Feb 2, 3:17 PM")
        );
        assert_eq!(call("formatDate", json!({"value": "soon"})), Value::Null);
        assert!(known_function("email") && known_function("regex") && !known_function("openUrl"));
    }

    #[test]
    fn an_action_context_is_resolved_value_by_value() {
        let context = json!({"task": {"path": "line"}, "fixed": 1});
        let resolved = resolve_context(Some(&context), &data(), &Scope::item("/tasks", 0));
        assert_eq!(Value::Object(resolved), json!({"task": "one", "fixed": 1}));
    }
}
