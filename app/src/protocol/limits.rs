//! Input limits shared by every adapter, so hostile input is refused before parsing.

/// The largest upstream event accepted.
pub const MAX_EVENT_BYTES: usize = 8 * 1024 * 1024;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    #[error("event of {bytes} bytes exceeds the {limit} byte limit")]
    TooLarge { bytes: usize, limit: usize },
}

/// Refuses an event over [`MAX_EVENT_BYTES`]. Nesting depth is bounded by serde_json's
/// recursion limit (128), which reports an error instead of overflowing the stack.
pub fn check(text: &str) -> Result<(), LimitError> {
    if text.len() > MAX_EVENT_BYTES {
        return Err(LimitError::TooLarge {
            bytes: text.len(),
            limit: MAX_EVENT_BYTES,
        });
    }
    Ok(())
}

/// The first `max` characters of `text`, cut at a character boundary, for error items.
pub fn excerpt(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}
