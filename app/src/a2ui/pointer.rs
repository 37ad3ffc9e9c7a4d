//! JSON Pointers into a surface's data model: read, upsert and delete with A2UI's rules
//! (an upsert creates what is missing; deleting from an array nulls the slot and keeps
//! the length).

use serde_json::{Map, Value};

/// Longest array an upsert may grow by writing past its end, so a hostile index cannot
/// allocate gigabytes of nulls.
const MOST_ARRAY_GROWTH: usize = 10_000;

/// The reference tokens of `pointer` (`""` and `"/"` are the whole document).
pub fn tokens(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .filter(|token| !token.is_empty())
        .map(|token| token.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// The value at `pointer`, if there is one.
pub fn get<'a>(data: &'a Value, pointer: &str) -> Option<&'a Value> {
    tokens(pointer)
        .iter()
        .try_fold(data, |node, token| match node {
            Value::Object(fields) => fields.get(token),
            Value::Array(items) => items.get(token.parse::<usize>().ok()?),
            _ => None,
        })
}

/// Why a write could not be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    #[error("{0:?} is not an array index")]
    NotAnIndex(String),
    #[error("index {0} is too far past the end of the array")]
    TooFar(usize),
    #[error("{0:?} goes through a value that is neither an object nor an array")]
    ThroughScalar(String),
}

/// Writes `value` at `pointer`, creating objects on the way; `None` deletes the key (in
/// an array: nulls the slot). Writing at the root replaces the whole model.
pub fn set(data: &mut Value, pointer: &str, value: Option<Value>) -> Result<(), WriteError> {
    let tokens = tokens(pointer);
    let Some((last, parents)) = tokens.split_last() else {
        *data = value.unwrap_or_else(|| Value::Object(Map::new()));
        return Ok(());
    };
    let mut node = data;
    for token in parents {
        if node.is_null() {
            *node = Value::Object(Map::new());
        }
        node = match node {
            Value::Object(fields) => fields
                .entry(token.clone())
                .or_insert_with(|| Value::Object(Map::new())),
            Value::Array(items) => {
                let index = index_of(token, items.len())?;
                if index == items.len() {
                    items.push(Value::Object(Map::new()));
                }
                &mut items[index]
            }
            _ => return Err(WriteError::ThroughScalar(token.clone())),
        };
    }
    if node.is_null() && value.is_some() {
        *node = Value::Object(Map::new());
    }
    match node {
        Value::Object(fields) => {
            match value {
                Some(value) => fields.insert(last.clone(), value),
                None => fields.remove(last),
            };
            Ok(())
        }
        Value::Array(items) => {
            let index = index_of(last, items.len())?;
            if index >= items.len() {
                if value.is_none() {
                    return Ok(());
                }
                items.resize(index + 1, Value::Null);
            }
            items[index] = value.unwrap_or(Value::Null);
            Ok(())
        }
        _ => Err(WriteError::ThroughScalar(last.clone())),
    }
}

fn index_of(token: &str, len: usize) -> Result<usize, WriteError> {
    if token == "-" {
        return Ok(len);
    }
    let index = token
        .parse::<usize>()
        .map_err(|_| WriteError::NotAnIndex(token.to_owned()))?;
    if index > len + MOST_ARRAY_GROWTH {
        return Err(WriteError::TooFar(index));
    }
    Ok(index)
}

/// `pointer` with `token` appended (escaped).
pub fn join(pointer: &str, token: &str) -> String {
    let escaped = token.replace('~', "~0").replace('/', "~1");
    format!("{}/{escaped}", pointer.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_objects_arrays_and_escaped_keys() {
        let data = json!({"a": {"b/c": [1, {"d~e": "x"}]}});
        assert_eq!(get(&data, "/a/b~1c/1/d~0e"), Some(&json!("x")));
        assert_eq!(get(&data, "/a/b~1c/7"), None);
        assert_eq!(get(&data, "/"), Some(&data));
    }

    #[test]
    fn an_upsert_creates_the_path() {
        let mut data = json!({});
        set(&mut data, "/user/name", Some(json!("Ada"))).unwrap();
        assert_eq!(data, json!({"user": {"name": "Ada"}}));
    }

    #[test]
    fn deleting_from_an_array_nulls_the_slot_and_keeps_the_length() {
        let mut data = json!({"items": [1, 2, 3]});
        set(&mut data, "/items/1", None).unwrap();
        assert_eq!(data, json!({"items": [1, null, 3]}));
        set(&mut data, "/items", None).unwrap();
        assert_eq!(data, json!({}));
    }

    #[test]
    fn the_root_replaces_the_whole_model() {
        let mut data = json!({"old": true});
        set(&mut data, "/", Some(json!({"new": 1}))).unwrap();
        assert_eq!(data, json!({"new": 1}));
        set(&mut data, "/", None).unwrap();
        assert_eq!(data, json!({}));
    }

    #[test]
    fn a_hostile_index_is_refused_not_allocated() {
        let mut data = json!({"items": []});
        assert_eq!(
            set(&mut data, "/items/4000000000", Some(json!(1))),
            Err(WriteError::TooFar(4_000_000_000))
        );
        assert!(set(&mut data, "/items/x", Some(json!(1))).is_err());
        let mut scalar = json!({"n": 1});
        assert!(set(&mut scalar, "/n/deeper", Some(json!(1))).is_err());
    }

    #[test]
    fn join_escapes_its_token() {
        assert_eq!(join("/a", "b/c"), "/a/b~1c");
        assert_eq!(join("/", "x"), "/x");
    }
}
