//! Passvault entries: named secrets whose value goes in once and comes out only to the
//! agent whose ask it answers — or, with the password given again, to an owner revealing
//! it. No listing type has a field for the value.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::Role;

/// The longest name, in characters.
pub const NAME_MOST: usize = 100;
/// The longest environment-variable name.
pub const ENV_VAR_MOST: usize = 128;
/// The longest description.
pub const DESCRIPTION_MOST: usize = 1000;
/// How many metadata pairs an entry may have, and how long a key and a value may be.
pub const METADATA_MOST: usize = 20;
pub const METADATA_KEY_MOST: usize = 64;
pub const METADATA_VALUE_MOST: usize = 500;
/// The largest value, in bytes.
pub const VALUE_MOST: usize = 64 * 1024;
/// The environment-variable name of the entries a sudo ask may be answered from.
pub const SUDO_ENV_VAR: &str = "SUDO_PASSWORD";

/// A secret in transit: never printed, emptied from memory when dropped.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SecretText(String);

impl SecretText {
    pub fn new(text: impl Into<String>) -> Self {
        Self(text.into())
    }

    /// The text itself, for the one place that needs it (sealing, the agent, a reveal).
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for SecretText {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("SecretText(…)")
    }
}

impl Drop for SecretText {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.0);
    }
}

/// An entry as lists and pages show it: everything but the value.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VaultEntry {
    pub id: String,
    pub name: String,
    /// The environment variable the secret is for; asks for it are offered this entry.
    pub env_var: String,
    pub description: String,
    pub metadata: BTreeMap<String, String>,
    pub created_by: String,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    /// When the entry last answered an ask, and who sent it.
    pub last_used_at_ms: Option<i64>,
    pub last_used_by: Option<String>,
    /// Which agents its value may be sent to, and who may send it.
    #[serde(default)]
    pub use_policy: VaultUse,
}

/// Who may send an entry's value to an agent, and to which agents: an entry for a deploy
/// key goes to the deploy agent only, sent by owners only, if its owners say so.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VaultUse {
    /// The agents the value may be sent to, by name; none listed: any agent.
    #[serde(default)]
    pub agents: Vec<String>,
    /// The least role that may send the value: `operator` (the default) or `owner`.
    #[serde(default = "operators")]
    pub sent_by: Role,
}

fn operators() -> Role {
    Role::Operator
}

impl Default for VaultUse {
    fn default() -> Self {
        Self {
            agents: Vec::new(),
            sent_by: Role::Operator,
        }
    }
}

/// The most agents one entry may name.
pub const USE_AGENTS_MOST: usize = 32;

impl VaultUse {
    /// Whether someone of `role` may send the value to `agent`; why not otherwise.
    pub fn allows(&self, agent: &str, role: Role) -> Result<(), String> {
        if !role.allows(self.sent_by) {
            return Err(format!(
                "only an {} may send this entry's value; your role is {role}",
                self.sent_by
            ));
        }
        if !self.agents.is_empty() && !self.agents.iter().any(|allowed| allowed == agent) {
            return Err(format!(
                "this entry's value may be sent to {} only, not to {agent}",
                self.agents.join(", ")
            ));
        }
        Ok(())
    }
}

/// A use policy as it may be kept: an operator or an owner sends (a viewer answers no
/// ask), at most [`USE_AGENTS_MOST`] agents, each named once.
pub fn check_use(policy: &VaultUse) -> Result<VaultUse, String> {
    if policy.sent_by == Role::Viewer {
        return Err("use_policy.sent_by: a viewer answers no ask; give operator or owner".into());
    }
    if policy.agents.len() > USE_AGENTS_MOST {
        return Err(format!(
            "use_policy.agents: at most {USE_AGENTS_MOST} agents"
        ));
    }
    let mut agents: Vec<String> = Vec::new();
    for agent in &policy.agents {
        let agent = check_text("use_policy.agents", agent, NAME_MOST, false)?;
        if !agents.contains(&agent) {
            agents.push(agent);
        }
    }
    Ok(VaultUse {
        agents,
        sent_by: policy.sent_by,
    })
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VaultList {
    pub entries: Vec<VaultEntry>,
    pub next_offset: Option<u32>,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewVaultEntry {
    pub name: String,
    pub env_var: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
    pub value: SecretText,
    #[serde(default)]
    pub use_policy: VaultUse,
}

/// An edit: each field given replaces the entry's; `value` replaces the secret.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VaultEntryEdit {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub env_var: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub metadata: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub value: Option<SecretText>,
    #[serde(default)]
    pub use_policy: Option<VaultUse>,
}

/// `POST /api/v1/passvault/{id}/reveal`: the password of whoever reveals.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RevealRequest {
    pub password: SecretText,
}

/// The one response that carries a value.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Revealed {
    pub id: String,
    pub name: String,
    pub value: SecretText,
}

fn check_text(field: &str, text: &str, most: usize, may_be_empty: bool) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() && !may_be_empty {
        return Err(format!("{field} is empty"));
    }
    if text.chars().count() > most {
        return Err(format!("{field} is longer than {most} characters"));
    }
    if text.chars().any(|c| c.is_control() && c != '\n') {
        return Err(format!("{field} holds a control character"));
    }
    Ok(text.to_owned())
}

pub fn check_name(name: &str) -> Result<String, String> {
    let name = check_text("name", name, NAME_MOST, false)?;
    if name.contains('\n') {
        return Err("name holds a line break".into());
    }
    Ok(name)
}

/// An environment-variable name as shells take it: a letter or `_`, then letters, digits
/// and `_`.
pub fn check_env_var(name: &str) -> Result<String, String> {
    let name = name.trim();
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!(
            "env_var: {name:?} is not an environment-variable name (a letter or _, then letters, digits and _)"
        ));
    }
    if name.len() > ENV_VAR_MOST {
        return Err(format!("env_var is longer than {ENV_VAR_MOST} characters"));
    }
    Ok(name.to_owned())
}

pub fn check_description(description: &str) -> Result<String, String> {
    check_text("description", description, DESCRIPTION_MOST, true)
}

pub fn check_metadata(
    metadata: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, String> {
    if metadata.len() > METADATA_MOST {
        return Err(format!("metadata has more than {METADATA_MOST} entries"));
    }
    let mut checked = BTreeMap::new();
    for (key, value) in metadata {
        let key = check_text("metadata key", key, METADATA_KEY_MOST, false)?;
        let value = check_text(&format!("metadata.{key}"), value, METADATA_VALUE_MOST, true)?;
        checked.insert(key, value);
    }
    Ok(checked)
}

/// A value is kept byte for byte (no trimming: a secret's spaces may matter).
pub fn check_value(value: &SecretText) -> Result<(), String> {
    if value.is_empty() {
        return Err("value is empty: a secret needs a value".into());
    }
    if value.expose().len() > VALUE_MOST {
        return Err(format!("value is larger than {VALUE_MOST} bytes"));
    }
    if value.expose().contains('\0') {
        return Err("value holds a NUL character".into());
    }
    Ok(())
}

/// Metadata typed as lines of `key=value`.
pub fn parse_metadata_lines(text: &str) -> Result<BTreeMap<String, String>, String> {
    let mut metadata = BTreeMap::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let (key, value) = line.split_once('=').ok_or_else(|| {
            format!(
                "metadata line {} is not key=value: {:?}",
                number + 1,
                line.trim()
            )
        })?;
        metadata.insert(key.trim().to_owned(), value.trim().to_owned());
    }
    Ok(metadata)
}

/// Metadata as the lines [`parse_metadata_lines`] reads.
pub fn metadata_lines(metadata: &BTreeMap<String, String>) -> String {
    metadata
        .iter()
        .map(|(key, value)| format!("{key}={value}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_never_printed_and_serializes_as_its_text_only_where_a_type_holds_it() {
        let secret = SecretText::new("hunter2");
        assert_eq!(format!("{secret:?}"), "SecretText(…)");
        let new = NewVaultEntry {
            name: "DB".into(),
            env_var: "DB_PASSWORD".into(),
            description: String::new(),
            metadata: BTreeMap::new(),
            value: secret,
            use_policy: VaultUse::default(),
        };
        assert!(!format!("{new:?}").contains("hunter2"));
        let parsed: NewVaultEntry =
            serde_json::from_str(r#"{"name":"DB","env_var":"DB_PASSWORD","value":"hunter2"}"#)
                .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(parsed.value.expose(), "hunter2");
        assert!(
            serde_json::from_str::<NewVaultEntry>(r#"{"name":"DB","env_var":"X","valeu":"x"}"#)
                .is_err()
        );
    }

    #[test]
    fn names_env_vars_and_metadata_are_checked_and_values_kept_as_given() {
        assert_eq!(check_env_var(" ACME_KEY ").as_deref(), Ok("ACME_KEY"));
        for bad in ["", "1KEY", "ACME-KEY", "A B", "ключ"] {
            assert!(check_env_var(bad).is_err(), "{bad}");
        }
        assert!(check_name("").is_err());
        assert!(check_name("a\nb").is_err());
        assert!(check_value(&SecretText::new("")).is_err());
        assert!(check_value(&SecretText::new(" spaced ")).is_ok());
        assert!(check_value(&SecretText::new("x".repeat(VALUE_MOST + 1))).is_err());
        let metadata = parse_metadata_lines("owner = ops\n\nrotated=2026-11\n")
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(metadata.get("owner").map(String::as_str), Some("ops"));
        assert_eq!(metadata_lines(&metadata), "owner=ops\nrotated=2026-11");
        assert!(parse_metadata_lines("no equals sign").is_err());
        let many: BTreeMap<_, _> = (0..=METADATA_MOST)
            .map(|n| (format!("k{n}"), String::new()))
            .collect();
        assert!(check_metadata(&many).is_err());
    }
}
