//! `policyctl worker <stage>`: run one stage (or all of them) as a consumer-group member.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, ValueEnum};
use policy_avro::{AvroCodec, DeadLetter, ManifestRecord, RegistryClient, SchemaName};
use policy_core::Manifest;
use policy_kafka::metrics::{serve_metrics, WorkerMetrics};
use policy_kafka::runtime::{run_worker, WorkerConfig};
use policy_kafka::KafkaConfig;
use policy_pipeline::{embedded, PipelineConfig, ServingHandle, ServingState};
use policy_search::embed::default_model_dir;
use rdkafka::consumer::{Consumer, StreamConsumer};
use rdkafka::{Message, Offset, TopicPartitionList};

use crate::handlers::{Codecs, Stage, StageHandler};
use crate::topics::TopicNames;

#[derive(Clone, Copy, ValueEnum)]
pub enum StageArg {
    All,
    Enrich,
    Retrieve,
    Generate,
    Judge,
}

#[derive(Args)]
pub struct WorkerArgs {
    #[arg(value_enum)]
    stage: StageArg,
    /// Policy corpus served (a Git checkout in production).
    #[arg(long, env = "POLICY_CORPUS", default_value = "golden/policies")]
    policies: PathBuf,
    /// Search index directory (built or updated on start).
    #[arg(long, env = "POLICY_INDEX_DIR", default_value = ".run/index")]
    index_dir: PathBuf,
    /// Consumer group; default `policy-<stage>`.
    #[arg(long)]
    group: Option<String>,
    /// Topic names are `<prefix>.turns`, `<prefix>.answers`, ...
    #[arg(long, env = "POLICY_TOPIC_PREFIX", default_value = "policy")]
    topic_prefix: String,
    /// Messages processed concurrently (ordered per conversation).
    #[arg(long, env = "POLICY_LANES", default_value_t = 4)]
    lanes: usize,
    /// Where /metrics and /health are served.
    #[arg(long, env = "POLICY_METRICS_LISTEN", default_value = "127.0.0.1:9464")]
    metrics_listen: SocketAddr,
}

pub async fn run(args: WorkerArgs) -> anyhow::Result<ExitCode> {
    let stage = match args.stage {
        StageArg::All => Stage::All,
        StageArg::Enrich => Stage::Enrich,
        StageArg::Retrieve => Stage::Retrieve,
        StageArg::Generate => Stage::Generate,
        StageArg::Judge => Stage::Judge,
    };
    let stage_name = format!("{stage:?}").to_lowercase();
    let config = PipelineConfig::load()?;
    let kafka = KafkaConfig::from_env();
    let topics = TopicNames::with_prefix(&args.topic_prefix);
    let assembled = tokio::task::block_in_place(|| {
        embedded::build(
            &args.policies,
            &args.index_dir,
            &default_model_dir(),
            config,
            None,
        )
        .map_err(anyhow::Error::from)
    })?;
    tracing::info!(indexed = ?assembled.index_report.indexed_versions, unchanged = assembled.index_report.unchanged_versions.len(), "index ready");
    let registry = Arc::new(RegistryClient::new(&kafka.schema_registry_url)?);
    let codecs = Arc::new(
        Codecs::register(registry.clone(), &topics)
            .await
            .context("registering schemas")?,
    );
    let dead_letters = Arc::new(
        AvroCodec::<DeadLetter>::register(
            registry.clone(),
            &topics.deadletter,
            SchemaName::DeadLetter,
        )
        .await?,
    );
    let manifests = AvroCodec::<ManifestRecord>::register(
        registry,
        &topics.manifest,
        SchemaName::ManifestRecord,
    )
    .await?;
    let metrics = WorkerMetrics::new(&stage_name);
    let metrics_addr = serve_metrics(args.metrics_listen, vec![metrics.clone()])
        .await
        .context("metrics listener")?;
    tracing::info!(%metrics_addr, "metrics and health endpoint");
    let watcher = tokio::spawn(watch_manifests(
        kafka.clone(),
        topics.manifest.clone(),
        manifests,
        assembled.pipeline.serving().clone(),
    ));
    let handler = Arc::new(StageHandler {
        stage,
        pipeline: assembled.pipeline.clone(),
        codecs,
        topics: topics.clone(),
        metrics: metrics.clone(),
    });
    let group = args
        .group
        .unwrap_or_else(|| format!("{}-{stage_name}", args.topic_prefix));
    let mut worker = WorkerConfig::new(&stage_name, &group, &[handler.input_topic()]);
    worker.lanes = args.lanes;
    worker.dead_letter_topic = topics.deadletter.clone();
    run_worker(
        &kafka,
        worker,
        handler,
        dead_letters,
        metrics,
        crate::shutdown_signal(),
    )
    .await?;
    watcher.abort();
    Ok(ExitCode::SUCCESS)
}

/// Follows the compacted manifest topic from its beginning and serves every valid manifest it
/// finds; the last one wins. A rollback is just an older manifest published again: it takes
/// effect on the next turn, with no reindex. A manifest naming versions this worker has not
/// indexed is refused (the reindex worker indexes before it publishes).
pub async fn watch_manifests(
    kafka: KafkaConfig,
    topic: String,
    codec: AvroCodec<ManifestRecord>,
    serving: ServingHandle,
) {
    let consumer: StreamConsumer = match kafka
        .client()
        .set("group.id", format!("manifest-watch-{}", std::process::id()))
        .set("enable.auto.commit", "false")
        .create()
    {
        Ok(c) => c,
        Err(e) => return tracing::error!(error = %e, "manifest watcher cannot start"),
    };
    let mut assignment = TopicPartitionList::new();
    if let Err(e) = assignment
        .add_partition_offset(&topic, 0, Offset::Beginning)
        .and_then(|_| consumer.assign(&assignment))
    {
        return tracing::error!(error = %e, topic, "manifest watcher cannot assign");
    }
    loop {
        let message = match consumer.recv().await {
            Ok(m) => m.detach(),
            Err(e) => {
                tracing::warn!(error = %e, "manifest watcher");
                tokio::time::sleep(Duration::from_millis(500)).await;
                continue;
            }
        };
        let record = match policy_kafka::decode_value(&codec, &message).await {
            Ok(record) => record,
            Err(e) => {
                tracing::error!(error = %e, "unreadable manifest record ignored");
                continue;
            }
        };
        apply_manifest(&serving, &record, message.offset());
    }
}

pub fn apply_manifest(serving: &ServingHandle, record: &ManifestRecord, offset: i64) {
    let manifest = match Manifest::parse(&record.manifest_json) {
        Ok(m) => m,
        Err(e) => {
            return tracing::error!(git_sha = record.git_sha, offset, error = %e, "invalid manifest refused")
        }
    };
    let current = serving.current();
    let missing: Vec<&str> = manifest
        .versions()
        .filter(|v| current.corpus.version_clauses(&v.id).next().is_none())
        .map(|v| v.id.as_str())
        .collect();
    if !missing.is_empty() {
        return tracing::error!(
            git_sha = record.git_sha,
            ?missing,
            "manifest refused: versions not indexed here"
        );
    }
    if current.git_sha.as_deref() == Some(record.git_sha.as_str())
        && current.manifest.content_sha() == manifest.content_sha()
    {
        return;
    }
    serving.replace(ServingState {
        corpus: current.corpus.clone(),
        manifest: Arc::new(manifest),
        manifest_sha: record.git_sha.clone(),
        git_sha: Some(record.git_sha.clone()),
    });
}
