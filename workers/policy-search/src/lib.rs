//! Hybrid retrieval that never crosses a policy boundary: both the lexical (BM25) and the vector
//! leg are restricted to exactly one (region, version) before anything is scored or fused.

pub mod batcher;
pub mod cache;
pub mod contract;
pub mod embed;
#[cfg(any(test, feature = "test-utils"))]
pub mod fakes;
pub mod fusion;
pub mod index;
pub mod indexer;
pub mod lexical;
pub mod minilm;
pub mod probe;
pub mod query_vectors;
pub mod rerank;
pub mod retriever;
pub mod spelling;
pub mod vocabulary;

pub use batcher::{BatchStats, EmbedBatcher};
pub use cache::{CacheStats, CachedEmbedder};
pub use embed::{EmbedError, Embedder, MiniLmEmbedder};
pub use fusion::RRF_K;
pub use index::{ChunkRecord, EmbeddedIndex, IndexError};
pub use query_vectors::QueryVectors;
pub use rerank::{Calibration, ConfidenceTiers, LinearReranker, Ranking, Reranker, Tier};
pub use retriever::{
    ClauseHit, EmbeddedRetriever, IndexExpander, QueryExpander, RetrievalQuery, Retriever,
    SearchError,
};
