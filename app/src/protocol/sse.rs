//! Incremental Server-Sent Events decoder: bytes in any split, frames out.

use std::ops::Range;

/// The largest frame accepted; a bigger one is reported and skipped, never buffered.
pub const MAX_FRAME_BYTES: usize = 8 * 1024 * 1024;

/// One dispatched SSE event, borrowed from the batch that holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SseFrame<'a> {
    /// The `event:` field, when present.
    pub event: Option<&'a str>,
    /// The `id:` field, when present.
    pub id: Option<&'a str>,
    /// All `data:` lines joined with `\n`.
    pub data: &'a str,
}

impl SseFrame<'_> {
    /// The frame as the store keeps it: its data, after its event name when it has one
    /// (some agents name their events only there). [`kept_data`] reads the data back.
    pub fn kept_text(&self) -> String {
        match self.event {
            Some(event) => format!("event: {event}\ndata: {}", self.data),
            None => self.data.to_owned(),
        }
    }
}

/// The data of a frame as [`SseFrame::kept_text`] kept it.
pub fn kept_data(kept: &str) -> &str {
    match kept.strip_prefix("event: ") {
        Some(named) => named.split_once("\ndata: ").map_or(named, |(_, data)| data),
        None => kept,
    }
}

/// A frame that could not be decoded; later frames are unaffected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    #[error("SSE frame is not valid UTF-8 (at byte {0} of the line)")]
    InvalidUtf8(usize),
    #[error("SSE frame exceeds the {limit} byte limit")]
    TooLarge { limit: usize },
}

/// Where one frame's fields lie in its batch's text.
#[derive(Clone, Debug)]
struct FrameSpan {
    event: Option<Range<usize>>,
    id: Option<Range<usize>>,
    data: Range<usize>,
}

/// The frames decoded so far, in order: their text is kept in one buffer, which keeps
/// its capacity across [`SseFrames::clear`], so a long stream decodes without an
/// allocation per frame.
#[derive(Debug, Default)]
pub struct SseFrames {
    text: String,
    frames: Vec<Result<FrameSpan, SseError>>,
}

impl SseFrames {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.frames.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// The frames (or the decoder's error for each), oldest first.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Result<SseFrame<'_>, SseError>> + '_ {
        self.frames.iter().map(|frame| {
            frame
                .as_ref()
                .map(|span| SseFrame {
                    event: span.event.clone().map(|range| &self.text[range]),
                    id: span.id.clone().map(|range| &self.text[range]),
                    data: &self.text[span.data.clone()],
                })
                .map_err(Clone::clone)
        })
    }

    /// Forgets every frame, keeping the buffers for the next ones.
    pub fn clear(&mut self) {
        self.text.clear();
        self.frames.clear();
    }

    fn keep(&mut self, field: &str) -> Range<usize> {
        let start = self.text.len();
        self.text.push_str(field);
        start..self.text.len()
    }

    fn push(&mut self, event: Option<&str>, id: Option<&str>, data: &str) {
        let span = FrameSpan {
            event: event.map(|event| self.keep(event)),
            id: id.map(|id| self.keep(id)),
            data: self.keep(data),
        };
        self.frames.push(Ok(span));
    }

    fn push_error(&mut self, error: SseError) {
        self.frames.push(Err(error));
    }
}

/// Feeds bytes as they arrive; yields complete frames. Handles CR, LF and CRLF line ends
/// (also a CRLF split across reads), UTF-8 split across reads, a leading BOM, comments,
/// multi-line data and the optional space after the colon.
#[derive(Debug, Default)]
pub struct SseDecoder {
    line: Vec<u8>,
    data: String,
    has_data: bool,
    event: String,
    has_event: bool,
    id: Option<String>,
    frame_bytes: usize,
    oversized: bool,
    frame_error: Option<SseError>,
    last_was_cr: bool,
    started: bool,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Decodes `bytes`, appending finished frames (or per-frame errors) to `out`.
    pub fn feed(&mut self, mut bytes: &[u8], out: &mut SseFrames) {
        if !self.started {
            if bytes.is_empty() {
                return;
            }
            // A BOM may itself arrive split; only strip it when whole in the first read.
            if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
                bytes = rest;
            }
            self.started = true;
        }
        while !bytes.is_empty() {
            if self.last_was_cr {
                self.last_was_cr = false;
                if bytes[0] == b'\n' {
                    bytes = &bytes[1..];
                    continue;
                }
            }
            match memchr::memchr2(b'\n', b'\r', bytes) {
                Some(end) => {
                    let part = &bytes[..end];
                    self.last_was_cr = bytes[end] == b'\r';
                    if self.line.is_empty() {
                        // The whole line is in this read: decode it where it lies.
                        let line = if self.count_line_bytes(part.len()) {
                            part
                        } else {
                            &[]
                        };
                        self.decode_line(line, out);
                    } else {
                        self.take_line_bytes(part);
                        self.end_line(out);
                    }
                    bytes = &bytes[end + 1..];
                }
                None => {
                    self.take_line_bytes(bytes);
                    bytes = &[];
                }
            }
        }
    }

    /// Counts `len` more bytes of the frame; false once the frame is over the limit.
    fn count_line_bytes(&mut self, len: usize) -> bool {
        if self.oversized || len == 0 {
            return !self.oversized;
        }
        self.frame_bytes += len;
        if self.frame_bytes > MAX_FRAME_BYTES {
            self.oversized = true;
            self.line.clear();
            self.data.clear();
            return false;
        }
        true
    }

    /// Buffers part of a line that continues in a later read, enforcing the frame size
    /// limit without buffering past it.
    fn take_line_bytes(&mut self, part: &[u8]) {
        if self.count_line_bytes(part.len()) {
            self.line.extend_from_slice(part);
        }
    }

    /// End of input: a final frame without its blank line is still delivered.
    pub fn finish(&mut self, out: &mut SseFrames) {
        if !self.line.is_empty() {
            self.end_line(out);
        }
        self.dispatch(out);
    }

    fn end_line(&mut self, out: &mut SseFrames) {
        let line = std::mem::take(&mut self.line);
        self.decode_line(&line, out);
        // Keep the buffer's capacity for the next line.
        self.line = line;
        self.line.clear();
    }

    fn decode_line(&mut self, line: &[u8], out: &mut SseFrames) {
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if self.oversized {
            return;
        }
        let text = match std::str::from_utf8(line) {
            Ok(text) => text,
            Err(error) => {
                self.frame_error
                    .get_or_insert(SseError::InvalidUtf8(error.valid_up_to()));
                return;
            }
        };
        // Nearly every line of a stream is a data line: it skips the general split.
        if let Some(value) = text.strip_prefix("data:") {
            self.push_data(value.strip_prefix(' ').unwrap_or(value));
            return;
        }
        if text.starts_with(':') {
            return;
        }
        let (field, value) = match text.find(':') {
            Some(colon) => {
                let value = &text[colon + 1..];
                (&text[..colon], value.strip_prefix(' ').unwrap_or(value))
            }
            None => (text, ""),
        };
        match field {
            "data" => self.push_data(value),
            "event" => {
                self.event.clear();
                self.event.push_str(value);
                self.has_event = true;
            }
            "id" if !value.contains('\0') => self.id = Some(value.to_owned()),
            _ => {}
        }
    }

    fn push_data(&mut self, value: &str) {
        if self.has_data {
            self.data.push('\n');
        }
        self.data.push_str(value);
        self.has_data = true;
    }

    fn dispatch(&mut self, out: &mut SseFrames) {
        if self.oversized {
            out.push_error(SseError::TooLarge {
                limit: MAX_FRAME_BYTES,
            });
        } else if let Some(error) = self.frame_error.take() {
            out.push_error(error);
        } else if self.has_data {
            let event = self.has_event.then_some(self.event.as_str());
            out.push(event, self.id.as_deref(), &self.data);
        }
        self.has_event = false;
        self.data.clear();
        self.has_data = false;
        self.oversized = false;
        self.frame_error = None;
        self.frame_bytes = 0;
    }
}

/// Decodes a whole body at once.
pub fn decode_all(body: &[u8]) -> SseFrames {
    let mut decoder = SseDecoder::new();
    let mut out = SseFrames::new();
    decoder.feed(body, &mut out);
    decoder.finish(&mut out);
    out
}

/// What turns one agent's SSE frames into channel events: the AG-UI and OpenAI adapters
/// both are one, so the live stream and a recorded body are read by the same code.
pub trait FrameNormalizer {
    /// How many upstream events have been read.
    fn upstream_count(&self) -> u64;
    /// One decoded frame (or the decoder's error for it).
    fn push_frame(
        &mut self,
        frame: Result<SseFrame<'_>, SseError>,
        out: &mut Vec<crate::protocol::channel::EventDraft>,
    );
    /// The end of the stream, however it ended.
    fn finish(&mut self, out: &mut Vec<crate::protocol::channel::EventDraft>);
}

/// A whole recorded SSE body through `normalizer`, ended as a live stream ends.
pub fn normalize_body(
    normalizer: &mut dyn FrameNormalizer,
    body: &[u8],
    out: &mut Vec<crate::protocol::channel::EventDraft>,
) {
    for frame in decode_all(body).iter() {
        normalizer.push_frame(frame, out);
    }
    normalizer.finish(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data_of(frames: &SseFrames) -> Vec<String> {
        frames.iter().map(|f| f.unwrap().data.to_owned()).collect()
    }

    #[test]
    fn frames_split_at_every_byte_decode_like_the_whole_body() {
        let body = "data: {\"a\":\"é👩‍💻\"}\r\n\r\n: heartbeat\n\ndata: x\ndata: y\r\rdata:z\n\n";
        let whole = data_of(&decode_all(body.as_bytes()));
        assert_eq!(whole, ["{\"a\":\"é👩‍💻\"}", "x\ny", "z"]);
        let mut decoder = SseDecoder::new();
        let mut out = SseFrames::new();
        for byte in body.as_bytes() {
            decoder.feed(std::slice::from_ref(byte), &mut out);
        }
        decoder.finish(&mut out);
        assert_eq!(data_of(&out), whole);
    }

    #[test]
    fn only_the_data_field_feeds_data_and_one_leading_space_is_dropped() {
        let frames = decode_all(b"database: no\ndata\ndata:  two spaces\n\n");
        assert_eq!(data_of(&frames), ["\n two spaces"]);
    }

    #[test]
    fn a_leading_bom_and_ids_are_handled() {
        let frames = decode_all(b"\xEF\xBB\xBFid: 7\nevent: tick\ndata: a\n\n");
        assert_eq!(
            frames.iter().collect::<Vec<_>>(),
            vec![Ok(SseFrame {
                event: Some("tick"),
                id: Some("7"),
                data: "a"
            })]
        );
    }

    #[test]
    fn a_cleared_batch_holds_only_later_frames_and_the_last_id_carries_over() {
        let mut decoder = SseDecoder::new();
        let mut frames = SseFrames::new();
        decoder.feed(b"id: 1\nevent: a\ndata: first\n\ndata: sec", &mut frames);
        assert_eq!(frames.len(), 1);
        frames.clear();
        assert!(frames.is_empty());
        decoder.feed(b"ond\n\nevent: b\ndata: third\n\n", &mut frames);
        assert_eq!(
            frames.iter().collect::<Vec<_>>(),
            vec![
                Ok(SseFrame {
                    event: None,
                    id: Some("1"),
                    data: "second"
                }),
                Ok(SseFrame {
                    event: Some("b"),
                    id: Some("1"),
                    data: "third"
                }),
            ]
        );
    }

    #[test]
    fn invalid_utf8_fails_only_its_own_frame() {
        let frames = decode_all(b"data: \xff\xfe\n\ndata: fine\n\n");
        let frames: Vec<_> = frames.iter().collect();
        assert!(matches!(frames[0], Err(SseError::InvalidUtf8(_))));
        assert_eq!(frames[1].as_ref().unwrap().data, "fine");
    }

    #[test]
    fn a_last_frame_without_a_blank_line_is_still_delivered() {
        assert_eq!(data_of(&decode_all(b"data: tail")), ["tail"]);
    }

    #[test]
    fn an_oversized_frame_is_reported_and_skipped() {
        let mut body = b"data: ".to_vec();
        body.extend(std::iter::repeat_n(b'a', MAX_FRAME_BYTES + 10));
        body.extend(b"\n\ndata: next\n\n");
        let frames = decode_all(&body);
        let frames: Vec<_> = frames.iter().collect();
        assert_eq!(frames.len(), 2);
        assert!(matches!(frames[0], Err(SseError::TooLarge { .. })));
        assert_eq!(frames[1].as_ref().unwrap().data, "next");
    }
}
