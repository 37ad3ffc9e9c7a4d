//! The agents this server can talk to, by name, with how to reach each.

use app::model::AgentEnvironment;
use serde_json::Value;

/// How long the console waits on an agent over HTTP before it gives up on the run, so a
/// silent agent never holds its thread forever.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentTimeouts {
    /// To open the connection.
    pub connect: std::time::Duration,
    /// From the request to the response's status line.
    pub first_byte: std::time::Duration,
    /// Between two reads of the response body.
    pub idle: std::time::Duration,
}

impl Default for AgentTimeouts {
    fn default() -> Self {
        Self {
            connect: std::time::Duration::from_secs(10),
            first_byte: std::time::Duration::from_secs(60),
            idle: std::time::Duration::from_secs(300),
        }
    }
}

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

    pub fn iter(&self) -> impl Iterator<Item = &AgentSpec> {
        self.list.iter()
    }
}

impl AgentSpec {
    /// How the console reaches this agent, with no credential in it.
    pub fn environment(&self) -> AgentEnvironment {
        let (protocol, transport, endpoint, tools) = match &self.kind {
            AgentKind::AgUi { url, tools } => (
                "AG-UI",
                "HTTP + SSE",
                url_without_credentials(url),
                tools
                    .iter()
                    .filter_map(|tool| tool.get("name")?.as_str().map(str::to_owned))
                    .collect(),
            ),
            AgentKind::Hermes { target } if is_websocket(target) => (
                "Hermes gateway (JSON-RPC)",
                "WebSocket",
                url_without_credentials(target),
                Vec::new(),
            ),
            AgentKind::Hermes { target } => (
                "Hermes gateway (JSON-RPC)",
                "stdio",
                program_of(target),
                Vec::new(),
            ),
        };
        AgentEnvironment {
            agent: self.name.clone(),
            protocol: protocol.into(),
            transport: transport.into(),
            endpoint,
            tools,
        }
    }
}

fn is_websocket(target: &str) -> bool {
    target.starts_with("ws://") || target.starts_with("wss://")
}

/// `scheme://host[:port]/path`: a user, password, query or fragment may hold a token.
fn url_without_credentials(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let rest = match rest.split_once('/') {
        Some((authority, path)) => {
            let host = authority.rsplit('@').next().unwrap_or(authority);
            format!("{host}/{path}")
        }
        None => rest.rsplit('@').next().unwrap_or(rest).to_owned(),
    };
    if scheme.is_empty() {
        rest
    } else {
        format!("{scheme}://{rest}")
    }
}

/// The program a command line runs (its file name); its arguments may hold secrets.
fn program_of(command: &str) -> String {
    let command = command.trim();
    let (first, rest) = match command.strip_prefix('\'') {
        Some(quoted) => quoted.split_once('\'').unwrap_or((quoted, "")),
        None => command
            .split_once(char::is_whitespace)
            .unwrap_or((command, "")),
    };
    let program = first.rsplit('/').next().unwrap_or(first);
    if rest.trim().is_empty() {
        program.to_owned()
    } else {
        format!("{program} …")
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

#[cfg(test)]
mod tests {
    use super::*;

    fn environment(kind: AgentKind) -> AgentEnvironment {
        AgentSpec {
            name: "a".into(),
            kind,
        }
        .environment()
    }

    #[test]
    fn an_endpoint_is_shown_without_user_password_query_or_fragment() {
        let shown = environment(AgentKind::AgUi {
            url: "https://bot:hunter2@agents.example:8443/run/v1?token=abc#x".into(),
            tools: vec![serde_json::json!({"name": "confirm"})],
        });
        assert_eq!(shown.endpoint, "https://agents.example:8443/run/v1");
        assert_eq!(
            (shown.protocol.as_str(), shown.transport.as_str()),
            ("AG-UI", "HTTP + SSE")
        );
        assert_eq!(shown.tools, ["confirm"]);
        let shown = environment(AgentKind::Hermes {
            target: "wss://user:pw@gw.example?key=1".into(),
        });
        assert_eq!(
            (shown.transport.as_str(), shown.endpoint.as_str()),
            ("WebSocket", "wss://gw.example")
        );
    }

    #[test]
    fn a_command_is_shown_as_its_program_only() {
        let shown = environment(AgentKind::Hermes {
            target: "/opt/hermes/bin/hermes-gateway --api-key sk-123".into(),
        });
        assert_eq!(
            (shown.transport.as_str(), shown.endpoint.as_str()),
            ("stdio", "hermes-gateway …")
        );
        let shown = environment(AgentKind::Hermes {
            target: "'/usr/local/bin/agent os' demo-gateway".into(),
        });
        assert_eq!(shown.endpoint, "agent os …");
        let shown = environment(AgentKind::Hermes {
            target: "hermes".into(),
        });
        assert_eq!(shown.endpoint, "hermes");
    }
}
