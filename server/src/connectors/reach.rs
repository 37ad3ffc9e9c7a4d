//! How an agent is shown to operators: an endpoint without the credentials it may carry.

/// `scheme://host[:port]/path`: a user, password, query or fragment may hold a token.
pub fn url_without_credentials(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let rest = match rest.split_once('/') {
        Some((authority, path)) => {
            let host = authority.rsplit('@').next().unwrap_or(authority);
            format!("{host}/{path}")
        }
        None => rest.rsplit('@').next().unwrap_or(rest).to_owned(),
    };
    if scheme.is_empty() {
        rest
    } else {
        format!("{scheme}://{rest}")
    }
}

/// The program a command line runs (its file name); its arguments may hold secrets.
pub fn program_of(command: &str) -> String {
    let command = command.trim();
    let (first, rest) = match command.strip_prefix('\'') {
        Some(quoted) => quoted.split_once('\'').unwrap_or((quoted, "")),
        None => command
            .split_once(char::is_whitespace)
            .unwrap_or((command, "")),
    };
    let program = first.rsplit('/').next().unwrap_or(first);
    if rest.trim().is_empty() {
        program.to_owned()
    } else {
        format!("{program} …")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_is_shown_without_user_password_query_or_fragment() {
        assert_eq!(
            url_without_credentials("https://bot:hunter2@agents.example:8443/run/v1?token=abc#x"),
            "https://agents.example:8443/run/v1"
        );
        assert_eq!(
            url_without_credentials("wss://user:pw@gw.example?key=1"),
            "wss://gw.example"
        );
    }

    #[test]
    fn a_command_is_shown_as_its_program_only() {
        assert_eq!(
            program_of("/opt/hermes/bin/hermes-gateway --api-key sk-123"),
            "hermes-gateway …"
        );
        assert_eq!(
            program_of("'/usr/local/bin/agent os' demo-gateway"),
            "agent os …"
        );
        assert_eq!(program_of("hermes"), "hermes");
    }
}
