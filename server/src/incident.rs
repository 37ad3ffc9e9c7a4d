//! Incidents: a failure whose detail goes to the log under a short id, while the client is
//! told only that it happened and the id to look it up by.

/// A new incident id: eight hex digits, enough to find one line in a day's log.
pub fn new_id() -> String {
    let id = uuid::Uuid::new_v4().simple().to_string();
    id[..8].to_owned()
}

/// What a caught panic said, when it said anything.
pub fn panic_text(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("a panic without a message")
}
