//! Benchmarks that need the real components, each printed as a table of calls/s and
//! p50/p99 per row (criterion covers the pure parts: `make bench`).

pub mod audit;
pub mod replay;
pub mod retrieval;

use std::time::Instant;

/// One measured row: what, over how many chunks, each call's latency, the wall time.
#[derive(Debug, Clone)]
pub struct Row {
    pub what: String,
    pub chunks: usize,
    pub latencies_ms: Vec<f64>,
    pub seconds: f64,
}

impl Row {
    pub fn new(
        what: impl Into<String>,
        chunks: usize,
        mut latencies_ms: Vec<f64>,
        seconds: f64,
    ) -> Row {
        latencies_ms.sort_by(f64::total_cmp);
        Row {
            what: what.into(),
            chunks,
            latencies_ms,
            seconds,
        }
    }
}

/// Rows and the notes printed under them.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub rows: Vec<Row>,
    pub notes: Vec<String>,
}

impl Table {
    pub fn render(&self) -> String {
        use std::fmt::Write as _;
        let mut out = format!(
            "{:<72} {:>8} {:>8} {:>10} {:>9} {:>9}\n",
            "backend / what", "chunks", "calls", "calls/s", "p50_ms", "p99_ms"
        );
        for row in &self.rows {
            let at = |q: f64| crate::loadtest::percentile(&row.latencies_ms, q);
            let _ = writeln!(
                out,
                "{:<72} {:>8} {:>8} {:>10.0} {:>9.3} {:>9.3}",
                row.what,
                row.chunks,
                row.latencies_ms.len(),
                row.latencies_ms.len() as f64 / row.seconds.max(1e-9),
                at(0.5),
                at(0.99)
            );
        }
        for note in &self.notes {
            let _ = writeln!(out, "{note}");
        }
        out
    }
}

/// Times `f` once per item: (each call's milliseconds, total seconds).
pub fn timed<T>(items: &[T], mut f: impl FnMut(usize, &T)) -> (Vec<f64>, f64) {
    let started = Instant::now();
    let latencies = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let t = Instant::now();
            f(i, item);
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    (latencies, started.elapsed().as_secs_f64())
}
