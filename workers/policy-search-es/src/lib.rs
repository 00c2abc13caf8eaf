//! Elasticsearch backend of the retrieval contract ([`policy_search::Retriever`]).
//!
//! One index holds every version; `region`, `version_id`, `clause_id` and `status` are keyword
//! fields and both legs filter on (region, version_id) before anything is scored. The lexical
//! leg is a `bool` query (BM25 over title and text, `filter` on the version), the vector leg a
//! top-level `knn` with the same filter (or, for servers without Elasticsearch's kNN, the
//! version's vectors scored exactly here); the legs are fused with the same RRF as the embedded
//! backend. Documents are keyed by chunk id, so bulk indexing is idempotent.
//!
//! Split like a sink: [`config`] (validated before anything connects), [`body`] (pure request
//! bodies, pinned by snapshot tests), [`client`] (the calls), [`retriever`] (the contract).

pub mod body;
pub mod client;
pub mod config;
pub mod retriever;
pub mod test_server;

pub use client::{EsClient, StoredChunk, VersionWrite};
pub use config::{EsConfig, VectorMode};
pub use retriever::{mirror_versions, ElasticsearchRetriever};

use policy_search::{EmbedError, SearchError};

#[derive(Debug, thiserror::Error)]
pub enum EsError {
    #[error("elasticsearch config: {0}")]
    Config(String),
    #[error("elasticsearch {operation}: {reason}")]
    Transport {
        operation: &'static str,
        reason: String,
    },
    #[error("elasticsearch {operation} rejected ({status}): {reason}")]
    Rejected {
        operation: &'static str,
        status: u16,
        reason: String,
    },
    #[error("elasticsearch {operation}: unexpected response: {reason}")]
    Decode {
        operation: &'static str,
        reason: String,
    },
    #[error("elasticsearch bulk: {failed} of {total} documents failed, first: {first}")]
    Bulk {
        failed: usize,
        total: usize,
        first: String,
    },
    #[error("elasticsearch returned chunk {chunk_id} for a query restricted to {wanted}")]
    Boundary { chunk_id: String, wanted: String },
    #[error("version {version_id} has more than {limit} chunks (POLICY_ES_MAX_VERSION_CHUNKS)")]
    TooManyChunks { version_id: String, limit: usize },
    #[error("{0}")]
    Embed(#[from] EmbedError),
}

impl EsError {
    fn transport(operation: &'static str, error: elasticsearch::Error) -> EsError {
        // The client's message ("error sending request for url ...") hides the cause.
        let mut reason = error.to_string();
        let mut source = std::error::Error::source(&error);
        while let Some(cause) = source {
            let cause_text = cause.to_string();
            if !reason.ends_with(&cause_text) {
                reason.push_str(": ");
                reason.push_str(&cause_text);
            }
            source = cause.source();
        }
        EsError::Transport { operation, reason }
    }
}

impl From<EsError> for SearchError {
    fn from(error: EsError) -> SearchError {
        const BACKEND: &str = "elasticsearch";
        match error {
            EsError::Embed(e) => SearchError::Embed(e),
            EsError::Boundary { chunk_id, wanted } => SearchError::BoundaryViolation {
                backend: BACKEND,
                chunk_id,
                wanted,
            },
            // Unreachable, timed out or a 5xx/429: the cluster may recover.
            EsError::Transport { .. } => SearchError::Unavailable {
                backend: BACKEND,
                reason: error.to_string(),
            },
            EsError::Rejected { status, .. } if status >= 500 || status == 429 => {
                SearchError::Unavailable {
                    backend: BACKEND,
                    reason: error.to_string(),
                }
            }
            other => SearchError::Failed {
                backend: BACKEND,
                reason: other.to_string(),
            },
        }
    }
}
