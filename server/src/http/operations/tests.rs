//! The list against what is really served: every server function and page is declared
//! and every declared one exists, no two operations share a method and path, every change
//! of the API is audited, and the description's references all resolve.

use std::collections::HashSet;

use super::*;

fn all() -> impl Iterator<Item = &'static Operation> {
    crate::http::operations()
        .iter()
        .collect::<Vec<_>>()
        .into_iter()
}

#[test]
fn every_server_function_is_declared_and_every_declared_one_exists() {
    let registered: HashSet<String> = leptos::server_fn::axum::server_fn_paths()
        .map(|(path, _)| path.to_owned())
        .collect();
    let declared: HashSet<String> = all()
        .filter(|operation| matches!(operation.serve, Serve::Function))
        .map(|operation| operation.path.to_owned())
        .collect();
    let undeclared: Vec<&String> = registered.difference(&declared).collect();
    let missing: Vec<&String> = declared.difference(&registered).collect();
    assert!(
        undeclared.is_empty(),
        "served but not declared: {undeclared:?}"
    );
    assert!(missing.is_empty(), "declared but not served: {missing:?}");
}

#[test]
fn every_page_of_the_router_is_declared_and_every_declared_page_is_a_route() {
    let routed: HashSet<String> = leptos_axum::generate_route_list(app::App)
        .iter()
        .map(|route| {
            route
                .path()
                .split('/')
                .map(|segment| match segment.strip_prefix(':') {
                    Some(name) => format!("{{{name}}}"),
                    None => segment.to_owned(),
                })
                .collect::<Vec<_>>()
                .join("/")
        })
        .map(|path| {
            if path.is_empty() {
                "/".to_owned()
            } else {
                path
            }
        })
        .collect();
    let declared: HashSet<String> = all()
        .filter(|operation| matches!(operation.serve, Serve::Page))
        .map(|operation| operation.path.to_owned())
        .collect();
    assert_eq!(routed, declared);
}

#[test]
fn no_two_operations_share_a_method_and_path() {
    let mut seen = HashSet::new();
    for operation in all() {
        assert!(
            seen.insert((operation.verb, operation.path)),
            "{:?} {} is declared twice",
            operation.verb,
            operation.path
        );
    }
}

#[test]
fn every_change_is_audited_unless_it_is_signing_in_or_out() {
    let unaudited: Vec<String> = all()
        .filter(|operation| operation.changes())
        .filter(|operation| !matches!(operation.serve, Serve::Function | Serve::Demo))
        .filter(|operation| !matches!(operation.access, Access::Public))
        .filter(|operation| matches!(operation.audit, Audit::Reads))
        .map(|operation| format!("{:?} {}", operation.verb, operation.path))
        .collect();
    assert!(
        unaudited.is_empty(),
        "changes nothing records: {unaudited:?}"
    );
    // A server function that changes state says so by its audit action.
    assert!(
        all()
            .filter(|operation| matches!(operation.serve, Serve::Function))
            .any(|operation| matches!(operation.audit, Audit::Records("ask.answer")))
    );
}

#[test]
fn every_reference_of_the_description_resolves() {
    let document = crate::http::operations().description();
    let schemas = document["components"]["schemas"]
        .as_object()
        .expect("schemas");
    let mut references = Vec::new();
    collect_references(&document, &mut references);
    assert!(!references.is_empty());
    for reference in references {
        let name = reference
            .strip_prefix("#/components/schemas/")
            .unwrap_or_else(|| panic!("a reference outside the components: {reference}"));
        assert!(schemas.contains_key(name), "{reference} names no schema");
    }
    let paths = document["paths"].as_object().expect("paths");
    for operation in all().filter(|operation| operation.path.starts_with("/api/v1/")) {
        let method = operation.verb.method().as_str().to_ascii_lowercase();
        assert!(
            paths[operation.path].get(&method).is_some(),
            "{method} {} is not described",
            operation.path
        );
    }
}

fn collect_references(value: &serde_json::Value, into: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            if let Some(serde_json::Value::String(reference)) = map.get("$ref") {
                into.push(reference.clone());
            }
            for child in map.values() {
                collect_references(child, into);
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                collect_references(item, into);
            }
        }
        _ => {}
    }
}
