//! RFC 6902 patches to the agent state and to artifacts, applied atomically and within a
//! budget: a few `copy` operations that each copy the whole document would double it every
//! time, so a patch with copies is applied one operation at a time against a size limit.

use serde_json::Value;

/// The largest document (agent state or artifact) a patch may produce, as JSON bytes.
pub const MAX_DOCUMENT_BYTES: usize = 8 * 1024 * 1024;

/// The most operations one patch may carry.
pub const MAX_PATCH_OPERATIONS: usize = 10_000;

/// Applies `patch` to `document`; on any failure the document is left as it was and the
/// error says why.
pub fn apply_patch(document: &mut Value, patch: &Value) -> Result<(), String> {
    apply_within(document, patch, MAX_DOCUMENT_BYTES)
}

fn apply_within(document: &mut Value, patch: &Value, limit: usize) -> Result<(), String> {
    let count = patch.as_array().map_or(0, Vec::len);
    if count > MAX_PATCH_OPERATIONS {
        return Err(format!(
            "a patch of {count} operations is over the limit of {MAX_PATCH_OPERATIONS}"
        ));
    }
    let operations =
        patch_operations(patch).map_err(|error| format!("malformed patch: {error}"))?;
    let copies = operations
        .iter()
        .any(|operation| matches!(operation, json_patch::PatchOperation::Copy(_)));
    if !copies {
        // Without copies a patch grows the document by at most its own size, which the
        // event size limit bounds.
        return json_patch::patch(document, &operations).map_err(|error| error.to_string());
    }
    let before = document.clone();
    let mut size = json_size_within(document, limit).ok_or_else(|| over(limit))?;
    for (index, operation) in operations.iter().enumerate() {
        let grows = match operation {
            json_patch::PatchOperation::Copy(copy) => document
                .pointer(copy.from.as_str())
                .map(|from| json_size_within(from, limit)),
            json_patch::PatchOperation::Add(add) => Some(json_size_within(&add.value, limit)),
            json_patch::PatchOperation::Replace(replace) => {
                Some(json_size_within(&replace.value, limit))
            }
            _ => Some(Some(0)),
        };
        // An unresolvable `from` fails in the patch itself, below.
        if let Some(grows) = grows {
            size = grows
                .and_then(|grows| size.checked_add(grows))
                .filter(|size| *size <= limit)
                .ok_or_else(|| {
                    *document = before.clone();
                    format!("operation {index}: {}", over(limit))
                })?;
        }
        if let Err(error) = json_patch::patch(document, std::slice::from_ref(operation)) {
            *document = before;
            return Err(format!("operation {index}: {error}"));
        }
    }
    Ok(())
}

fn over(limit: usize) -> String {
    format!("the document would grow past {limit} bytes; the patch was not applied")
}

/// The size of `value` written as JSON, or `None` once it passes `limit` (counting stops
/// there, so measuring a huge value costs no more than the limit).
pub fn json_size_within(value: &Value, limit: usize) -> Option<usize> {
    struct Counter {
        bytes: usize,
        limit: usize,
    }
    impl std::io::Write for Counter {
        fn write(&mut self, buffer: &[u8]) -> std::io::Result<usize> {
            self.bytes += buffer.len();
            if self.bytes > self.limit {
                return Err(std::io::Error::other("over the limit"));
            }
            Ok(buffer.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter { bytes: 0, limit };
    serde_json::to_writer(&mut counter, value).ok()?;
    Some(counter.bytes)
}

/// Reads RFC 6902 operations straight from the JSON already parsed. (Going through serde
/// buffers every operation object first, which made patches the costliest event kind.)
fn patch_operations(patch: &Value) -> Result<Vec<json_patch::PatchOperation>, String> {
    use json_patch::jsonptr::PointerBuf;
    use json_patch::{
        AddOperation, CopyOperation, MoveOperation, PatchOperation, RemoveOperation,
        ReplaceOperation, TestOperation,
    };
    let operations = patch
        .as_array()
        .ok_or("a patch must be an array of operations")?;
    operations
        .iter()
        .enumerate()
        .map(|(index, operation)| {
            let field = |name: &str| {
                operation
                    .get(name)
                    .ok_or_else(|| format!("operation {index} has no `{name}`"))
            };
            let pointer = |name: &str| {
                let text = field(name)?
                    .as_str()
                    .ok_or_else(|| format!("operation {index}: `{name}` must be a string"))?;
                PointerBuf::parse(text).map_err(|error| format!("operation {index}: {error}"))
            };
            let op = field("op")?
                .as_str()
                .ok_or_else(|| format!("operation {index}: `op` must be a string"))?;
            Ok(match op {
                "add" => PatchOperation::Add(AddOperation {
                    path: pointer("path")?,
                    value: field("value")?.clone(),
                }),
                "remove" => PatchOperation::Remove(RemoveOperation {
                    path: pointer("path")?,
                }),
                "replace" => PatchOperation::Replace(ReplaceOperation {
                    path: pointer("path")?,
                    value: field("value")?.clone(),
                }),
                "move" => PatchOperation::Move(MoveOperation {
                    from: pointer("from")?,
                    path: pointer("path")?,
                }),
                "copy" => PatchOperation::Copy(CopyOperation {
                    from: pointer("from")?,
                    path: pointer("path")?,
                }),
                "test" => PatchOperation::Test(TestOperation {
                    path: pointer("path")?,
                    value: field("value")?.clone(),
                }),
                other => return Err(format!("operation {index}: unknown op {other:?}")),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn copies_that_would_double_the_document_past_the_budget_are_refused_and_nothing_changes() {
        let mut state = json!({"a": "x".repeat(1000)});
        let original = state.clone();
        // Each copy doubles the document; forty of them would need terabytes.
        let patch: Vec<Value> = (0..40)
            .map(|n| json!({"op": "copy", "from": "", "path": format!("/c{n}")}))
            .collect();
        let error = apply_within(&mut state, &Value::Array(patch), 64 * 1024).unwrap_err();
        assert!(error.contains("would grow past 65536 bytes"), "{error}");
        assert_eq!(state, original);
    }

    #[test]
    fn copies_within_the_budget_apply_and_a_failing_operation_rolls_all_back() {
        let mut state = json!({"a": [1, 2], "b": {}});
        apply_patch(
            &mut state,
            &json!([{"op": "copy", "from": "/a", "path": "/b/a"}, {"op": "add", "path": "/c", "value": 3}]),
        )
        .unwrap();
        assert_eq!(state, json!({"a": [1, 2], "b": {"a": [1, 2]}, "c": 3}));
        let before = state.clone();
        let error = apply_patch(
            &mut state,
            &json!([{"op": "copy", "from": "/a", "path": "/d"}, {"op": "remove", "path": "/missing"}]),
        )
        .unwrap_err();
        assert!(error.starts_with("operation 1"), "{error}");
        assert_eq!(state, before);
    }

    #[test]
    fn a_patch_with_too_many_operations_is_refused_unread() {
        let mut state = json!({});
        let patch: Vec<Value> = (0..=MAX_PATCH_OPERATIONS)
            .map(|_| json!({"op": "test", "path": "", "value": {}}))
            .collect();
        let error = apply_patch(&mut state, &Value::Array(patch)).unwrap_err();
        assert!(error.contains("over the limit"), "{error}");
    }

    #[test]
    fn measuring_stops_at_the_limit() {
        let value = json!({"a": "x".repeat(100)});
        assert_eq!(json_size_within(&value, 1000), Some(108));
        assert_eq!(json_size_within(&value, 50), None);
    }
}
