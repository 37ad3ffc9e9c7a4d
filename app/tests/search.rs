//! Search snippets over bodies whose lower case differs in length from the body: never a
//! panic, and the word searched for is in the snippet whenever the body holds it.

use app::search::{search_terms, snippet};
use proptest::prelude::*;

/// Characters whose lower case is longer (`İ`, `Ⱥ`), shorter (`K`, `Å`), several
/// characters (`İ`), or unchanged, mixed with plain letters and spaces.
fn tricky_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just('İ'),
            Just('€'),
            Just('K'),
            Just('Å'),
            Just('Ⱥ'),
            Just('ẞ'),
            Just('Σ'),
            Just(' '),
            Just('\n'),
            Just('a'),
            Just('b'),
            any::<char>(),
        ],
        0..400,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_snippet_never_panics_and_shows_the_word_found(
        before in tricky_text(),
        after in tricky_text(),
        query in tricky_text(),
    ) {
        let body = format!("{before} needle {after}");
        let mut terms = search_terms(&query);
        let _ = snippet(&body, &terms);
        terms.push("needle".into());
        let shown = snippet(&body, &["needle".into()]);
        prop_assert!(shown.contains("needle"), "{shown:?} from {body:?}");
        let _ = snippet(&body, &terms);
    }
}
