//! The JSON API driven the way a client drives it, against a real `agent-os serve`.

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::TestServer;

pub struct Api {
    pub server: TestServer,
    pub client: reqwest::Client,
    pub _dir: Option<tempfile::TempDir>,
}

impl Api {
    pub async fn start(extra: &[&str]) -> Api {
        let dir = tempfile::tempdir().unwrap();
        let server = TestServer::start_with(&dir.path().join("data"), extra).await;
        Api {
            client: server.client(),
            server,
            _dir: Some(dir),
        }
    }

    /// Same as [`Api::start`], with environment variables for the server alone.
    pub async fn start_with_env(extra: &[&str], env: &[(&str, &str)]) -> Api {
        let dir = tempfile::tempdir().unwrap();
        let server = TestServer::start_with_env(&dir.path().join("data"), extra, env).await;
        Api::over(server, dir)
    }

    /// The API of a server already started, whose data lives in `dir`.
    pub fn over(server: TestServer, dir: tempfile::TempDir) -> Api {
        Api {
            client: server.client(),
            server,
            _dir: Some(dir),
        }
    }

    /// The same API (client and data) over its server as `restart` leaves it:
    /// `|server| server.kill_and_restart()`, say.
    pub async fn restarted<Restarted>(self, restart: impl FnOnce(TestServer) -> Restarted) -> Api
    where
        Restarted: std::future::Future<Output = TestServer>,
    {
        Api {
            server: restart(self.server).await,
            client: self.client,
            _dir: self._dir,
        }
    }

    pub fn url(&self, path: &str) -> String {
        self.server.url(path)
    }

    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let response = self
            .client
            .post(self.url(path))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        let response = self.client.get(self.url(path)).send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// The body at `path` as text, whatever it is (an event stream that ends, say).
    pub async fn text(&self, path: &str) -> String {
        let response = self.client.get(self.url(path)).send().await.unwrap();
        assert!(
            response.status().is_success(),
            "{path}: {}",
            response.status()
        );
        response.text().await.unwrap()
    }

    /// What a demo agent shows at `path` (`/demo/openai/v1/requests`, say): its
    /// introspection answers to the demo key alone.
    pub async fn demo_get(&self, path: &str) -> (u16, Value) {
        let response = reqwest::Client::new()
            .get(self.url(path))
            .bearer_auth(super::DEMO_KEY)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    pub async fn thread(&self, agent: Option<&str>) -> String {
        let body = match agent {
            Some(agent) => json!({ "agent": agent }),
            None => json!({}),
        };
        let (status, created) = self.post("/api/v1/threads", body).await;
        assert_eq!(status, 201, "{created}");
        created["thread"]["id"].as_str().unwrap().to_owned()
    }

    /// Renames a thread from the page's server function (the REST API has no rename).
    pub async fn rename_thread(&self, thread: &str, title: &str) {
        let response = self
            .client
            .post(self.url("/fn/rename_thread"))
            .form(&[("thread_id", thread), ("title", title)])
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
    }

    /// A new note titled `title`; its id.
    pub async fn note(&self, title: &str) -> String {
        let (status, note) = self
            .post("/api/v1/notes", json!({ "title": title, "body": "text" }))
            .await;
        assert_eq!(status, 201, "{note}");
        note["id"].as_str().unwrap().to_owned()
    }

    pub async fn say(&self, thread: &str, text: &str) -> String {
        self.say_with(thread, json!({ "text": text })).await
    }

    pub async fn say_with(&self, thread: &str, body: Value) -> String {
        let (status, started) = self
            .post(&format!("/api/v1/threads/{thread}/messages"), body)
            .await;
        assert_eq!(status, 202, "{started}");
        started["run"]["id"].as_str().unwrap().to_owned()
    }

    /// Waits until the run is no longer running; returns `{run, view}`.
    pub async fn settled(&self, run: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let (_, body) = self.get(&format!("/api/v1/runs/{run}")).await;
            if body["run"]["status"] != "running" {
                return body;
            }
            assert!(Instant::now() < deadline, "run {run} never settled: {body}");
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    }

    /// The runs of a thread, oldest first.
    pub async fn runs(&self, thread: &str) -> Vec<Value> {
        let (_, body) = self.get(&format!("/api/v1/threads/{thread}")).await;
        body["runs"].as_array().unwrap().clone()
    }

    /// Waits for the thread's `n`th run to settle.
    pub async fn nth_run(&self, thread: &str, n: usize) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let runs = self.runs(thread).await;
            if let Some(run) = runs.get(n) {
                return self.settled(run["id"].as_str().unwrap()).await;
            }
            assert!(
                Instant::now() < deadline,
                "thread {thread} never got run {n}"
            );
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    }

    pub async fn receipt(
        &self,
        run: &str,
        ask_id: &str,
        component: &str,
        action: &str,
        data: Value,
    ) -> (u16, Value) {
        self.post(
            &format!("/api/v1/asks/{run}:{ask_id}/receipt"),
            json!({"channel": "tool-result", "receipt": {
                "toolCallId": ask_id, "component": component, "action": action, "data": data,
                "ts": "2026-12-02T20:00:00Z"}}),
        )
        .await
    }
}

pub fn texts(view: &Value) -> Vec<String> {
    view["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["type"] == "message")
        .map(|item| item["text"].as_str().unwrap().to_owned())
        .collect()
}

pub fn tool_calls(view: &Value) -> Vec<&Value> {
    view["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["type"] == "tool_call")
        .collect()
}

pub fn notices(view: &Value) -> Vec<String> {
    view["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["type"] == "notice")
        .map(|item| item["text"].as_str().unwrap_or_default().to_owned())
        .collect()
}

pub fn errors(view: &Value) -> Vec<String> {
    view["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["type"] == "error")
        .map(|item| item["message"].as_str().unwrap().to_owned())
        .collect()
}

/// A resume's entries (`[{interruptId, status, …}]`) as (interrupt, status) pairs.
pub fn resume_statuses(entries: &Value) -> Vec<(&str, &str)> {
    entries
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry["interruptId"].as_str().unwrap(),
                entry["status"].as_str().unwrap(),
            )
        })
        .collect()
}
