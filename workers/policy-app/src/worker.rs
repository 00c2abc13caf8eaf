//! A pipeline worker process: assemble the pipeline, register the schemas, serve metrics,
//! follow the manifest topic, and run the stage worker on the runtime's loop until a signal.

use std::future::Future;
use std::sync::Arc;

use anyhow::Context;
use policy_avro::{AvroCodec, DeadLetter, ManifestRecord, RegistryClient, SchemaName};
use policy_kafka::metrics::{serve_metrics, WorkerMetrics};
use policy_kafka::{run_worker, WorkerConfig};

use crate::manifests::{watch_manifests, Published};
use crate::metrics::{export_embedder, steps, StageMetrics};
use crate::settings::{AppSettings, RunSettings};
use crate::stage_worker::{Role, StageCodecs, StageWorker};

/// Runs `role` until `shutdown` resolves, then drains and commits.
pub async fn run(
    role: Role,
    settings: &AppSettings,
    run: &RunSettings,
    shutdown: impl Future<Output = ()>,
) -> anyhow::Result<()> {
    let topics = settings.topics.names();
    let (assembled, _backend) =
        crate::assemble::pipeline(settings, &settings.corpus.index_dir_or_default()).await?;
    let registry = Arc::new(RegistryClient::new(&settings.kafka.schema_registry_url)?);
    let codecs = Arc::new(
        StageCodecs::register(registry.clone(), &topics)
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
    let metrics = WorkerMetrics::new(role.name(), &steps(&assembled.chain));
    export_embedder(&metrics, assembled.embedder.clone());
    let metrics_addr = serve_metrics(run.metrics_listen, vec![metrics.clone()])
        .await
        .context("metrics listener")?;
    tracing::info!(%metrics_addr, "metrics and health endpoint");
    let mut chain = assembled
        .chain
        .with_observer(Arc::new(StageMetrics(metrics.clone())));
    if matches!(role, Role::All | Role::Enrich) {
        // Decisions look orders and employees up at enrich: caught up before serving.
        let sources = settings
            .sources
            .for_worker(&settings.kafka, &topics)
            .await
            .context("order and employee sources")?;
        chain = chain.with_sources(sources);
    }
    let published = settings.corpus.data_dir.clone().map(|data_dir| Published {
        data_dir,
        index: assembled.index.clone(),
    });
    let watcher = tokio::spawn(watch_manifests(
        settings.kafka.clone(),
        topics.manifest.clone(),
        manifests,
        chain.serving().clone(),
        published,
    ));
    let worker = Arc::new(StageWorker {
        role,
        chain,
        codecs,
        topics: topics.clone(),
        metrics: metrics.clone(),
    });
    let group = run
        .group
        .clone()
        .unwrap_or_else(|| format!("{}-{}", settings.topics.topic_prefix, role.name()));
    let mut config = WorkerConfig::new(role.name(), &group, &[worker.input_topic()]);
    config.lanes = run.lanes;
    config.dead_letter_topic = topics.deadletter.clone();
    let result = run_worker(
        &settings.kafka,
        config,
        worker,
        dead_letters,
        metrics,
        shutdown,
    )
    .await;
    watcher.abort();
    Ok(result?)
}
