//! The knowledge curator's findings, worked out from what the workspace holds and nothing
//! else (no model, no store): memory entries that repeat one another exactly or nearly,
//! entries nobody used for a while, and notes that link to nothing and that nothing links
//! to. A pass proposes removals into the memory review queue from these; it never changes
//! anything itself.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::memory::ScopeKind;

/// What a pass looks for, and from when.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CuratorRules {
    /// Word overlap (Jaccard, 0..=1) from which two entries of a scope are near duplicates.
    pub near: f64,
    /// An entry nobody used for this long is proposed for removal.
    pub unused_days: u32,
}

impl Default for CuratorRules {
    fn default() -> Self {
        Self {
            near: 0.8,
            unused_days: 90,
        }
    }
}

/// A memory entry as the curator reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub id: String,
    pub scope: ScopeKind,
    pub project_id: Option<String>,
    pub text: String,
    pub created_at_ms: i64,
    /// When a run was last given it; none if never.
    pub last_used_at_ms: Option<i64>,
}

/// A note as the curator reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteText {
    pub id: String,
    pub title: String,
    pub body: String,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// The same text twice: in one scope, or a project's entry repeating the tenant's.
    Duplicate,
    /// Nearly the same words as a fuller entry of the same scope, or all of its words
    /// again in one.
    NearDuplicate,
    /// Not given to any run for the rules' days.
    Unused,
    /// A note with no link out and none in.
    OrphanNote,
}

/// One finding: the entry (or note) it is about, and the one it repeats.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub kind: FindingKind,
    pub subject_id: String,
    /// The entry it repeats (kept), for duplicates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_id: Option<String>,
    /// Word overlap in percent, for near duplicates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity_pct: Option<u8>,
    /// Why, in words.
    pub reason: String,
}

/// The words of a text, lower-cased, for comparing entries.
fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The text as compared for exact repeats: case, spacing and final punctuation aside.
fn normalized(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches(['.', '!', ';'])
        .to_lowercase()
}

/// Word overlap of two texts (Jaccard).
pub fn similarity(a: &str, b: &str) -> f64 {
    let (a, b) = (words(a), words(b));
    let union = a.union(&b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(&b).count() as f64 / union as f64
}

fn same_scope(a: &Entry, b: &Entry) -> bool {
    a.scope == b.scope && a.project_id == b.project_id
}

/// The findings on `entries` (in each scope's order) at `now_ms`; each entry is the
/// subject of one finding at most, the first that applies.
pub fn memory_findings(entries: &[Entry], rules: CuratorRules, now_ms: i64) -> Vec<Finding> {
    let mut findings: Vec<Finding> = Vec::new();
    let taken = |findings: &[Finding], id: &str| {
        findings
            .iter()
            .any(|finding| finding.subject_id == id || finding.kept_id.as_deref() == Some(id))
    };
    for (at, entry) in entries.iter().enumerate() {
        if taken(&findings, &entry.id) {
            continue;
        }
        let repeated = entries.iter().enumerate().find(|(other_at, other)| {
            let earlier_in_scope = same_scope(entry, other) && *other_at < at;
            let tenant_copy = entry.scope == ScopeKind::Project && other.scope == ScopeKind::Tenant;
            (earlier_in_scope || tenant_copy) && normalized(&other.text) == normalized(&entry.text)
        });
        if let Some((_, kept)) = repeated {
            let reason = if same_scope(entry, kept) {
                "repeats an earlier entry word for word".to_owned()
            } else {
                "repeats the tenant's memory word for word, which every run of the project is given too".to_owned()
            };
            findings.push(Finding {
                kind: FindingKind::Duplicate,
                subject_id: entry.id.clone(),
                kept_id: Some(kept.id.clone()),
                similarity_pct: None,
                reason,
            });
        }
    }
    for entry in entries {
        if taken(&findings, &entry.id) {
            continue;
        }
        // The fuller of two near duplicates is kept.
        let fuller = entries
            .iter()
            .filter(|other| other.id != entry.id && same_scope(entry, other))
            .filter(|other| {
                !findings
                    .iter()
                    .any(|finding| finding.subject_id == other.id)
            })
            .map(|other| (other, similarity(&entry.text, &other.text)))
            .filter(|(other, overlap)| {
                let mine = words(&entry.text);
                // Every word of a short entry again in a fuller one says nothing more.
                let contained = mine.len() >= 3 && mine.is_subset(&words(&other.text));
                (*overlap >= rules.near || contained)
                    && (words(&other.text).len(), other.created_at_ms)
                        > (words(&entry.text).len(), entry.created_at_ms)
            })
            .max_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((kept, overlap)) = fuller {
            let pct = (overlap * 100.0).round() as u8;
            findings.push(Finding {
                kind: FindingKind::NearDuplicate,
                subject_id: entry.id.clone(),
                kept_id: Some(kept.id.clone()),
                similarity_pct: Some(pct),
                reason: format!(
                    "says nearly what a fuller entry says ({pct} % of their words shared)"
                ),
            });
        }
    }
    let day_ms = 86_400_000_i64;
    let cutoff = now_ms - i64::from(rules.unused_days) * day_ms;
    for entry in entries {
        if taken(&findings, &entry.id) {
            continue;
        }
        let last = entry.last_used_at_ms.unwrap_or(entry.created_at_ms);
        if last < cutoff {
            let days = (now_ms - last) / day_ms;
            let reason = match entry.last_used_at_ms {
                Some(_) => format!("no run was given it for {days} days"),
                None => format!("no run was ever given it, in {days} days"),
            };
            findings.push(Finding {
                kind: FindingKind::Unused,
                subject_id: entry.id.clone(),
                kept_id: None,
                similarity_pct: None,
                reason,
            });
        }
    }
    findings
}

/// Whether a note's body links anywhere: a Markdown link, a `[[wiki link]]` or a URL.
fn links_out(body: &str) -> bool {
    body.contains("](") || body.contains("[[") || body.contains("://")
}

/// Notes that link to nothing and that no other note names (by id, or by title in a wiki
/// link).
pub fn orphan_notes(notes: &[NoteText]) -> Vec<Finding> {
    notes
        .iter()
        .filter(|note| !links_out(&note.body))
        .filter(|note| {
            !notes.iter().any(|other| {
                other.id != note.id
                    && (other.body.contains(&note.id)
                        || other.body.contains(&format!("[[{}]]", note.title)))
            })
        })
        .map(|note| Finding {
            kind: FindingKind::OrphanNote,
            subject_id: note.id.clone(),
            kept_id: None,
            similarity_pct: None,
            reason: format!("“{}” links to nothing, and no note links to it", note.title),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400_000;

    fn entry(id: &str, scope: ScopeKind, text: &str, created_day: i64) -> Entry {
        Entry {
            id: id.into(),
            scope,
            project_id: (scope == ScopeKind::Project).then(|| "prj".to_owned()),
            text: text.into(),
            created_at_ms: created_day * DAY,
            last_used_at_ms: Some(100 * DAY),
        }
    }

    #[test]
    fn a_seeded_memory_gives_the_expected_duplicates_near_duplicates_and_unused_entries() {
        let mut stale = entry(
            "stale",
            ScopeKind::Tenant,
            "The VPN gateway is vpn.example.org",
            1,
        );
        stale.last_used_at_ms = None;
        let entries = vec![
            entry(
                "fridays",
                ScopeKind::Tenant,
                "Deploys happen on Fridays.",
                90,
            ),
            entry("copy", ScopeKind::Project, "deploys happen on  fridays", 91),
            entry(
                "short",
                ScopeKind::Tenant,
                "CI has two cores and 24 GiB",
                92,
            ),
            entry(
                "full",
                ScopeKind::Tenant,
                "CI has two cores and 24 GiB of memory",
                93,
            ),
            entry(
                "other",
                ScopeKind::Tenant,
                "The staging database is Postgres 17",
                94,
            ),
            stale,
        ];
        let findings = memory_findings(&entries, CuratorRules::default(), 100 * DAY);
        let summary: Vec<(&str, FindingKind, Option<&str>)> = findings
            .iter()
            .map(|f| (f.subject_id.as_str(), f.kind, f.kept_id.as_deref()))
            .collect();
        assert_eq!(
            summary,
            [
                ("copy", FindingKind::Duplicate, Some("fridays")),
                ("short", FindingKind::NearDuplicate, Some("full")),
                ("stale", FindingKind::Unused, None),
            ]
        );
        assert_eq!(findings[1].similarity_pct, Some(78));
        assert!(
            findings[2].reason.contains("ever given"),
            "{}",
            findings[2].reason
        );
    }

    #[test]
    fn entries_of_different_projects_and_unlike_entries_are_left_alone() {
        let mut a = entry("a", ScopeKind::Project, "Release on the first Monday", 99);
        let mut b = entry("b", ScopeKind::Project, "Release on the first Monday", 99);
        a.project_id = Some("one".into());
        b.project_id = Some("two".into());
        let c = entry("c", ScopeKind::Tenant, "Use UTC in every log line", 99);
        let findings = memory_findings(&[a, b, c], CuratorRules::default(), 100 * DAY);
        assert_eq!(findings, []);
    }

    #[test]
    fn a_note_with_no_link_out_and_none_in_is_an_orphan() {
        let note = |id: &str, title: &str, body: &str| NoteText {
            id: id.into(),
            title: title.into(),
            body: body.into(),
        };
        let notes = [
            note("n1", "Runbook", "Deploy with make ship. See [[Checklist]]."),
            note("n2", "Checklist", "1. Tag 2. Ship"),
            note("n3", "Loose ends", "Nothing points here"),
            note("n4", "Links", "See https://example.org"),
        ];
        let orphans: Vec<String> = orphan_notes(&notes)
            .into_iter()
            .map(|finding| finding.subject_id)
            .collect();
        assert_eq!(orphans, ["n3"]);
    }
}
