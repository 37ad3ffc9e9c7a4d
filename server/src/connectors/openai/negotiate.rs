//! What the console settles with an OpenAI-compatible endpoint on first use: which API
//! it speaks (Responses when it answers it, else Chat Completions, unless configured) and
//! which model to ask (configured, else the first `GET /models` lists), and why — shown in
//! the context pane. Failures are worded for the operator.

use std::sync::Mutex;

use app::protocol::openai::OpenAiApi;
use serde_json::Value;

use super::spec::{ApiChoice, OpenAiSpec};
use crate::connectors::Host;
use crate::connectors::reach::{scrub_url, url_without_credentials};
use crate::connectors::sse_stream::SendError;

pub struct Negotiation {
    api: Mutex<Option<(OpenAiApi, String)>>,
    model: Mutex<Option<String>>,
    /// The base the APIs answer under, once found.
    base: Mutex<Option<String>>,
}

fn protocol_name(api: OpenAiApi) -> &'static str {
    match api {
        OpenAiApi::Responses => "OpenAI Responses",
        OpenAiApi::Chat => "OpenAI Chat Completions",
    }
}

impl Negotiation {
    pub fn new(choice: ApiChoice, model: Option<String>) -> Self {
        let api = match choice {
            ApiChoice::Negotiate => None,
            ApiChoice::Responses => Some((
                OpenAiApi::Responses,
                "set by api=responses in the configuration".to_owned(),
            )),
            ApiChoice::Chat => Some((
                OpenAiApi::Chat,
                "set by api=chat in the configuration".to_owned(),
            )),
        };
        Self {
            api: Mutex::new(api),
            model: Mutex::new(model),
            base: Mutex::new(None),
        }
    }

    /// The base the APIs are under: the configured URL, or that URL with `/v1` when it
    /// lists no models itself and `{url}/v1` does (a runtime's origin given for its OpenAI
    /// base). Found once; the note says so the time `/v1` is added.
    pub async fn base(
        &self,
        host: &Host,
        spec: &OpenAiSpec,
        key: Option<&str>,
    ) -> (String, Option<String>) {
        if let Some(base) = self.base.lock().ok().and_then(|base| base.clone()) {
            return (base, None);
        }
        let configured = spec.url.clone();
        let versioned = reqwest::Url::parse(&configured).is_ok_and(|url| {
            url.path_segments()
                .and_then(|mut segments| segments.next_back())
                .is_some_and(|last| {
                    last.len() > 1
                        && last.starts_with('v')
                        && last[1..].bytes().all(|b| b.is_ascii_digit())
                })
        });
        let mut found = (configured.clone(), None);
        // Settled once the endpoint answered; an endpoint that did not is asked again.
        let mut settled = true;
        if !versioned {
            match lists_models(host, &configured, key).await {
                Some(true) => {}
                listed => {
                    let with_v1 = format!("{configured}/v1");
                    match lists_models(host, &with_v1, key).await {
                        Some(true) => {
                            found = (
                                with_v1.clone(),
                                Some(format!(
                                    "The endpoint answers under /v1: runs go to {} (the configured URL {} lists no models; give the /v1 URL to skip this check)",
                                    url_without_credentials(&with_v1),
                                    url_without_credentials(&configured)
                                )),
                            );
                        }
                        again => settled = listed.is_some() && again.is_some(),
                    }
                }
            }
        }
        if settled && let Ok(mut known) = self.base.lock() {
            *known = Some(found.0.clone());
        }
        found
    }

    /// The base as the context pane shows it: found, else as configured.
    pub fn shown_base(&self, spec: &OpenAiSpec) -> String {
        let base = self.base.lock().ok().and_then(|base| base.clone());
        url_without_credentials(base.as_deref().unwrap_or(&spec.url))
    }

    /// The API settled on, if one is.
    pub fn api(&self) -> Option<OpenAiApi> {
        self.api.lock().ok()?.as_ref().map(|(api, _)| *api)
    }

    /// Records the API the endpoint answered and why.
    pub fn settle(&self, api: OpenAiApi, because: String) {
        if let Ok(mut settled) = self.api.lock() {
            *settled = Some((api, because));
        }
    }

    /// The protocol as the context pane shows it, and why it was chosen.
    pub fn shown(&self) -> (String, String) {
        let settled = self.api.lock().ok().and_then(|settled| settled.clone());
        let model = self.model.lock().ok().and_then(|model| model.clone());
        let (protocol, because) = match settled {
            Some((api, because)) => (protocol_name(api).to_owned(), because),
            None => (
                "OpenAI-compatible".to_owned(),
                "not asked yet: the first run tries the Responses API, then Chat Completions"
                    .to_owned(),
            ),
        };
        match model {
            Some(model) => (format!("{protocol} (model {model})"), because),
            None => (protocol, because),
        }
    }

    /// The model to ask: configured, or the first the endpoint lists.
    pub async fn model(
        &self,
        host: &Host,
        spec: &OpenAiSpec,
        base: &str,
        key: Option<&str>,
    ) -> Result<String, String> {
        if let Some(model) = self.model.lock().ok().and_then(|model| model.clone()) {
            return Ok(model);
        }
        let url = format!("{base}/models");
        let shown = url_without_credentials(&url);
        let mut request = host.http.get(&url);
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        let response = tokio::time::timeout(host.timeouts.first_byte, request.send())
            .await
            .map_err(|_| {
                format!(
                    "the endpoint at {shown} did not list its models within {} s",
                    host.timeouts.first_byte.as_secs_f64()
                )
            })?
            .map_err(|error| {
                let error = error.without_url().to_string();
                format!(
                    "the endpoint at {shown} is unreachable: {}",
                    scrub_url(&error, &url)
                )
            })?;
        let status = response.status().as_u16();
        if status == 401 {
            return Err(refused_key(key.is_some()));
        }
        if !response.status().is_success() {
            return Err(format!(
                "the endpoint did not list its models (GET {shown} answered {status}); set model= for agent {:?}",
                spec.name
            ));
        }
        let listed: Value = response.json().await.map_err(|error| {
            format!(
                "the endpoint's model list is not JSON ({}); set model= for agent {:?}",
                error.without_url(),
                spec.name
            )
        })?;
        let model = listed
            .get("data")
            .and_then(Value::as_array)
            .and_then(|models| models.iter().find_map(|model| model.get("id")?.as_str()))
            .map(str::to_owned)
            .ok_or_else(|| {
                format!(
                    "the endpoint lists no models; set model= for agent {:?}",
                    spec.name
                )
            })?;
        if let Ok(mut known) = self.model.lock() {
            *known = Some(model.clone());
        }
        Ok(model)
    }
}

/// Whether `GET {base}/models` answers a model list (a web page answering every GET does
/// not); `None` when nothing answered.
async fn lists_models(host: &Host, base: &str, key: Option<&str>) -> Option<bool> {
    let mut request = host.http.get(format!("{base}/models"));
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    let response = tokio::time::timeout(host.timeouts.first_byte, request.send())
        .await
        .ok()?
        .ok()?;
    if !response.status().is_success() {
        return Some(false);
    }
    Some(
        response
            .json::<Value>()
            .await
            .is_ok_and(|listed| listed.get("data").is_some_and(Value::is_array)),
    )
}

fn refused_key(has_key: bool) -> String {
    if has_key {
        "the endpoint refused the API key (401)".to_owned()
    } else {
        "the endpoint wants an API key (401); name the variable that holds it with api_key_env="
            .to_owned()
    }
}

/// Why a request got no stream, for the operator.
pub fn worded(error: SendError, api: OpenAiApi, has_key: bool) -> String {
    let (status, detail) = match error {
        SendError::Unanswered(message) => return message,
        SendError::Status { status, detail } => (status, detail),
    };
    let detail = if detail.is_empty() {
        String::new()
    } else {
        format!(": {detail}")
    };
    let tries = super::RETRIES + 1;
    match status {
        401 => refused_key(has_key),
        403 => format!("the endpoint refused access (403){detail}"),
        404 | 405 | 501 => format!(
            "the endpoint has no {} API ({status}){detail}",
            protocol_name(api)
        ),
        429 => format!(
            "the endpoint is rate-limiting requests (429) and still was after {tries} tries{detail}"
        ),
        500..=599 => format!("the endpoint failed (HTTP {status}) {tries} times in a row{detail}"),
        _ => format!("the endpoint refused the request (HTTP {status}){detail}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_worded_for_the_operator() {
        let status = |status: u16, detail: &str| SendError::Status {
            status,
            detail: detail.into(),
        };
        assert_eq!(
            worded(
                status(401, "Incorrect API key provided: sk-…"),
                OpenAiApi::Responses,
                true
            ),
            "the endpoint refused the API key (401)"
        );
        assert!(worded(status(401, ""), OpenAiApi::Chat, false).contains("api_key_env"));
        assert_eq!(
            worded(status(429, "slow down"), OpenAiApi::Chat, true),
            "the endpoint is rate-limiting requests (429) and still was after 4 tries: slow down"
        );
        assert!(
            worded(status(503, ""), OpenAiApi::Chat, true)
                .starts_with("the endpoint failed (HTTP 503)")
        );
        assert_eq!(
            worded(
                SendError::Unanswered("the agent at x is unreachable".into()),
                OpenAiApi::Chat,
                true
            ),
            "the agent at x is unreachable"
        );
    }

    #[test]
    fn the_context_pane_says_what_was_chosen_and_why() {
        let negotiation = Negotiation::new(ApiChoice::Negotiate, Some("m".into()));
        assert!(negotiation.shown().1.contains("not asked yet"));
        negotiation.settle(OpenAiApi::Chat, "no Responses".into());
        assert_eq!(
            negotiation.shown(),
            (
                "OpenAI Chat Completions (model m)".to_owned(),
                "no Responses".to_owned()
            )
        );
        let fixed = Negotiation::new(ApiChoice::Responses, None);
        assert_eq!(fixed.api(), Some(OpenAiApi::Responses));
    }
}
