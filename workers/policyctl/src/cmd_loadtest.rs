//! `policyctl loadtest`: realistic turns against the real broker and running workers, measuring
//! end-to-end latency (turn produced → outcome consumed), throughput, in-flight turns over time,
//! dead letters and lost turns; prints a table and writes an SVG chart.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Args;
use policy_core::golden::ExpectedOutcome;
use policy_core::load_cases;
use policy_kafka::KafkaConfig;
use policy_pipeline::golden_turn::turn_for_case;
use rdkafka::consumer::Consumer;
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::Message;

use crate::group_lag::{lag_per_second, LagSampler};
use crate::loadtest_chart::{write_chart, ChartPoint};
use crate::topics::TopicNames;
use crate::via_kafka::{outcome_reader, ClientCodecs};

#[derive(Args)]
pub struct LoadtestArgs {
    /// Turns per second to offer; 0 = as fast as the producer goes.
    #[arg(long, default_value_t = 200)]
    rate: u64,
    /// Seconds of offered load.
    #[arg(long, default_value_t = 20)]
    duration_secs: u64,
    /// Every question unique (defeats the query-embedding cache: the model becomes the floor).
    #[arg(long)]
    unique: bool,
    /// Zipf exponent of question popularity (repeats of the same questions).
    #[arg(long, default_value_t = 1.1)]
    zipf_s: f64,
    /// Share of prompt injections and of undecodable garbage among the turns.
    #[arg(long, default_value_t = 0.03)]
    injection_share: f64,
    #[arg(long, default_value_t = 0.01)]
    garbage_share: f64,
    #[arg(long, default_value = "golden/cases")]
    golden: PathBuf,
    #[arg(long, env = "POLICY_TOPIC_PREFIX", default_value = "policy")]
    topic_prefix: String,
    /// Worker process to sample for CPU and RSS.
    #[arg(long)]
    worker_pid: Option<u32>,
    /// The worker's /metrics URL: the CPU breakdown per step comes from its step counters.
    #[arg(long)]
    worker_metrics: Option<String>,
    /// Consumer group whose lag on the turns topic is sampled each second (default: the group
    /// of `policyctl worker all` on this prefix, `<prefix>-all`).
    #[arg(long)]
    worker_group: Option<String>,
    #[arg(long, default_value = "loadtest/latency.svg")]
    chart: PathBuf,
    /// Seconds to wait for the last outcomes after the load stops.
    #[arg(long, default_value_t = 60)]
    drain_secs: u64,
    /// Outcomes of the first seconds (consumer-group join, cold caches) are left out of the
    /// percentiles; they still count for throughput and lost turns, and show in the chart.
    #[arg(long, default_value_t = 5)]
    warmup_secs: usize,
}

/// Deterministic xorshift: the same run offers the same turns.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Cumulative Zipf weights over `n` ranks.
fn zipf_cdf(n: usize, s: f64) -> Vec<f64> {
    let weights: Vec<f64> = (1..=n).map(|k| 1.0 / (k as f64).powf(s)).collect();
    let total: f64 = weights.iter().sum();
    let mut acc = 0.0;
    weights
        .iter()
        .map(|w| {
            acc += w / total;
            acc
        })
        .collect()
}

#[derive(Default)]
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

pub(crate) fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// Messages in the dead-letter topic (sum of high watermarks).
fn dead_letter_count(
    client: &rdkafka::consumer::BaseConsumer,
    topic: &str,
) -> anyhow::Result<usize> {
    let metadata = client.fetch_metadata(Some(topic), Duration::from_secs(10))?;
    let mut total = 0;
    for partition in metadata.topics().iter().flat_map(|t| t.partitions()) {
        let (_, high) = client.fetch_watermarks(topic, partition.id(), Duration::from_secs(10))?;
        total += high.max(0) as usize;
    }
    Ok(total)
}

/// A worker's /metrics: `policy_step_seconds_total` per step, and every other counter.
struct Scrape {
    steps: std::collections::BTreeMap<String, f64>,
    /// `policy_step_cpu_seconds_total`: thread CPU of decode, pipeline, encode.
    cpu_steps: std::collections::BTreeMap<String, f64>,
    counters: std::collections::BTreeMap<String, f64>,
}

async fn scrape(url: &str) -> Option<Scrape> {
    let text = reqwest::get(url).await.ok()?.text().await.ok()?;
    let value = |l: &str| l.rsplit(' ').next()?.parse::<f64>().ok();
    let per_step = |metric: &str| {
        text.lines()
            .filter(|l| l.starts_with(&format!("{metric}{{")))
            .filter_map(|l| {
                let step = l.split("step=\"").nth(1)?.split('"').next()?;
                Some((step.to_string(), value(l)?))
            })
            .collect()
    };
    let counters = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("policy_step_"))
        .filter_map(|l| Some((l.split('{').next()?.to_string(), value(l)?)))
        .collect();
    Some(Scrape {
        steps: per_step("policy_step_seconds_total"),
        cpu_steps: per_step("policy_step_cpu_seconds_total"),
        counters,
    })
}

impl Scrape {
    fn delta(&self, earlier: &Scrape, counter: &str) -> f64 {
        let at = |s: &Scrape| s.counters.get(counter).copied().unwrap_or(0.0);
        at(self) - at(earlier)
    }
}

/// CPU clock ticks of a process's threads, grouped by what they run (thread names).
fn thread_groups(pid: u32) -> std::collections::BTreeMap<&'static str, u64> {
    let mut groups = std::collections::BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return groups;
    };
    for task in tasks.flatten() {
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue;
        };
        let Some((head, tail)) = stat.rsplit_once(')') else {
            continue;
        };
        let name = head.split_once('(').map(|(_, n)| n).unwrap_or_default();
        let fields: Vec<&str> = tail.split_whitespace().collect();
        let ticks = fields
            .get(11)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
            + fields
                .get(12)
                .and_then(|f| f.parse::<u64>().ok())
                .unwrap_or(0);
        // Thread names are cut at 15 characters by the kernel.
        let group = if name.starts_with("rdk:") || name.starts_with("producer pollin") {
            "kafka client threads"
        } else if name.starts_with("embed-batcher") {
            "model threads"
        } else if name.starts_with("tokio-r") {
            "async worker threads"
        } else {
            "other threads"
        };
        *groups.entry(group).or_insert(0) += ticks;
    }
    groups
}

/// (utime + stime in clock ticks, RSS in KiB) of a process, from /proc.
fn process_usage(pid: u32) -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some((ticks, rss))
}

pub async fn run(args: LoadtestArgs) -> anyhow::Result<ExitCode> {
    let kafka = KafkaConfig::from_env();
    let topics = TopicNames::with_prefix(&args.topic_prefix);
    let codecs = ClientCodecs::register(&kafka, &topics).await?;
    let cases = load_cases(&args.golden)?;
    let (answerable, injections): (Vec<_>, Vec<_>) = cases
        .iter()
        .partition(|c| !c.tags.iter().any(|t| t == "injection"));
    let answerable: Vec<_> = answerable
        .into_iter()
        .filter(|c| {
            c.expected_outcome == ExpectedOutcome::Answer
                || c.tags.iter().any(|t| t == "out_of_scope")
        })
        .collect();
    let cdf = zipf_cdf(answerable.len(), args.zipf_s);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let total = if args.rate == 0 {
        20_000
    } else {
        (args.rate * args.duration_secs) as usize
    };
    let run_id = uuid::Uuid::new_v4().simple().to_string();

    let reader = tokio::task::block_in_place(|| outcome_reader(&kafka, &topics))?;
    let dead_letters_before =
        tokio::task::block_in_place(|| dead_letter_count(&reader, &topics.deadletter))?;
    let producer: FutureProducer = kafka.producer().create()?;
    let mut sent_at: HashMap<String, Instant> = HashMap::with_capacity(total);
    let mut seconds: Vec<Second> = Vec::new();
    let mut outcomes = 0usize;
    let mut escalations = 0usize;
    let mut garbage = 0usize;
    let started = Instant::now();
    let usage_start = args.worker_pid.and_then(process_usage);
    let threads_start = args.worker_pid.map(thread_groups);
    let steps_start = match &args.worker_metrics {
        Some(url) => scrape(url).await,
        None => None,
    };
    let mut peak_rss = usage_start.map(|u| u.1).unwrap_or(0);
    let group = args
        .worker_group
        .clone()
        .unwrap_or_else(|| format!("{}-all", args.topic_prefix));
    let lag_sampler = LagSampler::start(&kafka, &group, &topics.turns, started)?;
    let interval = if args.rate == 0 {
        Duration::ZERO
    } else {
        Duration::from_secs_f64(1.0 / args.rate as f64)
    };
    let mut pending = Vec::new();
    let mut next_send = Instant::now();
    let mut produced = 0usize;
    let deadline = started + Duration::from_secs(args.duration_secs);
    let drain_deadline = deadline + Duration::from_secs(args.drain_secs);
    // Offering stops at the deadline even when the schedule could not be met; then only the
    // outcomes of what was sent are awaited.
    while Instant::now() < drain_deadline
        && ((produced < total && Instant::now() < deadline) || outcomes < sent_at.len())
    {
        // Offer load on schedule.
        while produced < total && Instant::now() >= next_send && Instant::now() < deadline {
            let roll = rng.next();
            let key = format!("lt-{run_id}-{}", produced % 500);
            if roll < args.garbage_share {
                let payload = vec![0xde, 0xad, (produced % 256) as u8, 0xef];
                pending.push(
                    producer
                        .send_result(FutureRecord::to(&topics.turns).key(&key).payload(&payload))
                        .map_err(|(e, _)| e)?,
                );
                garbage += 1;
            } else {
                let case =
                    if roll < args.garbage_share + args.injection_share && !injections.is_empty() {
                        injections[produced % injections.len()]
                    } else {
                        let u = rng.next();
                        answerable[cdf.partition_point(|c| *c < u).min(answerable.len() - 1)]
                    };
                let mut turn = turn_for_case(case).map_err(anyhow::Error::msg)?;
                turn.turn_id = format!("lt-{run_id}-{produced}");
                turn.conversation_id = key.clone();
                if args.unique {
                    turn.question = format!("{} (ref {produced})", turn.question);
                }
                let payload = codecs.turns.encode(&turn)?;
                sent_at.insert(turn.turn_id.clone(), Instant::now());
                pending.push(
                    producer
                        .send_result(FutureRecord::to(&topics.turns).key(&key).payload(&payload))
                        .map_err(|(e, _)| e)?,
                );
            }
            produced += 1;
            next_send += interval;
        }
        if pending.len() > 1000 {
            for delivery in pending.drain(..) {
                let _ = delivery.await;
            }
        }
        // Collect outcomes.
        if let Some(message) = reader.poll(Duration::from_millis(1)) {
            let message = message?;
            let payload = message.payload().unwrap_or_default();
            let turn_id = if message.topic() == topics.answers {
                codecs.answers.decode(payload).await?.turn_id
            } else {
                escalations += 1;
                codecs.escalations.decode(payload).await?.turn_id
            };
            if let Some(sent) = sent_at.get(&turn_id) {
                current_second(&mut seconds, started)
                    .latencies_ms
                    .push(sent.elapsed().as_secs_f64() * 1000.0);
                outcomes += 1;
            }
        }
        current_second(&mut seconds, started).in_flight = sent_at.len() - outcomes;
        if let Some((_, rss)) = args.worker_pid.and_then(process_usage) {
            peak_rss = peak_rss.max(rss);
        }
    }
    for delivery in pending {
        let _ = delivery.await;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let lag_samples = lag_sampler.finish();
    let usage_end = args.worker_pid.and_then(process_usage);
    let threads_end = args.worker_pid.map(thread_groups);
    let steps_end = match &args.worker_metrics {
        Some(url) => scrape(url).await,
        None => None,
    };
    let mut all: Vec<f64> = seconds
        .iter()
        .skip(args.warmup_secs)
        .flat_map(|s| s.latencies_ms.iter().copied())
        .collect();
    all.sort_by(f64::total_cmp);
    let lost = sent_at.len() - outcomes;
    let cpu = match (usage_start, usage_end) {
        (Some((a, _)), Some((b, _))) => {
            format!("{:.0} %", (b - a) as f64 / 100.0 / elapsed * 100.0)
        }
        _ => "n/a (no --worker-pid)".into(),
    };
    let rss = if peak_rss > 0 {
        format!("{:.0} MiB", peak_rss as f64 / 1024.0)
    } else {
        "n/a".into()
    };
    let dead_letters =
        tokio::task::block_in_place(|| dead_letter_count(&reader, &topics.deadletter))?
            - dead_letters_before;
    println!(
        "\nload test: {} ({} s offered, {} s with drain)",
        if args.unique {
            "all-unique questions"
        } else {
            "Zipf repeat mix"
        },
        args.duration_secs,
        elapsed.round()
    );
    println!(
        "  latency percentiles leave out the first {} s (warm-up)",
        args.warmup_secs
    );
    println!(
        "  {:<28} {:>12}",
        "target rate (turns/s)",
        if args.rate == 0 {
            "max".into()
        } else {
            args.rate.to_string()
        }
    );
    println!(
        "  {:<28} {:>12.1}",
        "achieved (outcomes/s)",
        outcomes as f64 / elapsed
    );
    for (name, q) in [
        ("p50 latency (ms)", 0.5),
        ("p95 latency (ms)", 0.95),
        ("p99 latency (ms)", 0.99),
        ("max latency (ms)", 1.0),
    ] {
        println!("  {:<28} {:>12.1}", name, percentile(&all, q));
    }
    println!("  {:<28} {:>12}", "turns sent (valid)", sent_at.len());
    println!(
        "  {:<28} {:>12}",
        "outcomes (answer+escalate)",
        format!("{}+{}", outcomes - escalations.min(outcomes), escalations)
    );
    println!(
        "  {:<28} {:>12}",
        "garbage sent / dead letters",
        format!("{garbage} / {dead_letters}")
    );
    println!("  {:<28} {:>12}", "lost turns", lost);
    println!(
        "  {:<28} {:>12}",
        "max consumer lag (turns)",
        lag_samples
            .iter()
            .map(|s| s.1)
            .max()
            .map_or(format!("n/a ({group})"), |lag| lag.to_string())
    );
    println!("  {:<28} {:>12}", "worker CPU (of one core)", cpu);
    println!("  {:<28} {:>12}", "worker peak RSS", rss);
    if let (Some(a), Some(b), Some((t0, _)), Some((t1, _))) =
        (steps_start, steps_end, usage_start, usage_end)
    {
        // Clock ticks are 1/100 s on Linux. Step times are wall time inside the worker, summed
        // over its lanes: on idle cores they approach CPU time; a step waiting for a core
        // (or for the blocking pool) counts its wait too.
        let turns = (outcomes + garbage).max(1) as f64;
        let cpu_ms = (t1 - t0) as f64 * 10.0 / turns;
        println!("  worker CPU per turn           {cpu_ms:>9.2} ms; wall time per step and turn:");
        for (step, end) in &b.steps {
            let ms = (end - a.steps.get(step).copied().unwrap_or(0.0)) * 1000.0 / turns;
            println!("    {step:<26} {ms:>9.3} ms");
        }
        // Exact split of the worker's CPU: thread CPU of the non-yielding steps, CPU of the
        // threads by name, and the rest (async runtime, rdkafka's Rust side, scheduling).
        let cpu_step = |step: &str| {
            (b.cpu_steps.get(step).copied().unwrap_or(0.0)
                - a.cpu_steps.get(step).copied().unwrap_or(0.0))
                * 1000.0
                / turns
        };
        let (pipeline, avro) = (
            cpu_step("pipeline"),
            cpu_step("decode") + cpu_step("encode"),
        );
        let group = |name: &str| {
            let at = |g: &Option<std::collections::BTreeMap<&str, u64>>| {
                g.as_ref().and_then(|g| g.get(name).copied()).unwrap_or(0)
            };
            at(&threads_end).saturating_sub(at(&threads_start)) as f64 * 10.0 / turns
        };
        let kafka_threads = group("kafka client threads");
        let workers = group("async worker threads");
        let (model, other) = (group("model threads"), group("other threads"));
        // On the async workers, what is neither a pipeline stage nor Avro is the runtime and
        // rdkafka's Rust side (polling, delivery futures, offset bookkeeping).
        let runtime = (workers - pipeline - avro).max(0.0);
        let plumbing = kafka_threads + avro + runtime;
        println!("  CPU per turn, split by thread CPU time:");
        for (what, ms) in [
            ("pipeline stages", pipeline),
            ("Avro decode + encode", avro),
            ("async runtime + rdkafka Rust side", runtime),
            ("librdkafka threads + producer poll", kafka_threads),
            ("model threads (embedding misses)", model),
            ("other (main, tantivy, rayon)", other),
        ] {
            println!("    {what:<40} {ms:>9.3} ms");
        }
        println!(
            "    {:<40} {:>8.1} % of {:.3} ms",
            "Kafka + Avro + runtime",
            100.0 * plumbing / cpu_ms.max(1e-9),
            cpu_ms
        );
        let (hits, misses) = (
            b.delta(&a, "policy_query_cache_hits_total"),
            b.delta(&a, "policy_query_cache_misses_total"),
        );
        let (batches, texts) = (
            b.delta(&a, "policy_embed_batches_total"),
            b.delta(&a, "policy_embed_batch_texts_total"),
        );
        println!(
            "  {:<28} {:>11.1}%",
            "query cache hit rate",
            100.0 * hits / (hits + misses).max(1.0)
        );
        println!(
            "  {:<28} {:>12.2}",
            "mean embedding batch",
            texts / batches.max(1.0)
        );
    }
    let points: Vec<ChartPoint> = seconds
        .iter()
        .zip(lag_per_second(&lag_samples, seconds.len()))
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
        .collect();
    write_chart(&args.chart, &points)?;
    println!("  chart: {}", args.chart.display());
    Ok(if lost == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
