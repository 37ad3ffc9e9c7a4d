//! Which operation a request is for: its method and path against each declared path,
//! `{name}` standing for one non-empty segment and `{*name}` for the rest of the path.

use axum::http::Method;

use super::{Operation, Verb};

/// What the list says of a request.
pub enum Found {
    Operation(&'static Operation),
    /// The path is declared, not for this method: these are.
    OtherMethods(Vec<Verb>),
    /// Nothing declares the path.
    Nothing,
}

/// The operation `method` and `path` call, the first of `operations` that fits.
pub fn find(
    operations: impl Iterator<Item = &'static Operation>,
    method: &Method,
    path: &str,
) -> Found {
    let verb = Verb::of(method);
    let mut others = Vec::new();
    for operation in operations {
        if !fits(operation.path, path) {
            continue;
        }
        if Some(operation.verb) == verb {
            return Found::Operation(operation);
        }
        if !others.contains(&operation.verb) {
            others.push(operation.verb);
        }
    }
    if others.is_empty() {
        Found::Nothing
    } else {
        Found::OtherMethods(others)
    }
}

/// Whether `path` is one `pattern` describes.
pub fn fits(pattern: &str, path: &str) -> bool {
    let mut wanted = pattern.split('/');
    let mut given = path.split('/');
    loop {
        match (wanted.next(), given.next()) {
            (None, None) => return true,
            (Some(part), Some(_)) if part.starts_with("{*") => return true,
            (Some(part), Some(segment))
                if part.starts_with('{') && part.ends_with('}') && !segment.is_empty() => {}
            (Some(part), Some(segment)) if part == segment => {}
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_names_one_segment_per_parameter_and_a_tail_takes_the_rest() {
        assert!(fits("/api/v1/notes/{id}", "/api/v1/notes/n1"));
        assert!(!fits("/api/v1/notes/{id}", "/api/v1/notes/"));
        assert!(!fits("/api/v1/notes/{id}", "/api/v1/notes/n1/versions"));
        assert!(!fits("/api/v1/notes/{id}", "/api/v1/notes"));
        assert!(fits("/pkg/{*file}", "/pkg/agent_os.js"));
        assert!(fits("/pkg/{*file}", "/pkg/a/b"));
        assert!(!fits("/pkg/{*file}", "/pkgx"));
        assert!(fits("/", "/"));
        assert!(!fits("/", "/x"));
    }

    #[test]
    fn a_declared_path_with_another_method_says_which_methods_it_takes() {
        let operations = crate::http::operations();
        match operations.find(&Method::PUT, "/api/v1/notes/n1") {
            Found::OtherMethods(verbs) => {
                assert!(verbs.contains(&Verb::Get) && verbs.contains(&Verb::Patch));
            }
            _ => panic!("PUT on a note is declared for other methods"),
        }
        assert!(matches!(
            operations.find(&Method::GET, "/api/v1/nothing/here"),
            Found::Nothing
        ));
        assert!(matches!(
            operations.find(&Method::HEAD, "/api/v1/notes"),
            Found::Operation(operation) if operation.verb == Verb::Get
        ));
    }
}
