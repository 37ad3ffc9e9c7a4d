//! The scripts of resume runs, chosen by the interrupts they answer.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::{DemoAgent, Run, Step, call, ev, say, tasks_state};

/// The script for a resume run, chosen by the interrupts it answers.
pub(super) fn resume_script(agent: &DemoAgent, input: &Value, run: &Run<'_>) -> Vec<Step> {
    let answers: HashMap<String, Value> = input
        .get("resume")
        .and_then(Value::as_array)
        .map(|entries| {
            entries
                .iter()
                .filter_map(|entry| {
                    Some((
                        entry.get("interruptId")?.as_str()?.to_owned(),
                        entry.clone(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let resolved = |id: &str| {
        answers
            .get(id)
            .and_then(|a| a.get("status"))
            .and_then(Value::as_str)
            == Some("resolved")
    };
    let payload = |id: &str| {
        answers
            .get(id)
            .and_then(|a| a.get("payload"))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let approved =
        |id: &str| resolved(id) && payload(id).get("approved") != Some(&Value::Bool(false));
    let mut steps = vec![run.started()];
    let message = format!("m-{}", run.run_id);
    if answers.contains_key("approve-budget") || answers.contains_key("confirm-date") {
        for (id, key) in [("approve-budget", "budget"), ("confirm-date", "date")] {
            let choice = payload(id)
                .get("choice")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            if approved(id) && (choice == "session" || choice == "always") {
                agent.remember(run.thread_id, key);
            }
        }
        let declined: Vec<&str> = ["approve-budget", "confirm-date"]
            .into_iter()
            .filter(|id| !approved(id))
            .collect();
        let mut text = match declined.len() {
            0 => "Both approved. Booked.".to_owned(),
            2 => "Both declined. Nothing booked.".to_owned(),
            _ => format!("Declined: {}. Nothing booked.", declined.join(", ")),
        };
        // A reason the operator gave with a denial is read back, so it is seen to arrive.
        for id in &declined {
            if let Some(reason) = payload(id).get("reason").and_then(Value::as_str) {
                text.push_str(&format!(" Reason given for {id}: {reason}"));
            }
        }
        say(&mut steps, &message, &text);
    } else if answers.contains_key("busy-third") {
        if approved("busy-third") {
            call(
                &mut steps,
                &format!("c-{}", run.run_id),
                "add_task",
                "{\"title\":\"sign it off\"}",
                Some("{\"id\":3,\"title\":\"sign it off\"}"),
            );
            steps.push(tasks_state(&[
                "write it down",
                "read it back",
                "sign it off",
            ]));
            say(&mut steps, &message, "Three on the board.");
        } else {
            say(&mut steps, &message, "Left it at two.");
        }
    } else if answers.contains_key("clarify-color") || answers.contains_key("clarify-free") {
        let id = if answers.contains_key("clarify-color") {
            "clarify-color"
        } else {
            "clarify-free"
        };
        let text = match payload(id).get("answer").and_then(Value::as_str) {
            Some(answer) if resolved(id) => format!("You said: {answer}. Done."),
            _ => "No answer, so I left it.".to_owned(),
        };
        say(&mut steps, &message, &text);
    } else if answers.contains_key("sudo-restart") {
        let password = payload("sudo-restart")
            .get("password")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let tool = format!(
            "t-{}",
            input
                .get("parentRunId")
                .and_then(Value::as_str)
                .unwrap_or(run.run_id)
        );
        let (result, text) = if password.is_empty() {
            (
                "{\"exit_code\":1,\"error\":\"no password given\"}".to_owned(),
                "Skipped: web was not restarted.".to_owned(),
            )
        } else {
            (
                "{\"exit_code\":0,\"output\":\"restarted web\"}".to_owned(),
                "Restarted web with the password you gave.".to_owned(),
            )
        };
        steps.push(ev(
            "TOOL_CALL_RESULT",
            json!({"messageId": format!("result-{tool}"), "toolCallId": tool, "content": result}),
        ));
        say(&mut steps, &message, &text);
    } else if answers.contains_key("secret-token") {
        let value = payload("secret-token")
            .get("value")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        // Neither the value nor anything made from it (a length, a digest) goes into the
        // thread: whoever reads the thread may not be whoever may read the secret.
        let text = if value.is_empty() {
            "Skipped: DEMO_TOKEN stays unset.".to_owned()
        } else {
            "Saved DEMO_TOKEN.".to_owned()
        };
        say(&mut steps, &message, &text);
    } else if answers.contains_key("terminal-read") {
        let text = match payload("terminal-read")
            .get("answer")
            .and_then(Value::as_str)
        {
            Some(screen) if resolved("terminal-read") => format!("Your terminal shows: {screen}"),
            _ => "No terminal text, so I carried on.".to_owned(),
        };
        say(&mut steps, &message, &text);
    } else if answers.contains_key("edit-apply") {
        let accepted = payload("edit-apply").get("accepted") == Some(&Value::Bool(true));
        let tool = payload("edit-apply")
            .get("toolCallId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let (result, text) = if accepted {
            ("{\"applied\":true}", "Applied the edit to src/lib.rs.")
        } else {
            ("{\"applied\":false}", "Left src/lib.rs unchanged.")
        };
        steps.push(ev(
            "TOOL_CALL_RESULT",
            json!({"messageId": format!("result-{tool}"), "toolCallId": tool, "content": result}),
        ));
        say(&mut steps, &message, text);
    } else {
        let ids: Vec<&String> = answers.keys().collect();
        steps.push(ev(
            "RUN_ERROR",
            json!({"message": format!("a resume for interrupts this agent never raised: {ids:?}")}),
        ));
        return steps;
    }
    if let Some(text) = sent_with_the_answers(input, run) {
        say(
            &mut steps,
            &format!("m-{}-message", run.run_id),
            &format!(
                "And to your message \u{201c}{text}\u{201d}: noted, in place of the answers you left."
            ),
        );
    }
    steps.push(run.finished());
    steps
}

/// A message the operator sent in place of the answers left: the console puts it last in
/// the resume run's messages, as `user-{runId}`.
fn sent_with_the_answers<'a>(input: &'a Value, run: &Run<'_>) -> Option<&'a str> {
    let last = input.get("messages")?.as_array()?.last()?;
    (last.get("role")?.as_str()? == "user"
        && last.get("id")?.as_str()? == format!("user-{}", run.run_id))
    .then(|| last.get("content")?.as_str())
    .flatten()
}
