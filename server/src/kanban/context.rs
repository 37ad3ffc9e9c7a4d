//! A card as context: a run that works a card is told which card, on which board, in which
//! attempt, what the card asks for and what the cards it waited on left behind — and
//! records it, so its context pane names the card and links back to it.

use app::error::ApiError;
use app::protocol::channel::GivenItem;

use crate::connectors::ContextEntry;
use crate::store::Store;

/// The kind of a given item that is a card.
pub const CARD_ITEM: &str = "card";

/// What a run being started in `thread_id` is given about the card it works, if it works
/// one.
pub async fn card_context(
    store: &dyn Store,
    tenant_id: &str,
    thread_id: &str,
) -> Result<Option<(ContextEntry, GivenItem)>, ApiError> {
    let Some(attempt) = store.attempt_of_thread(tenant_id, thread_id).await? else {
        return Ok(None);
    };
    let Some(card) = store.card(tenant_id, &attempt.card_id).await? else {
        return Ok(None);
    };
    let board = store
        .board(tenant_id, &card.board_id)
        .await?
        .map(|board| board.name)
        .unwrap_or_default();
    let mut parents = Vec::new();
    for parent in &card.depends_on {
        if let Some(parent) = store.card(tenant_id, parent).await? {
            let left = parent
                .summary
                .unwrap_or_else(|| "(it left no summary)".to_owned());
            parents.push(format!("- “{}”: {left}", parent.title));
        }
    }
    let waited = if parents.is_empty() {
        String::new()
    } else {
        format!(
            "\n\nThe cards it waited on are done; what they left:\n{}",
            parents.join("\n")
        )
    };
    let body = if card.body.trim().is_empty() {
        String::new()
    } else {
        format!("\n\n{}", card.body)
    };
    let entry = ContextEntry {
        description: format!("The card “{}” this run works", card.title),
        value: format!(
            "This run works the card “{}” on the board “{board}” (attempt {}); nobody may be at the keyboard.{body}{waited}",
            card.title, attempt.number
        ),
    };
    let item = GivenItem {
        kind: CARD_ITEM.to_owned(),
        id: card.id,
        title: format!("{} · attempt {}", card.title, attempt.number),
        version: None,
        pinned_by: "card".to_owned(),
    };
    Ok(Some((entry, item)))
}
