//! Recorded upstream streams (AG-UI SSE or JSONL, Hermes transcripts, OpenAI Responses
//! and Chat Completions bodies) read whole: the
//! offline path shared by the replay tool, the fixture tests and the benchmark.

use super::agui::{AgUiConfig, AgUiNormalizer};
use super::channel::{EventDraft, RunEvent, RunRef, Sequencer};
use super::hermes::{HermesNormalizer, parse_transcript_line};
use super::openai::{OpenAiApi, OpenAiNormalizer};
use super::sse::normalize_body;

/// What a recorded file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordedFormat {
    /// An AG-UI response body: `data: {…}` frames.
    AgUiSse,
    /// AG-UI events, one JSON object a line.
    AgUiJsonl,
    /// Hermes JSON-RPC frames or transcript records, one a line.
    Hermes,
    /// A streamed OpenAI Chat Completions body (`chat.completion.chunk` frames).
    OpenAiChat,
    /// A streamed OpenAI Responses body (`response.*` events).
    OpenAiResponses,
}

/// Guesses the format from the first meaningful line.
pub fn detect_format(bytes: &[u8]) -> RecordedFormat {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(64 * 1024)]);
    let first = text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with(':'))
        .unwrap_or_default();
    let first = first.trim_start_matches('\u{feff}');
    if first.starts_with("event: response.") || first.starts_with("event:response.") {
        return RecordedFormat::OpenAiResponses;
    }
    if first.starts_with("data:") {
        let data = first.trim_start_matches("data:").trim_start();
        if data.contains("\"chat.completion.chunk\"") {
            return RecordedFormat::OpenAiChat;
        }
        if data.starts_with("{\"type\":\"response.") || data.starts_with("{\"type\": \"response.") {
            return RecordedFormat::OpenAiResponses;
        }
    }
    if first.starts_with("data:") || first.starts_with("event:") || first.starts_with("id:") {
        RecordedFormat::AgUiSse
    } else if first.contains("\"jsonrpc\"") || first.contains("\"dir\"") {
        RecordedFormat::Hermes
    } else {
        RecordedFormat::AgUiJsonl
    }
}

/// Normalizes a whole recorded stream, ending it as a live stream would end.
pub fn normalize_recorded(bytes: &[u8], config: AgUiConfig) -> Vec<EventDraft> {
    let mut out = Vec::new();
    match detect_format(bytes) {
        RecordedFormat::AgUiSse => {
            normalize_body(&mut AgUiNormalizer::new(config), bytes, &mut out)
        }
        RecordedFormat::AgUiJsonl => {
            let mut normalizer = AgUiNormalizer::new(config);
            for line in String::from_utf8_lossy(bytes).lines() {
                if !line.trim().is_empty() {
                    normalizer.push_json(line, &mut out);
                }
            }
            normalizer.finish(&mut out);
        }
        RecordedFormat::OpenAiChat | RecordedFormat::OpenAiResponses => {
            let api = if detect_format(bytes) == RecordedFormat::OpenAiChat {
                OpenAiApi::Chat
            } else {
                OpenAiApi::Responses
            };
            normalize_body(&mut OpenAiNormalizer::new(api), bytes, &mut out);
        }
        RecordedFormat::Hermes => {
            let mut normalizer = HermesNormalizer::new();
            for line in String::from_utf8_lossy(bytes).lines() {
                if line.trim().is_empty() {
                    continue;
                }
                match parse_transcript_line(line) {
                    Ok(record) if record.from_gateway => {
                        normalizer.push_value(record.message, &mut out)
                    }
                    Ok(record) => normalizer.push_client_frame(&record.message, &mut out),
                    // Counts as an upstream line so later positions stay right.
                    Err(_) => normalizer.push_line(line, &mut out),
                }
            }
            normalizer.finish(&mut out);
        }
    }
    out
}

/// Places drafts into a run, numbering them 1, 2, 3…; `now_ms` fills missing times.
pub fn place_all(run: RunRef, drafts: Vec<EventDraft>, now_ms: i64) -> Vec<RunEvent> {
    let mut sequencer = Sequencer::new(run);
    drafts
        .into_iter()
        .map(|draft| sequencer.place(draft, now_ms))
        .collect()
}
