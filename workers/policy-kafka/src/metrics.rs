//! Worker metrics in the Prometheus text format, and the health endpoint that serves them.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rdkafka::consumer::{Consumer, ConsumerContext, StreamConsumer};
use rdkafka::Offset;

#[derive(Debug, Default)]
pub struct Counter(AtomicU64);

impl Counter {
    pub fn inc(&self) {
        self.add(1);
    }
    pub fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Latency histogram with fixed buckets (seconds).
#[derive(Debug)]
pub struct Histogram {
    bounds: &'static [f64],
    buckets: Vec<AtomicU64>,
    sum_micros: AtomicU64,
    count: AtomicU64,
}

const LATENCY_BOUNDS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            bounds: LATENCY_BOUNDS,
            buckets: LATENCY_BOUNDS.iter().map(|_| AtomicU64::new(0)).collect(),
            sum_micros: AtomicU64::new(0),
            count: AtomicU64::new(0),
        }
    }
}

impl Histogram {
    pub fn observe(&self, seconds: f64) {
        for (bound, bucket) in self.bounds.iter().zip(&self.buckets) {
            if seconds <= *bound {
                bucket.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.sum_micros
            .fetch_add((seconds * 1e6) as u64, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
    }
}

/// Time per processing step of a worker, to split a turn's time into domain work (the
/// pipeline's stages) and plumbing (decode, encode, and by difference Kafka and the runtime).
/// The names come from the worker: this crate knows no pipeline step.
#[derive(Debug, Default)]
pub struct StepTimes {
    names: Vec<String>,
    micros: Vec<AtomicU64>,
}

impl StepTimes {
    pub fn new(names: &[&str]) -> StepTimes {
        StepTimes {
            names: names.iter().map(|n| n.to_string()).collect(),
            micros: names.iter().map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Adds `seconds` to `step` (one of the names; others are ignored).
    pub fn add(&self, step: &str, seconds: f64) {
        if let Some(i) = self.names.iter().position(|s| *s == step) {
            self.micros[i].fetch_add((seconds * 1e6) as u64, Ordering::Relaxed);
        }
    }

    /// One counter per step, labelled with the stage and the step.
    fn render(&self, out: &mut String, stage: &str, name: &str, help: &str) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter");
        for step in &self.names {
            let _ = writeln!(
                out,
                "{name}{{stage=\"{stage}\",step=\"{step}\"}} {}",
                self.seconds(step)
            );
        }
    }

    pub fn seconds(&self, step: &str) -> f64 {
        self.names
            .iter()
            .position(|s| *s == step)
            .map(|i| self.micros[i].load(Ordering::Relaxed) as f64 / 1e6)
            .unwrap_or(0.0)
    }
}

#[derive(Debug, Default)]
pub struct WorkerMetrics {
    pub stage: String,
    pub received: Counter,
    pub processed: Counter,
    pub retried: Counter,
    pub dead_lettered: Counter,
    pub answered: Counter,
    pub escalated: Counter,
    pub latency: Histogram,
    /// Sum over assigned partitions of (high watermark - position).
    pub consumer_lag: AtomicI64,
    /// Wall time per step.
    pub steps: StepTimes,
    /// Thread CPU time per step (of the steps that did not move between threads).
    pub cpu: StepTimes,
    /// Metrics owned by other components (the query-embedding cache), rendered after ours.
    pub extra: ExtraMetrics,
}

/// Renders component metrics into the exposition text: `(stage, out)`.
type RenderFn = Box<dyn Fn(&str, &mut String) + Send + Sync>;

#[derive(Default)]
pub struct ExtraMetrics(std::sync::OnceLock<RenderFn>);

impl std::fmt::Debug for ExtraMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ExtraMetrics")
    }
}

impl ExtraMetrics {
    /// Sets the renderer once; later calls are ignored.
    pub fn set(&self, render: impl Fn(&str, &mut String) + Send + Sync + 'static) {
        let _ = self.0.set(Box::new(render));
    }
}

/// One counter in the exposition format, labelled with the stage.
pub fn write_counter(out: &mut String, stage: &str, name: &str, help: &str, value: u64) {
    let _ = writeln!(
        out,
        "# HELP {name} {help}\n# TYPE {name} counter\n{name}{{stage=\"{stage}\"}} {value}"
    );
}

impl WorkerMetrics {
    /// Metrics of a worker whose messages go through `steps` (wall and CPU time kept per step).
    pub fn new(stage: &str, steps: &[&str]) -> Arc<WorkerMetrics> {
        Arc::new(WorkerMetrics {
            stage: stage.to_string(),
            steps: StepTimes::new(steps),
            cpu: StepTimes::new(steps),
            ..Default::default()
        })
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        let stage = &self.stage;
        for (name, help, value) in [
            (
                "policy_messages_received_total",
                "Messages read from the input topics.",
                self.received.get(),
            ),
            (
                "policy_messages_processed_total",
                "Messages whose outputs were acknowledged.",
                self.processed.get(),
            ),
            (
                "policy_messages_retried_total",
                "Transient failures retried.",
                self.retried.get(),
            ),
            (
                "policy_messages_dead_lettered_total",
                "Messages sent to the dead-letter topic.",
                self.dead_lettered.get(),
            ),
            (
                "policy_turns_answered_total",
                "Turns that ended in an answer.",
                self.answered.get(),
            ),
            (
                "policy_turns_escalated_total",
                "Turns that ended in an escalation.",
                self.escalated.get(),
            ),
        ] {
            write_counter(&mut out, stage, name, help, value);
        }
        let _ = writeln!(out, "# HELP policy_consumer_lag Messages behind the high watermark.\n# TYPE policy_consumer_lag gauge");
        let _ = writeln!(
            out,
            "policy_consumer_lag{{stage=\"{stage}\"}} {}",
            self.consumer_lag.load(Ordering::Relaxed)
        );
        let name = "policy_message_seconds";
        let _ = writeln!(
            out,
            "# HELP {name} Time from dispatch to acknowledged outputs.\n# TYPE {name} histogram"
        );
        for (bound, bucket) in self.latency.bounds.iter().zip(&self.latency.buckets) {
            let _ = writeln!(
                out,
                "{name}_bucket{{stage=\"{stage}\",le=\"{bound}\"}} {}",
                bucket.load(Ordering::Relaxed)
            );
        }
        let count = self.latency.count.load(Ordering::Relaxed);
        let _ = writeln!(
            out,
            "{name}_bucket{{stage=\"{stage}\",le=\"+Inf\"}} {count}"
        );
        let _ = writeln!(
            out,
            "{name}_sum{{stage=\"{stage}\"}} {}",
            self.latency.sum_micros.load(Ordering::Relaxed) as f64 / 1e6
        );
        let _ = writeln!(out, "{name}_count{{stage=\"{stage}\"}} {count}");
        self.steps.render(
            &mut out,
            stage,
            "policy_step_seconds_total",
            "Time spent per processing step.",
        );
        self.cpu.render(
            &mut out,
            stage,
            "policy_step_cpu_seconds_total",
            "Thread CPU time per non-yielding step.",
        );
        if let Some(render) = self.extra.0.get() {
            render(stage, &mut out);
        }
        out
    }
}

/// Refreshes `consumer_lag` every few seconds from the watermarks of the assigned partitions.
pub async fn track_lag<C: ConsumerContext + 'static>(
    consumer: Arc<StreamConsumer<C>>,
    metrics: Arc<WorkerMetrics>,
) {
    loop {
        tokio::time::sleep(Duration::from_secs(2)).await;
        let consumer = consumer.clone();
        let lag = tokio::task::spawn_blocking(move || -> Option<i64> {
            let positions = consumer.position().ok()?;
            let mut lag = 0;
            for element in positions.elements() {
                let (_, high) = consumer
                    .fetch_watermarks(element.topic(), element.partition(), Duration::from_secs(2))
                    .ok()?;
                let position = match element.offset() {
                    Offset::Offset(o) => o,
                    _ => continue,
                };
                lag += (high - position).max(0);
            }
            Some(lag)
        })
        .await;
        if let Ok(Some(lag)) = lag {
            metrics.consumer_lag.store(lag, Ordering::Relaxed);
        }
    }
}

/// Serves `/metrics` (Prometheus text) and `/health` until the process ends.
pub async fn serve_metrics(
    listen: SocketAddr,
    metrics: Vec<Arc<WorkerMetrics>>,
) -> std::io::Result<SocketAddr> {
    use axum::routing::get;
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let addr = listener.local_addr()?;
    let render = move || {
        let metrics = metrics.clone();
        async move { metrics.iter().map(|m| m.render()).collect::<String>() }
    };
    let app = axum::Router::new()
        .route("/metrics", get(render))
        .route("/health", get(|| async { "ok\n" }));
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!(error = %e, "metrics server stopped");
        }
    });
    Ok(addr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_prometheus_text() {
        let m = WorkerMetrics::new("all", &[]);
        m.processed.inc();
        m.dead_lettered.inc();
        m.latency.observe(0.003);
        m.latency.observe(0.2);
        let text = m.render();
        assert!(text.contains("policy_messages_processed_total{stage=\"all\"} 1"));
        assert!(text.contains("policy_messages_dead_lettered_total{stage=\"all\"} 1"));
        assert!(text.contains("policy_message_seconds_bucket{stage=\"all\",le=\"0.005\"} 1"));
        assert!(text.contains("policy_message_seconds_bucket{stage=\"all\",le=\"0.25\"} 2"));
        assert!(text.contains("policy_message_seconds_count{stage=\"all\"} 2"));
    }

    #[test]
    fn steps_are_the_workers_own() {
        let times = StepTimes::new(&["decode", "enrich"]);
        times.add("enrich", 0.5);
        times.add("unknown", 1.0);
        assert_eq!(times.seconds("enrich"), 0.5);
        assert_eq!(
            times.seconds("unknown"),
            0.0,
            "names outside the list are ignored"
        );
        let m = WorkerMetrics::new("all", &["decode", "enrich"]);
        m.cpu.add("decode", 0.25);
        assert!(m
            .render()
            .contains("policy_step_cpu_seconds_total{stage=\"all\",step=\"decode\"} 0.25"));
    }
}
