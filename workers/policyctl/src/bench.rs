//! `policyctl bench`: benchmarks that need the servers, printed as tables.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use policy_app::bench::audit::AuditBench;
use policy_app::bench::retrieval::RetrievalBench;
use policy_app::settings::{CorpusSettings, ModelSettings};
use policy_audit::AuditConfig;
use policy_search_es::EsConfig;
use policy_settings::Settings;

#[derive(Subcommand)]
pub(crate) enum BenchCommand {
    /// ClickHouse audit: insert throughput and each analytics query's latency.
    Audit(AuditBenchArgs),
    /// Retrieval: queries/s and p50/p99 on the golden and a synthetic corpus; query embedding.
    Retrieval(RetrievalBenchArgs),
    /// Forensic replay: turns/s of each replay mode over N turns served and audited first.
    Replay(Box<ReplayBenchArgs>),
}

#[derive(Args)]
pub(crate) struct ReplayBenchArgs {
    /// Turns produced, served, audited and then replayed by each mode.
    #[arg(long, default_value_t = 100_000)]
    turns: usize,
    /// The questions (cycled).
    #[arg(long, default_value = "golden/cases")]
    golden: PathBuf,
    /// Keep the scratch topic and database afterwards (default: delete them).
    #[arg(long)]
    keep: bool,
    #[command(flatten)]
    app: policy_app::AppSettings,
    #[command(flatten)]
    audit: AuditConfig,
}

#[derive(Args)]
pub(crate) struct AuditBenchArgs {
    /// Synthetic rows inserted.
    #[arg(long, default_value_t = 1_000_000)]
    rows: usize,
    /// Rows per INSERT (the sink's batch size).
    #[arg(long, default_value_t = 100_000)]
    batch: usize,
    /// Runs of each query; the table reports the median and the slowest.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Keep the benchmark database afterwards (default: drop it).
    #[arg(long)]
    keep: bool,
    #[command(flatten)]
    audit: AuditConfig,
}

#[derive(Args)]
pub(crate) struct RetrievalBenchArgs {
    #[arg(long, default_value = "golden/cases")]
    golden: PathBuf,
    /// Synthetic versions per region (copies of the golden versions' chunks and vectors).
    #[arg(long, default_value_t = 144)]
    versions_per_region: usize,
    /// Retrievals timed per corpus.
    #[arg(long, default_value_t = 3000)]
    queries: usize,
    /// Also time a full reindex of the golden corpus into a fresh directory (~15 s).
    #[arg(long)]
    reindex: bool,
    /// Also time the Elasticsearch backend: `osmem` starts a local osmem-server (exact vector
    /// mode), anything else is a cluster URL (with the other `POLICY_ES_*` settings).
    #[arg(long)]
    elasticsearch: Option<String>,
    #[command(flatten)]
    corpus: CorpusSettings,
    #[command(flatten)]
    model: ModelSettings,
    #[command(flatten)]
    es: EsConfig,
}

pub(crate) async fn run(command: BenchCommand) -> anyhow::Result<ExitCode> {
    match command {
        BenchCommand::Audit(args) => {
            args.audit.validate()?;
            let bench = AuditBench {
                rows: args.rows,
                batch: args.batch,
                runs: args.runs,
                keep: args.keep,
            };
            print!(
                "{}",
                policy_app::bench::audit::run(&args.audit, &bench).await?
            );
        }
        BenchCommand::Replay(args) => {
            args.app.validate()?;
            args.audit.validate()?;
            let bench = policy_app::bench::replay::ReplayBench {
                turns: args.turns,
                golden: args.golden.clone(),
                keep: args.keep,
            };
            print!(
                "{}",
                policy_app::bench::replay::run(&args.app, &args.audit, &bench).await?
            );
        }
        BenchCommand::Retrieval(args) => {
            let bench = RetrievalBench {
                index_dir: args.corpus.index_dir_or_default(),
                policies: args.corpus.policies.clone(),
                golden: args.golden.clone(),
                model_dir: args.model.dir(),
                versions_per_region: args.versions_per_region,
                queries: args.queries,
                reindex: args.reindex,
                elasticsearch: args
                    .elasticsearch
                    .clone()
                    .map(|target| (target, args.es.clone())),
            };
            let table = tokio::task::block_in_place(|| policy_app::bench::retrieval::run(&bench))?;
            print!("{}", table.render());
        }
    }
    Ok(ExitCode::SUCCESS)
}
