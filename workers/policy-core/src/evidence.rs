//! What retrieval found for a turn: the one shape of a retrieved clause that the generator
//! quotes, the judge checks and the wire carries (converted in `policy-pipeline`'s `wire`).

use crate::citation::ClauseRef;
use crate::codes::ClauseStatus;

/// A clause retrieved for a turn, best first in a turn's list.
#[derive(Debug, Clone, PartialEq)]
pub struct RetrievedClause {
    pub clause: ClauseRef,
    pub title: String,
    /// The whole clause (not only the chunk that matched): what is quoted and checked.
    pub text: String,
    /// Retrieval score after reranking.
    pub score: f64,
    pub lexical_rank: Option<u32>,
    pub vector_rank: Option<u32>,
    pub status: ClauseStatus,
    /// Cosine of the question with each sentence of the clause, in the order
    /// [`crate::text::split_sentences`] gives them (empty when unknown).
    pub sentence_scores: Vec<f32>,
}

impl RetrievedClause {
    /// An active clause with only the parts the generator and the judge read (tests, fakes).
    pub fn new(clause_id: &str, text: &str, score: f64) -> RetrievedClause {
        RetrievedClause {
            clause: ClauseRef::parse(clause_id).unwrap_or_else(|| ClauseRef::unchecked(clause_id)),
            title: String::new(),
            text: text.to_string(),
            score,
            lexical_rank: None,
            vector_rank: None,
            status: ClauseStatus::Active,
            sentence_scores: Vec::new(),
        }
    }

    pub fn clause_id(&self) -> String {
        self.clause.clause_id()
    }

    pub fn version_id(&self) -> &str {
        &self.clause.version_id
    }

    pub fn is_retired(&self) -> bool {
        self.status == ClauseStatus::Retired
    }
}
