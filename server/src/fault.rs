//! Crash points: the tests that prove answers survive a crash stop the server between two
//! steps of a delivery. Debug builds only; a release build has no such switch.

/// Exits at once, as a crash would, when `AGENT_OS_CRASH_AT` names this point.
#[cfg(debug_assertions)]
pub fn crash_point(name: &str) {
    if std::env::var("AGENT_OS_CRASH_AT").is_ok_and(|at| at == name) {
        eprintln!("agent-os: stopping at crash point {name}");
        std::process::exit(86);
    }
}

#[cfg(not(debug_assertions))]
pub fn crash_point(_name: &str) {}
