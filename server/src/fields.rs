//! Checks of the text fields requests carry, refused naming the field.

use app::error::ApiError;

/// The text trimmed, or refused (400 naming `field`) when empty or over `most` characters.
pub fn check_text(field: &str, text: &str, most: usize) -> Result<String, ApiError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(ApiError::BadRequest(format!("{field} is empty")));
    }
    if text.chars().count() > most {
        return Err(ApiError::BadRequest(format!(
            "{field} is longer than {most} characters"
        )));
    }
    Ok(text.to_owned())
}
