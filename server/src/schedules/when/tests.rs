use super::*;

const MINUTE: Duration = Duration::from_secs(60);

fn ms(text: &str) -> i64 {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .timestamp_millis()
}

fn cron_in(expression: &str, zone: &str) -> Timing {
    let when = When::Cron {
        expression: expression.into(),
    };
    read(&when, zone, 0, MINUTE).unwrap()
}

fn locals(timing: &Timing, after: &str, count: usize) -> Vec<String> {
    timing
        .upcoming(ms(after), count)
        .into_iter()
        .map(|fire| fire.local)
        .collect()
}

#[test]
fn nine_oclock_in_berlin_stays_nine_oclock_across_both_changes() {
    let daily = cron_in("0 9 * * *", "Europe/Berlin");
    assert_eq!(
        locals(&daily, "2026-03-27T12:00:00Z", 4),
        [
            "2026-03-28 09:00 CET",
            "2026-03-29 09:00 CEST",
            "2026-03-30 09:00 CEST",
            "2026-03-31 09:00 CEST"
        ]
    );
    let fires = daily.upcoming(ms("2026-10-23T12:00:00Z"), 3);
    assert_eq!(fires[0].at_ms, ms("2026-10-24T07:00:00Z"));
    assert_eq!(fires[1].at_ms, ms("2026-10-25T08:00:00Z"));
    assert_eq!(fires[1].local, "2026-10-25 09:00 CET");
}

#[test]
fn a_time_skipped_by_spring_forward_fires_at_the_first_minute_after_it() {
    let night = cron_in("30 2 * * *", "America/New_York");
    let fires = night.upcoming(ms("2026-03-07T12:00:00Z"), 3);
    assert_eq!(fires[0].local, "2026-03-08 03:00 EDT");
    assert_eq!(fires[1].local, "2026-03-09 02:30 EDT");
}

#[test]
fn a_time_in_the_repeated_autumn_hour_fires_once() {
    let night = cron_in("30 1 * * *", "America/New_York");
    let fires = night.upcoming(ms("2026-10-31T12:00:00Z"), 3);
    assert_eq!(
        fires.iter().map(|f| f.local.as_str()).collect::<Vec<_>>(),
        [
            "2026-11-01 01:30 EDT",
            "2026-11-02 01:30 EST",
            "2026-11-03 01:30 EST"
        ]
    );
}

#[test]
fn half_hourly_fires_walk_through_the_repeated_hour_in_real_time_order() {
    let half = cron_in("*/30 * * * *", "America/New_York");
    let fires = half.upcoming(ms("2026-11-01T04:45:00Z"), 5);
    let instants: Vec<i64> = fires.iter().map(|f| f.at_ms).collect();
    assert!(instants.windows(2).all(|pair| pair[0] < pair[1]));
    assert_eq!(fires[0].local, "2026-11-01 01:00 EDT");
}

#[test]
fn zones_with_half_hour_changes_and_without_changes_hold_their_hour() {
    let lord_howe = cron_in("0 9 * * *", "Australia/Lord_Howe");
    let fires = lord_howe.upcoming(ms("2026-10-02T00:00:00Z"), 3);
    assert!(
        fires.iter().all(|fire| fire.local.contains(" 09:00 ")),
        "{fires:?}"
    );
    let kolkata = cron_in("0 9 * * *", "Asia/Kolkata");
    assert_eq!(
        kolkata.next_after(ms("2026-06-01T00:00:00Z")),
        Some(ms("2026-06-01T03:30:00Z"))
    );
}

#[test]
fn an_interval_is_elapsed_time_which_daylight_saving_does_not_move() {
    let every = When::Every {
        interval: "every 2h".into(),
    };
    let anchor = ms("2026-03-28T23:00:00Z");
    let timing = read(&every, "Europe/Berlin", anchor, MINUTE).unwrap();
    let fires = timing.upcoming(anchor, 3);
    assert_eq!(
        fires.iter().map(|f| f.at_ms - anchor).collect::<Vec<_>>(),
        [7_200_000, 14_400_000, 21_600_000]
    );
    assert_eq!(fires[1].local, "2026-03-29 05:00 CEST");
    assert_eq!(timing.next_after(anchor - 1), Some(anchor));
}

#[test]
fn a_one_time_schedule_fires_once_at_its_wall_clock_time() {
    let once = When::Once {
        at: "2026-12-24T09:00".into(),
    };
    let timing = read(&once, "Europe/Berlin", 0, MINUTE).unwrap();
    let at = ms("2026-12-24T08:00:00Z");
    assert_eq!(timing.next_after(0), Some(at));
    assert_eq!(timing.next_after(at), None);
    let gap = When::Once {
        at: "2026-03-29T02:30".into(),
    };
    let moved = read(&gap, "Europe/Berlin", 0, MINUTE).unwrap();
    assert_eq!(
        moved.local(moved.next_after(0).unwrap()),
        "2026-03-29 03:00 CEST"
    );
}

#[test]
fn bad_timings_are_refused_naming_the_field() {
    let cron = |expression: &str| When::Cron {
        expression: expression.into(),
    };
    let refused = |when: &When, zone: &str| read(when, zone, 0, MINUTE).unwrap_err();
    assert_eq!(
        refused(&cron("0 9 * * *"), "Mars/Olympus").field,
        "timezone"
    );
    assert_eq!(refused(&cron("0 9 * *"), "UTC").field, "when.expression");
    assert_eq!(
        refused(&cron("0 0 9 * * *"), "UTC").field,
        "when.expression"
    );
    assert_eq!(refused(&cron("61 * * * *"), "UTC").field, "when.expression");
    assert_eq!(refused(&cron("0 0 31 2 *"), "UTC").reason, "never fires");
    let fast = When::Every {
        interval: "every 10s".into(),
    };
    assert_eq!(refused(&fast, "UTC").field, "when.interval");
    assert!(read(&fast, "UTC", 0, Duration::from_secs(1)).is_ok());
    let nonsense = When::Every {
        interval: "every tuesday".into(),
    };
    assert_eq!(refused(&nonsense, "UTC").field, "when.interval");
    let never = When::Once {
        at: "christmas".into(),
    };
    assert_eq!(refused(&never, "UTC").field, "when.at");
    assert!(read(&cron("@daily"), "UTC", 0, MINUTE).is_ok());
}
