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
//!
//! KsADK's hosted runtime serves no such document: it answers
//! `POST {origin}/agentengine/api/v1/GetAgentUiBootstrap` (`{}`) with
//! `Data.HostedChat.Transports[] {Protocol, Endpoint, Capabilities}`, endpoints given as
//! paths on the runtime's origin (the OpenAI base is its `/v1`). That is read when the
//! first document is missing: AG-UI only when it is listed.

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
    /// The runtime is KsADK's (its own bootstrap answered).
    pub ksadk: bool,
}

/// Where KsADK's bootstrap is asked, on the runtime's origin.
pub const KSADK_BOOTSTRAP: &str = "/agentengine/api/v1/GetAgentUiBootstrap";

/// The runtime's root: the OpenAI base without its `/v1`.
pub(crate) fn root_of(base: &str) -> Option<reqwest::Url> {
    let mut url = reqwest::Url::parse(base).ok()?;
    let path = url.path().trim_end_matches('/');
    let root = path.strip_suffix("/v1").unwrap_or(path).to_owned();
    url.set_path(&format!("{root}/"));
    Some(url)
}

/// Reads KsADK's answer to its bootstrap request, asked at `asked_url`.
pub fn parse_ksadk(answer: &Value, asked_url: &str) -> Option<Bootstrap> {
    if answer.get("Code").and_then(Value::as_i64) != Some(0) {
        return None;
    }
    let transports = answer
        .pointer("/Data/HostedChat/Transports")?
        .as_array()?
        .iter()
        .map(|transport| {
            let mut entry = serde_json::json!({
                "type": transport.get("Protocol").cloned().unwrap_or(Value::Null),
            });
            if let Some(endpoint) = transport.get("Endpoint") {
                entry["url"] = endpoint.clone();
            }
            entry
        })
        .collect::<Vec<_>>();
    let agui_flags = answer
        .pointer("/Data/HostedChat/Transports")?
        .as_array()?
        .iter()
        .find(|transport| {
            transport
                .get("Protocol")
                .and_then(Value::as_str)
                .is_some_and(is_agui)
        })
        .and_then(|transport| transport.get("Capabilities").cloned());
    let mut document = serde_json::json!({"transports": transports});
    if let Some(flags) = agui_flags {
        document["capabilities"] = flags;
    }
    let mut read = parse(&document, asked_url);
    read.ksadk = true;
    Some(read)
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
        ksadk: false,
    }
}

/// Asks the runtime for its document (KsADK's bootstrap when there is none); none (or
/// one that cannot be read) is an empty one: the console then speaks the OpenAI APIs.
pub async fn read(host: &Host, base: &str, key: Option<&str>) -> Bootstrap {
    let url = format!("{base}/bootstrap");
    if let Some(document) = answer(host, host.http.get(&url), key).await {
        return parse(&document, &url);
    }
    let Some(asked) =
        root_of(base).and_then(|root| root.join(KSADK_BOOTSTRAP.trim_start_matches('/')).ok())
    else {
        return Bootstrap::default();
    };
    let request = host.http.post(asked.as_str()).json(&serde_json::json!({}));
    answer(host, request, key)
        .await
        .and_then(|answer| parse_ksadk(&answer, asked.as_str()))
        .unwrap_or_default()
}

/// A JSON answer to `request`, or None (refused, unreachable, not JSON).
async fn answer(host: &Host, request: reqwest::RequestBuilder, key: Option<&str>) -> Option<Value> {
    let request = match key {
        Some(key) => request.bearer_auth(key),
        None => request,
    };
    let response = tokio::time::timeout(host.timeouts.first_byte, request.send())
        .await
        .ok()?
        .ok()?;
    if !response.status().is_success() {
        return None;
    }
    response.json::<Value>().await.ok()
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

    fn ksadk_answer() -> Value {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/peers/ksadk/05_bootstrap.response.json"
        );
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
    }

    #[test]
    fn ksadk_s_bootstrap_lists_ag_ui_on_the_runtime_s_origin() {
        let asked = "http://127.0.0.1:8741/agentengine/api/v1/GetAgentUiBootstrap";
        let read = parse_ksadk(&ksadk_answer(), asked).unwrap();
        assert!(read.ksadk);
        assert_eq!(
            read.agui.as_deref(),
            Some("http://127.0.0.1:8741/agentengine/agui")
        );
        assert_eq!(read.absent, ["Interrupt"]);
        assert_eq!(
            root_of("http://127.0.0.1:8741/v1").unwrap().as_str(),
            "http://127.0.0.1:8741/"
        );
        assert_eq!(
            root_of("http://h:1/rt/v1/").unwrap().as_str(),
            "http://h:1/rt/"
        );
    }

    #[test]
    fn a_ksadk_bootstrap_without_ag_ui_or_that_failed_offers_none() {
        let asked = "http://127.0.0.1:8741/agentengine/api/v1/GetAgentUiBootstrap";
        let mut only_responses = ksadk_answer();
        let transports = only_responses
            .pointer_mut("/Data/HostedChat/Transports")
            .unwrap()
            .as_array_mut()
            .unwrap();
        transports.retain(|t| t["Protocol"] != "ag-ui");
        let read = parse_ksadk(&only_responses, asked).unwrap();
        assert_eq!(read.agui, None);
        assert!(read.ksadk);
        let mut failed = ksadk_answer();
        failed["Code"] = json!(500);
        assert_eq!(parse_ksadk(&failed, asked), None);
        assert_eq!(parse_ksadk(&json!({"Code": 0}), asked), None);
    }
}
