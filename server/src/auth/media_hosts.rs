//! The hosts each user lets remote images and media load from: kept with the account, so
//! the choice holds in every browser, and only ever the user's own.

use app::components::remote_media::MOST_MEDIA_HOSTS;
use app::components::remote_media::service::MediaHostsService;
use app::error::ApiError;
use app::markdown::media_host;
use app::model::RequestContext;

use super::accounts::Accounts;

#[async_trait::async_trait]
impl MediaHostsService for Accounts {
    async fn media_hosts(&self, context: &RequestContext) -> Result<Vec<String>, ApiError> {
        Ok(self.store.media_hosts(&context.user_id).await?)
    }

    async fn set_media_hosts(
        &self,
        context: &RequestContext,
        hosts: Vec<String>,
    ) -> Result<Vec<String>, ApiError> {
        let kept = hosts_to_keep(&hosts)?;
        self.store.set_media_hosts(&context.user_id, &kept).await?;
        Ok(kept)
    }
}

/// `hosts` as kept: each a plain lowercase name or address, once, blank lines skipped.
/// Refused as soon as there are too many, so a huge list costs no more than a full one.
fn hosts_to_keep(hosts: &[String]) -> Result<Vec<String>, ApiError> {
    let mut kept: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for given in hosts.iter().filter(|host| !host.trim().is_empty()) {
        let host = media_host(given).ok_or_else(|| {
            ApiError::BadRequest(format!(
                "\u{201c}{}\u{201d} is not a host name or address",
                given.chars().take(80).collect::<String>()
            ))
        })?;
        if seen.insert(host.clone()) {
            kept.push(host);
        }
        if kept.len() > MOST_MEDIA_HOSTS {
            return Err(ApiError::BadRequest(format!(
                "at most {MOST_MEDIA_HOSTS} hosts may be allowed"
            )));
        }
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_kept_lowercase_once_and_anything_else_is_refused() {
        let given = ["Example.org", "", "example.org", "cdn.example.net"].map(String::from);
        assert_eq!(
            hosts_to_keep(&given).unwrap(),
            ["example.org", "cdn.example.net"]
        );
        assert!(matches!(
            hosts_to_keep(&["a/b".to_owned()]),
            Err(ApiError::BadRequest(_))
        ));
        let many: Vec<String> = (0..=MOST_MEDIA_HOSTS)
            .map(|n| format!("h{n}.org"))
            .collect();
        assert!(hosts_to_keep(&many).is_err());
    }

    #[test]
    fn a_huge_list_is_refused_without_comparing_every_pair() {
        let given: Vec<String> = (0..300_000).map(|n| format!("h{n}.example")).collect();
        let refused = hosts_to_keep(&given).unwrap_err();
        assert!(refused.to_string().contains("at most"), "{refused}");
        // Repeats of an allowed list are each kept once.
        let repeated: Vec<String> = (0..300_000)
            .map(|n| format!("h{}.example", n % 3))
            .collect();
        assert_eq!(hosts_to_keep(&repeated).unwrap().len(), 3);
    }
}
