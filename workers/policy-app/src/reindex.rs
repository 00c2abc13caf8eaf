//! `policyctl worker reindex`: policy changes from Git → corpus snapshot and index in the
//! published data directory → the new manifest on the compacted manifest topic.
//!
//! One lane: changes are applied in the order they were published. The manifest record is an
//! output of the change message, so the change's offset is committed only once the manifest is
//! acknowledged; a crash in between re-applies the change, which is idempotent (same snapshot,
//! fingerprints make the reindex a no-op). With the Elasticsearch backend, the versions the
//! change indexed (and any the cluster lacks) are mirrored there before the manifest goes out.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use policy_avro::{
    AvroCodec, DeadLetter, ManifestRecord, PolicyChange, RegistryClient, SchemaName,
};
use policy_kafka::metrics::{serve_metrics, WorkerMetrics};
use policy_kafka::{
    run_worker, HandleError, HandleFuture, MessageHandler, OutputRecord, WorkerConfig,
};
use policy_pipeline::{embedded, published, PipelineConfig};
use policy_search::{CachedEmbedder, EmbeddedIndex, Embedder};
use rdkafka::message::OwnedMessage;
use tracing::Instrument;

use crate::settings::{AppSettings, RunSettings};

/// Applies policy changes in order.
pub struct ReindexHandler {
    data_dir: PathBuf,
    index: Arc<EmbeddedIndex>,
    embedder: Arc<CachedEmbedder<Box<dyn Embedder>>>,
    changes: AvroCodec<PolicyChange>,
    manifests: AvroCodec<ManifestRecord>,
    manifest_topic: String,
    /// Retention (`POLICY_RETENTION_DAYS`) among the pipeline settings.
    config: PipelineConfig,
    /// With `POLICY_SEARCH_BACKEND=elasticsearch`, changed versions are mirrored there before
    /// the manifest that needs them is published.
    elasticsearch: Option<Arc<policy_search_es::EsClient>>,
}

impl std::fmt::Debug for ReindexHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReindexHandler")
            .field("data_dir", &self.data_dir)
            .finish_non_exhaustive()
    }
}

impl ReindexHandler {
    async fn apply(&self, message: &OwnedMessage) -> Result<Vec<OutputRecord>, HandleError> {
        let change = policy_kafka::decode_value(&self.changes, message).await?;
        let span = tracing::info_span!("policy_change", git_sha = change.git_sha);
        self.apply_change(change).instrument(span).await
    }

    async fn apply_change(&self, change: PolicyChange) -> Result<Vec<OutputRecord>, HandleError> {
        let (data_dir, index, embedder, config) = (
            self.data_dir.clone(),
            self.index.clone(),
            self.embedder.clone(),
            self.config.clone(),
        );
        let snapshot_change = change.clone();
        let report = tokio::task::spawn_blocking(move || -> Result<_, HandleError> {
            let dir = published::write_snapshot(&data_dir, &snapshot_change)
                .map_err(|e| HandleError::Poison(e.to_string()))?;
            // A manifest problem here means the publisher's validation was bypassed: poison.
            let corpus =
                embedded::load_corpus(&dir).map_err(|e| HandleError::Poison(e.to_string()))?;
            // Retention judged at the change's publish time: replaying it retires the same.
            let published_at =
                chrono::DateTime::from_timestamp_millis(snapshot_change.published_at)
                    .unwrap_or_default();
            let retired = embedded::retired_versions(&config, &corpus, published_at);
            let report = embedded::index_with_progress(&index, &embedder, &corpus, &retired)
                .map_err(|e| HandleError::Transient(e.to_string()))?;
            Ok((report, corpus.failed_versions().clone()))
        })
        .await
        .map_err(|e| HandleError::Transient(e.to_string()))??;
        let (report, failed) = report;
        for (version, reason) in &failed {
            tracing::error!(
                version,
                reason,
                "version not indexed: its documents are unusable; the others go on"
            );
        }
        tracing::info!(
            indexed = ?report.indexed_versions,
            unchanged = report.unchanged_versions.len(),
            chunks = report.chunks,
            seconds = report.seconds,
            "policy change indexed"
        );
        if let Some(client) = &self.elasticsearch {
            // Down or rejecting: retry the change later; publishing now would send workers to
            // versions their backend does not have.
            crate::backend::sync_versions(client, &self.index, &report.indexed_versions)
                .await
                .map_err(|e| HandleError::Transient(format!("{e:#}")))?;
        }
        // Only now is the snapshot servable: a worker starting from CURRENT finds every version
        // it needs in whichever backend it reads.
        published::set_current(&self.data_dir, &change.git_sha)
            .map_err(|e| HandleError::Transient(e.to_string()))?;
        let record = ManifestRecord {
            git_sha: change.git_sha.clone(),
            manifest_json: change.manifest_json.clone(),
            manifest_sha: change.manifest_sha.clone(),
            published_at: policy_avro::now_millis(),
        };
        let payload = self
            .manifests
            .encode(&record)
            .map_err(|e| HandleError::Poison(e.to_string()))?;
        // One key: compaction keeps exactly the manifest in force.
        Ok(vec![OutputRecord {
            topic: self.manifest_topic.clone(),
            key: b"manifest".to_vec(),
            payload,
        }])
    }
}

impl MessageHandler for ReindexHandler {
    fn handle<'a>(&'a self, message: &'a OwnedMessage) -> HandleFuture<'a> {
        Box::pin(self.apply(message))
    }
}

/// Runs the reindex worker on `settings.corpus.data_dir` until `shutdown` resolves.
pub async fn run(
    settings: &AppSettings,
    run: &RunSettings,
    shutdown: impl Future<Output = ()>,
) -> anyhow::Result<()> {
    let data_dir = settings
        .corpus
        .data_dir
        .clone()
        .context("`worker reindex` needs --data-dir (or POLICY_DATA_DIR)")?;
    std::fs::create_dir_all(data_dir.join("corpus"))
        .with_context(|| format!("creating {}", data_dir.display()))?;
    let topics = settings.topics.names();
    let config = settings.pipeline.clone();
    let model_dir = settings.model.dir();
    let (index, embedder) = tokio::task::block_in_place(|| -> anyhow::Result<_> {
        let index = EmbeddedIndex::open(&published::index_dir(&data_dir))?;
        Ok((
            Arc::new(index),
            embedded::load_embedder(&model_dir, &config)?,
        ))
    })?;
    let registry = Arc::new(RegistryClient::new(&settings.kafka.schema_registry_url)?);
    let backend = crate::backend::SearchBackend::new(&settings.search)?;
    let handler = Arc::new(ReindexHandler {
        data_dir,
        index,
        embedder,
        changes: AvroCodec::register(registry.clone(), &topics.changes, SchemaName::PolicyChange)
            .await?,
        manifests: AvroCodec::register(
            registry.clone(),
            &topics.manifest,
            SchemaName::ManifestRecord,
        )
        .await?,
        manifest_topic: topics.manifest.clone(),
        config,
        elasticsearch: backend.elasticsearch().cloned(),
    });
    let dead_letters = Arc::new(
        AvroCodec::<DeadLetter>::register(registry, &topics.deadletter, SchemaName::DeadLetter)
            .await?,
    );
    let metrics = WorkerMetrics::new("reindex", &[]);
    let metrics_addr = serve_metrics(run.metrics_listen, vec![metrics.clone()])
        .await
        .context("metrics listener")?;
    tracing::info!(%metrics_addr, "metrics and health endpoint");
    let group = run
        .group
        .clone()
        .unwrap_or_else(|| format!("{}-reindex", settings.topics.topic_prefix));
    let mut worker = WorkerConfig::new("reindex", &group, &[&topics.changes]);
    worker.lanes = 1;
    worker.dead_letter_topic = topics.deadletter.clone();
    run_worker(
        &settings.kafka,
        worker,
        handler,
        dead_letters,
        metrics,
        shutdown,
    )
    .await?;
    Ok(())
}
