//! Which search backend serves retrieval ([`SearchSettings`]).
//!
//! Chunks are always embedded into the local index first (it is the embedding store, and what
//! the reindex worker fingerprints); the Elasticsearch backend gets them mirrored from there,
//! so both backends serve identical chunks and vectors and nothing is embedded twice.

use std::sync::Arc;

use anyhow::Context;
use policy_pipeline::embedded::Embedded;
use policy_search::EmbeddedIndex;
use policy_search_es::{mirror_versions, ElasticsearchRetriever, EsClient};

use crate::settings::{BackendKind, SearchSettings};

#[derive(Debug)]
pub enum SearchBackend {
    Embedded,
    Elasticsearch(Arc<EsClient>),
}

impl SearchBackend {
    pub fn new(settings: &SearchSettings) -> anyhow::Result<SearchBackend> {
        Ok(match settings.backend {
            BackendKind::Embedded => SearchBackend::Embedded,
            BackendKind::Elasticsearch => SearchBackend::Elasticsearch(Arc::new(EsClient::new(
                settings.elasticsearch.clone(),
            )?)),
        })
    }

    pub fn elasticsearch(&self) -> Option<&Arc<EsClient>> {
        match self {
            SearchBackend::Elasticsearch(client) => Some(client),
            SearchBackend::Embedded => None,
        }
    }

    /// Makes `assembled` retrieve from this backend. With `sync`, first brings Elasticsearch up
    /// to date with the local index (versions missing there or changed in this run).
    pub async fn attach(&self, assembled: &mut Embedded, sync: bool) -> anyhow::Result<()> {
        let SearchBackend::Elasticsearch(client) = self else {
            return Ok(());
        };
        if sync {
            let changed = &assembled.index_report.indexed_versions;
            sync_versions(client, &assembled.index, changed).await?;
        }
        client.healthcheck().await.context("search backend")?;
        let retriever = ElasticsearchRetriever::new(client.clone(), assembled.embedder.clone());
        let retrieve = assembled
            .chain
            .retrieve_stage()
            .with_retriever(Arc::new(retriever));
        assembled.chain = assembled.chain.with_retrieve(retrieve);
        tracing::info!(
            url = client.config().url,
            index = client.config().index,
            "retrieval served by elasticsearch"
        );
        Ok(())
    }
}

/// Mirrors into Elasticsearch the versions of `index` that changed (`changed`) or that it does
/// not have yet. Idempotent: documents are keyed by chunk id.
pub async fn sync_versions(
    client: &EsClient,
    index: &EmbeddedIndex,
    changed: &[String],
) -> anyhow::Result<()> {
    let mut todo = Vec::new();
    let has_index = client.index_exists().await?;
    for version in index.indexed_versions().into_keys() {
        // Ask the cluster only about versions this change did not touch.
        if changed.contains(&version) || !has_index || client.count(Some(&version)).await? == 0 {
            todo.push(version);
        }
    }
    if !todo.is_empty() {
        mirror_versions(client, index, &todo).await?;
    }
    Ok(())
}
