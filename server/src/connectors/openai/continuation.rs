//! A Responses runtime's own resume form: a runtime whose bootstrap document offers it
//! (`"resume": "previous_response_id"`) and that kept the paused response (its
//! `response.created` says `"store": true`) is resumed by naming that response and
//! sending only the answers after it. One that cannot continue it (it lost it in a
//! restart, its retention passed) is sent the whole conversation instead.

use serde_json::Value;

use crate::store::UpstreamEvent;

/// How many of a paused run's first raw frames are searched for its `response.created`,
/// which a Responses stream sends first (a proxy's or an undecodable frame may precede it).
pub const KEPT_RESPONSE_WITHIN: u32 = 8;

/// The id of the response a run streamed, when the runtime said it keeps it.
pub fn kept_response(upstream: &[UpstreamEvent]) -> Option<String> {
    upstream.iter().find_map(|event| {
        let frame: Value = serde_json::from_str(app::protocol::sse::kept_data(&event.body)).ok()?;
        if frame.get("type")?.as_str()? != "response.created" {
            return None;
        }
        let response = frame.get("response")?;
        if response.get("store") != Some(&Value::Bool(true)) {
            return None;
        }
        response.get("id")?.as_str().map(str::to_owned)
    })
}

/// Whether the whole conversation is to be sent after a continuation was refused before
/// any byte with `status`: the runtime lost the response (OpenAI answers 400
/// `previous_response_not_found`, others 404), or cannot continue it (422, or failing
/// after its retries); the whole form needs nothing kept.
pub fn refused(status: u16) -> bool {
    matches!(status, 400 | 404 | 422) || status >= 500
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upstream(bodies: &[&str]) -> Vec<UpstreamEvent> {
        bodies
            .iter()
            .enumerate()
            .map(|(position, body)| UpstreamEvent {
                position: position as u64,
                body: (*body).to_owned(),
            })
            .collect()
    }

    #[test]
    fn only_a_response_the_runtime_says_it_keeps_is_continued() {
        let kept = upstream(&[
            "(undecodable SSE frame: bad)",
            r#"{"type":"response.created","response":{"id":"resp_1","store":true}}"#,
            r#"{"type":"response.incomplete","response":{"id":"resp_1"}}"#,
        ]);
        assert_eq!(kept_response(&kept), Some("resp_1".into()));
        for unkept in [
            r#"{"type":"response.created","response":{"id":"resp_2","store":false}}"#,
            r#"{"type":"response.created","response":{"id":"resp_3"}}"#,
            r#"{"type":"response.in_progress","response":{"id":"resp_4","store":true}}"#,
        ] {
            assert_eq!(kept_response(&upstream(&[unkept])), None, "{unkept}");
        }
    }
}
