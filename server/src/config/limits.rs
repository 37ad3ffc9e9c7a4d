//! The server's bounds under load — connections and live streams — as the flags, the
//! environment and the config file's `[limits]` table set them.

use std::time::Duration;

use clap::Args;

use crate::connections::ConnectionLimits;
use crate::live::StreamLimits;

#[derive(Debug, Default, Args)]
pub struct LimitArgs {
    /// Connections open at once; past it new ones wait in the listen queue [default: 1024].
    #[arg(long, env = "AGENT_OS_MAX_CONNECTIONS", value_name = "N")]
    pub max_connections: Option<usize>,
    /// Seconds a client has to send a request's headers [default: 10].
    #[arg(long, env = "AGENT_OS_HEADER_TIMEOUT", value_name = "SECS")]
    pub header_timeout: Option<f64>,
    /// Seconds a connection may carry nothing either way before it is closed [default: 120].
    #[arg(long, env = "AGENT_OS_IDLE_TIMEOUT", value_name = "SECS")]
    pub idle_timeout: Option<f64>,
    /// Live streams one user may hold open at once [default: 32].
    #[arg(long, env = "AGENT_OS_MAX_STREAMS_PER_USER", value_name = "N")]
    pub max_streams_per_user: Option<usize>,
    /// Live streams one tenant may hold open at once [default: 256].
    #[arg(long, env = "AGENT_OS_MAX_STREAMS_PER_TENANT", value_name = "N")]
    pub max_streams_per_tenant: Option<usize>,
    /// Live streams the server holds open at once [default: 768].
    #[arg(long, env = "AGENT_OS_MAX_STREAMS", value_name = "N")]
    pub max_streams: Option<usize>,
}

/// The config file's `[limits]` table: the same settings, under the same names.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsTable {
    max_connections: Option<usize>,
    header_timeout: Option<f64>,
    idle_timeout: Option<f64>,
    max_streams_per_user: Option<usize>,
    max_streams_per_tenant: Option<usize>,
    max_streams: Option<usize>,
}

/// Every bound, resolved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub connections: ConnectionLimits,
    pub streams: StreamLimits,
}

impl LimitArgs {
    /// The flags over the file over the defaults; a count of 0 or a time out of range is
    /// refused, naming the flag.
    pub fn resolve(self, table: LimitsTable) -> Result<Limits, String> {
        let connections = ConnectionLimits::default();
        let streams = StreamLimits::default();
        let limits = Limits {
            connections: ConnectionLimits {
                most: count(
                    self.max_connections.or(table.max_connections),
                    "max-connections",
                    connections.most,
                )?,
                header_timeout: seconds(
                    self.header_timeout.or(table.header_timeout),
                    "header-timeout",
                    connections.header_timeout,
                )?,
                idle_timeout: seconds(
                    self.idle_timeout.or(table.idle_timeout),
                    "idle-timeout",
                    connections.idle_timeout,
                )?,
            },
            streams: StreamLimits {
                per_user: count(
                    self.max_streams_per_user.or(table.max_streams_per_user),
                    "max-streams-per-user",
                    streams.per_user,
                )?,
                per_tenant: count(
                    self.max_streams_per_tenant.or(table.max_streams_per_tenant),
                    "max-streams-per-tenant",
                    streams.per_tenant,
                )?,
                total: count(
                    self.max_streams.or(table.max_streams),
                    "max-streams",
                    streams.total,
                )?,
            },
        };
        if limits.streams.total >= limits.connections.most {
            return Err(format!(
                "--max-streams {} must stay below --max-connections {}: streams hold connections, and requests need some too",
                limits.streams.total, limits.connections.most
            ));
        }
        Ok(limits)
    }
}

fn count(value: Option<usize>, name: &str, default: usize) -> Result<usize, String> {
    match value {
        None => Ok(default),
        Some(0) => Err(format!("--{name} 0: give a count of at least 1")),
        Some(count) => Ok(count),
    }
}

pub(super) fn seconds(
    value: Option<f64>,
    name: &str,
    default: Duration,
) -> Result<Duration, String> {
    match value {
        None => Ok(default),
        Some(secs) if secs.is_finite() && secs > 0.0 && secs <= 86_400.0 => {
            Ok(Duration::from_secs_f64(secs))
        }
        Some(secs) => Err(format!(
            "--{name} {secs}: give a number of seconds above 0 and at most 86400"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_win_over_the_file_and_nonsense_is_refused_by_name() {
        let table: LimitsTable =
            toml::from_str("max_connections = 50\nmax_streams = 20\nheader_timeout = 3").unwrap();
        let limits = LimitArgs {
            max_connections: Some(60),
            ..LimitArgs::default()
        }
        .resolve(table)
        .unwrap();
        assert_eq!(limits.connections.most, 60);
        assert_eq!(limits.streams.total, 20);
        assert_eq!(limits.connections.header_timeout, Duration::from_secs(3));
        let zero = LimitArgs {
            max_streams_per_user: Some(0),
            ..LimitArgs::default()
        };
        assert!(
            zero.resolve(LimitsTable::default())
                .unwrap_err()
                .contains("--max-streams-per-user 0")
        );
        let crowded = LimitArgs {
            max_connections: Some(10),
            ..LimitArgs::default()
        };
        assert!(
            crowded
                .resolve(LimitsTable::default())
                .unwrap_err()
                .contains("below --max-connections")
        );
    }
}
