//! Checks on single JSON values the schemas share, and how errors quote a value.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Choice, Invalid};

/// Refuses a second item in the list at `list_path` whose `field` (or, with `field` empty,
/// whose value) repeats an earlier one's: ids key selections, values and rendered rows, so
/// a repeat makes them ambiguous.
pub(crate) fn unique<'x>(
    list_path: &str,
    field: &str,
    values: impl IntoIterator<Item = &'x str>,
) -> Result<(), Invalid> {
    let at = |i: usize| match field {
        "" => format!("{list_path}[{i}]"),
        _ => format!("{list_path}[{i}].{field}"),
    };
    let mut seen = BTreeMap::new();
    for (i, value) in values.into_iter().enumerate() {
        if let Some(first) = seen.insert(value, i) {
            let reason = format!("repeats {} ({})", at(first), shown(&Value::from(value)));
            return Err(Invalid::new(at(i), reason));
        }
    }
    Ok(())
}

/// A value as an error quotes it: short, and never the whole of a hostile string.
pub(crate) fn shown(value: &Value) -> String {
    const LIMIT: usize = 40;
    match value {
        Value::String(text) if text.chars().count() > LIMIT => {
            let head: String = text.chars().take(LIMIT).collect();
            format!("{}…", Value::String(head))
        }
        Value::Array(_) => "a list".to_owned(),
        Value::Object(_) => "an object".to_owned(),
        other => other.to_string(),
    }
}

pub(crate) fn names<T: Choice>() -> String {
    T::ALL
        .iter()
        .map(|(name, _)| *name)
        .collect::<Vec<_>>()
        .join(", ")
}

pub(crate) fn snake(key: &str) -> Option<String> {
    key.contains(|c: char| c.is_ascii_uppercase()).then(|| {
        let mut out = String::with_capacity(key.len() + 4);
        for c in key.chars() {
            if c.is_ascii_uppercase() {
                out.push('_');
                out.push(c.to_ascii_lowercase());
            } else {
                out.push(c);
            }
        }
        out
    })
}

pub(crate) fn finite(value: &Value) -> Option<f64> {
    value.as_f64().filter(|n| n.is_finite())
}

/// Whole numbers JSON can carry exactly, written as `3` or `3.0`.
pub(crate) fn whole(value: &Value) -> Option<i64> {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    value.as_i64().or_else(|| {
        value
            .as_f64()
            .filter(|n| n.fract() == 0.0 && n.abs() <= EXACT)
            .map(|n| n as i64)
    })
}

pub(crate) fn http_url(text: &str) -> Option<String> {
    let url = crate::markdown::safe_media_src(text)?;
    let rest = url.split_once("//").map_or("", |(_, rest)| rest);
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let has_host = !host.is_empty() && !host.contains(char::is_whitespace);
    has_host.then_some(url)
}

/// An inline raster or SVG image (`data:image/png;base64,…`), kept whole.
pub(crate) fn inline_image(text: &str) -> Option<String> {
    const TYPES: [&str; 5] = ["png", "jpeg", "gif", "webp", "svg+xml"];
    let rest = text.strip_prefix("data:image/")?;
    let kind = rest.split([';', ',']).next()?;
    (TYPES.contains(&kind) && !text.chars().any(char::is_control)).then(|| text.to_owned())
}

pub(crate) fn is_datetime(text: &str) -> bool {
    use time::format_description::well_known::Rfc3339;
    time::OffsetDateTime::parse(text, &Rfc3339).is_ok()
}

/// A calendar date, `YYYY-MM-DD`, that exists.
pub(crate) fn is_date(text: &str) -> bool {
    let mut parts = text.splitn(3, '-');
    let (Some(year), Some(month), Some(day)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let digits =
        |part: &str, len: usize| part.len() == len && part.bytes().all(|b| b.is_ascii_digit());
    if !(digits(year, 4) && digits(month, 2) && digits(day, 2)) {
        return false;
    }
    let (Ok(year), Ok(month), Ok(day)) = (year.parse(), month.parse::<u8>(), day.parse()) else {
        return false;
    };
    time::Month::try_from(month)
        .and_then(|month| time::Date::from_calendar_date(year, month, day))
        .is_ok()
}

pub(crate) fn is_color(text: &str) -> bool {
    let allowed = |c: char| c.is_ascii_alphanumeric() || " #(),.%-/".contains(c);
    !text.trim().is_empty()
        && text.len() <= 64
        && text.chars().all(allowed)
        && !text.to_ascii_lowercase().contains("url(")
}

/// A CSS length such as `120px` or `30%`, held to characters that cannot close a style
/// declaration.
pub(crate) fn is_css_length(text: &str) -> bool {
    let allowed = |c: char| c.is_ascii_alphanumeric() || " .%()+-*/".contains(c);
    !text.trim().is_empty() && text.len() <= 32 && text.chars().all(allowed)
}

/// An ISO 4217 code, as `Intl.NumberFormat` takes it.
pub(crate) fn is_currency_code(text: &str) -> bool {
    text.len() == 3 && text.chars().all(|c| c.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_absolute_http_urls_pass_as_links_or_sources() {
        for good in [
            "https://example.com/a.png",
            "HTTP://example.com",
            "https://h?x=1",
        ] {
            assert!(http_url(good).is_some(), "{good}");
        }
        for bad in [
            "javascript:alert(1)",
            "data:image/png;base64,AA",
            "mailto:a@b.c",
            "https://",
            "/a.png",
            "https:///x",
        ] {
            assert!(http_url(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_long_value_is_quoted_short_in_errors() {
        let long = "x".repeat(500);
        assert_eq!(shown(&Value::String(long)).chars().count(), 43);
    }

    #[test]
    fn a_colour_that_could_break_out_of_its_style_is_refused() {
        assert!(is_color("#3b82f6") && is_color("var(--chart-1)") && is_color("rgb(1, 2, 3)"));
        assert!(
            !is_color("red; background: url(x)") && !is_color("url(x.png)") && !is_color("\"red\"")
        );
    }

    #[test]
    fn a_date_must_exist_on_the_calendar() {
        assert!(is_date("2024-02-29") && is_date("2017-12-01"));
        assert!(!is_date("2023-02-29") && !is_date("2017-13-01") && !is_date("17-12-01"));
        assert!(!is_date("2017-12-01T00:00:00Z") && is_datetime("2017-12-01T00:00:00Z"));
    }

    #[test]
    fn a_fractional_or_huge_number_is_not_whole() {
        assert_eq!(whole(&json!(3.0)), Some(3));
        assert_eq!(whole(&json!(2.5)), None);
        assert_eq!(whole(&json!(1e300)), None);
    }
}
