//! A card's fields checked as a request gives them, each refused naming the field: the
//! agent is a configured one, the threads and notes it links to and the cards it depends
//! on are the tenant's (the cards on its board, with no loop).

use std::collections::{HashMap, HashSet};

use app::error::ApiError;
use app::model::kanban::{BODY_MOST, CardLinks, PRIORITY_MOST};

use crate::runs::Runs;
use crate::store::Store;

pub const NAME_MOST: usize = 100;
pub const TITLE_MOST: usize = 200;
const LABEL_MOST: usize = 40;
const LABELS_MOST: usize = 20;
const LINKS_MOST: usize = 50;
const COMMENT_MOST: usize = 10_000;

fn bad(message: String) -> ApiError {
    ApiError::BadRequest(message)
}

pub fn body(text: &str) -> Result<String, ApiError> {
    if text.chars().count() > BODY_MOST {
        return Err(bad(format!("body: at most {BODY_MOST} characters")));
    }
    Ok(text.trim_end().to_owned())
}

pub fn comment(text: &str) -> Result<String, ApiError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(bad("body: a comment says something".into()));
    }
    if text.chars().count() > COMMENT_MOST {
        return Err(bad(format!("body: at most {COMMENT_MOST} characters")));
    }
    Ok(text.to_owned())
}

pub fn priority(priority: u8) -> Result<u8, ApiError> {
    if priority > PRIORITY_MOST {
        return Err(bad(format!(
            "priority: from 0 (low) to {PRIORITY_MOST} (urgent)"
        )));
    }
    Ok(priority)
}

pub fn labels(labels: &[String]) -> Result<Vec<String>, ApiError> {
    if labels.len() > LABELS_MOST {
        return Err(bad(format!("labels: at most {LABELS_MOST}")));
    }
    let mut kept: Vec<String> = Vec::new();
    for (at, label) in labels.iter().enumerate() {
        let label = label.trim();
        if label.is_empty()
            || label.chars().count() > LABEL_MOST
            || label.chars().any(char::is_control)
        {
            return Err(bad(format!(
                "labels[{at}]: 1 to {LABEL_MOST} characters, no control characters"
            )));
        }
        if !kept.iter().any(|known| known == label) {
            kept.push(label.to_owned());
        }
    }
    Ok(kept)
}

/// The checks that read the tenant's objects.
pub struct Fields<'a> {
    pub store: &'a dyn Store,
    pub runs: &'a Runs,
    pub tenant: &'a str,
    pub board_id: &'a str,
}

impl Fields<'_> {
    /// The agent named (blank: none), if it is configured.
    pub fn agent(&self, agent: Option<&str>) -> Result<Option<String>, ApiError> {
        let Some(agent) = agent.map(str::trim).filter(|agent| !agent.is_empty()) else {
            return Ok(None);
        };
        if self.runs.agents().get(agent).is_none() {
            return Err(bad(format!(
                "agent: no agent is called {agent:?}; the configured ones are {}",
                self.runs.agents().names().join(", ")
            )));
        }
        Ok(Some(agent.to_owned()))
    }

    pub async fn links(&self, links: &CardLinks) -> Result<CardLinks, ApiError> {
        for (field, ids) in [
            ("threads", &links.threads),
            ("notes", &links.notes),
            ("cards", &links.cards),
        ] {
            if ids.len() > LINKS_MOST {
                return Err(bad(format!("links.{field}: at most {LINKS_MOST}")));
            }
            for (at, id) in ids.iter().enumerate() {
                let known = match field {
                    "threads" => self.store.get_thread(self.tenant, id).await?.is_some(),
                    "notes" => self.store.get_note(self.tenant, id).await?.is_some(),
                    _ => self.store.card(self.tenant, id).await?.is_some(),
                };
                if !known {
                    return Err(bad(format!(
                        "links.{field}[{at}]: there is no such {} here",
                        field.trim_end_matches('s')
                    )));
                }
            }
        }
        let unique = |ids: &[String]| {
            let mut seen = HashSet::new();
            ids.iter()
                .filter(|id| seen.insert(id.as_str()))
                .cloned()
                .collect()
        };
        Ok(CardLinks {
            threads: unique(&links.threads),
            notes: unique(&links.notes),
            cards: unique(&links.cards),
        })
    }

    /// The cards `card_id` is to depend on: cards of its board, not itself, and none that
    /// depends on it in turn.
    pub async fn depends_on(&self, card_id: &str, on: &[String]) -> Result<Vec<String>, ApiError> {
        if on.len() > LINKS_MOST {
            return Err(bad(format!("depends_on: at most {LINKS_MOST}")));
        }
        let cards = self.store.cards(self.tenant, self.board_id, true).await?;
        let graph: HashMap<&str, &[String]> = cards
            .iter()
            .map(|card| (card.id.as_str(), card.depends_on.as_slice()))
            .collect();
        let mut kept: Vec<String> = Vec::new();
        for (at, parent) in on.iter().enumerate() {
            if parent == card_id {
                return Err(bad(format!(
                    "depends_on[{at}]: a card cannot wait on itself"
                )));
            }
            if !graph.contains_key(parent.as_str()) {
                return Err(bad(format!(
                    "depends_on[{at}]: there is no card {parent:?} on this board"
                )));
            }
            if reaches(&graph, parent, card_id) {
                return Err(bad(format!(
                    "depends_on[{at}]: {parent:?} waits on this card already; that would be a loop"
                )));
            }
            if !kept.contains(parent) {
                kept.push(parent.clone());
            }
        }
        Ok(kept)
    }
}

/// Whether `from` waits, directly or through others, on `target`.
fn reaches(graph: &HashMap<&str, &[String]>, from: &str, target: &str) -> bool {
    let mut seen = HashSet::new();
    let mut stack = vec![from.to_owned()];
    while let Some(card) = stack.pop() {
        if card == target {
            return true;
        }
        if !seen.insert(card.clone()) {
            continue;
        }
        if let Some(parents) = graph.get(card.as_str()) {
            stack.extend(parents.iter().cloned());
        }
    }
    false
}
