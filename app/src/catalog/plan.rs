//! `plan`: a titled list of todos with their status.

use serde::Serialize;
use serde_json::Value;

use super::actions::{self, ResponseActions};
use super::{Base, Fields, Invalid, unique};

choice! {
    /// Where a todo stands (underscored, unlike the progress tracker's steps).
    TodoStatus {
        Pending = "pending",
        InProgress = "in_progress",
        Completed = "completed",
        Cancelled = "cancelled",
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Todo {
    pub id: String,
    pub label: String,
    pub status: TodoStatus,
    pub description: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    #[serde(flatten)]
    pub base: Base,
    pub title: String,
    pub description: Option<String>,
    pub todos: Vec<Todo>,
    /// Todos shown before the rest fold into "more".
    pub max_visible_todos: i64,
    pub show_progress: Option<bool>,
    pub response_actions: Option<ResponseActions>,
}

const MAX_TODOS: usize = 200;
const VISIBLE_TODOS: i64 = 4;

pub fn parse(value: &Value) -> Result<Plan, Invalid> {
    let fields = Fields::of(value, "")?;
    let base = Base::surface(&fields)?;
    let title = fields.text("title")?;
    let description = fields.opt_text("description")?;
    let todos = fields
        .list("todos", 1, MAX_TODOS)?
        .iter()
        .map(|todo| {
            Ok(Todo {
                id: todo.text("id")?,
                label: todo.text("label")?,
                status: todo.one_of("status", None)?,
                description: todo.opt_text("description")?,
            })
        })
        .collect::<Result<Vec<_>, Invalid>>()?;
    unique(
        &fields.path_of("todos"),
        "id",
        todos.iter().map(|t| t.id.as_str()),
    )?;
    Ok(Plan {
        base,
        title,
        description,
        todos,
        max_visible_todos: fields
            .opt_int("maxVisibleTodos", 1)?
            .unwrap_or(VISIBLE_TODOS),
        show_progress: fields.opt_bool("showProgress")?,
        response_actions: actions::read(&fields, "responseActions")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::refusal;
    use serde_json::json;

    fn plan(todos: Value) -> Value {
        json!({"id": "plan-release", "title": "Release", "todos": todos})
    }

    #[test]
    fn a_plan_reads_its_todos_and_shows_four_by_default() {
        let plan = parse(&plan(json!([
            {"id": "a", "label": "Tag", "status": "completed"},
            {"id": "b", "label": "Publish", "status": "in_progress", "description": "crates.io"}
        ])))
        .expect("valid");
        assert_eq!(plan.max_visible_todos, 4);
        assert_eq!(
            plan.todos.get(1).map(|t| t.status),
            Some(TodoStatus::InProgress)
        );
        assert_eq!(plan.base.id, "plan-release");
    }

    #[test]
    fn a_plan_without_todos_names_the_todos_field() {
        let refused = refusal(parse(&json!({"id": "p", "title": "T"})));
        assert_eq!(refused, "todos: required, a list of at least 1 item");
    }

    #[test]
    fn a_todo_status_outside_the_four_is_refused_with_what_was_sent() {
        let refused = refusal(parse(&plan(json!([
            {"id": "a", "label": "A", "status": "pending"},
            {"id": "b", "label": "B", "status": "done"}
        ]))));
        assert_eq!(
            refused,
            "todos[1].status: must be one of pending, in_progress, completed, cancelled (got \"done\")"
        );
    }

    #[test]
    fn a_hyphenated_status_is_the_progress_trackers_not_the_plans() {
        let refused = refusal(parse(&plan(
            json!([{"id": "a", "label": "A", "status": "in-progress"}]),
        )));
        assert!(
            refused.starts_with("todos[0].status: must be one of"),
            "{refused}"
        );
    }

    #[test]
    fn a_plan_showing_zero_todos_is_refused() {
        let mut value = plan(json!([{"id": "a", "label": "A", "status": "pending"}]));
        value["maxVisibleTodos"] = json!(0);
        assert_eq!(
            refusal(parse(&value)),
            "maxVisibleTodos: must be at least 1 (got 0)"
        );
    }

    #[test]
    fn a_plan_with_too_many_todos_names_the_cap() {
        let todos: Vec<Value> = (0..201)
            .map(|i| json!({"id": format!("t{i}"), "label": "L", "status": "pending"}))
            .collect();
        assert_eq!(
            refusal(parse(&plan(Value::Array(todos)))),
            "todos: must have at most 200 items (got 201)"
        );
    }

    #[test]
    fn a_plan_with_a_blank_title_is_refused() {
        let value = json!({"id": "p", "title": "  ", "todos": [{"id": "a", "label": "A",
            "status": "pending"}]});
        assert_eq!(
            refusal(parse(&value)),
            "title: required, a non-empty string"
        );
    }
}
