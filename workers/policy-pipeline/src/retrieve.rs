//! Retrieve: the clauses of exactly the resolved (region, version), reranked, with a confidence
//! and the tier it maps to.

use std::sync::Arc;

use policy_avro::{Retrieval, RetrievedClause, TurnState};
use policy_search::{ConfidenceTiers, Reranker, RetrievalQuery, Retriever, SearchError, Tier};

pub struct RetrieveStage {
    retriever: Arc<dyn Retriever>,
    reranker: Arc<dyn Reranker>,
    tiers: ConfidenceTiers,
    top_k: usize,
}

/// Candidates fetched before reranking, per clause returned.
const CANDIDATE_FACTOR: usize = 3;

impl RetrieveStage {
    pub fn new(
        retriever: Arc<dyn Retriever>,
        reranker: Arc<dyn Reranker>,
        tiers: ConfidenceTiers,
        top_k: usize,
    ) -> Self {
        RetrieveStage {
            retriever,
            reranker,
            tiers,
            top_k,
        }
    }

    /// The same stage (reranker, tiers, depth) over another backend.
    pub fn with_retriever(&self, retriever: Arc<dyn Retriever>) -> RetrieveStage {
        RetrieveStage {
            retriever,
            reranker: self.reranker.clone(),
            tiers: self.tiers,
            top_k: self.top_k,
        }
    }

    pub fn backend(&self) -> &str {
        self.retriever.backend()
    }

    pub fn tiers(&self) -> ConfidenceTiers {
        self.tiers
    }

    /// Fills `state.retrieval`. Requires an enriched turn.
    pub async fn retrieve(&self, mut state: TurnState) -> Result<TurnState, SearchError> {
        let enrichment = state
            .enrichment
            .as_ref()
            .expect("retrieve runs after enrich");
        let query = RetrievalQuery {
            text: &enrichment.sanitized_question,
            region: &enrichment.region,
            version_id: &enrichment.version_id,
            top_k: self.top_k * CANDIDATE_FACTOR,
        };
        let hits = self.retriever.retrieve(query).await?;
        let mut hits = self.reranker.rerank(&enrichment.sanitized_question, hits);
        hits.truncate(self.top_k);
        let confidence = self.reranker.confidence(&hits);
        let mut tier = self.tiers.tier(confidence);
        // A region resting on weak or conflicting signals is never answered without a caveat.
        if tier == Tier::Answer && enrichment.region_low_confidence {
            tier = Tier::Disclaimer;
        }
        let clauses = hits
            .into_iter()
            .map(|h| RetrievedClause {
                clause_id: h.clause_id,
                version_id: h.version_id,
                title: h.title,
                text: h.text,
                score: h.score as f64,
                lexical_rank: h.lexical_rank.map(|r| r as i32),
                vector_rank: h.vector_rank.map(|r| r as i32),
                status: h.status,
            })
            .collect();
        state.retrieval = Some(Retrieval {
            clauses,
            confidence,
            tier: tier.as_str().to_string(),
            backend: self.retriever.backend().to_string(),
        });
        Ok(state)
    }
}
