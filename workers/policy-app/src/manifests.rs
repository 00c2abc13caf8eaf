//! Follows the compacted manifest topic from its beginning and serves every valid manifest it
//! finds; the last one wins. A rollback is just an older manifest published again: it takes
//! effect on the next turn, with no reindex. A manifest naming versions this worker has not
//! indexed is refused (the reindex worker indexes before it publishes). A worker serving a
//! published data directory brings the snapshot of the manifest's sha along, after refreshing
//! the shared index.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use policy_avro::{AvroCodec, ManifestRecord};
use policy_core::Manifest;
use policy_kafka::KafkaConfig;
use policy_pipeline::{published, ServingHandle, ServingState};
use rdkafka::consumer::{Consumer, StreamConsumer};
use rdkafka::{Message, Offset, TopicPartitionList};

/// A serving worker on a published data directory.
#[derive(Debug, Clone)]
pub struct Published {
    pub data_dir: PathBuf,
    pub index: Arc<policy_search::EmbeddedIndex>,
}

impl Published {
    /// The serving state published at `git_sha`, with the index refreshed to include it.
    fn state_at(&self, git_sha: &str) -> Option<ServingState> {
        published::serving_state_at(&self.data_dir, git_sha, || {
            policy_pipeline::embedded::refresh(&self.index)
        })
    }
}

pub async fn watch_manifests(
    kafka: KafkaConfig,
    topic: String,
    codec: AvroCodec<ManifestRecord>,
    serving: ServingHandle,
    published: Option<Published>,
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
        // The sha already served needs no reload (the topic is replayed from its start).
        let already_served = serving.current().git_sha.as_deref() == Some(record.git_sha.as_str());
        let corpus = published
            .as_ref()
            .filter(|_| !already_served)
            .and_then(|p| tokio::task::block_in_place(|| p.state_at(&record.git_sha)))
            .map(|state| state.corpus);
        apply_manifest(&serving, &record, message.offset(), corpus);
    }
}

/// Serves `record`'s manifest (with `corpus` when the published snapshot of its sha came along)
/// unless it is invalid or names versions this worker cannot serve.
pub fn apply_manifest(
    serving: &ServingHandle,
    record: &ManifestRecord,
    offset: i64,
    corpus: Option<Arc<policy_core::Corpus>>,
) {
    let manifest = match Manifest::parse(&record.manifest_json) {
        Ok(m) => m,
        Err(e) => {
            return tracing::error!(git_sha = record.git_sha, offset, error = %e, "invalid manifest refused")
        }
    };
    let current = serving.current();
    let corpus = corpus.unwrap_or_else(|| current.corpus.clone());
    let missing: Vec<&str> = manifest
        .versions()
        .filter(|v| corpus.version_clauses(&v.id).next().is_none())
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
        corpus,
        manifest: Arc::new(manifest),
        manifest_sha: record.git_sha.clone(),
        git_sha: Some(record.git_sha.clone()),
    });
}
