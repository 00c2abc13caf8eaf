//! `policyctl`: one binary for operators and workers.

mod cmd_ask;
mod cmd_audit;
mod cmd_bench;
mod cmd_bench_retrieval;
mod cmd_eval;
mod cmd_loadtest;
mod cmd_manifest;
mod cmd_policy;
mod cmd_registry;
mod cmd_reindex;
mod cmd_schemas;
mod cmd_topics;
mod cmd_worker;
mod group_lag;
mod handlers;
mod loadtest_chart;
mod search_backend;
mod topics;
mod via_kafka;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "policyctl",
    version,
    about = "Version-correct policy answers on Kafka"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Development schema registry (Confluent REST subset).
    #[command(subcommand)]
    Registry(cmd_registry::RegistryCommand),
    /// Declarative topics: create missing, report drift.
    #[command(subcommand)]
    Topics(cmd_topics::TopicsCommand),
    /// Validate a policy corpus: manifest rules, directories, clauses.
    #[command(subcommand)]
    Manifest(cmd_manifest::ManifestCommand),
    /// Policy corpus in Git: validate a revision and publish it to the reindex workers.
    #[command(subcommand)]
    Policy(cmd_policy::PolicyCommand),
    /// Run a pipeline stage (or all of them) as a consumer-group worker.
    Worker(cmd_worker::WorkerArgs),
    /// Send one question through the running workers and print the outcome.
    Ask(cmd_ask::AskArgs),
    /// Offer realistic load to the running workers and report latency and throughput.
    Loadtest(cmd_loadtest::LoadtestArgs),
    /// Run golden cases through the pipeline and report accuracy metrics.
    Eval(cmd_eval::EvalArgs),
    /// Audit analytics from ClickHouse: tables, an HTML report, alert thresholds (exit 2).
    Report(cmd_audit::ReportArgs),
    /// Benchmarks that need the servers (criterion covers the pure parts: `make bench`).
    #[command(subcommand)]
    Bench(cmd_bench::BenchCommand),
    /// Avro schemas: register them, check compatibility of a change.
    #[command(subcommand)]
    Schemas(cmd_schemas::SchemasCommand),
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("POLICY_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rdkafka=warn"));
    // Colours only on a terminal: worker logs usually go to files that people grep.
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .init();
}

fn main() -> ExitCode {
    // candle splits every matrix product over RAYON_NUM_THREADS threads that spin-wait for each
    // other; on two cores shared with the broker that wastes CPU. The model parallelises across
    // texts instead (POLICY_EMBED_THREADS, and every core for an index build). Set before any
    // thread exists; an explicit RAYON_NUM_THREADS wins.
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        std::env::set_var("RAYON_NUM_THREADS", "1");
    }
    match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime.block_on(run()),
        Err(e) => {
            eprintln!("error: async runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> ExitCode {
    init_tracing();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Registry(c) => cmd_registry::run(c).await,
        Command::Topics(c) => cmd_topics::run(c).await,
        Command::Manifest(c) => cmd_manifest::run(c).await,
        Command::Policy(c) => cmd_policy::run(c).await,
        Command::Schemas(c) => cmd_schemas::run(c).await,
        Command::Eval(args) => cmd_eval::run(args).await,
        Command::Worker(args) => cmd_worker::run(args).await,
        Command::Ask(args) => cmd_ask::run(args).await,
        Command::Loadtest(args) => cmd_loadtest::run(args).await,
        Command::Report(args) => cmd_audit::report(args).await,
        Command::Bench(c) => cmd_bench::run(c).await,
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Resolves on Ctrl-C or SIGTERM: the signal a supervisor sends to stop a worker.
pub async fn shutdown_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}
