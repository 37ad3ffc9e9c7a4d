//! An AG-UI run's stream: one POST of the RunAgentInput (never sent twice: it starts the
//! run), its Server-Sent Events read through the shared SSE reader.

use app::protocol::agui::{AgUiConfig, AgUiNormalizer};
use app::protocol::limits::excerpt;
use serde_json::Value;

use crate::connectors::sse_stream::{self, SendError, StreamRequest};
use crate::connectors::{Host, RunOptions};

/// What reads the answer to RunAgentInput `input`.
pub(crate) fn normalizer(input: &Value, options: RunOptions) -> AgUiNormalizer {
    AgUiNormalizer::new(AgUiConfig {
        verify: !options.skip_verification,
        ..AgUiConfig::from_run_input(input)
    })
}

/// Reads one AG-UI response into the store. Never panics and never hangs on a broken
/// agent: every way it can end becomes an event.
pub(super) async fn drive(
    host: &Host,
    tenant_id: &str,
    run_id: &str,
    (url, bearer): (&str, Option<&str>),
    input: Value,
    options: RunOptions,
) {
    let request = StreamRequest {
        url,
        body: &input,
        bearer,
        retries: 0,
    };
    let outcome = match sse_stream::send(host, &request).await {
        Ok(response) => {
            if input.get("parentRunId").is_some() {
                crate::fault::crash_point("after-resume-sent");
            }
            let mut normalizer = normalizer(&input, options);
            sse_stream::read(host, tenant_id, run_id, url, response, &mut normalizer).await
        }
        Err(SendError::Status { status, detail }) => Err(format!(
            "the agent answered HTTP {}: {}",
            reqwest::StatusCode::from_u16(status)
                .map_or_else(|_| status.to_string(), |code| code.to_string()),
            excerpt(&detail, 300)
        )),
        Err(SendError::Unanswered(message)) => Err(message),
    };
    if let Err(message) = outcome {
        sse_stream::fail(host, tenant_id, run_id, message, "agent_unreachable").await;
    }
}
