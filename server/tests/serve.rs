//! `agent-os serve` as a user meets it: pages, server functions, persistence, start-up
//! errors and shutdown, all over real sockets against a real SQLite file.

mod common;

use common::{TestServer, call_server_fn, free_port, run_to_end};

#[tokio::test]
async fn the_home_page_is_server_rendered_with_sidebar_main_area_and_context_pane() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("data")).await;

    let response = server.get("/").await.unwrap();
    assert_eq!(response.status(), 200);
    let html = response.text().await.unwrap();
    for landmark in [
        r#"aria-label="Workspace""#,
        r#"id="main""#,
        r#"aria-label="Context""#,
        "New thread",
        "/pkg/agent_os.js",
        "agent_os_bg",
    ] {
        assert!(
            html.contains(landmark),
            "home page lacks {landmark}: {html}"
        );
    }
}

#[tokio::test]
async fn threads_started_through_server_functions_outlive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");

    let server = TestServer::start(&data).await;
    // A thread is made with its first message: a blank one makes nothing.
    let (status, refused) = call_server_fn(&server, "start_thread", &[("text", "  ")]).await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["message"], "the message is empty");
    let (status, refused) = call_server_fn(
        &server,
        "start_thread",
        &[("text", "hello"), ("agent", "no-such-agent")],
    )
    .await;
    assert_eq!(status, 400, "{refused}");
    let (_, listed) = call_server_fn(&server, "list_threads", &[]).await;
    assert_eq!(
        listed,
        serde_json::json!([]),
        "nothing kept from refused starts"
    );
    let (status, first) =
        call_server_fn(&server, "start_thread", &[("text", "Plan the launch")]).await;
    assert_eq!(status, 200, "{first}");
    let (_, second) = call_server_fn(&server, "start_thread", &[("text", "Book the venue")]).await;
    assert_eq!(first["title"], "Plan the launch");
    assert_eq!(second["title"], "Book the venue");
    assert_eq!(first["tenant_id"], "default");
    assert!(data.join("agent-os.sqlite3").is_file());
    assert!(server.interrupt().success());

    let server = TestServer::start(&data).await;
    let (status, listed) = call_server_fn(&server, "list_threads", &[]).await;
    assert_eq!(status, 200);
    let titles: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|thread| thread["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        ["Book the venue", "Plan the launch"],
        "newest first"
    );

    let page = server
        .get(&format!("/threads/{}", first["id"].as_str().unwrap()))
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    // Server-rendered: the title is in the HTML itself (a hydration marker may follow it).
    let html = page.text().await.unwrap();
    assert!(
        html.contains("<h1>Plan the launch</h1>") || html.contains("<h1>Plan the launch<!></h1>"),
        "{html}"
    );
}

#[tokio::test]
async fn an_unknown_thread_id_is_a_404_that_names_the_id() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("data")).await;

    let (status, error) =
        call_server_fn(&server, "get_thread", &[("thread_id", "ghost-thread")]).await;
    assert_eq!(status, 404);
    assert_eq!(error["kind"], "not_found");
    assert_eq!(error["message"], "thread \"ghost-thread\" does not exist");

    let page = server.get("/threads/ghost-thread").await.unwrap();
    assert_eq!(page.status(), 404);
}

#[tokio::test]
async fn an_unknown_path_renders_the_workspace_around_its_not_found_page() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("data")).await;
    let (_, thread) =
        call_server_fn(&server, "start_thread", &[("text", "Survey the garden")]).await;
    let page = server.get("/nowhere/at/all").await.unwrap();
    assert_eq!(page.status(), 404);
    let html = page.text().await.unwrap();
    assert!(html.contains("Page not found"), "{html}");
    assert!(
        html.contains(thread["title"].as_str().unwrap()),
        "the sidebar lists the threads: {html}"
    );
    assert!(!html.contains("not provided"), "{html}");
}

#[tokio::test]
async fn a_server_function_call_with_a_missing_argument_is_a_400_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("data")).await;

    let (status, error) = call_server_fn(&server, "get_thread", &[]).await;
    assert_eq!(status, 400, "{error}");
    assert_eq!(error["kind"], "bad_request");
    assert!(
        error["message"].as_str().unwrap().contains("thread_id"),
        "{error}"
    );
}

#[test]
fn a_taken_port_is_reported_in_one_line_naming_the_port() {
    let holder = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = holder.local_addr().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");

    let output = run_to_end(&[
        "serve",
        "--addr",
        &addr,
        "--data-dir",
        data.to_str().unwrap(),
    ]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "one line, no panic: {stderr}");
    assert!(
        stderr.starts_with(&format!("agent-os: cannot listen on {addr}: ")),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"));
}

#[test]
fn an_unusable_data_directory_is_reported_in_one_line_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-directory");
    std::fs::write(&file, b"a file where the data directory should be").unwrap();
    let data = file.join("data");
    let addr = format!("127.0.0.1:{}", free_port());

    let output = run_to_end(&[
        "serve",
        "--addr",
        &addr,
        "--data-dir",
        data.to_str().unwrap(),
    ]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "one line, no panic: {stderr}");
    assert!(
        stderr.starts_with(&format!(
            "agent-os: data directory {data:?} is not usable: "
        )),
        "{stderr}"
    );
}

#[test]
fn help_documents_every_subcommand_and_the_serve_flags() {
    let output = run_to_end(&["--help"]);
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    assert!(help.contains("serve"), "{help}");

    let output = run_to_end(&["serve", "--help"]);
    let help = String::from_utf8_lossy(&output.stdout);
    for flag in [
        "--addr",
        "AGENT_OS_ADDR",
        "--data-dir",
        "AGENT_OS_DATA_DIR",
        "--site-root",
    ] {
        assert!(help.contains(flag), "serve --help lacks {flag}: {help}");
    }
}

#[tokio::test]
async fn ctrl_c_shuts_the_server_down_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("data")).await;
    let status = server.interrupt();
    assert!(status.success(), "exit status {status:?}");
}

#[tokio::test]
async fn stopping_the_server_ends_its_live_streams_at_once() {
    let api = common::api::Api::start(&[]).await;
    let thread = api.thread(None).await;
    // The demo's "slow" run never ends: only the shutdown can end its stream.
    let run = api.say(&thread, "slow").await;
    let mut stream = api
        .client
        .get(api.url(&format!("/api/v1/runs/{run}/events")))
        .send()
        .await
        .unwrap();
    let mut seen = String::new();
    while !seen.contains("this will take a while") {
        let chunk = stream
            .chunk()
            .await
            .unwrap()
            .expect("the stream carries the run's text");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    api.server.send_interrupt();
    let ended = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        loop {
            match stream.chunk().await {
                Ok(Some(_)) => continue,
                Ok(None) => return "ended",
                Err(_) => return "dropped",
            }
        }
    })
    .await
    .expect("the live stream outlived the shutdown");
    assert_eq!(
        ended, "ended",
        "the stream ends cleanly, not by a dropped connection"
    );
    let common::api::Api { server, _dir, .. } = api;
    let status = server.wait_for_exit();
    assert!(status.success(), "exit status {status:?}");
}

#[tokio::test]
async fn a_config_file_supplies_settings_and_agents() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let config = dir.path().join("agent-os.toml");
    std::fs::write(
        &config,
        format!(
            "addr = \"127.0.0.1:{port}\"\ndata_dir = \"{}\"\ndefault_agent = \"demo\"\n\n[[agent]]\nname = \"raw\"\nurl = \"http://127.0.0.1:{port}/demo/raw/unbracketed\"\napi_key_env = \"AGENT_OS_DEMO_KEY\"\n\n[[hermes]]\nname = \"gw\"\ncommand = \"true\"\n\n[[openai]]\nname = \"local\"\nurl = \"http://127.0.0.1:{port}/demo/openai-chat/v1/\"\nmodel = \"demo-model\"\napi = \"chat\"\napi_key_env = \"AGENT_OS_DEMO_KEY\"\n",
            dir.path().join("data").display()
        ),
    )
    .unwrap();
    // The store's first user, made before the server opens it.
    let data = dir.path().join("data");
    common::add_user(&data, &[], common::TEST_USER, "default", "owner");
    let client = common::client_with(&common::new_token(
        &data,
        &[],
        common::TEST_USER,
        "default",
        None,
    ));
    let mut child = std::process::Command::new(common::BIN)
        .args(["serve", "--config", config.to_str().unwrap()])
        .env("RUST_LOG", "error")
        .env("AGENT_OS_DEMO_KEY", common::DEMO_KEY)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/api/v1/agents");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let agents = loop {
        if let Ok(response) = client.get(&url).send().await {
            break response.json::<serde_json::Value>().await.unwrap();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server did not start from its config file"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(
        agents["agents"],
        serde_json::json!([
            "demo",
            "raw",
            "local",
            "gw",
            "demo-openai",
            "demo-ksadk",
            "demo-hermes"
        ]),
        "the default agent comes first, the rest keep their order"
    );
    let local = &agents["environments"][2];
    assert_eq!(
        local["protocol"],
        "OpenAI Chat Completions (model demo-model)"
    );
    assert_eq!(
        local["chosen_because"],
        "set by api=chat in the configuration"
    );
    assert!(
        local["endpoint"]
            .as_str()
            .unwrap()
            .ends_with("/demo/openai-chat/v1")
    );
    assert!(dir.path().join("data/agent-os.sqlite3").is_file());
}

#[test]
fn a_bad_config_file_is_a_one_line_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("bad.toml");
    std::fs::write(&config, "adress = \"127.0.0.1:1\"\n").unwrap();
    let output = run_to_end(&["serve", "--config", config.to_str().unwrap()]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("config file {}", config.display())),
        "{stderr}"
    );
    assert!(stderr.contains("unknown field `adress`"), "{stderr}");
}

#[test]
fn an_unknown_default_agent_is_a_one_line_error_listing_the_configured_ones() {
    let dir = tempfile::tempdir().unwrap();
    let output = run_to_end(&[
        "serve",
        "--addr",
        &format!("127.0.0.1:{}", free_port()),
        "--data-dir",
        dir.path().join("data").to_str().unwrap(),
        "--default-agent",
        "nobody",
    ]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(
            "--default-agent nobody: no agent of that name; configured: demo, demo-openai, demo-ksadk, demo-hermes"
        ),
        "{stderr}"
    );
}

#[tokio::test]
async fn a_hashed_bundle_is_linked_by_its_hashed_names_and_cached_for_good_while_pages_are_revalidated()
 {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("pkg")).unwrap();
    let (js, wasm, css) = ("0123456789abcdef", "fedcba9876543210", "00112233aabbccdd");
    std::fs::write(
        site.join("pkg").join(format!("agent_os.{js}.js")),
        "export default 1;",
    )
    .unwrap();
    std::fs::write(
        site.join("pkg").join(format!("agent_os.{wasm}.wasm")),
        b"\0asm",
    )
    .unwrap();
    std::fs::write(
        site.join("pkg").join(format!("agent_os.{css}.css")),
        "body{}",
    )
    .unwrap();
    std::fs::write(
        site.join("hash.txt"),
        format!("js: {js}\nwasm: {wasm}\ncss: {css}\n"),
    )
    .unwrap();
    let server = TestServer::start_with(
        &dir.path().join("data"),
        &["--site-root", site.to_str().unwrap()],
    )
    .await;

    let page = server.get("/").await.unwrap();
    assert_eq!(page.headers()["cache-control"], "no-cache");
    let html = page.text().await.unwrap();
    for name in [
        format!("/pkg/agent_os.{js}.js"),
        format!("/pkg/agent_os.{wasm}.wasm"),
        format!("/pkg/agent_os.{css}.css"),
    ] {
        assert!(
            html.contains(&name),
            "the page does not link {name}: {html}"
        );
        let asset = server.get(&name).await.unwrap();
        assert_eq!(asset.status(), 200, "{name}");
        assert_eq!(
            asset.headers()["cache-control"],
            "public, max-age=31536000, immutable",
            "{name}"
        );
    }
    // A name the build did not write is not cached for good.
    let missing = server
        .get("/pkg/agent_os.1111111111111111.js")
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    assert!(
        missing
            .headers()
            .get("cache-control")
            .is_none_or(|value| value != "public, max-age=31536000, immutable")
    );
}
