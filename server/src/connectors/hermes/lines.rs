//! Reading a gateway's frames line by line, each within a size limit, so a gateway cannot
//! make the console hold an endless line.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// One line read from a gateway.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    Text(String),
    /// A line over the limit, skipped to its end unread; its length in bytes.
    TooLong(usize),
    End,
}

/// Reads one newline-terminated line of at most `limit` bytes. A longer line is read past
/// without being kept, so a gateway cannot make the console hold an endless line.
pub async fn read_line_within<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    limit: usize,
) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let mut skipped = 0usize;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (line.is_empty(), skipped) {
                (true, 0) => Line::End,
                (_, 0) => Line::Text(String::from_utf8_lossy(&line).into_owned()),
                _ => Line::TooLong(skipped),
            });
        }
        let (chunk, ends) = match memchr_newline(available) {
            Some(at) => (&available[..at], Some(at + 1)),
            None => (available, None),
        };
        if skipped == 0 && line.len() + chunk.len() <= limit {
            line.extend_from_slice(chunk);
        } else {
            skipped = skipped.max(line.len()) + chunk.len();
            line = Vec::new();
        }
        let consumed = ends.unwrap_or(chunk.len());
        reader.consume(consumed);
        if ends.is_some() {
            let text = String::from_utf8_lossy(&line);
            let text = text.strip_suffix('\r').unwrap_or(&text).to_owned();
            return Ok(if skipped > 0 {
                Line::TooLong(skipped)
            } else {
                Line::Text(text)
            });
        }
    }
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|byte| *byte == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::BufReader;

    async fn lines(input: &[u8], limit: usize) -> Vec<Line> {
        // A tiny buffer, so lines arrive split across many reads.
        let mut reader = BufReader::with_capacity(3, input);
        let mut out = Vec::new();
        loop {
            match read_line_within(&mut reader, limit).await {
                Ok(Line::End) | Err(_) => return out,
                Ok(line) => out.push(line),
            }
        }
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_skipped_whole_and_the_next_one_is_read() {
        let input = b"{\"a\":1}\r\n0123456789abcdef\n{\"b\":2}\nlast";
        assert_eq!(
            lines(input, 10).await,
            [
                Line::Text("{\"a\":1}".into()),
                Line::TooLong(16),
                Line::Text("{\"b\":2}".into()),
                Line::Text("last".into()),
            ]
        );
    }

    #[tokio::test]
    async fn an_endless_line_is_counted_not_kept() {
        let input = vec![b'x'; 100_000];
        assert_eq!(lines(&input, 1000).await, [Line::TooLong(100_000)]);
    }
}
