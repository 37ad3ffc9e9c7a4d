//! The agents this server can talk to, by name, with how to reach each.

use serde_json::Value;

/// How to reach one agent.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentKind {
    /// An AG-UI agent: POST RunAgentInput to `url`, read SSE. `tools` is what the console
    /// offers it (AG-UI has no tool discovery).
    AgUi { url: String, tools: Vec<Value> },
    /// A Hermes gateway: a command speaking JSON-RPC on stdio, or a WebSocket URL.
    Hermes { target: String },
}

#[derive(Clone, Debug, PartialEq)]
pub struct AgentSpec {
    pub name: String,
    pub kind: AgentKind,
}

/// The configured agents; the first is the default for new threads.
#[derive(Clone, Debug, Default)]
pub struct Agents {
    list: Vec<AgentSpec>,
}

impl Agents {
    pub fn new(list: Vec<AgentSpec>) -> Self {
        Self { list }
    }

    pub fn get(&self, name: &str) -> Option<&AgentSpec> {
        self.list.iter().find(|agent| agent.name == name)
    }

    pub fn default_agent(&self) -> Option<&AgentSpec> {
        self.list.first()
    }

    pub fn names(&self) -> Vec<String> {
        self.list.iter().map(|agent| agent.name.clone()).collect()
    }
}

/// Reads a tools file: a JSON array of `{name, description, parameters}`.
pub fn read_tools(path: &std::path::Path) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read tools file {}: {error}", path.display()))?;
    parse_tools(&text).map_err(|error| format!("tools file {}: {error}", path.display()))
}

pub fn parse_tools(text: &str) -> Result<Vec<Value>, String> {
    let tools: Vec<Value> = serde_json::from_str(text)
        .map_err(|error| format!("not a JSON array of tools: {error}"))?;
    for (position, tool) in tools.iter().enumerate() {
        if tool.get("name").and_then(Value::as_str).is_none() {
            return Err(format!("tool {position} has no `name`"));
        }
    }
    Ok(tools)
}
