//! A runtime's bootstrap document: `GET {base}/bootstrap`, read once, says which
//! transports it offers beyond the OpenAI APIs (AG-UI, at a URL of its own) and which
//! capabilities it has. The console takes AG-UI when it is offered and its first run
//! starts; a capability reported absent is only said, never used to hide what arrives.
//!
//! The document is JSON; `transports` is either an object keyed by name or a list of
//! names or `{type|name, url}`; AG-UI goes by `agui`, `ag-ui` or `ag_ui`, its URL relative
//! to the document's (default `{base}/agui`) and on the document's own origin: the API key
//! goes with each run, so a document cannot send it to another host. `capabilities` is an
//! object of flags.
//! `"resume": "previous_response_id"` says the runtime's own resume form: a paused
//! response is continued by its id.

use serde_json::Value;

use crate::connectors::Host;

/// What the console learnt from the document.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bootstrap {
    /// Where the runtime takes AG-UI runs, if it offers them.
    pub agui: Option<String>,
    /// Capabilities the runtime says it lacks.
    pub absent: Vec<String>,
    /// Whether it resumes a paused response in its own form: the response named by
    /// `previous_response_id`, continued (`"resume": "previous_response_id"`).
    pub continues_responses: bool,
}

fn is_agui(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "agui" | "ag-ui" | "ag_ui"
    )
}

/// Reads a document found at `document_url`.
pub fn parse(document: &Value, document_url: &str) -> Bootstrap {
    let resolve = |url: Option<&str>| -> Option<String> {
        let base = reqwest::Url::parse(document_url).ok()?;
        let joined = match url {
            Some(url) => base.join(url).ok()?,
            None => base.join("agui").ok()?,
        };
        (matches!(joined.scheme(), "http" | "https") && joined.origin() == base.origin())
            .then(|| joined.to_string())
    };
    let url_of = |entry: &Value| {
        entry
            .get("url")
            .or_else(|| entry.get("endpoint"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let agui = match document.get("transports") {
        Some(Value::Object(transports)) => transports
            .iter()
            .find(|(name, entry)| {
                is_agui(name) && !matches!(entry, Value::Bool(false) | Value::Null)
            })
            .map(|(_, entry)| resolve(url_of(entry).as_deref())),
        Some(Value::Array(transports)) => transports
            .iter()
            .find(|entry| match entry {
                Value::String(name) => is_agui(name),
                entry => entry
                    .get("type")
                    .or_else(|| entry.get("name"))
                    .and_then(Value::as_str)
                    .is_some_and(is_agui),
            })
            .map(|entry| resolve(url_of(entry).as_deref())),
        _ => None,
    }
    .flatten();
    let absent = document
        .get("capabilities")
        .and_then(Value::as_object)
        .map(|flags| {
            flags
                .iter()
                .filter(|(_, on)| **on == Value::Bool(false))
                .map(|(name, _)| name.clone())
                .collect()
        })
        .unwrap_or_default();
    let continues_responses =
        document.get("resume").and_then(Value::as_str) == Some("previous_response_id");
    Bootstrap {
        agui,
        absent,
        continues_responses,
    }
}

/// Asks the runtime for its document; none (or one that cannot be read) is an empty one:
/// the console then speaks the OpenAI APIs.
pub async fn read(host: &Host, base: &str, key: Option<&str>) -> Bootstrap {
    let url = format!("{base}/bootstrap");
    let mut request = host.http.get(&url);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    let Ok(Ok(response)) = tokio::time::timeout(host.timeouts.first_byte, request.send()).await
    else {
        return Bootstrap::default();
    };
    if !response.status().is_success() {
        return Bootstrap::default();
    }
    match response.json::<Value>().await {
        Ok(document) => parse(&document, &url),
        Err(_) => Bootstrap::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const AT: &str = "http://127.0.0.1:9/rt/v1/bootstrap";

    #[test]
    fn ag_ui_is_found_in_either_form_and_its_url_resolved() {
        let keyed = json!({"transports": {"agui": {"url": "/demo/agent"}, "responses": {}}});
        assert_eq!(
            parse(&keyed, AT).agui.as_deref(),
            Some("http://127.0.0.1:9/demo/agent")
        );
        let listed = json!({"transports": ["responses", {"type": "ag-ui"}]});
        assert_eq!(
            parse(&listed, AT).agui.as_deref(),
            Some("http://127.0.0.1:9/rt/v1/agui")
        );
        let named = json!({"transports": ["AG_UI"]});
        assert!(parse(&named, AT).agui.is_some());
    }

    #[test]
    fn no_ag_ui_means_none_and_absent_capabilities_are_listed() {
        let document = json!({"transports": {"agui": false, "responses": true},
                              "capabilities": {"approvals": false, "reasoning": true}});
        let read = parse(&document, AT);
        assert_eq!(read.agui, None);
        assert_eq!(read.absent, ["approvals"]);
        assert_eq!(
            parse(&json!({"transports": {"agui": {"url": "ftp://x/y"}}}), AT).agui,
            None
        );
        assert_eq!(parse(&json!("not an object"), AT), Bootstrap::default());
    }

    #[test]
    fn an_ag_ui_endpoint_on_another_origin_is_not_taken_so_the_key_stays_home() {
        for elsewhere in [
            "https://evil.example/agui",
            "//evil.example/agui",
            "http://127.0.0.1:10/agui",
            "https://127.0.0.1:9/agui",
            "http://evil.example\\@127.0.0.1:9/agui",
        ] {
            let document = json!({"transports": {"agui": {"url": elsewhere}}});
            assert_eq!(parse(&document, AT).agui, None, "{elsewhere}");
        }
    }

    #[test]
    fn a_runtime_says_it_continues_its_own_responses_only_in_words_it_means() {
        let says = json!({"transports": {"responses": {}}, "resume": "previous_response_id"});
        assert!(parse(&says, AT).continues_responses);
        for silent in [
            json!({}),
            json!({"resume": true}),
            json!({"resume": "agui"}),
        ] {
            assert!(!parse(&silent, AT).continues_responses, "{silent}");
        }
    }
}
