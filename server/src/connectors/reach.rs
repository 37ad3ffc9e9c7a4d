//! How an agent is shown to operators: an endpoint without the credentials it may carry.

/// `scheme://host[:port]/path`: a user, password, query or fragment may hold a token.
/// Read as a WHATWG URL, so the host shown is the one connected to.
pub fn url_without_credentials(address: &str) -> String {
    let Ok(mut url) = url::Url::parse(address) else {
        return "(not a URL)".to_owned();
    };
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_query(None);
    url.set_fragment(None);
    let shown = url.as_str();
    // `wss://gw.example` serializes with a `/` its operator did not write.
    if url.path() == "/"
        && !address
            .split(['?', '#'])
            .next()
            .unwrap_or_default()
            .ends_with('/')
    {
        shown.trim_end_matches('/').to_owned()
    } else {
        shown.to_owned()
    }
}

/// `text` (a library's error, say) with `url` shown without its credentials, and any
/// credential-bearing part of it that the text quotes on its own cut out.
pub fn scrub_url(text: &str, address: &str) -> String {
    let mut text = text.replace(address, &url_without_credentials(address));
    let mut secrets: Vec<String> = Vec::new();
    match url::Url::parse(address) {
        Ok(url) => {
            let user = url.username();
            match url.password() {
                Some(password) => secrets.push(format!("{user}:{password}")),
                None => secrets.push(user.to_owned()),
            }
            if let Some(password) = url.password() {
                secrets.push(password.to_owned());
            }
            secrets.extend(url.query().map(|query| format!("?{query}")));
            secrets.extend(url.fragment().map(|fragment| format!("#{fragment}")));
        }
        // Not a URL at all: whatever follows a `?` or `#` may still be a token.
        Err(_) => secrets.extend(address.find(['?', '#']).map(|at| address[at..].to_owned())),
    }
    for part in secrets {
        if !part.is_empty() {
            text = text.replace(&part, "…");
        }
    }
    text
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
    fn an_error_quoting_an_endpoint_keeps_none_of_its_credentials() {
        let url = "ws://bot:hunter2@127.0.0.1:9/api/ws?token=tok-1";
        for quoted in [
            format!("Unable to connect to {url}"),
            "connecting to 127.0.0.1:9/api/ws?token=tok-1 failed".to_owned(),
            "bad user bot:hunter2".to_owned(),
        ] {
            let scrubbed = scrub_url(&quoted, url);
            assert!(
                !scrubbed.contains("hunter2") && !scrubbed.contains("tok-1"),
                "{scrubbed}"
            );
        }
        assert_eq!(
            scrub_url(&format!("refused: {url}"), url),
            "refused: ws://127.0.0.1:9/api/ws"
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
