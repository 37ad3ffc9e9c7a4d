//! A server with the demo gateway, driven over HTTP as the Hermes tests need: threads,
//! messages, answers, and waiting for a run to reach a state.

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::TestServer;

pub struct Bridge {
    pub server: TestServer,
    pub client: reqwest::Client,
    pub _dir: tempfile::TempDir,
}

impl Bridge {
    pub async fn start() -> Bridge {
        Bridge::start_with(&[]).await
    }

    /// A server started with `extra` flags (other agents, other timeouts).
    pub async fn start_with(extra: &[&str]) -> Bridge {
        let dir = tempfile::tempdir().unwrap();
        let server = TestServer::start_with(&dir.path().join("data"), extra).await;
        Bridge {
            client: server.client(),
            server,
            _dir: dir,
        }
    }

    /// A server with extra environment, logging everything to `log`, in `dir`.
    pub async fn start_logging(
        dir: tempfile::TempDir,
        env: &[(&str, &str)],
        log: &std::path::Path,
    ) -> Bridge {
        let server = TestServer::start_logging(&dir.path().join("data"), &[], env, log).await;
        Bridge {
            client: server.client(),
            server,
            _dir: dir,
        }
    }

    /// A run's event stream as sent, once the run is over.
    pub async fn events(&self, run: &str) -> String {
        self.client
            .get(self.server.url(&format!("/api/v1/runs/{run}/events")))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    pub async fn get(&self, path: &str) -> Value {
        self.client
            .get(self.server.url(path))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let response = self
            .client
            .post(self.server.url(path))
            .json(&body)
            .send()
            .await
            .unwrap();
        (
            response.status().as_u16(),
            response.json().await.unwrap_or(Value::Null),
        )
    }

    /// What `client` is answered posting `body` to `path`.
    pub async fn post_as(&self, client: &reqwest::Client, path: &str, body: Value) -> Value {
        client
            .post(self.server.url(path))
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// A run of a new thread of the demo gateway, saying `text`.
    pub async fn turn(&self, text: &str) -> String {
        self.say(&self.thread().await, text).await
    }

    /// A new thread of the demo gateway; the path its messages are posted to.
    pub async fn thread(&self) -> String {
        let (status, created) = self
            .post("/api/v1/threads", json!({"agent": "demo-hermes"}))
            .await;
        assert_eq!(status, 201, "{created}");
        format!(
            "/api/v1/threads/{}/messages",
            created["thread"]["id"].as_str().unwrap()
        )
    }

    /// The run that sending `text` to `messages` started.
    pub async fn say(&self, messages: &str, text: &str) -> String {
        let (status, started) = self.post(messages, json!({"text": text})).await;
        assert_eq!(status, 202, "{started}");
        started["run"]["id"].as_str().unwrap().to_owned()
    }

    /// Stops `run` once its items hold `words`.
    pub async fn stop_once_it_says(&self, run: &str, words: &str) {
        self.until(run, "streamed", |body| {
            body["view"]["items"].to_string().contains(words)
        })
        .await;
        let (status, body) = self
            .post(&format!("/api/v1/runs/{run}/cancel"), json!({}))
            .await;
        assert_eq!(status, 200, "{body}");
    }

    pub async fn view(&self, run: &str) -> Value {
        self.get(&format!("/api/v1/runs/{run}")).await
    }

    pub async fn until(&self, run: &str, what: &str, test: impl Fn(&Value) -> bool) -> Value {
        self.until_as(&self.client, run, what, test).await
    }

    /// [`Bridge::until`] with `client`'s credentials (a token of another tenant, say).
    pub async fn until_as(
        &self,
        client: &reqwest::Client,
        run: &str,
        what: &str,
        test: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let body: Value = client
                .get(self.server.url(&format!("/api/v1/runs/{run}")))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            if test(&body) {
                return body;
            }
            assert!(Instant::now() < deadline, "run {run} never {what}: {body}");
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    }

    pub async fn settled(&self, run: &str) -> Value {
        self.until(run, "settled", |body| body["run"]["status"] != "running")
            .await
    }

    /// Waits for the run's first pending ask and returns it.
    pub async fn pending_ask(&self, run: &str) -> Value {
        let body = self
            .until(run, "asked", |body| {
                body["view"]["asks"]
                    .as_array()
                    .is_some_and(|asks| asks.iter().any(|a| a["state"]["state"] == "pending"))
            })
            .await;
        body["view"]["asks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["state"]["state"] == "pending")
            .unwrap()
            .clone()
    }

    pub async fn answer(&self, run: &str, ask: &Value, action: &str, data: Value) -> u16 {
        let id = ask["id"].as_str().unwrap();
        let (status, body) = self
            .post(
                &format!("/api/v1/asks/{run}:{id}/receipt"),
                json!({"channel": "tool-result", "receipt": {"toolCallId": id, "component": ask["component"],
                    "action": action, "data": data, "ts": "2026-12-02T20:00:00Z"}}),
            )
            .await;
        assert!(status == 200, "{status}: {body}");
        status
    }
}

pub fn final_text(body: &Value) -> String {
    body["view"]["final_answer"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}
