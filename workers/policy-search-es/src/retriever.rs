//! The Elasticsearch backend of [`Retriever`]: the same contract as the embedded one (hits only
//! from the query's region and version, best first, RRF over a BM25 leg and a vector leg).

use std::sync::Arc;

use policy_search::embed::dot;
use policy_search::fusion::{fuse, LegHit, COSINE_UNKNOWN};
use policy_search::retriever::{SearchFuture, SharedEmbedder, LEG_DEPTH};
use policy_search::{ClauseHit, EmbeddedIndex, QueryVectors, RetrievalQuery, Retriever};

use crate::body;
use crate::client::{EsClient, StoredChunk, VersionWrite};
use crate::config::VectorMode;
use crate::EsError;

#[derive(Debug)]
pub struct ElasticsearchRetriever {
    client: Arc<EsClient>,
    embedder: SharedEmbedder,
}

impl ElasticsearchRetriever {
    pub fn new(client: Arc<EsClient>, embedder: SharedEmbedder) -> Self {
        ElasticsearchRetriever { client, embedder }
    }

    pub async fn search(&self, query: RetrievalQuery<'_>) -> Result<Vec<ClauseHit>, EsError> {
        let vectors = QueryVectors::embed_async(&self.embedder, query.text).await?;
        let vector = vectors.search.as_slice();
        let config = self.client.config();
        let lexical = self.client.search(
            "lexical leg",
            body::lexical_search(
                &query.lexical_text(),
                query.region,
                query.version_id,
                LEG_DEPTH,
            ),
        );
        let semantic_request = match config.vector_mode {
            VectorMode::Knn => body::knn_search(
                vector,
                query.region,
                query.version_id,
                LEG_DEPTH,
                config.num_candidates,
            ),
            // One more than allowed, to tell "exactly the limit" from "cut at the limit".
            VectorMode::Exact => body::version_chunks_search(
                query.region,
                query.version_id,
                config.max_version_chunks + 1,
            ),
        };
        let semantic = self.client.search("vector leg", semantic_request);
        let (lexical, mut semantic) = tokio::try_join!(lexical, semantic)?;
        for found in lexical.iter().chain(&semantic) {
            check_boundary(found, &query)?;
        }
        if semantic.len() > config.max_version_chunks {
            return Err(EsError::TooManyChunks {
                version_id: query.version_id.to_string(),
                limit: config.max_version_chunks,
            });
        }
        // Exact cosine for every vector candidate: kNN's order is approximate and its score is
        // a transform of the similarity; exact mode has not scored at all yet.
        for found in &mut semantic {
            found.score = dot(vector, &found.embedding);
        }
        // Stable sort: equal scores keep the server's (chunk id) order.
        semantic.sort_by(|a, b| b.score.total_cmp(&a.score));
        let candidates = &semantic[..semantic.len().min(LEG_DEPTH)];
        let mut hits = fuse(&leg(&lexical), &leg(candidates));
        // The best cosine among the chunks we have of a clause: every chunk of the version in
        // exact mode; in kNN mode those either leg returned (which include a lexical hit itself,
        // but may fall short of the embedded backend's best chunk).
        let best_cosine = |clause_id: &str, vector: &[f32]| {
            lexical
                .iter()
                .chain(&semantic)
                .filter(|c| c.chunk.clause_id == clause_id)
                .map(|c| dot(vector, &c.embedding))
                .fold(f32::MIN, f32::max)
        };
        for hit in &mut hits {
            if hit.cosine == COSINE_UNKNOWN {
                // Found lexically only: the reranker still needs its cosine.
                hit.cosine = best_cosine(&hit.clause_id, vector);
            }
            hit.question_cosine = if vectors.blended() {
                best_cosine(&hit.clause_id, &vectors.question)
            } else {
                hit.cosine
            };
        }
        hits.truncate(query.top_k);
        Ok(hits)
    }
}

fn leg(found: &[StoredChunk]) -> Vec<LegHit<'_>> {
    found
        .iter()
        .map(|c| LegHit {
            chunk: &c.chunk,
            score: c.score,
        })
        .collect()
}

/// Fails closed if the server returned a chunk outside the query's region and version (a
/// mapping that made `region` a text field would do that): never fuse across a policy boundary.
fn check_boundary(found: &StoredChunk, query: &RetrievalQuery<'_>) -> Result<(), EsError> {
    if found.chunk.region == query.region && found.chunk.version_id == query.version_id {
        Ok(())
    } else {
        Err(EsError::Boundary {
            chunk_id: found.chunk.chunk_id.clone(),
            wanted: format!("{}/{}", query.region, query.version_id),
        })
    }
}

impl Retriever for ElasticsearchRetriever {
    fn backend(&self) -> &str {
        "elasticsearch"
    }

    fn retrieve<'a>(&'a self, query: RetrievalQuery<'a>) -> SearchFuture<'a> {
        Box::pin(async move { self.search(query).await.map_err(Into::into) })
    }
}

/// Copies versions from an embedded index (chunks and their vectors, already embedded by the
/// indexer) into Elasticsearch, so both backends serve the same chunks and nothing is embedded
/// twice. Creates the index on first use.
pub async fn mirror_versions(
    client: &EsClient,
    source: &EmbeddedIndex,
    versions: &[String],
) -> Result<Vec<(String, VersionWrite)>, EsError> {
    let mut written = Vec::with_capacity(versions.len());
    let mut index_ready = false;
    for version_id in versions {
        let chunks = source.version_chunks(version_id);
        let vectors = source.version_vectors(version_id);
        if let (false, Some(first)) = (index_ready, vectors.first()) {
            client.ensure_index(first.len()).await?;
            index_ready = true;
        }
        let write = client.write_version(version_id, &chunks, &vectors).await?;
        tracing::info!(
            version_id,
            written = write.written,
            stale_deleted = write.stale_deleted,
            "mirrored version to elasticsearch"
        );
        written.push((version_id.clone(), write));
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use policy_search::ChunkRecord;

    fn found(region: &str, version_id: &str) -> StoredChunk {
        StoredChunk {
            chunk: ChunkRecord {
                chunk_id: format!("{version_id}#sec-1/c0"),
                clause_id: format!("{version_id}#sec-1"),
                version_id: version_id.into(),
                region: region.into(),
                title: String::new(),
                text: String::new(),
                clause_text: String::new(),
                status: policy_core::ClauseStatus::Active,
            },
            embedding: vec![],
            score: 1.0,
        }
    }

    fn query<'a>(region: &'a str, version_id: &'a str) -> RetrievalQuery<'a> {
        RetrievalQuery {
            expansion: "",
            text: "return window",
            region,
            version_id,
            top_k: 5,
        }
    }

    #[test]
    fn a_chunk_of_the_queried_version_passes() {
        assert!(check_boundary(&found("eu", "eu-v4"), &query("eu", "eu-v4")).is_ok());
    }

    #[test]
    fn a_chunk_of_another_version_or_region_fails_closed() {
        for (region, version) in [("eu", "eu-v3"), ("us", "eu-v4"), ("eu-west", "eu-v4")] {
            let err = check_boundary(&found(region, version), &query("eu", "eu-v4")).unwrap_err();
            assert!(
                err.to_string().contains("restricted to eu/eu-v4"),
                "{region}/{version}: {err}"
            );
        }
    }
}
