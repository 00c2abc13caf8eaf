//! `policyctl bench audit`: insert throughput and analytics latency on N synthetic rows, in a
//! throwaway database of the running ClickHouse.

use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Subcommand};
use policy_audit::analytics::{self, Window, QUERIES};
use policy_audit::{synthetic, AuditConfig, AuditStore};

#[derive(Subcommand)]
pub enum BenchCommand {
    /// ClickHouse audit: insert throughput and each analytics query's latency.
    Audit(AuditBenchArgs),
    /// Retrieval: queries/s and p50/p99 on the golden and a synthetic corpus; query embedding.
    Retrieval(crate::cmd_bench_retrieval::RetrievalBenchArgs),
}

#[derive(Args)]
pub struct AuditBenchArgs {
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
}

pub async fn run(command: BenchCommand) -> anyhow::Result<ExitCode> {
    match command {
        BenchCommand::Audit(args) => audit(args).await,
        BenchCommand::Retrieval(args) => crate::cmd_bench_retrieval::run(args).await,
    }
}

async fn audit(args: AuditBenchArgs) -> anyhow::Result<ExitCode> {
    let mut config = AuditConfig::from_env()?;
    config.database = format!("audit_bench_{}", std::process::id());
    let store = AuditStore::connect(&config).await?;
    let span = 30 * 86_400; // a month of processing time
    let from = 1_790_000_000;
    let (mut generate_s, mut insert_s) = (0.0, 0.0);
    let mut inserted = 0;
    while inserted < args.rows {
        let count = args.batch.min(args.rows - inserted);
        let started = Instant::now();
        let rows = synthetic::rows(inserted as u64, count, from, span);
        generate_s += started.elapsed().as_secs_f64();
        let started = Instant::now();
        store.insert(&rows).await?;
        insert_s += started.elapsed().as_secs_f64();
        inserted += count;
    }
    println!(
        "ClickHouse {}.{}: {} rows in batches of {}: insert {:.2} s = {:.0} rows/s (generating them took {:.2} s, not counted)\n",
        store.server().major,
        store.server().minor,
        args.rows,
        args.batch,
        insert_s,
        args.rows as f64 / insert_s.max(1e-9),
        generate_s
    );
    println!(
        "{:<32} {:>8} {:>12} {:>12}",
        "query", "rows", "median_ms", "max_ms"
    );
    for query in QUERIES {
        let mut times = Vec::new();
        let mut rows = 0;
        for _ in 0..args.runs.max(1) {
            let started = Instant::now();
            rows = analytics::run(&store, query, Window::default(), 86_400)
                .await?
                .rows
                .len();
            times.push(started.elapsed().as_secs_f64() * 1000.0);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{:<32} {:>8} {:>12.1} {:>12.1}",
            query.name,
            rows,
            times[times.len() / 2],
            times[times.len() - 1]
        );
    }
    if !args.keep {
        store
            .execute(&format!("DROP DATABASE {}", config.database))
            .await?;
    }
    Ok(ExitCode::SUCCESS)
}
