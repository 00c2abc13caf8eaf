//! The load test: realistic turns against the real broker and running workers, measuring
//! end-to-end latency (turn produced → outcome consumed), throughput, turns in flight and the
//! worker group's consumer lag over time, dead letters and lost turns, and the worker's CPU
//! split per turn. [`run`] is a short sequence of named steps; [`LoadReport::render_text`]
//! prints the table and [`LoadReport::chart_points`] feeds the SVG.

pub mod chart;
pub mod lag;
pub mod mix;
pub mod probe;

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use policy_kafka::KafkaConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{DeliveryFuture, FutureProducer, FutureRecord};
use rdkafka::Message;

use crate::client::{outcome_reader, ClientCodecs};
use crate::topics::TopicNames;
use chart::ChartPoint;
use lag::{lag_per_second, LagSample, LagSampler};
use mix::{Offer, TurnMix};
use probe::WorkerSample;

#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Turns per second to offer; 0 = as fast as the producer goes.
    pub rate: u64,
    pub duration: Duration,
    pub unique: bool,
    pub zipf_s: f64,
    pub injection_share: f64,
    pub garbage_share: f64,
    pub golden: PathBuf,
    pub worker_pid: Option<u32>,
    pub worker_metrics: Option<String>,
    pub worker_group: Option<String>,
    pub drain: Duration,
    pub warmup_secs: usize,
}

pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

#[derive(Debug, Default)]
struct Second {
    latencies_ms: Vec<f64>,
    /// Turns sent whose outcome has not arrived yet, at the end of the second.
    in_flight: usize,
}

/// The record of the second the run is in now.
fn current_second(seconds: &mut Vec<Second>, started: Instant) -> &mut Second {
    let second = started.elapsed().as_secs() as usize;
    if seconds.len() <= second {
        seconds.resize_with(second + 1, Second::default);
    }
    &mut seconds[second]
}

/// Messages in a topic (sum of high watermarks).
fn message_count(client: &BaseConsumer, topic: &str) -> anyhow::Result<usize> {
    let metadata = client.fetch_metadata(Some(topic), Duration::from_secs(10))?;
    let mut total = 0;
    for partition in metadata.topics().iter().flat_map(|t| t.partitions()) {
        let (_, high) = client.fetch_watermarks(topic, partition.id(), Duration::from_secs(10))?;
        total += high.max(0) as usize;
    }
    Ok(total)
}

/// What was offered and what came back.
#[derive(Debug, Default)]
struct Traffic {
    seconds: Vec<Second>,
    valid_sent: usize,
    outcomes: usize,
    escalations: usize,
    garbage: usize,
    peak_rss_kib: u64,
}

#[derive(Debug)]
pub struct LoadReport {
    pub options: LoadOptions,
    pub elapsed: f64,
    seconds: Vec<Second>,
    pub valid_sent: usize,
    pub outcomes: usize,
    pub escalations: usize,
    pub garbage: usize,
    pub dead_letters: usize,
    pub peak_rss_kib: u64,
    pub lag: Vec<LagSample>,
    pub group: String,
    before: WorkerSample,
    after: WorkerSample,
}

/// Offers the load, collects the outcomes, samples the worker before and after.
pub async fn run(
    kafka: &KafkaConfig,
    topics: &TopicNames,
    options: LoadOptions,
) -> anyhow::Result<LoadReport> {
    let codecs = ClientCodecs::register(kafka, topics).await?;
    let mut mix = TurnMix::load(
        &options.golden,
        options.zipf_s,
        options.unique,
        options.injection_share,
        options.garbage_share,
    )?;
    let reader = tokio::task::block_in_place(|| outcome_reader(kafka, topics))?;
    let dead_before = tokio::task::block_in_place(|| message_count(&reader, &topics.deadletter))?;
    let before = WorkerSample::take(options.worker_pid, options.worker_metrics.as_deref()).await;
    let group = options
        .worker_group
        .clone()
        .unwrap_or_else(|| format!("{}-all", topics.prefix));
    let started = Instant::now();
    let lag_sampler = LagSampler::start(kafka, &group, &topics.turns, started)?;
    let traffic =
        offer_and_collect(kafka, topics, &codecs, &reader, &mut mix, &options, started).await?;
    let elapsed = started.elapsed().as_secs_f64();
    let lag = lag_sampler.finish();
    let after = WorkerSample::take(options.worker_pid, options.worker_metrics.as_deref()).await;
    let dead_letters =
        tokio::task::block_in_place(|| message_count(&reader, &topics.deadletter))? - dead_before;
    Ok(LoadReport {
        options,
        elapsed,
        seconds: traffic.seconds,
        valid_sent: traffic.valid_sent,
        outcomes: traffic.outcomes,
        escalations: traffic.escalations,
        garbage: traffic.garbage,
        dead_letters,
        peak_rss_kib: traffic.peak_rss_kib,
        lag,
        group,
        before,
        after,
    })
}

/// Offers turns on schedule until the deadline, and collects outcomes until every valid turn
/// has one or the drain time is up.
async fn offer_and_collect(
    kafka: &KafkaConfig,
    topics: &TopicNames,
    codecs: &ClientCodecs,
    reader: &BaseConsumer,
    mix: &mut TurnMix,
    options: &LoadOptions,
    started: Instant,
) -> anyhow::Result<Traffic> {
    let total = if options.rate == 0 {
        20_000
    } else {
        (options.rate * options.duration.as_secs()) as usize
    };
    let interval = if options.rate == 0 {
        Duration::ZERO
    } else {
        Duration::from_secs_f64(1.0 / options.rate as f64)
    };
    let producer: FutureProducer = kafka.producer().create()?;
    let mut sent_at: HashMap<String, Instant> = HashMap::with_capacity(total);
    let mut traffic = Traffic::default();
    let mut pending: Vec<DeliveryFuture> = Vec::new();
    let (mut produced, mut next_send) = (0usize, Instant::now());
    let deadline = started + options.duration;
    let drain_deadline = deadline + options.drain;
    // Offering stops at the deadline even when the schedule could not be met; then only the
    // outcomes of what was sent are awaited.
    while Instant::now() < drain_deadline
        && ((produced < total && Instant::now() < deadline) || traffic.outcomes < sent_at.len())
    {
        while produced < total && Instant::now() >= next_send && Instant::now() < deadline {
            let key = mix.key(produced);
            let payload = match mix.next(produced)? {
                Offer::Garbage(bytes) => {
                    traffic.garbage += 1;
                    bytes
                }
                Offer::Turn(turn) => {
                    sent_at.insert(turn.turn_id.clone(), Instant::now());
                    codecs.turns.encode(&turn)?
                }
            };
            pending.push(
                producer
                    .send_result(FutureRecord::to(&topics.turns).key(&key).payload(&payload))
                    .map_err(|(e, _)| e)?,
            );
            produced += 1;
            next_send += interval;
        }
        if pending.len() > 1000 {
            for delivery in pending.drain(..) {
                let _ = delivery.await;
            }
        }
        if let Some(message) = reader.poll(Duration::from_millis(1)) {
            let message = message?;
            let payload = message.payload().unwrap_or_default();
            let turn_id = if message.topic() == topics.answers {
                codecs.answers.decode(payload).await?.turn_id
            } else {
                traffic.escalations += 1;
                codecs.escalations.decode(payload).await?.turn_id
            };
            if let Some(sent) = sent_at.get(&turn_id) {
                current_second(&mut traffic.seconds, started)
                    .latencies_ms
                    .push(sent.elapsed().as_secs_f64() * 1000.0);
                traffic.outcomes += 1;
            }
        }
        current_second(&mut traffic.seconds, started).in_flight = sent_at.len() - traffic.outcomes;
        if let Some((_, rss)) = options.worker_pid.and_then(probe::process_usage) {
            traffic.peak_rss_kib = traffic.peak_rss_kib.max(rss);
        }
    }
    for delivery in pending {
        let _ = delivery.await;
    }
    traffic.valid_sent = sent_at.len();
    Ok(traffic)
}

impl LoadReport {
    pub fn lost(&self) -> usize {
        self.valid_sent - self.outcomes
    }

    /// Latencies after the warm-up, sorted.
    fn latencies(&self) -> Vec<f64> {
        let mut all: Vec<f64> = self
            .seconds
            .iter()
            .skip(self.options.warmup_secs)
            .flat_map(|s| s.latencies_ms.iter().copied())
            .collect();
        all.sort_by(f64::total_cmp);
        all
    }

    pub fn chart_points(&self) -> Vec<ChartPoint> {
        self.seconds
            .iter()
            .zip(lag_per_second(&self.lag, self.seconds.len()))
            .map(|(s, lag)| {
                let mut sorted = s.latencies_ms.clone();
                sorted.sort_by(f64::total_cmp);
                ChartPoint {
                    p50_ms: percentile(&sorted, 0.5),
                    p99_ms: percentile(&sorted, 0.99),
                    in_flight: s.in_flight as f64,
                    consumer_lag: lag.map(|lag| lag as f64),
                }
            })
            .collect()
    }

    pub fn render_text(&self) -> String {
        use std::fmt::Write as _;
        let o = &self.options;
        let mut out = String::new();
        let all = self.latencies();
        let _ = writeln!(
            out,
            "\nload test: {} ({} s offered, {} s with drain)",
            if o.unique {
                "all-unique questions"
            } else {
                "Zipf repeat mix"
            },
            o.duration.as_secs(),
            self.elapsed.round()
        );
        let _ = writeln!(
            out,
            "  latency percentiles leave out the first {} s (warm-up)",
            o.warmup_secs
        );
        let rate = if o.rate == 0 {
            "max".to_string()
        } else {
            o.rate.to_string()
        };
        let _ = writeln!(out, "  {:<28} {:>12}", "target rate (turns/s)", rate);
        let _ = writeln!(
            out,
            "  {:<28} {:>12.1}",
            "achieved (outcomes/s)",
            self.outcomes as f64 / self.elapsed
        );
        for (name, q) in [
            ("p50 latency (ms)", 0.5),
            ("p95 latency (ms)", 0.95),
            ("p99 latency (ms)", 0.99),
            ("max latency (ms)", 1.0),
        ] {
            let _ = writeln!(out, "  {:<28} {:>12.1}", name, percentile(&all, q));
        }
        let answers = self.outcomes - self.escalations.min(self.outcomes);
        for (name, value) in [
            ("turns sent (valid)", self.valid_sent.to_string()),
            (
                "outcomes (answer+escalate)",
                format!("{answers}+{}", self.escalations),
            ),
            (
                "garbage sent / dead letters",
                format!("{} / {}", self.garbage, self.dead_letters),
            ),
            ("lost turns", self.lost().to_string()),
            (
                "max consumer lag (turns)",
                self.lag
                    .iter()
                    .map(|s| s.1)
                    .max()
                    .map_or(format!("n/a ({})", self.group), |lag| lag.to_string()),
            ),
            ("worker CPU (of one core)", self.cpu_share()),
            (
                "worker peak RSS",
                if self.peak_rss_kib > 0 {
                    format!("{:.0} MiB", self.peak_rss_kib as f64 / 1024.0)
                } else {
                    "n/a".into()
                },
            ),
        ] {
            let _ = writeln!(out, "  {name:<28} {value:>12}");
        }
        self.render_cpu_split(&mut out);
        out
    }

    fn cpu_share(&self) -> String {
        match (self.before.usage, self.after.usage) {
            (Some((a, _)), Some((b, _))) => {
                format!("{:.0} %", (b - a) as f64 / 100.0 / self.elapsed * 100.0)
            }
            _ => "n/a (no --worker-pid)".into(),
        }
    }

    /// The worker's CPU per turn, split exactly: thread CPU of the stages and of Avro, CPU of
    /// the threads by name, and the rest (async runtime, rdkafka's Rust side).
    fn render_cpu_split(&self, out: &mut String) {
        use std::fmt::Write as _;
        let (Some(a), Some(b), Some((t0, _)), Some((t1, _))) = (
            &self.before.metrics,
            &self.after.metrics,
            self.before.usage,
            self.after.usage,
        ) else {
            return;
        };
        // Clock ticks are 1/100 s on Linux. Step times are wall time inside the worker, summed
        // over its lanes: on idle cores they approach CPU time; a step waiting for a core (or
        // for the blocking pool) counts its wait too.
        let turns = (self.outcomes + self.garbage).max(1) as f64;
        let cpu_ms = (t1 - t0) as f64 * 10.0 / turns;
        let _ = writeln!(
            out,
            "  worker CPU per turn           {cpu_ms:>9.2} ms; wall time per step and turn:"
        );
        for (step, end) in &b.steps {
            let ms = (end - a.steps.get(step).copied().unwrap_or(0.0)) * 1000.0 / turns;
            let _ = writeln!(out, "    {step:<26} {ms:>9.3} ms");
        }
        let cpu_step = |step: &str| {
            (b.cpu_steps.get(step).copied().unwrap_or(0.0)
                - a.cpu_steps.get(step).copied().unwrap_or(0.0))
                * 1000.0
                / turns
        };
        let avro = cpu_step(crate::metrics::DECODE) + cpu_step(crate::metrics::ENCODE);
        let stages: f64 = b
            .cpu_steps
            .keys()
            .filter(|s| *s != crate::metrics::DECODE && *s != crate::metrics::ENCODE)
            .map(|s| cpu_step(s))
            .sum();
        let group = |name: &str| self.after.group_ticks(&self.before, name) as f64 * 10.0 / turns;
        let kafka_threads = group("kafka client threads");
        let workers = group("async worker threads");
        // On the async workers, what is neither a pipeline stage nor Avro is the runtime and
        // rdkafka's Rust side (polling, delivery futures, offset bookkeeping).
        let runtime = (workers - stages - avro).max(0.0);
        let plumbing = kafka_threads + avro + runtime;
        let _ = writeln!(out, "  CPU per turn, split by thread CPU time:");
        for (what, ms) in [
            ("pipeline stages", stages),
            ("Avro decode + encode", avro),
            ("async runtime + rdkafka Rust side", runtime),
            ("librdkafka threads + producer poll", kafka_threads),
            ("model threads (embedding misses)", group("model threads")),
            ("other (main, rayon)", group("other threads")),
        ] {
            let _ = writeln!(out, "    {what:<40} {ms:>9.3} ms");
        }
        let _ = writeln!(
            out,
            "    {:<40} {:>8.1} % of {:.3} ms",
            "Kafka + Avro + runtime",
            100.0 * plumbing / cpu_ms.max(1e-9),
            cpu_ms
        );
        let (hits, misses) = (
            b.delta(a, "policy_query_cache_hits_total"),
            b.delta(a, "policy_query_cache_misses_total"),
        );
        let (batches, texts) = (
            b.delta(a, "policy_embed_batches_total"),
            b.delta(a, "policy_embed_batch_texts_total"),
        );
        let _ = writeln!(
            out,
            "  {:<28} {:>11.1}%",
            "query cache hit rate",
            100.0 * hits / (hits + misses).max(1.0)
        );
        let _ = writeln!(
            out,
            "  {:<28} {:>12.2}",
            "mean embedding batch",
            texts / batches.max(1.0)
        );
    }
}
