//! Audit benchmark: insert throughput and each analytics query's latency on N synthetic rows,
//! in a throwaway database of the running ClickHouse.

use std::time::Instant;

use policy_audit::analytics::{self, Window, QUERIES};
use policy_audit::{synthetic, AuditConfig, AuditStore};

#[derive(Debug, Clone)]
pub struct AuditBench {
    /// Synthetic rows inserted.
    pub rows: usize,
    /// Rows per INSERT (the sink's batch size).
    pub batch: usize,
    /// Runs of each query; the table reports the median and the slowest.
    pub runs: usize,
    /// Keep the benchmark database afterwards.
    pub keep: bool,
}

/// Inserts, times every query, and returns the printed report.
pub async fn run(config: &AuditConfig, bench: &AuditBench) -> anyhow::Result<String> {
    use std::fmt::Write as _;
    let mut config = config.clone();
    config.database = format!("audit_bench_{}", std::process::id());
    let store = AuditStore::connect(&config).await?;
    let (generate_s, insert_s) = insert(&store, bench).await?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "ClickHouse {}.{}: {} rows in batches of {}: insert {:.2} s = {:.0} rows/s (generating them took {:.2} s, not counted)\n",
        store.server().major,
        store.server().minor,
        bench.rows,
        bench.batch,
        insert_s,
        bench.rows as f64 / insert_s.max(1e-9),
        generate_s
    );
    let _ = writeln!(
        out,
        "{:<32} {:>8} {:>12} {:>12}",
        "query", "rows", "median_ms", "max_ms"
    );
    for query in QUERIES {
        let mut times = Vec::new();
        let mut rows = 0;
        for _ in 0..bench.runs.max(1) {
            let started = Instant::now();
            rows = analytics::run(&store, query, Window::default(), 86_400)
                .await?
                .rows
                .len();
            times.push(started.elapsed().as_secs_f64() * 1000.0);
        }
        times.sort_by(f64::total_cmp);
        let _ = writeln!(
            out,
            "{:<32} {:>8} {:>12.1} {:>12.1}",
            query.name,
            rows,
            times[times.len() / 2],
            times[times.len() - 1]
        );
    }
    if !bench.keep {
        store
            .execute(&format!("DROP DATABASE {}", config.database))
            .await?;
    }
    Ok(out)
}

/// (seconds generating rows, seconds inserting them).
async fn insert(store: &AuditStore, bench: &AuditBench) -> anyhow::Result<(f64, f64)> {
    let span = 30 * 86_400; // a month of processing time
    let from = 1_790_000_000;
    let (mut generate_s, mut insert_s) = (0.0, 0.0);
    let mut inserted = 0;
    while inserted < bench.rows {
        let count = bench.batch.min(bench.rows - inserted);
        let started = Instant::now();
        let rows = synthetic::rows(inserted as u64, count, from, span);
        generate_s += started.elapsed().as_secs_f64();
        let started = Instant::now();
        store.insert(&rows).await?;
        insert_s += started.elapsed().as_secs_f64();
        inserted += count;
    }
    Ok((generate_s, insert_s))
}
