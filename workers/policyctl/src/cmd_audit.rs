//! `policyctl worker audit` (outcomes → ClickHouse) and `policyctl report` (analytics, HTML,
//! thresholds).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use policy_audit::analytics::Window;
use policy_audit::report::{self, Thresholds};
use policy_audit::sink::{AuditCodecs, AuditSink, AuditTopics};
use policy_audit::{AuditConfig, AuditStore};
use policy_avro::{AvroCodec, RegistryClient, SchemaName};
use policy_kafka::metrics::{serve_metrics, WorkerMetrics};
use policy_kafka::KafkaConfig;

use crate::topics::TopicNames;

/// Exit code of `policyctl report` when a threshold fails (errors exit with 1).
pub const ALERT_EXIT_CODE: u8 = 2;

pub async fn run_worker(
    topic_prefix: &str,
    group: Option<String>,
    metrics_listen: SocketAddr,
) -> anyhow::Result<ExitCode> {
    let config = AuditConfig::from_env()?;
    let kafka = KafkaConfig::from_env();
    let topics = TopicNames::with_prefix(topic_prefix);
    let store = Arc::new(AuditStore::connect(&config).await?);
    let registry = Arc::new(RegistryClient::new(&kafka.schema_registry_url)?);
    let codecs = AuditCodecs {
        answers: AvroCodec::register(registry.clone(), &topics.answers, SchemaName::PolicyAnswer)
            .await?,
        escalations: AvroCodec::register(
            registry.clone(),
            &topics.escalations,
            SchemaName::Escalation,
        )
        .await?,
        dead_letters: AvroCodec::register(registry, &topics.deadletter, SchemaName::DeadLetter)
            .await?,
    };
    let metrics = WorkerMetrics::new("audit");
    let metrics_addr = serve_metrics(metrics_listen, vec![metrics.clone()])
        .await
        .context("metrics listener")?;
    tracing::info!(%metrics_addr, "metrics and health endpoint");
    let sink = AuditSink {
        topics: AuditTopics {
            answers: topics.answers.clone(),
            escalations: topics.escalations.clone(),
            dead_letters: topics.deadletter.clone(),
        },
        codecs,
        store,
        metrics,
    };
    let group = group.unwrap_or_else(|| format!("{topic_prefix}-audit"));
    sink.run(&kafka, &config, &group, crate::shutdown_signal())
        .await?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct ReportArgs {
    /// Only turns processed at or after this instant (RFC 3339 or YYYY-MM-DD, UTC).
    #[arg(long)]
    since: Option<String>,
    /// Only turns processed before this instant.
    #[arg(long)]
    until: Option<String>,
    /// Where the self-contained HTML report is written.
    #[arg(long, default_value = ".run/report.html")]
    html: PathBuf,
    /// Policy corpus, to know which topics differ by region (entropy-collapse check).
    #[arg(long, env = "POLICY_CORPUS", default_value = "golden/policies")]
    policies: PathBuf,
    /// Fail when a region's grounding rate is below this.
    #[arg(long, default_value_t = 0.995)]
    min_grounding_rate: f64,
    /// Fail when a region's judge mismatch rate is above this.
    #[arg(long, default_value_t = 0.01)]
    max_mismatch_rate: f64,
}

fn epoch_seconds(flag: &str, raw: &Option<String>) -> anyhow::Result<Option<u32>> {
    raw.as_deref()
        .map(|raw| {
            let at = policy_core::parse_utc_instant(raw).with_context(|| format!("--{flag}"))?;
            u32::try_from(at.timestamp()).with_context(|| format!("--{flag} out of range"))
        })
        .transpose()
}

pub async fn report(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let window = Window {
        since: epoch_seconds("since", &args.since)?,
        until: epoch_seconds("until", &args.until)?,
    };
    let corpus = policy_core::load_dir(&args.policies)
        .with_context(|| format!("corpus {}", args.policies.display()))?;
    let thresholds = Thresholds {
        min_grounding_rate: args.min_grounding_rate,
        max_mismatch_rate: args.max_mismatch_rate,
        region_dependent_topics: corpus.region_dependent_topics(),
    };
    let store = AuditStore::connect(&AuditConfig::from_env()?).await?;
    let built = report::build(&store, window, &thresholds).await?;
    print!("{}", report::render_text(&built));
    let generated_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    if let Some(parent) = args.html.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&args.html, report::render_html(&built, &generated_at))
        .with_context(|| format!("writing {}", args.html.display()))?;
    println!("HTML report: {}", args.html.display());
    Ok(if built.alerts.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(ALERT_EXIT_CODE)
    })
}
