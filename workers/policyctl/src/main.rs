//! `policyctl`: one binary for operators and workers. Each subcommand parses its arguments and
//! settings, calls `policy-app` (or a component crate) and prints; no pipeline or worker logic
//! lives here.

mod ask;
mod bench;
mod calibrate;
mod eval;
mod explain;
mod facts;
mod forensics;
mod loadtest;
mod manifest;
mod policy;
mod registry;
mod replay;
mod report;
mod schemas;
mod topics;
mod worker;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

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
    Registry(registry::RegistryCommand),
    /// Declarative topics: create missing, report drift.
    #[command(subcommand)]
    Topics(topics::TopicsCommand),
    /// Validate a policy corpus: manifest rules, directories, clauses.
    #[command(subcommand)]
    Manifest(manifest::ManifestCommand),
    /// Policy corpus in Git: validate a revision and publish it to the reindex workers.
    #[command(subcommand)]
    Policy(policy::PolicyCommand),
    /// The order system's records on the compacted orders topic (the workers' embedded default).
    #[command(subcommand)]
    Orders(facts::FactsCommand),
    /// The employee directory's records on the compacted employees topic.
    #[command(subcommand)]
    Employees(facts::FactsCommand),
    /// Run a pipeline stage (or all of them) as a consumer-group worker.
    Worker(worker::WorkerArgs),
    /// Send one question through the running workers and print the outcome.
    Ask(ask::AskArgs),
    /// Run one question in this process and show why it gets its answer: version,
    /// equivalents, candidates with their features and scores, confidence, outcome.
    Explain(explain::ExplainArgs),
    /// Offer realistic load to the running workers and report latency and throughput.
    Loadtest(loadtest::LoadtestArgs),
    /// Run golden cases through the pipeline and report accuracy metrics.
    Eval(eval::EvalArgs),
    /// Fit the reranker and the confidence model on development case sets; write the
    /// calibration file and print how the fit did.
    Calibrate(calibrate::CalibrateArgs),
    /// Audit analytics from ClickHouse: tables, an HTML report, alert thresholds (exit 2).
    Report(report::ReportArgs),
    /// Incident forensics: read turns back (turns topic by offsets or time; audit store by
    /// condition, filter, turn or conversation id), run them again (served corpus, pinned to
    /// each turn's sha, or a candidate) or judge them again, and compare with what was served;
    /// never joins or commits a consumer group.
    Replay(Box<replay::ReplayArgs>),
    /// Evidence bundles for auditors (per turn, with SHA-256 digests) and their verification.
    #[command(subcommand)]
    Forensics(forensics::ForensicsCommand),
    /// Benchmarks that need the servers (criterion covers the pure parts: `make bench`).
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Avro schemas: register them, check compatibility of a change.
    #[command(subcommand)]
    Schemas(schemas::SchemasCommand),
    /// Every setting (environment variable, flag, default, meaning) as a Markdown table: the
    /// README's configuration reference.
    Settings,
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

/// Every environment variable policyctl reads through its settings.
fn known_variables() -> std::collections::BTreeSet<String> {
    policy_settings::variables(&Cli::command())
        .into_keys()
        .collect()
}

/// Variables the process reads itself, before any settings are parsed.
const PROCESS_VARIABLES: &[(&str, &str, &str)] = &[
    ("POLICY_CONFIG", "unset", "TOML file of settings: each key is a variable below in lower case without `POLICY_` (`top_k = 3`); a variable that is set wins over the file"),
    ("POLICY_LOG", "`info,rdkafka=warn`", "tracing filter (`tracing_subscriber::EnvFilter` syntax)"),
    ("RAYON_NUM_THREADS", "`1` (set by policyctl)", "threads per matrix product inside the model; policyctl parallelises across texts instead (model threads; every core for an index build), which wastes less CPU on a small machine shared with the broker"),
];

/// The settings reference: one row per environment variable.
fn settings_table() -> String {
    let mut out = String::from("| variable | default | meaning |\n|---|---|---|\n");
    for (name, default, help) in PROCESS_VARIABLES {
        out.push_str(&format!("| `{name}` | {default} | {help} |\n"));
    }
    for variable in policy_settings::variables(&Cli::command()).values() {
        let default = variable
            .default
            .as_deref()
            .filter(|d| !d.is_empty())
            .map(|d| format!("`{}`", d.replace('|', "\\|")))
            .unwrap_or_else(|| "unset".into());
        let help = variable.help.replace('|', "\\|").replace('\n', " ");
        out.push_str(&format!("| `{}` | {default} | {help} |\n", variable.name));
    }
    out
}

fn main() -> ExitCode {
    // Both run before any thread exists: they set environment variables.
    // candle splits every matrix product over RAYON_NUM_THREADS threads that spin-wait for each
    // other; on two cores shared with the broker that wastes CPU. The model parallelises across
    // texts instead (POLICY_EMBED_THREADS, and every core for an index build). An explicit
    // RAYON_NUM_THREADS wins.
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        std::env::set_var("RAYON_NUM_THREADS", "1");
    }
    if let Err(e) = policy_settings::apply_config_file(&known_variables()) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) => {
            eprintln!("{}", policy_settings::explain(&e, &Cli::command()));
            return ExitCode::from(2);
        }
    };
    match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime.block_on(run(cli)),
        Err(e) => {
            eprintln!("error: async runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> ExitCode {
    init_tracing();
    let result = match cli.command {
        Command::Registry(c) => registry::run(c).await,
        Command::Topics(c) => topics::run(c).await,
        Command::Manifest(c) => manifest::run(c).await,
        Command::Policy(c) => policy::run(c).await,
        Command::Orders(c) => facts::run(policy_app::facts::Subject::Orders, c).await,
        Command::Employees(c) => facts::run(policy_app::facts::Subject::Employees, c).await,
        Command::Schemas(c) => schemas::run(c).await,
        Command::Eval(args) => eval::run(args).await,
        Command::Calibrate(args) => calibrate::run(args).await,
        Command::Worker(args) => worker::run(args).await,
        Command::Ask(args) => ask::run(args).await,
        Command::Explain(args) => explain::run(args).await,
        Command::Loadtest(args) => loadtest::run(args).await,
        Command::Report(args) => report::run(args).await,
        Command::Replay(args) => replay::run(*args).await,
        Command::Forensics(c) => forensics::run(c).await,
        Command::Bench(c) => bench::run(c).await,
        Command::Settings => {
            print!("{}", settings_table());
            Ok(ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    /// The README's configuration table lists exactly the variables the settings read.
    #[test]
    fn the_readme_documents_every_variable_and_no_other() {
        let readme =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
                .expect("README.md");
        let table = readme
            .split("## Configuration")
            .nth(1)
            .and_then(|s| s.split("\n## ").next())
            .expect("a Configuration section");
        let section = table
            .split("### Settings")
            .nth(1)
            .and_then(|s| s.split("\n### ").next())
            .expect("a Settings table under Configuration");
        let documented: std::collections::BTreeSet<String> = section
            .lines()
            .filter(|l| l.starts_with("| `"))
            .flat_map(|l| {
                let first = l.split('|').nth(1).unwrap_or_default();
                first
                    .split('`')
                    .skip(1)
                    .step_by(2)
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        let mut known = known_variables();
        known.extend(
            PROCESS_VARIABLES
                .iter()
                .map(|(name, _, _)| name.to_string()),
        );
        let undocumented: Vec<&String> = known.difference(&documented).collect();
        let unknown: Vec<&String> = documented.difference(&known).collect();
        assert!(
            undocumented.is_empty() && unknown.is_empty(),
            "README settings table out of step: undocumented {undocumented:?}, not read by any setting {unknown:?}"
        );
    }
}
