//! Crash, pause and fail points: the tests that prove answers survive a crash stop the
//! server between two steps of a delivery, those that prove two requests cannot
//! interleave badly hold the first inside the window, and those that prove a failed step
//! is tried again fail it once, and those that prove a panic is answered raise one. Debug
//! builds only; a release build has no such switch.

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

/// Holds the first arrival at this point, when `AGENT_OS_PAUSE_AT` names it, so a test can
/// send a second request into the window. With `AGENT_OS_PAUSE_DIR` the hold is told and
/// ended by files: `DIR/NAME.reached` is written on arrival, and the hold lasts until the
/// test writes `DIR/NAME.release` (30 s at most), so the test knows the window is open
/// rather than hoping it is. Without it, the hold is half a second.
#[cfg(debug_assertions)]
pub async fn pause_point(name: &str) {
    use std::sync::atomic::{AtomicBool, Ordering};
    static PAUSED: AtomicBool = AtomicBool::new(false);
    if !std::env::var("AGENT_OS_PAUSE_AT").is_ok_and(|at| at == name)
        || PAUSED.swap(true, Ordering::SeqCst)
    {
        return;
    }
    let Ok(dir) = std::env::var("AGENT_OS_PAUSE_DIR") else {
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    if let Err(error) = std::fs::write(dir.join(format!("{name}.reached")), b"") {
        eprintln!("agent-os: pause point {name} could not say it was reached: {error}");
    }
    let release = dir.join(format!("{name}.release"));
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    while !release.exists() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

#[cfg(not(debug_assertions))]
pub async fn pause_point(_name: &str) {}

/// Fails the first time the process reaches this point, when `AGENT_OS_FAIL_AT` names it
/// (among others, comma-separated), as a store or an agent's setup refusing for a moment
/// would.
#[cfg(debug_assertions)]
pub fn fail_point(name: &str) -> Result<(), String> {
    use std::collections::HashSet;
    use std::sync::Mutex;
    static FAILED: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let named = std::env::var("AGENT_OS_FAIL_AT")
        .is_ok_and(|at| at.split(',').any(|point| point.trim() == name));
    if !named {
        return Ok(());
    }
    let mut failed = FAILED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if failed
        .get_or_insert_with(HashSet::new)
        .insert(name.to_owned())
    {
        return Err(format!("failing once at fail point {name}"));
    }
    Ok(())
}

#[cfg(not(debug_assertions))]
pub fn fail_point(_name: &str) -> Result<(), String> {
    Ok(())
}

/// Panics when `AGENT_OS_PANIC_AT` names this point, as a bug in a handler would.
#[cfg(debug_assertions)]
pub fn panic_point(name: &str) {
    if std::env::var("AGENT_OS_PANIC_AT").is_ok_and(|at| at == name) {
        panic!("panicking at panic point {name}");
    }
}

#[cfg(not(debug_assertions))]
pub fn panic_point(_name: &str) {}
