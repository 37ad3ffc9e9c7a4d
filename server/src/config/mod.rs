//! Command-line flags and environment variables, gathered into one typed configuration.

use std::net::SocketAddr;
use std::path::PathBuf;

use std::sync::Arc;

use clap::{Args, Parser, Subcommand};

mod jobs;
mod limits;

pub use jobs::{JobArgs, Pacing};
pub use limits::{LimitArgs, Limits};

use crate::auth::DemoKey;
use crate::connectors::agui::AgUiConnector;
use crate::connectors::hermes::HermesConnector;
use crate::connectors::openai::{ApiChoice, OpenAiConnector, OpenAiSpec};
use crate::connectors::{AgentTimeouts, Connector, Connectors, parse_tools, read_tools};

#[derive(Debug, Parser)]
#[command(
    name = "agent-os",
    version,
    about = "Agent OS: the operator console of an agent runtime.",
    long_about = "Agent OS connects to agent backends, stores every event they emit durably and \
                  serves the operator console that renders their runs live."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the web console, the JSON API, the live event streams and (unless
    /// --no-demo) the built-in demo agent.
    Serve(Box<ServeArgs>),
    /// Serve only the demo AG-UI agent (POST /demo/agent), for use by another server.
    DemoAgent(DemoAgentArgs),
    /// Run the demo Hermes-style gateway on stdin/stdout (what `--hermes` spawns), or
    /// with --ws as a WebSocket server at ws://127.0.0.1:PORT/api/ws.
    DemoGateway(DemoGatewayArgs),
    /// Show a stored run or thread (or a recorded stream file) as the console would,
    /// read-only: it never calls an agent, re-runs a tool or answers an ask.
    Replay(ReplayArgs),
    /// Manage users: add one, grant a role in a tenant, set a password.
    #[command(subcommand)]
    User(crate::auth::cli::UserCommand),
    /// Manage API tokens: create one (printed once), revoke one.
    #[command(subcommand)]
    Token(crate::auth::cli::TokenCommand),
}

#[derive(Debug, Args)]
pub struct DemoGatewayArgs {
    /// Serve over WebSocket instead of stdio.
    #[arg(long)]
    pub ws: bool,
    /// WebSocket port (with --ws).
    #[arg(long, default_value_t = 9119)]
    pub port: u16,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A run id or a thread id (every run of the thread).
    pub target: Option<String>,
    /// Replay a recorded AG-UI SSE/JSONL stream, a Hermes JSONL transcript, an OpenAI
    /// Responses/Chat stream or a saved KsADK `ListSessionEvents` answer instead.
    #[arg(long, conflicts_with = "target")]
    pub file: Option<PathBuf>,
    /// Read the target as a session of the KsADK runtime at this URL (its origin or its
    /// `/v1` base), through its `ListSessionEvents`; the cursors are its `SeqId`s.
    #[arg(long, requires = "target", conflicts_with = "file")]
    pub ksadk: Option<String>,
    /// The KsADK agent id to ask for (with --ksadk).
    #[arg(long, requires = "ksadk")]
    pub agent_id: Option<String>,
    /// An environment variable holding a bearer token for the KsADK runtime (with --ksadk).
    #[arg(long, requires = "ksadk")]
    pub api_key_env: Option<String>,
    /// Only events with a sequence above this (exclusive).
    #[arg(long, default_value_t = 0)]
    pub after_seq_id: u64,
    /// Only events with a sequence below this (exclusive).
    #[arg(long)]
    pub before_seq_id: Option<u64>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: crate::replay::Format,
    /// Database URL (`sqlite:PATH` or `postgres://…`); default: the file in --data-dir.
    #[arg(long, env = "AGENT_OS_DB")]
    pub db: Option<String>,
    #[arg(long, env = "AGENT_OS_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,
    #[arg(long, default_value = "default")]
    pub tenant: String,
    /// Include analysis (reasoning) in the view.
    #[arg(long)]
    pub show_reasoning: bool,
}

impl ReplayArgs {
    pub fn into_request(self) -> crate::replay::Request {
        let ksadk = self.ksadk.map(|url| crate::replay::KsAdkSource {
            url,
            session_id: self.target.clone().unwrap_or_default(),
            agent_id: self.agent_id,
            api_key: self
                .api_key_env
                .and_then(|name| std::env::var(name).ok())
                .filter(|key| !key.is_empty()),
        });
        crate::replay::Request {
            database_url: crate::store::database_url(self.db.as_deref(), &self.data_dir),
            target: self.target,
            file: self.file,
            after: self.after_seq_id,
            before: self.before_seq_id,
            format: self.format,
            tenant: self.tenant,
            show_reasoning: self.show_reasoning,
            ksadk,
        }
    }
}

#[derive(Debug, Args)]
pub struct DemoAgentArgs {
    /// Port to listen on (loopback).
    #[arg(long, default_value_t = 8090)]
    pub port: u16,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// A TOML file with any of these settings (flags and environment win over it):
    /// addr, data_dir, db, site_root, demo, default_agent, [[agent]] {name, url, tools,
    /// api_key_env},
    /// [[hermes]] {name, command | url, per_tenant}, [[openai]] {name, url, model, api, api_key_env,
    /// tools}, [limits] {max_connections, header_timeout, idle_timeout, max_streams,
    /// max_streams_per_tenant, max_streams_per_user}, [jobs] {job_workers, job_lease,
    /// job_poll, schedule_grace, schedule_shortest}.
    #[arg(long, env = "AGENT_OS_CONFIG")]
    pub config: Option<PathBuf>,
    /// Address to listen on [default: 127.0.0.1:3000].
    #[arg(long, env = "AGENT_OS_ADDR")]
    pub addr: Option<SocketAddr>,
    /// Directory that holds the SQLite database file, created if missing [default: data].
    #[arg(long, env = "AGENT_OS_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Database URL instead of the file in the data directory: `sqlite:PATH` or
    /// `postgres://user@host/db`.
    #[arg(long, env = "AGENT_OS_DB")]
    pub db: Option<String>,
    /// Directory with the built site: `pkg/` (wasm, JS glue, CSS) and public assets
    /// [default: target/site].
    #[arg(long, env = "LEPTOS_SITE_ROOT")]
    pub site_root: Option<PathBuf>,
    /// An AG-UI agent: NAME=URL[,api_key_env=VAR] (repeatable), sent the value of VAR as
    /// its bearer key. The first is the default for new threads; without any, the
    /// built-in demo agent is the default.
    #[arg(long = "agent", value_name = "NAME=URL")]
    pub agents: Vec<String>,
    /// The tools offered to an agent: NAME=FILE, a JSON array of {name, description,
    /// parameters} (repeatable).
    #[arg(long = "tools", value_name = "NAME=FILE")]
    pub tools: Vec<String>,
    /// A Hermes gateway: NAME=COMMAND (spawned on first use, spoken to over stdio) or
    /// NAME=ws://HOST:PORT/PATH (repeatable).
    #[arg(long = "hermes", value_name = "NAME=COMMAND")]
    pub hermes: Vec<String>,
    /// An OpenAI-compatible endpoint: NAME=URL[,model=M][,api=responses|chat|auto]
    /// [,api_key_env=VAR] (repeatable). URL is the API's base (…/v1); the key is read from
    /// the variable VAR; without api= the console tries Responses, then Chat Completions.
    #[arg(long = "openai", value_name = "NAME=URL")]
    pub openai: Vec<String>,
    /// An environment variable a spawned Hermes gateway may see, besides PATH, HOME,
    /// the locale and TMPDIR (repeatable); it sees no other variable of the server's.
    #[arg(long = "hermes-env", value_name = "VAR")]
    pub hermes_env: Vec<String>,
    /// Run a gateway of its own for each tenant for the Hermes agent NAME, told its
    /// tenant in AGENT_OS_TENANT (repeatable).
    #[arg(long = "hermes-per-tenant", value_name = "NAME")]
    pub hermes_per_tenant: Vec<String>,
    /// A host name (or name:port) the server answers to besides its listen address and
    /// the loopback names, e.g. the name a reverse proxy forwards (repeatable).
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_hosts: Vec<String>,
    /// The agent new threads use [default: the first --agent, else the demo agent].
    #[arg(long, env = "AGENT_OS_DEFAULT_AGENT", value_name = "NAME")]
    pub default_agent: Option<String>,
    /// Do not mount the demo agent under /demo nor offer the demo gateway.
    #[arg(long)]
    pub no_demo: bool,
    /// Seconds to wait for an agent to accept a connection [default: 10].
    #[arg(long, env = "AGENT_OS_AGENT_CONNECT_TIMEOUT", value_name = "SECS")]
    pub agent_connect_timeout: Option<f64>,
    /// Seconds to wait for an agent's response to begin [default: 60].
    #[arg(long, env = "AGENT_OS_AGENT_FIRST_BYTE_TIMEOUT", value_name = "SECS")]
    pub agent_first_byte_timeout: Option<f64>,
    /// Seconds an agent's stream may stay silent before its run fails [default: 300].
    #[arg(long, env = "AGENT_OS_AGENT_IDLE_TIMEOUT", value_name = "SECS")]
    pub agent_idle_timeout: Option<f64>,
    #[command(flatten)]
    pub limits: LimitArgs,
    #[command(flatten)]
    pub jobs: JobArgs,
}

/// The `--config` TOML file.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    addr: Option<SocketAddr>,
    data_dir: Option<PathBuf>,
    db: Option<String>,
    site_root: Option<PathBuf>,
    demo: Option<bool>,
    default_agent: Option<String>,
    agent_connect_timeout: Option<f64>,
    agent_first_byte_timeout: Option<f64>,
    agent_idle_timeout: Option<f64>,
    #[serde(default)]
    agent: Vec<AgentEntry>,
    #[serde(default)]
    hermes: Vec<HermesEntry>,
    #[serde(default)]
    openai: Vec<OpenAiEntry>,
    #[serde(default)]
    hermes_env: Vec<String>,
    #[serde(default)]
    allow_hosts: Vec<String>,
    #[serde(default)]
    limits: limits::LimitsTable,
    #[serde(default)]
    jobs: jobs::JobsTable,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct AgentEntry {
    name: String,
    url: String,
    tools: Option<PathBuf>,
    api_key_env: Option<String>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct HermesEntry {
    name: String,
    command: Option<String>,
    url: Option<String>,
    #[serde(default)]
    per_tenant: bool,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct OpenAiEntry {
    name: String,
    url: String,
    model: Option<String>,
    api: Option<String>,
    api_key_env: Option<String>,
    tools: Option<PathBuf>,
}

impl ConfigFile {
    fn read(path: &std::path::Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| format!("cannot read config file {}: {error}", path.display()))?;
        toml::from_str(&text).map_err(|error| {
            format!(
                "config file {}: {}",
                path.display(),
                error.to_string().replace('\n', " ")
            )
        })
    }
}

/// Everything `agent-os serve` needs, already validated by clap.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    pub addr: SocketAddr,
    pub data_dir: PathBuf,
    pub db: Option<String>,
    pub site_root: PathBuf,
    pub agents: Vec<String>,
    pub tools: Vec<String>,
    pub hermes: Vec<String>,
    /// `--openai` values (the config file's `[[openai]]` tables first).
    pub openai: Vec<String>,
    /// Variables a spawned gateway may see besides the few every program needs.
    pub hermes_env: Vec<String>,
    /// Hermes agents that run a gateway of their own for each tenant.
    pub hermes_per_tenant: Vec<String>,
    /// Host names the server answers to besides its address and the loopback names.
    pub allow_hosts: Vec<String>,
    pub default_agent: Option<String>,
    pub demo: bool,
    pub timeouts: AgentTimeouts,
    pub limits: Limits,
    pub pacing: Pacing,
}

impl ServeConfig {
    /// The database to open: `--db`, or the SQLite file in the data directory.
    pub fn database_url(&self) -> String {
        crate::store::database_url(self.db.as_deref(), &self.data_dir)
    }

    /// Whether the data directory is where the database lives (and must be writable).
    pub fn uses_data_dir(&self) -> bool {
        self.db.is_none()
    }

    /// The agents from `--agent`/`--tools` and `--hermes`, plus the demo agent served at
    /// `addr` and the demo gateway.
    pub fn agents(
        &self,
        addr: SocketAddr,
        demo_key: Option<&DemoKey>,
    ) -> Result<Connectors, String> {
        let mut tools_of = std::collections::HashMap::new();
        for entry in &self.tools {
            let (name, file) = entry
                .split_once('=')
                .ok_or_else(|| format!("--tools {entry:?} is not NAME=FILE"))?;
            tools_of.insert(name.to_owned(), read_tools(std::path::Path::new(file))?);
        }
        let mut list: Vec<Arc<dyn Connector>> = Vec::new();
        for entry in &self.agents {
            let (name, rest) = entry
                .split_once('=')
                .ok_or_else(|| format!("--agent {entry:?} is not NAME=URL"))?;
            let (url, key_env) = match rest.rsplit_once(",api_key_env=") {
                Some((url, var)) if !var.is_empty() => (url, Some(var)),
                _ => (rest, None),
            };
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!("--agent {name}: {url:?} is not an http(s) URL"));
            }
            let bearer = match key_env {
                Some(var) => Some(std::env::var(var).map_err(|_| {
                    format!("--agent {name}: api_key_env={var} names a variable that is not set")
                })?),
                None => None,
            };
            let tools = tools_of.remove(name).unwrap_or_default();
            list.push(Arc::new(
                AgUiConnector::new(name, url, tools, Vec::new()).with_bearer(bearer),
            ));
        }
        if let (true, Some(key)) = (self.demo, demo_key) {
            let host = loopback(addr);
            let tools = match tools_of.remove("demo") {
                Some(tools) => tools,
                None => parse_tools(crate::demo::agent::TOOLS)?,
            };
            list.push(Arc::new(
                AgUiConnector::new(
                    "demo",
                    &format!("http://{host}/demo/agent"),
                    tools,
                    words(&crate::demo::agent::SCENARIOS),
                )
                .with_bearer(Some(key.expose().to_owned())),
            ));
        }
        for entry in &self.openai {
            let spec = OpenAiSpec::parse(entry)?;
            let key = spec.key();
            let tools = tools_of.remove(&spec.name).unwrap_or_default();
            list.push(Arc::new(OpenAiConnector::new(spec, key, tools)));
        }
        for entry in &self.hermes {
            let (name, command) = entry
                .split_once('=')
                .ok_or_else(|| format!("--hermes {entry:?} is not NAME=COMMAND"))?;
            list.push(Arc::new(
                HermesConnector::new(name, command, Vec::new())
                    .passing_env(&self.hermes_env)
                    .per_tenant(self.hermes_per_tenant.iter().any(|each| each == name)),
            ));
        }
        if let Some(unknown) = self
            .hermes_per_tenant
            .iter()
            .find(|name| !list.iter().any(|agent| agent.name() == name.as_str()))
        {
            return Err(format!(
                "--hermes-per-tenant {unknown}: no Hermes agent of that name"
            ));
        }
        if let (true, Some(key)) = (self.demo, demo_key) {
            let spec = OpenAiSpec {
                name: "demo-openai".into(),
                url: format!("http://{}/demo/openai/v1", loopback(addr)),
                model: None,
                api: ApiChoice::Negotiate,
                api_key_env: None,
            };
            list.push(Arc::new(
                OpenAiConnector::new(
                    spec,
                    crate::connectors::openai::ApiKey::Fixed(key.expose().to_owned()),
                    Vec::new(),
                )
                .with_suggestions(words(&crate::demo::openai::SCENARIOS)),
            ));
            // KsADK's runtime as recorded, found the way a new user would give it: its
            // origin, with no `/v1`, the API and model left to negotiation.
            list.push(Arc::new(
                OpenAiConnector::new(
                    OpenAiSpec {
                        name: "demo-ksadk".into(),
                        url: format!("http://{}/demo/ksadk", loopback(addr)),
                        model: None,
                        api: ApiChoice::Negotiate,
                        api_key_env: None,
                    },
                    crate::connectors::openai::ApiKey::Fixed(key.expose().to_owned()),
                    Vec::new(),
                )
                .with_suggestions(words(&crate::demo::ksadk::SCENARIOS)),
            ));
            let exe = std::env::current_exe().map_err(|error| {
                format!("cannot find this program to run its demo gateway: {error}")
            })?;
            list.push(Arc::new(
                HermesConnector::new(
                    "demo-hermes",
                    &format!("'{}' demo-gateway", exe.display()),
                    words(&crate::demo::gateway::SCENARIOS),
                )
                .passing_env(&[
                    "AGENT_OS_DEMO_DELAY_MS".to_owned(),
                    crate::demo::gateway::JOURNAL_ENV.to_owned(),
                    crate::demo::gateway::CRON_FILE_ENV.to_owned(),
                ]),
            ));
        }
        if let Some(name) = tools_of.keys().next() {
            return Err(format!("--tools {name}=…: no agent of that name"));
        }
        if let Some(name) = &self.default_agent {
            let position = list
                .iter()
                .position(|agent| agent.name() == name)
                .ok_or_else(|| {
                    let names: Vec<&str> = list.iter().map(|agent| agent.name()).collect();
                    format!(
                        "--default-agent {name}: no agent of that name; configured: {}",
                        names.join(", ")
                    )
                })?;
            let chosen = list.remove(position);
            list.insert(0, chosen);
        }
        Ok(Connectors::new(list))
    }
}

/// The address the server reaches itself at: loopback when it listens everywhere.
fn loopback(addr: SocketAddr) -> SocketAddr {
    if addr.ip().is_unspecified() {
        SocketAddr::from(([127, 0, 0, 1], addr.port()))
    } else {
        addr
    }
}

fn words(list: &[(&str, &str)]) -> Vec<app::model::Starter> {
    list.iter()
        .map(|(prompt, line)| app::model::Starter::new(prompt, line))
        .collect()
}

impl ServeArgs {
    /// Merges the config file (if any) under the flags; the file's agents come first.
    pub fn into_config(self) -> Result<ServeConfig, String> {
        let file = match &self.config {
            Some(path) => ConfigFile::read(path)?,
            None => ConfigFile::default(),
        };
        let mut agents: Vec<String> = file
            .agent
            .iter()
            .map(|a| match &a.api_key_env {
                Some(var) => format!("{}={},api_key_env={var}", a.name, a.url),
                None => format!("{}={}", a.name, a.url),
            })
            .collect();
        agents.extend(self.agents);
        let mut tools: Vec<String> = file
            .agent
            .iter()
            .filter_map(|a| {
                a.tools
                    .as_ref()
                    .map(|tools| format!("{}={}", a.name, tools.display()))
            })
            .collect();
        tools.extend(self.tools);
        let mut hermes = Vec::new();
        for gateway in &file.hermes {
            match (&gateway.command, &gateway.url) {
                (Some(command), None) => hermes.push(format!("{}={command}", gateway.name)),
                (None, Some(url)) => hermes.push(format!("{}={url}", gateway.name)),
                _ => {
                    return Err(format!(
                        "config: [[hermes]] {:?} needs exactly one of `command` and `url`",
                        gateway.name
                    ));
                }
            }
        }
        hermes.extend(self.hermes);
        let mut openai = Vec::new();
        for table in &file.openai {
            let spec = OpenAiSpec {
                name: table.name.clone(),
                url: table.url.trim_end_matches('/').to_owned(),
                model: table.model.clone(),
                api: ApiChoice::parse(table.api.as_deref().unwrap_or("auto"))
                    .map_err(|error| format!("config: [[openai]] {:?}: {error}", table.name))?,
                api_key_env: table.api_key_env.clone(),
            };
            spec.check()
                .map_err(|error| format!("config: [[openai]]: {error}"))?;
            openai.push(spec.to_flag());
            if let Some(file) = &table.tools {
                tools.push(format!("{}={}", table.name, file.display()));
            }
        }
        openai.extend(self.openai);
        let defaults = AgentTimeouts::default();
        let timeouts = AgentTimeouts {
            connect: limits::seconds(
                self.agent_connect_timeout.or(file.agent_connect_timeout),
                "agent-connect-timeout",
                defaults.connect,
            )?,
            first_byte: limits::seconds(
                self.agent_first_byte_timeout
                    .or(file.agent_first_byte_timeout),
                "agent-first-byte-timeout",
                defaults.first_byte,
            )?,
            idle: limits::seconds(
                self.agent_idle_timeout.or(file.agent_idle_timeout),
                "agent-idle-timeout",
                defaults.idle,
            )?,
        };
        let limits = self.limits.resolve(file.limits)?;
        let pacing = self.jobs.resolve(file.jobs)?;
        Ok(ServeConfig {
            timeouts,
            limits,
            pacing,
            addr: self
                .addr
                .or(file.addr)
                .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 3000))),
            data_dir: self
                .data_dir
                .or(file.data_dir)
                .unwrap_or_else(|| "data".into()),
            db: self.db.or(file.db),
            site_root: self
                .site_root
                .or(file.site_root)
                .unwrap_or_else(|| "target/site".into()),
            agents,
            tools,
            hermes,
            openai,
            hermes_env: file.hermes_env.into_iter().chain(self.hermes_env).collect(),
            hermes_per_tenant: file
                .hermes
                .iter()
                .filter(|gateway| gateway.per_tenant)
                .map(|gateway| gateway.name.clone())
                .chain(self.hermes_per_tenant)
                .collect(),
            allow_hosts: file
                .allow_hosts
                .into_iter()
                .chain(self.allow_hosts)
                .collect(),
            default_agent: self.default_agent.or(file.default_agent),
            demo: !self.no_demo && file.demo.unwrap_or(true),
        })
    }
}
