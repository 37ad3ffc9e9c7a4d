//! A loopback KsADK runtime that answers with the bytes KsADK 0.8.5 sent when it was
//! recorded (`fixtures/peers/ksadk/`): a turn by the scenario its text names, an
//! interrupt's answer by its decision, and an answer to an interrupt already answered as
//! the runtime does (an empty 200, or a 500 without streaming). Every request is kept.

#![allow(dead_code)]

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

/// One request as the runtime received it.
#[derive(Clone, Debug)]
pub struct Received {
    pub method: String,
    pub path: String,
    pub body: Value,
}

/// What the runtime's bootstrap lists.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Listed {
    /// AG-UI (preferred) and Responses, as recorded (`05_`).
    AgUi,
    /// The recorded answer without its AG-UI entry.
    ResponsesOnly,
}

/// How the runtime answers a turn that asks for an approval.
#[derive(Clone, Copy)]
pub enum Approval {
    /// Interrupt `48fd…` (`14_`), approved in `15_`.
    First,
    /// Interrupt `acb6…` (`18_`), rejected in `19_`.
    Second,
}

pub struct Runtime {
    /// The OpenAI base URL (`…/v1`).
    pub url: String,
    pub received: Arc<Mutex<Vec<Received>>>,
    /// Interrupts the runtime no longer holds (answered by someone else).
    pub answered: Arc<Mutex<HashSet<String>>>,
}

impl Runtime {
    pub fn requests_to(&self, path: &str) -> Vec<Received> {
        self.received
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.path == path)
            .cloned()
            .collect()
    }
}

pub fn fixture(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/peers/ksadk")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The body of the request recorded as `name` (`NN_x`).
pub fn recorded_request(name: &str) -> Value {
    let request: Value = serde_json::from_slice(&fixture(&format!("{name}.request.json"))).unwrap();
    request["body"].clone()
}

pub async fn start(approval: Approval) -> Runtime {
    start_listing(approval, Listed::AgUi).await
}

pub async fn start_listing(approval: Approval, listed: Listed) -> Runtime {
    serve(
        TcpListener::bind("127.0.0.1:0").await.unwrap(),
        approval,
        listed,
    )
}

/// The runtime on `port`, which nothing answered on before.
pub async fn start_on(port: u16) -> Runtime {
    let listener = TcpListener::bind(("127.0.0.1", port)).await.unwrap();
    serve(listener, Approval::First, Listed::AgUi)
}

fn serve(listener: TcpListener, approval: Approval, listed: Listed) -> Runtime {
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let received = Arc::new(Mutex::new(Vec::new()));
    let answered = Arc::new(Mutex::new(HashSet::new()));
    let (kept, held) = (received.clone(), answered.clone());
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let Some(request) = read(&mut socket).await else {
                continue;
            };
            kept.lock().unwrap().push(request.clone());
            let reply = reply_to(&request, approval, listed, &held);
            let _ = socket.write_all(&reply).await;
            let _ = socket.shutdown().await;
        }
    });
    Runtime {
        url,
        received,
        answered,
    }
}

fn reply_to(
    request: &Received,
    approval: Approval,
    listed: Listed,
    answered: &Mutex<HashSet<String>>,
) -> Vec<u8> {
    let stream = |name: &str| {
        http(
            200,
            "text/event-stream",
            &fixture(&format!("{name}.response.sse")),
        )
    };
    match (request.method.as_str(), request.path.as_str()) {
        ("GET", "/v1/models") => http(
            200,
            "application/json",
            &fixture("04_v1_models.response.json"),
        ),
        ("POST", "/agentengine/api/v1/GetAgentUiBootstrap") => {
            let mut answer: Value =
                serde_json::from_slice(&fixture("05_bootstrap.response.json")).unwrap();
            if listed == Listed::ResponsesOnly {
                let transports = answer
                    .pointer_mut("/Data/HostedChat/Transports")
                    .unwrap()
                    .as_array_mut()
                    .unwrap();
                transports.retain(|transport| transport["Protocol"] != "ag-ui");
                answer["Data"]["HostedChat"]["PreferredTransport"] = "responses".into();
            }
            http(200, "application/json", answer.to_string().as_bytes())
        }
        // Its web page answers every other GET.
        ("GET", _) => http(
            200,
            "text/html; charset=utf-8",
            b"<!doctype html><title>KsADK</title>",
        ),
        ("POST", "/agentengine/agui") => {
            if listed == Listed::ResponsesOnly {
                return http(404, "application/json", br#"{"detail":"Not Found"}"#);
            }
            let said = request.body["messages"].to_string();
            let name = if !request.body["resume"].is_null() {
                "33_agui_resume_approve"
            } else if said.contains("[[scenario:ks_approval]]") {
                "32_agui_approval_interrupt"
            } else if said.contains("[[scenario:ks_tool]]") {
                "31_agui_tool"
            } else {
                "30_agui_text"
            };
            // The recorded run's ids, as this request names them.
            let recorded: Value =
                serde_json::from_slice(&fixture(&format!("{name}.request.json"))).unwrap();
            let mut bytes = String::from_utf8(fixture(&format!("{name}.response.sse"))).unwrap();
            for id in ["threadId", "runId"] {
                if let (Some(was), Some(now)) =
                    (recorded["body"][id].as_str(), request.body[id].as_str())
                {
                    bytes = bytes.replace(&format!("\"{was}\""), &format!("\"{now}\""));
                }
            }
            http(200, "text/event-stream", bytes.as_bytes())
        }
        ("POST", "/v1/responses") => {
            let first = &request.body["input"][0];
            if first["type"] == "ksadk_resume" {
                let id = first["interrupt_id"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                if !answered.lock().unwrap().insert(id) {
                    return match request.body["stream"].as_bool() {
                        Some(true) => stream("16_responses_approval_resume_again_stream"),
                        _ => http(
                            500,
                            "text/plain; charset=utf-8",
                            &fixture("17_responses_approval_resume_again_nonstream.response.txt"),
                        ),
                    };
                }
                let agui = first["interrupt_id"] == "fc473d7f6e94a19696e30e8b5bede7f4";
                return match first["value"]["decisions"][0]["type"].as_str() {
                    Some("approve") if agui => stream("37_agui_interrupt_resumed_via_responses"),
                    Some("approve") => stream("15_responses_approval_resume_stream"),
                    _ => stream("19_responses_approval2_reject_stream"),
                };
            }
            let said = request.body["input"].to_string();
            if said.contains("[[scenario:ks_approval]]") {
                stream(match approval {
                    Approval::First => "14_responses_approval_stream",
                    Approval::Second => "18_responses_approval2_stream",
                })
            } else if said.contains("[[scenario:ks_tool]]") {
                stream("12_responses_tool_stream")
            } else {
                stream("10_responses_text_stream")
            }
        }
        ("POST", "/agentengine/api/v1/ListSessionEvents") => {
            let answer = session_events(&request.body);
            http(200, "application/json", answer.to_string().as_bytes())
        }
        _ => http(404, "application/json", br#"{"detail":"Not Found"}"#),
    }
}

/// The rows recorded for the session the request names (`40_`, or `4i_` for the AG-UI
/// thread), cut as KsADK cuts them: both cursors exclusive, newest first, then
/// `Offset`/`Limit` — at most 10 a page, as a runtime may give fewer than asked.
fn session_events(body: &Value) -> Value {
    let recorded = match body["SessionId"].as_str() {
        Some("sess-54cf248410f34cc4") => "40_list_session_events",
        Some("agui-appr-fd23ae") => "4i_list_session_events_agui",
        _ => "",
    };
    let mut rows: Vec<Value> = if recorded.is_empty() {
        Vec::new()
    } else {
        let page: Value =
            serde_json::from_slice(&fixture(&format!("{recorded}.response.json"))).unwrap();
        page["Data"]["Events"].as_array().unwrap().clone()
    };
    let seq = |row: &Value| row["SeqId"].as_u64().unwrap();
    let after = body["AfterSeqId"].as_u64().unwrap_or(0);
    let before = body["BeforeSeqId"].as_u64().unwrap_or(u64::MAX);
    rows.retain(|row| seq(row) > after && seq(row) < before);
    rows.sort_by_key(|row| std::cmp::Reverse(seq(row)));
    let total = rows.len();
    let offset = body["Offset"].as_u64().unwrap_or(0) as usize;
    let limit = body["Limit"].as_u64().unwrap_or(200).min(10) as usize;
    let page: Vec<Value> = rows.into_iter().skip(offset).take(limit).collect();
    serde_json::json!({
        "Code": 0, "Message": "Success", "RequestId": "req-loopback",
        "Data": {"Events": page, "Total": total, "Offset": offset, "Limit": limit},
    })
}

/// A response that ends when the connection closes, as KsADK's streams do.
fn http(status: u16, content_type: &str, body: &[u8]) -> Vec<u8> {
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        _ => "Internal Server Error",
    };
    let mut reply = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: {content_type}\r\nconnection: close\r\n\r\n"
    )
    .into_bytes();
    reply.extend_from_slice(body);
    reply
}

async fn read(socket: &mut TcpStream) -> Option<Received> {
    let (method, path, body) = crate::common::agent::read_http(socket).await?;
    Some(Received {
        method,
        path,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    })
}
