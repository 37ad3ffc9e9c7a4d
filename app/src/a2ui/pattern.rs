//! The basic catalog's `regex` check and TextField's `validationRegexp`: whether a value
//! contains a match of the agent's pattern, as JavaScript's `RegExp.test` answers it. The
//! matcher runs in time linear in the value (no backtracking), and both the pattern and
//! the value are bounded, so a hostile pattern cannot stall the page as the operator types.

/// Longest pattern compiled; a longer one is not evaluated.
pub const MOST_PATTERN_CHARS: usize = 1_000;
/// Longest value checked; a longer one fails the check.
pub const MOST_VALUE_CHARS: usize = 20_000;
/// Compiled size allowed for one pattern (`a{1000}{1000}` asks for far more).
const MOST_COMPILED_BYTES: usize = 256 * 1024;

/// `Some(true)` when `value` contains a match of `pattern`, `Some(false)` when it does
/// not (or is too long to check), `None` when the pattern cannot be evaluated: too long,
/// malformed, or too large once compiled — the agent's mistake, not held against the
/// operator.
pub fn matches(pattern: &str, value: &str) -> Option<bool> {
    if pattern.chars().count() > MOST_PATTERN_CHARS {
        return None;
    }
    let compiled = regex_lite::RegexBuilder::new(pattern)
        .size_limit(MOST_COMPILED_BYTES)
        .nest_limit(64)
        .build()
        .ok()?;
    if value.chars().count() > MOST_VALUE_CHARS {
        return Some(false);
    }
    Some(compiled.is_match(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_passes_when_it_contains_a_match() {
        assert_eq!(matches(r"^\d{10}$", "1234567890"), Some(true));
        assert_eq!(matches(r"^\d{10}$", "12345"), Some(false));
        assert_eq!(matches("ad", "Ada"), Some(false));
        assert_eq!(matches("(?i)ad", "Ada"), Some(true));
        assert_eq!(matches("[a-z]+@", "ada@example.org"), Some(true));
    }

    #[test]
    fn a_pattern_that_cannot_be_evaluated_is_not_held_against_the_operator() {
        assert_eq!(matches("(unclosed", "x"), None);
        assert_eq!(matches(&"a".repeat(MOST_PATTERN_CHARS + 1), "a"), None);
        assert_eq!(matches("a{1000}{1000}", "a"), None);
        assert_eq!(
            matches(&format!("{}a{}", "(".repeat(200), ")".repeat(200)), "a"),
            None
        );
    }

    #[test]
    fn catastrophic_patterns_finish_and_long_values_fail() {
        // Exponential for a backtracking matcher; linear here.
        let value = format!("{}!", "a".repeat(MOST_VALUE_CHARS - 1));
        assert_eq!(matches("^(a+)+$", &value), Some(false));
        assert_eq!(matches("a", &"a".repeat(MOST_VALUE_CHARS + 1)), Some(false));
    }
}
