//! The retrieval contract and its embedded implementation: BM25 and exact vector search, each
//! restricted to one (region, version) first, fused with reciprocal-rank fusion ([`crate::fusion`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::cache::CachedEmbedder;
use crate::embed::{dot, EmbedError, Embedder};
use crate::fusion::{fuse, LegHit, COSINE_UNKNOWN};
use crate::index::{EmbeddedIndex, IndexError};
use policy_core::synonyms::expand_query;
use policy_core::ClauseStatus;

#[derive(Debug, Clone, Copy)]
pub struct RetrievalQuery<'a> {
    pub text: &'a str,
    pub region: &'a str,
    pub version_id: &'a str,
    /// Clauses to return.
    pub top_k: usize,
}

/// One clause found for a query, with the evidence from each leg.
#[derive(Debug, Clone, PartialEq)]
pub struct ClauseHit {
    pub clause_id: String,
    pub version_id: String,
    pub region: String,
    pub title: String,
    pub text: String,
    pub status: ClauseStatus,
    /// Reciprocal-rank fusion score of the best chunk.
    pub fused: f32,
    /// Best chunk cosine similarity with the query.
    pub cosine: f32,
    /// Best chunk BM25 score (0 when the lexical leg did not find it).
    pub bm25: f32,
    pub lexical_rank: Option<u32>,
    pub vector_rank: Option<u32>,
    /// Final score after reranking (equals `fused` before).
    pub score: f32,
}

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("{0}")]
    Embed(#[from] EmbedError),
    #[error("{0}")]
    Index(#[from] IndexError),
    /// The backend could not be reached, timed out or answered with a server error.
    #[error("search backend {backend} unavailable: {reason}")]
    Unavailable {
        backend: &'static str,
        reason: String,
    },
    /// The backend refused the request or answered something unreadable: retrying the same
    /// request will not help.
    #[error("search backend {backend} failed: {reason}")]
    Failed {
        backend: &'static str,
        reason: String,
    },
    /// The backend returned a chunk outside the query's (region, version).
    #[error("search backend {backend} returned {chunk_id} for a query restricted to {wanted}")]
    BoundaryViolation {
        backend: &'static str,
        chunk_id: String,
        wanted: String,
    },
}

impl SearchError {
    /// Worth retrying later: the backend or the model may recover. A boundary violation is never
    /// retried: the turn fails closed.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            SearchError::Unavailable { .. } | SearchError::Embed(_) | SearchError::Index(_)
        )
    }
}

pub type SearchFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Vec<ClauseHit>, SearchError>> + Send + 'a>>;

/// Every backend honours the same contract: hits come only from `query.region` and
/// `query.version_id`, best first, at most `top_k`.
pub trait Retriever: Send + Sync {
    fn backend(&self) -> &str;
    fn retrieve<'a>(&'a self, query: RetrievalQuery<'a>) -> SearchFuture<'a>;
}

pub type SharedEmbedder = Arc<CachedEmbedder<Box<dyn Embedder>>>;

/// Smart pointers to an embedder are embedders: a boxed one sits in the cache, an `Arc`'d one
/// is shared with the batcher's thread.
macro_rules! forward_embedder {
    ($($pointer:ident),*) => {$(
        impl<T: Embedder + ?Sized> Embedder for $pointer<T> {
            fn model_id(&self) -> &str {
                self.as_ref().model_id()
            }
            fn dimension(&self) -> usize {
                self.as_ref().dimension()
            }
            fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
                self.as_ref().embed_batch(texts)
            }
        }
    )*};
}
forward_embedder!(Arc, Box);

/// Candidates per leg before fusion.
pub const LEG_DEPTH: usize = 50;

pub struct EmbeddedRetriever {
    index: Arc<EmbeddedIndex>,
    embedder: SharedEmbedder,
}

impl std::fmt::Debug for EmbeddedRetriever {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedRetriever")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

impl EmbeddedRetriever {
    pub fn new(index: Arc<EmbeddedIndex>, embedder: SharedEmbedder) -> Self {
        EmbeddedRetriever { index, embedder }
    }

    pub fn index(&self) -> &Arc<EmbeddedIndex> {
        &self.index
    }

    pub fn embedder(&self) -> &SharedEmbedder {
        &self.embedder
    }

    /// Synchronous search, usable from a blocking context.
    pub fn search(&self, query: RetrievalQuery<'_>) -> Result<Vec<ClauseHit>, SearchError> {
        let vector = self.embedder.embed_query(query.text)?;
        self.search_with(query, &vector)
    }

    /// Both legs and fusion for an already embedded query (sub-millisecond: filtered first).
    pub fn search_with(
        &self,
        query: RetrievalQuery<'_>,
        vector: &[f32],
    ) -> Result<Vec<ClauseHit>, SearchError> {
        let store = self.index.snapshot();
        let lexical = self.index.lexical(
            &expand_query(query.text),
            query.region,
            query.version_id,
            LEG_DEPTH,
        )?;
        let mut semantic: Vec<(usize, f32)> = store
            .by_version
            .get(query.version_id)
            .map(|ids| {
                ids.iter()
                    .filter(|i| store.chunks[**i].region == query.region)
                    .map(|i| (*i, dot(vector, store.vector(*i))))
                    .collect()
            })
            .unwrap_or_default();
        semantic.sort_by(|a, b| b.1.total_cmp(&a.1));
        semantic.truncate(LEG_DEPTH);

        let leg = |found: &[(usize, f32)]| -> Vec<LegHit> {
            found
                .iter()
                .map(|(i, score)| LegHit {
                    chunk: &store.chunks[*i],
                    score: *score,
                })
                .collect()
        };
        let mut hits = fuse(&leg(&lexical), &leg(&semantic));
        for hit in &mut hits {
            if hit.cosine == COSINE_UNKNOWN {
                // Found lexically only: compute its cosine so the reranker can still use it.
                hit.cosine = store
                    .by_version
                    .get(query.version_id)
                    .into_iter()
                    .flatten()
                    .filter(|i| store.chunks[**i].clause_id == hit.clause_id)
                    .map(|i| dot(vector, store.vector(*i)))
                    .fold(f32::MIN, f32::max);
            }
        }
        hits.truncate(query.top_k);
        Ok(hits)
    }
}

impl Retriever for EmbeddedRetriever {
    fn backend(&self) -> &str {
        "embedded"
    }

    fn retrieve<'a>(&'a self, query: RetrievalQuery<'a>) -> SearchFuture<'a> {
        Box::pin(async move {
            // Awaited, not blocking: concurrent misses batch in the model thread.
            let vector = self.embedder.embed_query_async(query.text).await?;
            self.search_with(query, &vector)
        })
    }
}
