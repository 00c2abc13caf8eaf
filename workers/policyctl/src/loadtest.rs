//! `policyctl loadtest`: realistic load on the running workers; prints the table, writes the
//! chart, exits 1 when a turn was lost.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use policy_app::loadtest::{chart::write_chart, LoadOptions};
use policy_app::settings::TopicSettings;
use policy_kafka::KafkaConfig;
use policy_settings::Settings;

#[derive(Args)]
pub(crate) struct LoadtestArgs {
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
    #[command(flatten)]
    topics: TopicSettings,
    #[command(flatten)]
    kafka: KafkaConfig,
}

pub(crate) async fn run(args: LoadtestArgs) -> anyhow::Result<ExitCode> {
    args.kafka.validate()?;
    let options = LoadOptions {
        rate: args.rate,
        duration: Duration::from_secs(args.duration_secs),
        unique: args.unique,
        zipf_s: args.zipf_s,
        injection_share: args.injection_share,
        garbage_share: args.garbage_share,
        golden: args.golden.clone(),
        worker_pid: args.worker_pid,
        worker_metrics: args.worker_metrics.clone(),
        worker_group: args.worker_group.clone(),
        drain: Duration::from_secs(args.drain_secs),
        warmup_secs: args.warmup_secs,
    };
    let report = policy_app::loadtest::run(&args.kafka, &args.topics.names(), options).await?;
    print!("{}", report.render_text());
    write_chart(&args.chart, &report.chart_points())?;
    println!("  chart: {}", args.chart.display());
    Ok(if report.lost() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
