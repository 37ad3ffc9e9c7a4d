//! Waiting for a curator pass to finish, over the API.

use serde_json::Value;

use super::api::Api;

/// The pass `id` once it has finished (completed, failed or cancelled).
pub async fn finished_pass(api: &Api, id: &str) -> Value {
    let mut last = Value::Null;
    for _ in 0..400 {
        let (status, pass) = api.get(&format!("/api/v1/curator/passes/{id}")).await;
        assert_eq!(status, 200, "{pass}");
        if matches!(
            pass["state"].as_str(),
            Some("completed" | "failed" | "cancelled")
        ) {
            return pass;
        }
        last = pass;
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("the pass did not finish: {last}");
}
