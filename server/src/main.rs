//! `agent-os`: the Agent OS server and its command-line tools.

use std::process::ExitCode;

use clap::Parser;
use server::config::{Cli, Command};
use server::{replay, serve};

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_tracing();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("agent-os: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let outcome: Result<(), String> = runtime.block_on(async move {
        match cli.command {
            Command::Serve(args) => match args.into_config() {
                Ok(config) => serve::run(config).await.map_err(|e| e.to_string()),
                Err(error) => Err(error),
            },
            Command::DemoAgent(args) => serve::demo_agent(args.port)
                .await
                .map_err(|e| e.to_string()),
            Command::DemoGateway(args) => if args.ws {
                server::demo::gateway::run_websocket(args.port).await
            } else {
                server::demo::gateway::run().await
            }
            .map_err(|e| e.to_string()),
            Command::Replay(args) => replay::run(args.into_request())
                .await
                .map(|output| print!("{output}"))
                .map_err(|error| error.to_string()),
            Command::User(command) => server::auth::cli::run_user(command)
                .await
                .map(|output| print!("{output}")),
            Command::Token(command) => server::auth::cli::run_token(command)
                .await
                .map(|output| print!("{output}")),
        }
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("agent-os: {error}");
            ExitCode::FAILURE
        }
    }
}

fn init_tracing() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,tower_http=info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}
