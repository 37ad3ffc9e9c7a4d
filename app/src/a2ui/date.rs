//! The basic catalog's `formatDate`: a date, a time or both, written with a Unicode TR35
//! pattern (`"E MMM d, yyyy h:mm a"`). A value is shown at the offset it was given in,
//! never moved to the viewer's zone: the server and the browser must draw the same text,
//! and an agent's "09:00+02:00" is not silently turned into another hour. Names are
//! English, the console's language.

use serde_json::Value;
use time::{Date, Month, Weekday};

/// Longest pattern read; the rest of a longer one is dropped.
const MOST_PATTERN_CHARS: usize = 200;
/// Widest a numeric field is padded (`yyyyyyyyyyyyyyyy` would otherwise ask for any width).
const MOST_DIGITS: usize = 10;

/// Hour, minute, second, nanosecond.
type Clock = (u8, u8, u8, u32);

/// A point or a part of one, as the agent wrote it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct When {
    date: Option<Date>,
    clock: Option<Clock>,
    /// Minutes east of UTC, when the value named an offset.
    offset: Option<i32>,
}

/// `value` (an ISO 8601 date, date-time or time, or milliseconds since 1970 as a
/// number) written with `pattern`; `None` when the value is not a date, or the pattern
/// asks for a part the value does not have (the day of a time, the hour of a date).
pub fn format_date(value: &Value, pattern: &str) -> Option<String> {
    let when = match value {
        Value::Number(number) => from_millis(number.as_f64()?)?,
        Value::String(text) => parse(text.trim())?,
        _ => return None,
    };
    let pattern: String = pattern.chars().take(MOST_PATTERN_CHARS).collect();
    write(&when, &pattern)
}

fn from_millis(millis: f64) -> Option<When> {
    if !millis.is_finite() {
        return None;
    }
    let stamp = time::OffsetDateTime::from_unix_timestamp_nanos((millis * 1e6) as i128).ok()?;
    Some(When {
        date: Some(stamp.date()),
        clock: Some((
            stamp.hour(),
            stamp.minute(),
            stamp.second(),
            stamp.nanosecond(),
        )),
        offset: Some(0),
    })
}

/// `2026-02-02`, `2026-02-02T15:17`, `2026-02-02 15:17:00.250Z`, `15:17:00+02:00`, …
fn parse(text: &str) -> Option<When> {
    let (date, rest) = match parse_date(text) {
        Some((date, rest)) => match rest.strip_prefix(['T', 't', ' ']) {
            Some(after) => (Some(date), after),
            None if rest.is_empty() => (Some(date), rest),
            None => return None,
        },
        None => (None, text),
    };
    if rest.is_empty() {
        return date.map(|date| When {
            date: Some(date),
            clock: None,
            offset: None,
        });
    }
    let (clock, rest) = parse_clock(rest)?;
    let offset = parse_offset(rest)?;
    Some(When {
        date,
        clock: Some(clock),
        offset,
    })
}

fn digits(text: &str, count: usize) -> Option<(u32, &str)> {
    let head = text.get(..count)?;
    if !head.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((head.parse().ok()?, &text[count..]))
}

fn parse_date(text: &str) -> Option<(Date, &str)> {
    let (year, rest) = digits(text, 4)?;
    let (month, rest) = digits(rest.strip_prefix('-')?, 2)?;
    let (day, rest) = digits(rest.strip_prefix('-')?, 2)?;
    let month = Month::try_from(u8::try_from(month).ok()?).ok()?;
    let date = Date::from_calendar_date(year as i32, month, u8::try_from(day).ok()?).ok()?;
    Some((date, rest))
}

fn parse_clock(text: &str) -> Option<(Clock, &str)> {
    let (hour, rest) = digits(text, 2)?;
    let (minute, mut rest) = digits(rest.strip_prefix(':')?, 2)?;
    let mut second = 0;
    let mut nanos = 0;
    if let Some(after) = rest.strip_prefix(':') {
        (second, rest) = digits(after, 2)?;
        if let Some(fraction) = rest.strip_prefix(['.', ',']) {
            let width = fraction.bytes().take_while(u8::is_ascii_digit).count();
            if width == 0 {
                return None;
            }
            let kept = &fraction[..width.min(9)];
            nanos = kept.parse::<u32>().ok()? * 10u32.pow(9 - kept.len() as u32);
            rest = &fraction[width..];
        }
    }
    // A leap second (…:60) is shown as written.
    (hour < 24 && minute < 60 && second <= 60)
        .then_some(((hour as u8, minute as u8, second as u8, nanos), rest))
}

/// `Some(None)` for no offset, `Some(Some(minutes))` for `Z` or `±HH:MM`.
fn parse_offset(text: &str) -> Option<Option<i32>> {
    if text.is_empty() {
        return Some(None);
    }
    if text.eq_ignore_ascii_case("z") {
        return Some(Some(0));
    }
    let sign = match text.as_bytes()[0] {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let (hours, rest) = digits(&text[1..], 2)?;
    let rest = rest.strip_prefix(':').unwrap_or(rest);
    let (minutes, rest) = if rest.is_empty() {
        (0, rest)
    } else {
        digits(rest, 2)?
    };
    (rest.is_empty() && hours < 24 && minutes < 60)
        .then_some(Some(sign * (hours * 60 + minutes) as i32))
}

fn write(when: &When, pattern: &str) -> Option<String> {
    let mut out = String::new();
    let chars: Vec<char> = pattern.chars().collect();
    let mut at = 0;
    while at < chars.len() {
        let letter = chars[at];
        if letter == '\'' {
            // '' is an apostrophe; 'text' is text.
            if chars.get(at + 1) == Some(&'\'') {
                out.push('\'');
                at += 2;
                continue;
            }
            at += 1;
            while at < chars.len() {
                if chars[at] == '\'' {
                    if chars.get(at + 1) == Some(&'\'') {
                        out.push('\'');
                        at += 2;
                        continue;
                    }
                    break;
                }
                out.push(chars[at]);
                at += 1;
            }
            at += 1;
            continue;
        }
        if !letter.is_ascii_alphabetic() {
            out.push(letter);
            at += 1;
            continue;
        }
        let width = chars[at..].iter().take_while(|c| **c == letter).count();
        field(&mut out, when, letter, width)?;
        at += width;
    }
    Some(out)
}

fn number(out: &mut String, value: i64, width: usize) {
    let width = width.min(MOST_DIGITS);
    if value < 0 {
        out.push('-');
    }
    out.push_str(&format!("{:0width$}", value.unsigned_abs()));
}

fn field(out: &mut String, when: &When, letter: char, width: usize) -> Option<()> {
    let date = || when.date;
    let clock = || when.clock;
    match letter {
        'y' | 'Y' | 'u' => {
            let year = i64::from(date()?.year());
            if width == 2 {
                number(out, year.rem_euclid(100), 2);
            } else {
                number(out, year, width);
            }
        }
        'M' | 'L' => {
            let month = date()?.month();
            match width {
                1 | 2 => number(out, i64::from(u8::from(month)), width),
                3 => out.push_str(&month_name(month)[..3]),
                4 => out.push_str(month_name(month)),
                _ => out.push_str(&month_name(month)[..1]),
            }
        }
        'd' => number(out, i64::from(date()?.day()), width),
        'D' => number(out, i64::from(date()?.ordinal()), width),
        'E' | 'e' | 'c' => {
            let day = date()?.weekday();
            match width {
                4 => out.push_str(weekday_name(day)),
                5 => out.push_str(&weekday_name(day)[..1]),
                6 => out.push_str(&weekday_name(day)[..2]),
                // e and c with one or two letters are the day's number, Monday first.
                1 | 2 if letter != 'E' => number(out, i64::from(day.number_from_monday()), width),
                _ => out.push_str(&weekday_name(day)[..3]),
            }
        }
        'G' => out.push_str(if date()?.year() > 0 {
            if width == 4 { "Anno Domini" } else { "AD" }
        } else if width == 4 {
            "Before Christ"
        } else {
            "BC"
        }),
        'a' | 'b' | 'B' => out.push_str(if clock()?.0 < 12 { "AM" } else { "PM" }),
        'H' => number(out, i64::from(clock()?.0), width),
        'k' => number(
            out,
            i64::from(if clock()?.0 == 0 { 24 } else { clock()?.0 }),
            width,
        ),
        'K' => number(out, i64::from(clock()?.0 % 12), width),
        'h' => {
            let twelve = clock()?.0 % 12;
            number(out, i64::from(if twelve == 0 { 12 } else { twelve }), width);
        }
        'm' => number(out, i64::from(clock()?.1), width),
        's' => number(out, i64::from(clock()?.2), width),
        'S' => {
            let nanos = format!("{:09}", clock()?.3);
            let shown = width.min(9);
            out.push_str(&nanos[..shown]);
            out.extend(std::iter::repeat_n(
                '0',
                width.min(MOST_DIGITS) - shown.min(MOST_DIGITS),
            ));
        }
        'z' | 'Z' | 'O' | 'v' | 'V' | 'x' | 'X' => {
            // A value without an offset is a local time the agent did not place.
            let Some(minutes) = when.offset else {
                return Some(());
            };
            out.push_str(&offset_text(letter, width, minutes));
        }
        // Letters TR35 reserves that this console does not draw are shown as written.
        other => out.extend(std::iter::repeat_n(other, width)),
    }
    Some(())
}

fn offset_text(letter: char, width: usize, minutes: i32) -> String {
    let sign = if minutes < 0 { '-' } else { '+' };
    let (hours, mins) = (minutes.abs() / 60, minutes.abs() % 60);
    if minutes == 0 && (letter == 'X' || matches!(letter, 'z' | 'O' | 'v' | 'V')) {
        return if letter == 'X' {
            "Z".into()
        } else {
            "UTC".into()
        };
    }
    match letter {
        'z' | 'O' | 'v' | 'V' => {
            if mins == 0 {
                format!("UTC{sign}{hours}")
            } else {
                format!("UTC{sign}{hours}:{mins:02}")
            }
        }
        _ if width == 1 && mins == 0 => format!("{sign}{hours:02}"),
        _ if width == 1 || width == 2 || width == 4 => format!("{sign}{hours:02}{mins:02}"),
        _ => format!("{sign}{hours:02}:{mins:02}"),
    }
}

fn month_name(month: Month) -> &'static str {
    [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ][usize::from(u8::from(month)) - 1]
}

fn weekday_name(day: Weekday) -> &'static str {
    [
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
    ][usize::from(day.number_days_from_monday())]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shown(value: Value, pattern: &str) -> Option<String> {
        format_date(&value, pattern)
    }

    #[test]
    fn a_date_time_is_written_with_the_pattern_at_its_own_offset() {
        assert_eq!(
            shown(json!("2026-02-02T15:17:00Z"), "E MMM d, YYYY h:mm a").as_deref(),
            Some("Mon Feb 2, 2026 3:17 PM")
        );
        assert_eq!(
            shown(
                json!("2026-12-05T09:05:07.25+02:00"),
                "EEEE, d MMMM yyyy HH:mm:ss.SSS xxx"
            )
            .as_deref(),
            Some("Saturday, 5 December 2026 09:05:07.250 +02:00")
        );
        assert_eq!(
            shown(json!("2026-12-05T00:30:00-05:30"), "hh:mm a z").as_deref(),
            Some("12:30 AM UTC-5:30")
        );
        assert_eq!(
            shown(json!("2026-12-05 23:00Z"), "H 'o''clock' z, X").as_deref(),
            Some("23 o'clock UTC, Z")
        );
    }

    #[test]
    fn dates_times_and_milliseconds_each_give_what_they_hold() {
        assert_eq!(
            shown(json!("2024-02-29"), "dd/MM/yy, D").as_deref(),
            Some("29/02/24, 60")
        );
        assert_eq!(shown(json!("15:17"), "HH:mm").as_deref(), Some("15:17"));
        assert_eq!(shown(json!("15:17"), "yyyy"), None, "a time has no year");
        assert_eq!(shown(json!("2026-01-01"), "HH"), None, "a date has no hour");
        assert_eq!(
            shown(json!("2026-01-01"), "MMM d z").as_deref(),
            Some("Jan 1 ")
        );
        assert_eq!(
            shown(json!(86_400_000 + 3_600_000), "yyyy-MM-dd HH:mm X").as_deref(),
            Some("1970-01-02 01:00 Z")
        );
    }

    #[test]
    fn what_is_not_a_date_is_refused() {
        for value in [
            json!("2026-02-30"),
            json!("2026-13-01"),
            json!("25:00"),
            json!("tomorrow"),
            json!("2026-01-01T10:00+99:00"),
            json!("2026-01-01T10:00:00.Z"),
            json!(f64::MAX),
            json!(true),
            json!(null),
        ] {
            assert_eq!(shown(value.clone(), "yyyy"), None, "{value}");
        }
    }

    #[test]
    fn hostile_patterns_stay_bounded() {
        let long = "y".repeat(100_000);
        let written = shown(json!("2026-01-01"), &long).unwrap();
        assert!(
            written.len() <= MOST_PATTERN_CHARS.max(MOST_DIGITS) + 1,
            "{}",
            written.len()
        );
        assert_eq!(
            shown(json!("2026-01-01"), "'unterminated").as_deref(),
            Some("unterminated")
        );
        assert_eq!(
            shown(json!("2026-01-01"), "QQ qq").as_deref(),
            Some("QQ qq")
        );
    }
}
