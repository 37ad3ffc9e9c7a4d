//! Arbitrary text as a note body and a search: splitting the search into words and
//! cutting the snippet around a match must never panic, whatever lower-casing does to
//! the body's byte lengths.

#![no_main]

use app::search::{search_terms, snippet};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (query, body) = text.split_at(text.char_indices().nth(16).map_or(text.len(), |(at, _)| at));
    let terms = search_terms(query);
    let _ = snippet(body, &terms);
    for word in body.split_whitespace().take(4) {
        let _ = snippet(body, &[word.to_lowercase()]);
    }
});
