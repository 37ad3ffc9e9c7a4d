//! Memory with the semantics of Hermes' `memory` tool: entries in a scope (the tenant, a
//! project, a user), changed by `add`, `replace` (the one entry containing `old_text`)
//! and `remove` (likewise), a scope holding at most so many characters, and a batch of
//! operations applied all together or not at all. Pure: the store applies the plan.

use serde::{Deserialize, Serialize};

/// Hermes' limits: agent notes hold 2,200 characters, the user profile 1,375.
pub const TENANT_LIMIT: usize = 2200;
pub const PROJECT_LIMIT: usize = 2200;
pub const USER_LIMIT: usize = 1375;
/// Between two entries, as Hermes writes its memory files; counted against the limit.
pub const SEPARATOR: &str = "\n§\n";
/// The most operations one batch may carry.
pub const BATCH_MOST: usize = 20;

/// Where an entry lives.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScopeKind {
    Tenant,
    Project,
    User,
}

impl ScopeKind {
    pub fn label(self) -> &'static str {
        match self {
            ScopeKind::Tenant => "tenant",
            ScopeKind::Project => "project",
            ScopeKind::User => "user",
        }
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "tenant" => Ok(ScopeKind::Tenant),
            "project" => Ok(ScopeKind::Project),
            "user" => Ok(ScopeKind::User),
            other => Err(format!(
                "scope: {other:?} is not a scope (tenant, project or user)"
            )),
        }
    }

    /// How many characters the scope holds, separators included.
    pub fn limit(self) -> usize {
        match self {
            ScopeKind::Tenant => TENANT_LIMIT,
            ScopeKind::Project => PROJECT_LIMIT,
            ScopeKind::User => USER_LIMIT,
        }
    }
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Add,
    Replace,
    Remove,
}

/// One operation, as the tool takes it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    pub action: Action,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_text: Option<String>,
}

/// An entry as the plan sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Current {
    pub id: String,
    pub text: String,
}

/// What the store is to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// A new entry; `index` is its place in the batch (the store gives it an id).
    Add {
        index: usize,
        text: String,
    },
    Replace {
        id: String,
        text: String,
    },
    Remove {
        id: String,
    },
}

/// The characters a scope's entries take, separators included.
pub fn used(texts: &[&str]) -> usize {
    let separators = texts.len().saturating_sub(1) * SEPARATOR.chars().count();
    texts.iter().map(|text| text.chars().count()).sum::<usize>() + separators
}

fn content(operation: &Operation, at: usize) -> Result<String, String> {
    let text = operation.content.as_deref().unwrap_or_default().trim();
    if text.is_empty() {
        return Err(format!(
            "operations[{at}].content: {} needs the text to keep",
            label(operation.action)
        ));
    }
    if text.contains(SEPARATOR.trim()) {
        return Err(format!(
            "operations[{at}].content: an entry cannot hold the separator §"
        ));
    }
    Ok(text.to_owned())
}

fn label(action: Action) -> &'static str {
    match action {
        Action::Add => "add",
        Action::Replace => "replace",
        Action::Remove => "remove",
    }
}

/// The one entry holding `old_text`, or else the one entry that is all of it.
fn only_match(
    entries: &[(Option<String>, String)],
    operation: &Operation,
    at: usize,
) -> Result<usize, String> {
    let needle = operation.old_text.as_deref().unwrap_or_default().trim();
    if needle.is_empty() {
        return Err(format!(
            "operations[{at}].old_text: {} needs a unique part of the entry's text",
            label(operation.action)
        ));
    }
    let found: Vec<usize> = entries
        .iter()
        .enumerate()
        .filter(|(_, (_, text))| text.contains(needle))
        .map(|(index, _)| index)
        .collect();
    // An entry that is the whole text named is the one meant, even where a longer entry
    // contains it too.
    let whole: Vec<usize> = found
        .iter()
        .copied()
        .filter(|index| entries[*index].1.trim() == needle)
        .collect();
    if let [one] = whole.as_slice() {
        return Ok(*one);
    }
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!(
            "operations[{at}].old_text: no entry contains {needle:?}"
        )),
        many => Err(format!(
            "operations[{at}].old_text: {} entries contain {needle:?}; give more of the text",
            many.len()
        )),
    }
}

/// The changes a batch makes to a scope's entries: each operation applies to the result
/// of those before it, and the whole batch is refused — nothing changes — if any
/// operation cannot apply or the scope would end over `limit` characters.
pub fn plan(
    current: &[Current],
    operations: &[Operation],
    limit: usize,
) -> Result<Vec<Change>, String> {
    if operations.is_empty() {
        return Err("operations: the batch is empty".into());
    }
    if operations.len() > BATCH_MOST {
        return Err(format!("operations: a batch holds at most {BATCH_MOST}"));
    }
    // (stored id, text), in order; new entries have no id yet.
    let mut entries: Vec<(Option<String>, String)> = current
        .iter()
        .map(|entry| (Some(entry.id.clone()), entry.text.clone()))
        .collect();
    let mut added: Vec<(usize, usize)> = Vec::new(); // (batch index, position in entries)
    let mut changes = Vec::new();
    for (at, operation) in operations.iter().enumerate() {
        match operation.action {
            Action::Add => {
                let text = content(operation, at)?;
                if entries.iter().any(|(_, existing)| *existing == text) {
                    return Err(format!(
                        "operations[{at}].content: memory holds this entry already"
                    ));
                }
                entries.push((None, text));
                added.push((at, entries.len() - 1));
            }
            Action::Replace => {
                let text = content(operation, at)?;
                let index = only_match(&entries, operation, at)?;
                entries[index].1 = text;
            }
            Action::Remove => {
                let index = only_match(&entries, operation, at)?;
                let (id, _) = entries.remove(index);
                if let Some(id) = id {
                    changes.push(Change::Remove { id });
                }
                added.retain(|(_, position)| *position != index);
                for (_, position) in added.iter_mut() {
                    if *position > index {
                        *position -= 1;
                    }
                }
            }
        }
    }
    let texts: Vec<&str> = entries.iter().map(|(_, text)| text.as_str()).collect();
    let total = used(&texts);
    if total > limit {
        return Err(format!(
            "memory would hold {total} of {limit} characters; replace or remove entries first"
        ));
    }
    for (id, text) in &entries {
        if let Some(id) = id
            && current
                .iter()
                .any(|entry| &entry.id == id && &entry.text != text)
        {
            changes.push(Change::Replace {
                id: id.clone(),
                text: text.clone(),
            });
        }
    }
    for (index, position) in added {
        changes.push(Change::Add {
            index,
            text: entries[position].1.clone(),
        });
    }
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(action: Action, content: Option<&str>, old_text: Option<&str>) -> Operation {
        Operation {
            action,
            content: content.map(str::to_owned),
            old_text: old_text.map(str::to_owned),
        }
    }

    fn current(texts: &[&str]) -> Vec<Current> {
        texts
            .iter()
            .enumerate()
            .map(|(n, text)| Current {
                id: format!("e{n}"),
                text: (*text).to_owned(),
            })
            .collect()
    }

    #[test]
    fn replace_and_remove_name_one_entry_by_a_unique_part_of_it() {
        let entries = current(&["Prefers tabs", "Deploys on Fridays", "Deploys with make"]);
        let changes = plan(
            &entries,
            &[op(Action::Replace, Some("Prefers spaces"), Some("tabs"))],
            2200,
        )
        .unwrap();
        assert_eq!(
            changes,
            vec![Change::Replace {
                id: "e0".into(),
                text: "Prefers spaces".into()
            }]
        );
        let ambiguous =
            plan(&entries, &[op(Action::Remove, None, Some("Deploys"))], 2200).unwrap_err();
        assert!(ambiguous.contains("2 entries contain"), "{ambiguous}");
        let missing = plan(&entries, &[op(Action::Remove, None, Some("cats"))], 2200).unwrap_err();
        assert!(
            missing.starts_with("operations[0].old_text: no entry"),
            "{missing}"
        );
        assert_eq!(
            plan(&entries, &[op(Action::Remove, None, Some("Fridays"))], 2200).unwrap(),
            vec![Change::Remove { id: "e1".into() }]
        );
    }

    #[test]
    fn an_entry_named_by_its_whole_text_is_the_one_meant_though_a_longer_one_contains_it() {
        let entries = current(&["CI has two cores", "CI has two cores and 24 GiB"]);
        assert_eq!(
            plan(
                &entries,
                &[op(Action::Remove, None, Some("CI has two cores"))],
                2200
            )
            .unwrap(),
            vec![Change::Remove { id: "e0".into() }]
        );
        let ambiguous = plan(
            &entries,
            &[op(Action::Remove, None, Some("two cores"))],
            2200,
        )
        .unwrap_err();
        assert!(ambiguous.contains("2 entries contain"), "{ambiguous}");
    }

    #[test]
    fn a_batch_applies_in_order_and_all_or_nothing() {
        let entries = current(&["A fact"]);
        // Added then replaced within the batch: one new entry with the last text.
        let changes = plan(
            &entries,
            &[
                op(Action::Add, Some("Draft rule"), None),
                op(Action::Replace, Some("Final rule"), Some("Draft")),
                op(Action::Remove, None, Some("A fact")),
            ],
            2200,
        )
        .unwrap();
        assert_eq!(
            changes,
            vec![
                Change::Remove { id: "e0".into() },
                Change::Add {
                    index: 0,
                    text: "Final rule".into()
                }
            ]
        );
        // The second operation fails: the batch is refused as a whole.
        let refused = plan(
            &entries,
            &[
                op(Action::Add, Some("New"), None),
                op(Action::Remove, None, Some("nope")),
            ],
            2200,
        );
        assert!(refused.unwrap_err().starts_with("operations[1]"));
        // An entry added then removed in the batch leaves nothing to do.
        let nothing = plan(
            &entries,
            &[
                op(Action::Add, Some("Temp"), None),
                op(Action::Remove, None, Some("Temp")),
            ],
            2200,
        )
        .unwrap();
        assert!(nothing.is_empty(), "{nothing:?}");
    }

    #[test]
    fn a_scope_holds_its_limit_with_separators_counted() {
        let entries = current(&["x".repeat(10).as_str()]);
        // 10 + 3 (separator) + 7 = 20: fits a limit of 20, not of 19.
        assert!(
            plan(
                &entries,
                &[op(Action::Add, Some("y".repeat(7).as_str()), None)],
                20
            )
            .is_ok()
        );
        let full = plan(
            &entries,
            &[op(Action::Add, Some("y".repeat(7).as_str()), None)],
            19,
        )
        .unwrap_err();
        assert!(full.contains("20 of 19"), "{full}");
        assert_eq!(used(&["ab", "cd"]), 7);
    }

    #[test]
    fn bad_operations_are_refused_naming_the_field() {
        let entries = current(&["A fact"]);
        assert!(
            plan(&entries, &[], 2200)
                .unwrap_err()
                .starts_with("operations")
        );
        assert!(
            plan(&entries, &[op(Action::Add, Some("  "), None)], 2200)
                .unwrap_err()
                .starts_with("operations[0].content")
        );
        assert!(
            plan(&entries, &[op(Action::Add, Some("A fact"), None)], 2200)
                .unwrap_err()
                .contains("already")
        );
        assert!(
            plan(&entries, &[op(Action::Add, Some("a § b"), None)], 2200)
                .unwrap_err()
                .contains("separator")
        );
        assert!(
            plan(&entries, &[op(Action::Replace, Some("x"), None)], 2200)
                .unwrap_err()
                .starts_with("operations[0].old_text")
        );
        let many: Vec<Operation> = (0..=BATCH_MOST)
            .map(|n| op(Action::Add, Some(&format!("f{n}")), None))
            .collect();
        assert!(plan(&entries, &many, 2200).is_err());
        assert!(serde_json::from_str::<Operation>(r#"{"action":"add","text":"x"}"#).is_err());
        assert_eq!(
            ScopeKind::parse("global").unwrap_err(),
            "scope: \"global\" is not a scope (tenant, project or user)"
        );
    }
}
