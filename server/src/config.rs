//! Command-line flags and environment variables, gathered into one typed configuration.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

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
    /// Serve the web console (server-rendered and hydrated) and its server functions.
    Serve(ServeArgs),
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "AGENT_OS_ADDR", default_value = "127.0.0.1:3000")]
    pub addr: SocketAddr,
    /// Directory that holds the SQLite database file (created if missing).
    #[arg(long, env = "AGENT_OS_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,
    /// Database URL instead of the file in the data directory: `sqlite:PATH` or
    /// `postgres://user@host/db`.
    #[arg(long, env = "AGENT_OS_DB")]
    pub db: Option<String>,
    /// Directory with the built site: `pkg/` (wasm, JS glue, CSS) and public assets.
    #[arg(long, env = "LEPTOS_SITE_ROOT", default_value = "target/site")]
    pub site_root: PathBuf,
}

/// Everything `agent-os serve` needs, already validated by clap.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    pub addr: SocketAddr,
    pub data_dir: PathBuf,
    pub db: Option<String>,
    pub site_root: PathBuf,
}

impl ServeConfig {
    /// The database to open: `--db`, or the SQLite file in the data directory.
    pub fn database_url(&self) -> String {
        match &self.db {
            Some(url) => url.clone(),
            None => format!(
                "sqlite:{}",
                self.data_dir.join("agent-os.sqlite3").display()
            ),
        }
    }

    /// Whether the data directory is where the database lives (and must be writable).
    pub fn uses_data_dir(&self) -> bool {
        self.db.is_none()
    }
}

impl ServeArgs {
    pub fn into_config(self) -> ServeConfig {
        ServeConfig {
            addr: self.addr,
            data_dir: self.data_dir,
            db: self.db,
            site_root: self.site_root,
        }
    }
}
