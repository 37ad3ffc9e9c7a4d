//! How the catalog writes numbers and payload colours: grouped, shortened for axes, as
//! exactly as a reader needs; a colour only as a checked `#hex`.

/// `1234567` as "1.2M": short enough for an axis at any magnitude.
pub(super) fn short_number(value: f64) -> String {
    const UNITS: [(f64, &str); 5] = [(1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"), (1.0, "")];
    if !value.is_finite() || value.abs() >= 1e15 {
        return format!("{value:.1e}")
            .replace("inf", "∞")
            .replace("NaN", "—");
    }
    // A hair under a unit (999,960) rounds up to it ("1M", not "1000k").
    let (unit, suffix) = UNITS
        .into_iter()
        .find(|(unit, _)| value.abs() >= unit * 0.99995)
        .unwrap_or((1.0, ""));
    let text = format!("{:.*}", if suffix.is_empty() { 2 } else { 1 }, value / unit);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{}{suffix}", if text == "-0" { "0" } else { text })
}

/// `value` with thousands separators and `decimals` places: 1284 → "1,284"; beyond what an
/// f64 holds exactly, the short form.
pub(super) fn grouped(value: f64, decimals: usize) -> String {
    if !value.is_finite() || value.abs() >= 1e15 {
        return short_number(value);
    }
    let text = format!("{:.*}", decimals.min(8), value.abs());
    let (whole, fraction) = text
        .split_once('.')
        .map_or((text.as_str(), None), |(w, f)| (w, Some(f)));
    let mut out = String::new();
    for (n, digit) in whole.chars().enumerate() {
        if n > 0 && (whole.len() - n) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    if let Some(fraction) = fraction {
        out.push('.');
        out.push_str(fraction);
    }
    // A negative that rounds to zero is shown as zero, not "-0".
    if value < 0.0 && out.bytes().any(|b| (b'1'..=b'9').contains(&b)) {
        format!("-{out}")
    } else {
        out
    }
}

/// A value as exactly as a reader needs it: the places it has (up to six), grouped.
pub(super) fn full_number(value: f64) -> String {
    if value != 0.0 && value.abs() < 1e-4 {
        return format!("{value:e}");
    }
    let plain = format!("{}", value.abs());
    grouped(
        value,
        plain.split_once('.').map_or(0, |(_, f)| f.len()).min(6),
    )
}

/// A payload colour as a `--series` style, kept only in the one form that can carry
/// nothing but a colour.
pub(super) fn colour_style(text: &str) -> Option<String> {
    let digits = text.strip_prefix('#')?;
    (matches!(digits.len(), 3 | 4 | 6 | 8) && digits.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| format!("--series: {text}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_shorten_and_group() {
        assert_eq!(short_number(1_234_567.0), "1.2M");
        assert_eq!(short_number(999_960.0), "1M");
        assert_eq!(short_number(-12.5), "-12.5");
        assert_eq!(short_number(1e308), "1.0e308");
        assert_eq!(grouped(1284.0, 0), "1,284");
        assert_eq!(grouped(-0.001, 2), "0.00");
    }
}
