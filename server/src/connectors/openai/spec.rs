//! How an operator names an OpenAI-compatible agent: `--openai NAME=URL[,model=M]
//! [,api=responses|chat|auto][,api_key_env=VAR]` or a `[[openai]]` table; the key itself
//! comes from the environment, or else from each tenant's passvault entry for `VAR`.

/// Which API the console speaks to the endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ApiChoice {
    /// Responses when the endpoint answers it, else Chat Completions.
    #[default]
    Negotiate,
    Responses,
    Chat,
}

impl ApiChoice {
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "auto" | "" => Ok(Self::Negotiate),
            "responses" => Ok(Self::Responses),
            "chat" => Ok(Self::Chat),
            other => Err(format!(
                "api: {other:?} is not an API (responses, chat or auto)"
            )),
        }
    }
}

/// One configured OpenAI-compatible agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenAiSpec {
    pub name: String,
    /// The API's base URL, ending before `/responses` (e.g. `https://host/v1`).
    pub url: String,
    pub model: Option<String>,
    pub api: ApiChoice,
    /// The variable that holds the API key.
    pub api_key_env: Option<String>,
}

/// The settings a `--openai` value may carry after its URL.
const SETTINGS: [&str; 3] = ["model=", "api=", "api_key_env="];

impl OpenAiSpec {
    /// Reads `NAME=URL[,model=M][,api=A][,api_key_env=VAR]`.
    pub fn parse(entry: &str) -> Result<Self, String> {
        let (name, rest) = entry
            .split_once('=')
            .filter(|(name, _)| !name.trim().is_empty())
            .ok_or_else(|| format!("--openai {entry:?} is not NAME=URL"))?;
        // A comma ends the URL only where a known setting follows it.
        let mut url_end = rest.len();
        for (at, _) in rest.match_indices(',') {
            if SETTINGS
                .iter()
                .any(|setting| rest[at + 1..].starts_with(setting))
            {
                url_end = at;
                break;
            }
        }
        let mut spec = OpenAiSpec {
            name: name.trim().to_owned(),
            url: rest[..url_end].trim_end_matches('/').to_owned(),
            model: None,
            api: ApiChoice::Negotiate,
            api_key_env: None,
        };
        if url_end < rest.len() {
            for setting in rest[url_end + 1..].split(',') {
                let (key, value) = setting.split_once('=').unwrap_or((setting, ""));
                match key {
                    "model" if !value.is_empty() => spec.model = Some(value.to_owned()),
                    "api" => spec.api = ApiChoice::parse(value)?,
                    "api_key_env" if !value.is_empty() => spec.api_key_env = Some(value.to_owned()),
                    _ => {
                        return Err(format!(
                            "--openai {name}: {setting:?} is not one of model=, api=, api_key_env="
                        ));
                    }
                }
            }
        }
        spec.check()?;
        Ok(spec)
    }

    /// The URL is http(s) and carries no credential (keys go in `api_key_env`).
    pub fn check(&self) -> Result<(), String> {
        let name = &self.name;
        let url = reqwest::Url::parse(&self.url)
            .map_err(|error| format!("--openai {name}: {:?} is not a URL: {error}", self.url))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!(
                "--openai {name}: {:?} is not an http(s) URL",
                self.url
            ));
        }
        if !url.username().is_empty() || url.password().is_some() || url.query().is_some() {
            return Err(format!(
                "--openai {name}: put the API key in an environment variable named by api_key_env=, not in the URL"
            ));
        }
        Ok(())
    }

    /// The form `--openai` takes, for a `[[openai]]` table.
    pub fn to_flag(&self) -> String {
        let mut flag = format!("{}={}", self.name, self.url);
        if let Some(model) = &self.model {
            flag.push_str(&format!(",model={model}"));
        }
        match self.api {
            ApiChoice::Negotiate => {}
            ApiChoice::Responses => flag.push_str(",api=responses"),
            ApiChoice::Chat => flag.push_str(",api=chat"),
        }
        if let Some(var) = &self.api_key_env {
            flag.push_str(&format!(",api_key_env={var}"));
        }
        flag
    }

    /// Where the key comes from: the environment variable `api_key_env` when it is set
    /// now, else each tenant's passvault entry for that variable, run by run.
    pub fn key(&self) -> ApiKey {
        let Some(var) = &self.api_key_env else {
            return ApiKey::None;
        };
        match std::env::var(var) {
            Ok(key) if !key.trim().is_empty() => ApiKey::Fixed(key.trim().to_owned()),
            _ => ApiKey::Passvault(var.clone()),
        }
    }
}

/// Where an agent's API key comes from.
#[derive(Clone, PartialEq, Eq)]
pub enum ApiKey {
    None,
    /// Read from the environment at start, the same for every tenant.
    Fixed(String),
    /// The value of the run's tenant's passvault entry for this variable.
    Passvault(String),
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApiKey::None => formatter.write_str("ApiKey::None"),
            ApiKey::Fixed(_) => formatter.write_str("ApiKey::Fixed(…)"),
            ApiKey::Passvault(var) => write!(formatter, "ApiKey::Passvault({var})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_keeps_its_commas_unless_a_setting_follows() {
        let spec =
            OpenAiSpec::parse("local=http://127.0.0.1:8000/v1/,model=qwen,api=chat,api_key_env=K")
                .unwrap();
        assert_eq!(spec.url, "http://127.0.0.1:8000/v1");
        assert_eq!(spec.model.as_deref(), Some("qwen"));
        assert_eq!(spec.api, ApiChoice::Chat);
        assert_eq!(spec.api_key_env.as_deref(), Some("K"));
        assert_eq!(OpenAiSpec::parse(&spec.to_flag()).unwrap(), spec);
        let odd = OpenAiSpec::parse("odd=https://host/a,b/v1").unwrap();
        assert_eq!(odd.url, "https://host/a,b/v1");
        assert_eq!(odd.api, ApiChoice::Negotiate);
    }

    #[test]
    fn a_key_in_the_url_or_an_unknown_setting_is_refused() {
        for bad in [
            "x=https://user:sk-1@host/v1",
            "x=https://host/v1?key=sk-1",
            "x=ftp://host/v1",
            "x=https://host/v1,api=soap",
            "x=https://host/v1,model=m,colour=red",
            "=https://host/v1",
            "no-url",
        ] {
            assert!(OpenAiSpec::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_key_comes_from_the_environment_when_set_else_from_each_tenants_passvault() {
        let set = OpenAiSpec::parse("x=https://host/v1,api_key_env=PATH").unwrap();
        assert!(matches!(set.key(), ApiKey::Fixed(_)));
        let unset =
            OpenAiSpec::parse("x=https://host/v1,api_key_env=AGENT_OS_NO_SUCH_VARIABLE").unwrap();
        assert_eq!(
            unset.key(),
            ApiKey::Passvault("AGENT_OS_NO_SUCH_VARIABLE".into())
        );
        assert_eq!(
            OpenAiSpec::parse("x=https://host/v1").unwrap().key(),
            ApiKey::None
        );
        // The key never shows in a debug line.
        assert_eq!(
            format!("{:?}", ApiKey::Fixed("sk-secret".into())),
            "ApiKey::Fixed(…)"
        );
    }
}
