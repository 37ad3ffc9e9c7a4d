//! The reader every schema goes through: one JSON object, the path that leads to it, and
//! typed accessors whose errors name the field and the reason.

use serde_json::{Map, Value};

use super::values::{finite, http_url, inline_image, is_color, is_css_length, is_currency_code};
use super::values::{is_date, is_datetime};
use super::values::{names, shown, snake, whole};
use super::{Choice, Invalid};

const COLOR: &str = "a CSS colour such as #3b82f6 or var(--chart-1)";

/// One JSON object of a payload and the path that leads to it.
pub(crate) struct Fields<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

impl<'a> Fields<'a> {
    /// `value` as an object found at `path`.
    pub(crate) fn of(value: &'a Value, path: impl Into<String>) -> Result<Self, Invalid> {
        let path = path.into();
        match value {
            Value::Object(map) => Ok(Self { map, path }),
            other => Err(Invalid::new(
                path,
                format!("must be an object (got {})", shown(other)),
            )),
        }
    }

    /// Where this object sits in the payload.
    pub(crate) fn path(&self) -> &str {
        &self.path
    }

    pub(crate) fn map(&self) -> &'a Map<String, Value> {
        self.map
    }

    /// The path of `key` as the payload spells it: tool-ui's camelCase, or the snake_case
    /// agents written in Python tend to send.
    pub(crate) fn path_of(&self, key: &str) -> String {
        let spelled = self
            .found(key)
            .map_or_else(|| key.to_owned(), |(name, _)| name);
        if self.path.is_empty() {
            spelled
        } else {
            format!("{}.{spelled}", self.path)
        }
    }

    pub(crate) fn invalid(&self, key: &str, reason: impl Into<String>) -> Invalid {
        Invalid::new(self.path_of(key), reason)
    }

    /// The value under `key` (camelCase first, then snake_case). `null` counts as absent:
    /// agents often send it for an optional field they leave unset.
    pub(crate) fn get(&self, key: &str) -> Option<&'a Value> {
        self.found(key).map(|(_, value)| value)
    }

    fn found(&self, key: &str) -> Option<(String, &'a Value)> {
        let present = |name: &str| self.map.get(name).filter(|v| !v.is_null());
        match present(key) {
            Some(value) => Some((key.to_owned(), value)),
            None => snake(key).and_then(|alias| present(&alias).map(|value| (alias, value))),
        }
    }

    fn typed<T>(
        &self,
        key: &str,
        want: &str,
        read: impl FnOnce(&'a Value) -> Option<T>,
    ) -> Result<Option<T>, Invalid> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        read(value)
            .map(Some)
            .ok_or_else(|| self.invalid(key, format!("must be {want} (got {})", shown(value))))
    }

    fn need<T>(&self, key: &str, found: Option<T>, what: &str) -> Result<T, Invalid> {
        found.ok_or_else(|| self.invalid(key, format!("required, {what}")))
    }

    /// A required string with something besides whitespace in it.
    pub(crate) fn text(&self, key: &str) -> Result<String, Invalid> {
        let found = self.opt_text(key)?.filter(|t| !t.trim().is_empty());
        self.need(key, found, "a non-empty string")
    }

    /// A required string that may be empty (code, a command's output).
    pub(crate) fn string(&self, key: &str) -> Result<String, Invalid> {
        let found = self.opt_text(key)?;
        self.need(key, found, "a string")
    }

    pub(crate) fn opt_text(&self, key: &str) -> Result<Option<String>, Invalid> {
        self.typed(key, "a string", |v| v.as_str().map(str::to_owned))
    }

    /// An optional string that, when given, is not blank.
    pub(crate) fn opt_nonblank(&self, key: &str) -> Result<Option<String>, Invalid> {
        match self.opt_text(key)? {
            Some(text) if text.trim().is_empty() => {
                Err(self.invalid(key, "must be a non-empty string when given"))
            }
            found => Ok(found),
        }
    }

    pub(crate) fn number(&self, key: &str) -> Result<f64, Invalid> {
        let found = self.opt_number(key)?;
        self.need(key, found, "a number")
    }

    pub(crate) fn opt_number(&self, key: &str) -> Result<Option<f64>, Invalid> {
        self.typed(key, "a finite number", finite)
    }

    /// An optional number strictly above zero.
    pub(crate) fn opt_positive(&self, key: &str) -> Result<Option<f64>, Invalid> {
        match self.opt_number(key)? {
            Some(n) if n <= 0.0 => {
                Err(self.invalid(key, format!("must be greater than 0 (got {n})")))
            }
            found => Ok(found),
        }
    }

    /// An optional number at or above zero.
    pub(crate) fn opt_non_negative(&self, key: &str) -> Result<Option<f64>, Invalid> {
        match self.opt_number(key)? {
            Some(n) if n < 0.0 => Err(self.invalid(key, format!("must be 0 or more (got {n})"))),
            found => Ok(found),
        }
    }

    pub(crate) fn int(&self, key: &str) -> Result<i64, Invalid> {
        let found = self.typed(key, "a whole number", whole)?;
        self.need(key, found, "a whole number")
    }

    /// An optional whole number of at least `min`.
    pub(crate) fn opt_int(&self, key: &str, min: i64) -> Result<Option<i64>, Invalid> {
        match self.typed(key, "a whole number", whole)? {
            Some(n) if n < min => {
                Err(self.invalid(key, format!("must be at least {min} (got {n})")))
            }
            found => Ok(found),
        }
    }

    pub(crate) fn opt_bool(&self, key: &str) -> Result<Option<bool>, Invalid> {
        self.typed(key, "true or false", Value::as_bool)
    }

    pub(crate) fn bool_or(&self, key: &str, default: bool) -> Result<bool, Invalid> {
        Ok(self.opt_bool(key)?.unwrap_or(default))
    }

    /// One of `T`'s spellings; `default` when absent, or an error when there is none.
    pub(crate) fn one_of<T: Choice>(&self, key: &str, default: Option<T>) -> Result<T, Invalid> {
        let found = self.opt_one_of(key)?.or(default);
        self.need(key, found, &format!("one of {}", names::<T>()))
    }

    pub(crate) fn opt_one_of<T: Choice>(&self, key: &str) -> Result<Option<T>, Invalid> {
        let want = format!("one of {}", names::<T>());
        self.typed(key, &want, |v| {
            let text = v.as_str()?;
            T::ALL
                .iter()
                .find(|(name, _)| *name == text)
                .map(|(_, choice)| *choice)
        })
    }

    /// A required absolute http(s) URL: the only kind a link, image or media source may be.
    pub(crate) fn href(&self, key: &str) -> Result<String, Invalid> {
        let found = self.opt_href(key)?;
        self.need(key, found, "an http(s) URL")
    }

    pub(crate) fn opt_href(&self, key: &str) -> Result<Option<String>, Invalid> {
        self.typed(key, "an absolute http(s) URL", |v| {
            v.as_str().and_then(http_url)
        })
    }

    /// A required image address: an absolute http(s) URL, or an inline `data:image/…` one
    /// (it loads nothing from the network, and a browser runs no script in an image).
    pub(crate) fn image_src(&self, key: &str) -> Result<String, Invalid> {
        let found = self.typed(
            key,
            "an absolute http(s) URL or an inline data:image URL",
            |v| {
                v.as_str()
                    .and_then(|text| http_url(text).or_else(|| inline_image(text)))
            },
        )?;
        self.need(key, found, "an http(s) URL or an inline data:image URL")
    }

    /// A required ISO 8601 date-time with a zone, as `z.string().datetime()` expects.
    pub(crate) fn datetime(&self, key: &str) -> Result<String, Invalid> {
        let want = "an ISO 8601 date-time such as 2026-02-04T10:00:00Z";
        let found = self.typed(key, want, |v| {
            v.as_str().filter(|t| is_datetime(t)).map(str::to_owned)
        })?;
        self.need(key, found, "an ISO 8601 date-time")
    }

    /// An optional ISO 8601 date-time or calendar date: when media was made or a source
    /// published is often known only to the day.
    pub(crate) fn opt_date(&self, key: &str) -> Result<Option<String>, Invalid> {
        let want = "an ISO 8601 date or date-time such as 2026-02-04 or 2026-02-04T10:00:00Z";
        self.typed(key, want, |v| {
            v.as_str()
                .filter(|t| is_date(t) || is_datetime(t))
                .map(str::to_owned)
        })
    }

    /// An optional CSS colour. It lands in a style attribute, so it may not carry anything
    /// that closes the declaration or loads a resource.
    pub(crate) fn opt_color(&self, key: &str) -> Result<Option<String>, Invalid> {
        self.typed(key, COLOR, |v| {
            v.as_str().filter(|c| is_color(c)).map(str::to_owned)
        })
    }

    /// An optional list of at most `max` CSS colours.
    pub(crate) fn opt_colors(&self, key: &str, max: usize) -> Result<Option<Vec<String>>, Invalid> {
        let Some(items) = self.array(key, max)? else {
            return Ok(None);
        };
        self.each(key, items, COLOR, |v| {
            v.as_str().filter(|c| is_color(c)).map(str::to_owned)
        })
        .map(Some)
    }

    /// An optional CSS length for a width or height.
    pub(crate) fn opt_css_length(&self, key: &str) -> Result<Option<String>, Invalid> {
        self.typed(key, "a CSS length such as 120px", |v| {
            v.as_str().filter(|l| is_css_length(l)).map(str::to_owned)
        })
    }

    pub(crate) fn opt_currency(&self, key: &str) -> Result<Option<String>, Invalid> {
        self.typed(key, "a three-letter ISO 4217 code such as USD", |v| {
            v.as_str()
                .filter(|c| is_currency_code(c))
                .map(str::to_owned)
        })
    }

    /// Optional fraction digits, at most the 20 `Intl.NumberFormat` accepts.
    pub(crate) fn opt_decimals(&self, key: &str) -> Result<Option<i64>, Invalid> {
        match self.opt_int(key, 0)? {
            Some(d) if d > 20 => Err(self.invalid(key, format!("must be at most 20 (got {d})"))),
            found => Ok(found),
        }
    }

    pub(crate) fn opt_object(&self, key: &str) -> Result<Option<Fields<'a>>, Invalid> {
        self.get(key)
            .map(|v| Fields::of(v, self.path_of(key)))
            .transpose()
    }

    pub(crate) fn object(&self, key: &str) -> Result<Fields<'a>, Invalid> {
        let found = self.opt_object(key)?;
        self.need(key, found, "an object")
    }

    fn array(&self, key: &str, max: usize) -> Result<Option<&'a Vec<Value>>, Invalid> {
        let Some(items) = self.typed(key, "a list", Value::as_array)? else {
            return Ok(None);
        };
        if items.len() > max {
            let reason = format!("must have at most {max} items (got {})", items.len());
            return Err(self.invalid(key, reason));
        }
        Ok(Some(items))
    }

    /// A required list of between `min` and `max` objects.
    pub(crate) fn list(
        &self,
        key: &str,
        min: usize,
        max: usize,
    ) -> Result<Vec<Fields<'a>>, Invalid> {
        let plural = if min == 1 { "item" } else { "items" };
        let Some(items) = self.array(key, max)? else {
            let reason = match min {
                0 => "required, a list".to_owned(),
                _ => format!("required, a list of at least {min} {plural}"),
            };
            return Err(self.invalid(key, reason));
        };
        if items.len() < min {
            let reason = format!("must have at least {min} {plural} (got {})", items.len());
            return Err(self.invalid(key, reason));
        }
        self.objects(key, items)
    }

    /// An optional list of at most `max` objects; absent reads as empty.
    pub(crate) fn opt_list(&self, key: &str, max: usize) -> Result<Vec<Fields<'a>>, Invalid> {
        match self.array(key, max)? {
            Some(items) => self.objects(key, items),
            None => Ok(Vec::new()),
        }
    }

    fn objects(&self, key: &str, items: &'a [Value]) -> Result<Vec<Fields<'a>>, Invalid> {
        let path = self.path_of(key);
        items
            .iter()
            .enumerate()
            .map(|(i, item)| Fields::of(item, format!("{path}[{i}]")))
            .collect()
    }

    /// An optional list of at most `max` non-empty strings.
    pub(crate) fn opt_strings(
        &self,
        key: &str,
        max: usize,
    ) -> Result<Option<Vec<String>>, Invalid> {
        let Some(items) = self.array(key, max)? else {
            return Ok(None);
        };
        self.each(key, items, "a non-empty string", |v| {
            v.as_str()
                .filter(|t| !t.trim().is_empty())
                .map(str::to_owned)
        })
        .map(Some)
    }

    /// An optional list of at most `max` finite numbers.
    pub(crate) fn opt_numbers(&self, key: &str, max: usize) -> Result<Option<Vec<f64>>, Invalid> {
        let Some(items) = self.array(key, max)? else {
            return Ok(None);
        };
        self.each(key, items, "a finite number", finite).map(Some)
    }

    fn each<T>(
        &self,
        key: &str,
        items: &'a [Value],
        want: &str,
        read: impl Fn(&'a Value) -> Option<T>,
    ) -> Result<Vec<T>, Invalid> {
        let path = self.path_of(key);
        let reason = |v: &Value| format!("must be {want} (got {})", shown(v));
        items
            .iter()
            .enumerate()
            .map(|(i, v)| read(v).ok_or_else(|| Invalid::new(format!("{path}[{i}]"), reason(v))))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_snake_case_field_is_read_and_named_as_sent() {
        let value = json!({"maxVisibleTodos": null, "max_visible_todos": 0});
        let fields = Fields::of(&value, "").expect("object");
        let refused = fields
            .opt_int("maxVisibleTodos", 1)
            .expect_err("below the minimum");
        assert_eq!(
            refused.to_string(),
            "max_visible_todos: must be at least 1 (got 0)"
        );
    }

    #[test]
    fn a_null_field_reads_as_absent() {
        let value = json!({"description": null});
        let fields = Fields::of(&value, "").expect("object");
        assert_eq!(fields.opt_text("description"), Ok(None));
        assert_eq!(
            fields.text("description").map_err(|e| e.to_string()),
            Err("description: required, a non-empty string".to_owned())
        );
    }

    #[test]
    fn an_item_that_is_not_an_object_names_its_index() {
        let value = json!({"todos": [{}, 3]});
        let fields = Fields::of(&value, "plan").expect("object");
        let refused = fields.list("todos", 1, 10).err().map(|e| e.to_string());
        assert_eq!(
            refused.as_deref(),
            Some("plan.todos[1]: must be an object (got 3)")
        );
    }
}
