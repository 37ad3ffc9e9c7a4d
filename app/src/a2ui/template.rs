//! The text of a `formatString` template, read into pieces: plain text, and `${…}`
//! expressions — a data path (`${/user/name}`, `${title}`, `${@index}`) or a call of a
//! catalog function with named arguments (`${formatDate(value:${/due}, format:'MMM d')}`)
//! whose arguments are quoted strings, numbers, booleans, null or nested expressions.
//! `\${` is a literal `${`. What does not read as an expression stays as written.

use serde_json::Value;

/// Deepest nesting of expressions read; a deeper one stays as text.
const MOST_DEPTH: usize = 16;

#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    Text(String),
    Expression(Expression),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expression {
    Path(String),
    Call {
        name: String,
        args: Vec<(String, Argument)>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum Argument {
    Literal(Value),
    Expression(Expression),
}

/// `template` as pieces, in order.
pub fn parse(template: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut rest = template;
    while let Some(start) = rest.find("${") {
        if rest[..start].ends_with('\\') {
            text.push_str(&rest[..start - 1]);
            text.push_str("${");
            rest = &rest[start + 2..];
            continue;
        }
        text.push_str(&rest[..start]);
        match expression_in_braces(&rest[start..], 0) {
            Some((expression, after)) => {
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                pieces.push(Piece::Expression(expression));
                rest = after;
            }
            None => {
                text.push_str("${");
                rest = &rest[start + 2..];
            }
        }
    }
    text.push_str(rest);
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    pieces
}

/// `${expression}` at the start of `input`, and what follows it.
fn expression_in_braces(input: &str, depth: usize) -> Option<(Expression, &str)> {
    if depth >= MOST_DEPTH {
        return None;
    }
    let inner = input.strip_prefix("${")?.trim_start();
    let (expression, rest) = expression(inner, depth)?;
    let rest = rest.trim_start().strip_prefix('}')?;
    Some((expression, rest))
}

fn expression(input: &str, depth: usize) -> Option<(Expression, &str)> {
    let name_end = input
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(input.len());
    let (name, after_name) = input.split_at(name_end);
    if !name.is_empty()
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && let Some(after_paren) = after_name.trim_start().strip_prefix('(')
    {
        return call(name, after_paren, depth);
    }
    // A path runs to the closing brace.
    let end = input.find('}')?;
    let path = input[..end].trim();
    (!path.is_empty() && !path.contains(['{', '$', '(']))
        .then(|| (Expression::Path(path.to_owned()), &input[end..]))
}

fn call<'a>(name: &str, input: &'a str, depth: usize) -> Option<(Expression, &'a str)> {
    let mut args = Vec::new();
    let mut rest = input.trim_start();
    if let Some(after) = rest.strip_prefix(')') {
        return Some((
            Expression::Call {
                name: name.to_owned(),
                args,
            },
            after,
        ));
    }
    loop {
        let colon = rest.find(':')?;
        let arg_name = rest[..colon].trim();
        if arg_name.is_empty()
            || !arg_name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return None;
        }
        let (value, after) = argument(rest[colon + 1..].trim_start(), depth)?;
        args.push((arg_name.to_owned(), value));
        rest = after.trim_start();
        if let Some(after) = rest.strip_prefix(',') {
            rest = after.trim_start();
        } else {
            let after = rest.strip_prefix(')')?;
            return Some((
                Expression::Call {
                    name: name.to_owned(),
                    args,
                },
                after,
            ));
        }
    }
}

fn argument(input: &str, depth: usize) -> Option<(Argument, &str)> {
    if input.starts_with("${") {
        let (expression, rest) = expression_in_braces(input, depth + 1)?;
        return Some((Argument::Expression(expression), rest));
    }
    if let Some(quote) = input.chars().next().filter(|c| *c == '\'' || *c == '"') {
        let mut text = String::new();
        let mut chars = input[1..].char_indices();
        while let Some((at, c)) = chars.next() {
            match c {
                '\\' => text.push(chars.next()?.1),
                c if c == quote => {
                    return Some((Argument::Literal(Value::String(text)), &input[1 + at + 1..]));
                }
                c => text.push(c),
            }
        }
        return None;
    }
    let end = input.find([',', ')']).unwrap_or(input.len());
    let word = input[..end].trim();
    let literal = match word {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        "null" => Value::Null,
        number => serde_json::from_str::<serde_json::Number>(number)
            .ok()
            .map(Value::Number)?,
    };
    Some((Argument::Literal(literal), &input[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn path(text: &str) -> Piece {
        Piece::Expression(Expression::Path(text.into()))
    }

    #[test]
    fn text_paths_and_escapes() {
        assert_eq!(
            parse("Hello, ${/user/name}! ${@index}: ${ title } \\${x}"),
            vec![
                Piece::Text("Hello, ".into()),
                path("/user/name"),
                Piece::Text("! ".into()),
                path("@index"),
                Piece::Text(": ".into()),
                path("title"),
                Piece::Text(" ${x}".into()),
            ]
        );
        assert_eq!(parse("open ${"), vec![Piece::Text("open ${".into())]);
    }

    #[test]
    fn calls_with_literal_and_nested_arguments() {
        assert_eq!(
            parse("Due ${formatDate(value:${/due}, format:'MMM d, \\'yy')} (${now()})"),
            vec![
                Piece::Text("Due ".into()),
                Piece::Expression(Expression::Call {
                    name: "formatDate".into(),
                    args: vec![
                        (
                            "value".into(),
                            Argument::Expression(Expression::Path("/due".into()))
                        ),
                        ("format".into(), Argument::Literal(json!("MMM d, 'yy"))),
                    ],
                }),
                Piece::Text(" (".into()),
                Piece::Expression(Expression::Call {
                    name: "now".into(),
                    args: vec![],
                }),
                Piece::Text(")".into()),
            ]
        );
        let Piece::Expression(Expression::Call { args, .. }) =
            &parse("${formatNumber(value:-1.5e3, grouping:false, decimals:2)}")[0]
        else {
            panic!("a call");
        };
        assert_eq!(args[0].1, Argument::Literal(json!(-1.5e3)));
        assert_eq!(args[1].1, Argument::Literal(json!(false)));
    }

    #[test]
    fn what_does_not_read_stays_as_written_and_nesting_is_bounded() {
        for broken in [
            "${f(value:'open)}",
            "${f(value)}",
            "${f(value:nope)}",
            "${}",
        ] {
            assert_eq!(parse(broken), vec![Piece::Text(broken.into())], "{broken}");
        }
        let deep = format!("{}x{}", "${f(v:".repeat(40), ")}".repeat(40));
        assert!(
            parse(&deep)
                .iter()
                .all(|piece| matches!(piece, Piece::Text(_)))
        );
    }
}
