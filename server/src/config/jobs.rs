//! How background work is paced — the job engine's workers, leases and poll, and how late
//! a schedule's fire may be — as the flags, the environment and the config file's
//! `[jobs]` table set them. Tests shorten the clocks here; nothing replaces them.

use std::time::Duration;

use clap::Args;

use super::limits::seconds;
use crate::jobs::EngineConfig;
use crate::schedules::ScheduleConfig;

#[derive(Debug, Default, Args)]
pub struct JobArgs {
    /// Background jobs this process runs at once [default: 8].
    #[arg(long, env = "AGENT_OS_JOB_WORKERS", value_name = "N")]
    pub job_workers: Option<usize>,
    /// Seconds a worker's hold on a job lasts without a heartbeat; a job whose worker went
    /// quiet this long is taken again by any process [default: 60].
    #[arg(long, env = "AGENT_OS_JOB_LEASE", value_name = "SECS")]
    pub job_lease: Option<f64>,
    /// Seconds between looks at the store when nothing wakes the engine [default: 5].
    #[arg(long, env = "AGENT_OS_JOB_POLL", value_name = "SECS")]
    pub job_poll: Option<f64>,
    /// Seconds after its time a schedule's fire still counts as on time, not missed
    /// [default: 60].
    #[arg(long, env = "AGENT_OS_SCHEDULE_GRACE", value_name = "SECS")]
    pub schedule_grace: Option<f64>,
    /// The shortest interval a schedule may have, in seconds [default: 60].
    #[arg(long, env = "AGENT_OS_SCHEDULE_SHORTEST", value_name = "SECS")]
    pub schedule_shortest: Option<f64>,
}

/// The config file's `[jobs]` table: the same settings, under the same names.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobsTable {
    job_workers: Option<usize>,
    job_lease: Option<f64>,
    job_poll: Option<f64>,
    schedule_grace: Option<f64>,
    schedule_shortest: Option<f64>,
}

/// Background work's pacing, resolved.
#[derive(Clone, Debug, Default)]
pub struct Pacing {
    pub engine: EngineConfig,
    pub schedules: ScheduleConfig,
}

impl JobArgs {
    /// The flags over the file over the defaults; nonsense is refused naming the flag.
    pub fn resolve(self, table: JobsTable) -> Result<Pacing, String> {
        let engine = EngineConfig::default();
        let schedules = ScheduleConfig::default();
        let workers = match self.job_workers.or(table.job_workers) {
            None => engine.workers,
            Some(0) => return Err("--job-workers 0: give a count of at least 1".into()),
            Some(workers) => workers,
        };
        Ok(Pacing {
            engine: EngineConfig {
                workers,
                lease: at_least_a_second(
                    seconds(
                        self.job_lease.or(table.job_lease),
                        "job-lease",
                        engine.lease,
                    )?,
                    "job-lease",
                )?,
                poll: seconds(self.job_poll.or(table.job_poll), "job-poll", engine.poll)?,
                cancel_grace: engine.cancel_grace,
            },
            schedules: ScheduleConfig {
                grace: seconds(
                    self.schedule_grace.or(table.schedule_grace),
                    "schedule-grace",
                    schedules.grace,
                )?,
                shortest: seconds(
                    self.schedule_shortest.or(table.schedule_shortest),
                    "schedule-shortest",
                    schedules.shortest,
                )?,
            },
        })
    }
}

/// A lease renewed three times within itself must leave room for a store round trip.
fn at_least_a_second(lease: Duration, name: &str) -> Result<Duration, String> {
    if lease < Duration::from_secs(1) {
        return Err(format!(
            "--{name} {}: give at least 1 second",
            lease.as_secs_f64()
        ));
    }
    Ok(lease)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_flags_win_over_the_file_and_nonsense_is_refused_by_name() {
        let table: JobsTable = toml::from_str("job_workers = 3\nschedule_shortest = 1").unwrap();
        let pacing = JobArgs {
            job_workers: Some(5),
            ..JobArgs::default()
        }
        .resolve(table)
        .unwrap();
        assert_eq!(pacing.engine.workers, 5);
        assert_eq!(pacing.schedules.shortest, Duration::from_secs(1));
        assert_eq!(pacing.engine.lease, Duration::from_secs(60));
        let short = JobArgs {
            job_lease: Some(0.2),
            ..JobArgs::default()
        };
        assert!(
            short
                .resolve(JobsTable::default())
                .unwrap_err()
                .contains("--job-lease")
        );
        let none = JobArgs {
            job_workers: Some(0),
            ..JobArgs::default()
        };
        assert!(
            none.resolve(JobsTable::default())
                .unwrap_err()
                .contains("--job-workers 0")
        );
    }
}
