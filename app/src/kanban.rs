//! The board's rules, worked out from the cards alone (no store, no clock): the lanes and
//! which moves an operator may make, which waiting cards become ready when what they
//! depend on is done, which ready cards the dispatcher hands out within the WIP limits,
//! what a failed attempt or a block does to a card (the failure limit and the loop
//! breaker), and where a moved card lands within its lane.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

/// A card's lane.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lane {
    /// Came in, not looked at yet — and where a card whose block repeats goes.
    Triage,
    /// Wanted, not yet to be worked (or waiting on the cards it depends on).
    Todo,
    /// To be worked: the dispatcher hands it to its agent.
    Ready,
    /// An agent's run is working it.
    Running,
    /// Stopped, with a reason.
    Blocked,
    /// Done by the agent, waiting for a person to look.
    Review,
    Done,
    Archived,
}

impl Lane {
    pub const ALL: [Lane; 8] = [
        Lane::Triage,
        Lane::Todo,
        Lane::Ready,
        Lane::Running,
        Lane::Blocked,
        Lane::Review,
        Lane::Done,
        Lane::Archived,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Lane::Triage => "triage",
            Lane::Todo => "todo",
            Lane::Ready => "ready",
            Lane::Running => "running",
            Lane::Blocked => "blocked",
            Lane::Review => "review",
            Lane::Done => "done",
            Lane::Archived => "archived",
        }
    }

    /// As a board's column says it.
    pub fn label(self) -> &'static str {
        match self {
            Lane::Triage => "Triage",
            Lane::Todo => "To do",
            Lane::Ready => "Ready",
            Lane::Running => "Running",
            Lane::Blocked => "Blocked",
            Lane::Review => "Review",
            Lane::Done => "Done",
            Lane::Archived => "Archived",
        }
    }

    pub fn parse(text: &str) -> Option<Lane> {
        Lane::ALL.into_iter().find(|lane| lane.name() == text)
    }
}

/// A board's limits.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// The most cards running on the board at once; none: no limit.
    #[serde(default)]
    pub wip: Option<u32>,
    /// The most cards one agent works at once on the board; none: no limit.
    #[serde(default)]
    pub agent_wip: Option<u32>,
    /// A running card whose run showed no sign of life for this long is taken back.
    pub stale_s: u64,
    /// Attempts that end without the agent completing or blocking the card, before the
    /// card blocks.
    pub failure_limit: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            wip: Some(3),
            agent_wip: Some(1),
            stale_s: 1800,
            failure_limit: 2,
        }
    }
}

impl Limits {
    /// The limits, or the refusal naming the field out of bounds.
    pub fn checked(self) -> Result<Self, String> {
        if self.wip == Some(0) {
            return Err("wip: at least 1, or none for no limit".into());
        }
        if self.agent_wip == Some(0) {
            return Err("agent_wip: at least 1, or none for no limit".into());
        }
        if !(5..=7 * 86_400).contains(&self.stale_s) {
            return Err("stale_s: from 5 seconds to 7 days".into());
        }
        if !(1..=20).contains(&self.failure_limit) {
            return Err("failure_limit: from 1 to 20".into());
        }
        Ok(self)
    }
}

/// A card as the dispatcher reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct CardState {
    pub id: String,
    pub lane: Lane,
    pub agent: Option<String>,
    /// Higher first.
    pub priority: u8,
    pub position: f64,
}

/// The cards in `todo` that depend on others, all of which are done: they become ready.
/// A card that depends on nothing waits in `todo` for a person to move it.
pub fn promotions(cards: &[CardState], depends: &[(String, String)]) -> Vec<String> {
    let lanes: HashMap<&str, Lane> = cards
        .iter()
        .map(|card| (card.id.as_str(), card.lane))
        .collect();
    let mut waiting_on: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (card, on) in depends {
        waiting_on
            .entry(card.as_str())
            .or_default()
            .push(on.as_str());
    }
    waiting_on
        .into_iter()
        .filter(|(card, _)| lanes.get(card) == Some(&Lane::Todo))
        .filter(|(_, on)| {
            on.iter()
                .all(|parent| matches!(lanes.get(parent), Some(Lane::Done | Lane::Archived)))
        })
        .map(|(card, _)| card.to_owned())
        .collect()
}

/// The ready cards to hand out now, in order (highest priority first, then the top of the
/// lane), such that neither the board nor any agent goes over its limit. Cards without an
/// agent wait.
pub fn dispatch(cards: &[CardState], limits: Limits) -> Vec<String> {
    let running: Vec<&CardState> = cards
        .iter()
        .filter(|card| card.lane == Lane::Running)
        .collect();
    let mut board = running.len() as u32;
    let mut per_agent: HashMap<&str, u32> = HashMap::new();
    for card in &running {
        if let Some(agent) = &card.agent {
            *per_agent.entry(agent).or_default() += 1;
        }
    }
    let mut ready: Vec<&CardState> = cards
        .iter()
        .filter(|card| card.lane == Lane::Ready && card.agent.is_some())
        .collect();
    ready.sort_by(|a, b| {
        b.priority
            .cmp(&a.priority)
            .then(a.position.total_cmp(&b.position))
    });
    let mut chosen = Vec::new();
    for card in ready {
        if limits.wip.is_some_and(|wip| board >= wip) {
            break;
        }
        let Some(agent) = card.agent.as_deref() else {
            continue;
        };
        let mine = per_agent.entry(agent).or_default();
        if limits.agent_wip.is_some_and(|most| *mine >= most) {
            continue;
        }
        *mine += 1;
        board += 1;
        chosen.push(card.id.clone());
    }
    chosen
}

/// Where a card goes after an attempt that ended without the agent saying the card is
/// done or blocked (the run failed, or ended without a word, or went quiet): back to
/// ready, or — at the failure limit — blocked.
pub fn after_failed_attempt(failures: u32, limits: Limits) -> Lane {
    if failures >= limits.failure_limit {
        Lane::Blocked
    } else {
        Lane::Ready
    }
}

/// Where a card the agent blocks goes: blocked, or — when the reason is the one it was
/// blocked for last time — triage, so a person breaks the loop.
pub fn on_block(reason: &str, last_reason: Option<&str>) -> Lane {
    let same = last_reason.is_some_and(|last| normal(last) == normal(reason));
    if same { Lane::Triage } else { Lane::Blocked }
}

fn normal(reason: &str) -> String {
    reason
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches('.')
        .to_lowercase()
}

/// The position of a card placed at `index` among `others` (the lane's positions in
/// order, the moved card left out): between its neighbours, so nothing else moves.
pub fn position_at(others: &[f64], index: usize) -> f64 {
    let index = index.min(others.len());
    match (
        index.checked_sub(1).and_then(|at| others.get(at)),
        others.get(index),
    ) {
        (None, None) => 1024.0,
        (None, Some(next)) => next - 1024.0,
        (Some(previous), None) => previous + 1024.0,
        (Some(previous), Some(next)) => (previous + next) / 2.0,
    }
}

/// Whether an operator may put a card in `to` by hand. `running` belongs to the
/// dispatcher, which starts a run for it; taking a card out of `running` takes it back
/// from its run.
pub fn may_move_to(to: Lane) -> Result<(), String> {
    if to == Lane::Running {
        return Err(
            "lane: a card runs when the dispatcher hands it to its agent; move it to ready".into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(id: &str, lane: Lane, agent: Option<&str>, priority: u8, position: f64) -> CardState {
        CardState {
            id: id.into(),
            lane,
            agent: agent.map(str::to_owned),
            priority,
            position,
        }
    }

    #[test]
    fn a_card_becomes_ready_when_every_card_it_depends_on_is_done() {
        let cards = [
            card("parent-a", Lane::Done, None, 0, 1.0),
            card("parent-b", Lane::Running, None, 0, 2.0),
            card("child", Lane::Todo, None, 0, 3.0),
            card("orphan", Lane::Todo, None, 0, 4.0),
            card("other", Lane::Todo, None, 0, 5.0),
        ];
        let mut depends = vec![
            ("child".to_owned(), "parent-a".to_owned()),
            ("child".to_owned(), "parent-b".to_owned()),
            ("other".to_owned(), "parent-a".to_owned()),
        ];
        assert_eq!(promotions(&cards, &depends), ["other"]);
        depends.retain(|(_, on)| on != "parent-b");
        assert_eq!(promotions(&cards, &depends), ["child", "other"]);
    }

    #[test]
    fn dispatch_hands_out_ready_cards_by_priority_within_the_board_and_agent_limits() {
        let cards = [
            card("busy", Lane::Running, Some("scout"), 0, 0.0),
            card("low", Lane::Ready, Some("writer"), 0, 1.0),
            card("urgent", Lane::Ready, Some("writer"), 3, 5.0),
            card("scout-next", Lane::Ready, Some("scout"), 2, 2.0),
            card("nobody", Lane::Ready, None, 3, 0.5),
            card("third", Lane::Ready, Some("coder"), 1, 3.0),
        ];
        let limits = Limits {
            wip: Some(3),
            agent_wip: Some(1),
            ..Limits::default()
        };
        // The scout has one running already; the writer gets its most urgent; the board
        // holds three.
        assert_eq!(dispatch(&cards, limits), ["urgent", "third"]);
        let open = Limits {
            wip: None,
            agent_wip: Some(2),
            ..Limits::default()
        };
        assert_eq!(
            dispatch(&cards, open),
            ["urgent", "scout-next", "third", "low"]
        );
    }

    #[test]
    fn a_card_blocks_at_the_failure_limit_and_the_same_block_twice_goes_to_triage() {
        let limits = Limits::default();
        assert_eq!(after_failed_attempt(1, limits), Lane::Ready);
        assert_eq!(after_failed_attempt(2, limits), Lane::Blocked);
        assert_eq!(on_block("Needs the API key", None), Lane::Blocked);
        assert_eq!(
            on_block("needs the API key.", Some("Needs the  API key")),
            Lane::Triage
        );
        assert_eq!(
            on_block("The tests fail", Some("Needs the API key")),
            Lane::Blocked
        );
    }

    #[test]
    fn a_moved_card_lands_between_its_neighbours() {
        assert_eq!(position_at(&[], 0), 1024.0);
        assert_eq!(position_at(&[10.0, 20.0], 0), 10.0 - 1024.0);
        assert_eq!(position_at(&[10.0, 20.0], 1), 15.0);
        assert_eq!(position_at(&[10.0, 20.0], 9), 20.0 + 1024.0);
    }

    #[test]
    fn limits_out_of_bounds_are_refused_naming_the_field() {
        assert!(Limits::default().checked().is_ok());
        let zero = Limits {
            wip: Some(0),
            ..Limits::default()
        };
        assert!(zero.checked().unwrap_err().starts_with("wip:"));
        let quick = Limits {
            stale_s: 1,
            ..Limits::default()
        };
        assert!(quick.checked().unwrap_err().starts_with("stale_s:"));
        assert!(may_move_to(Lane::Running).unwrap_err().starts_with("lane:"));
    }
}
