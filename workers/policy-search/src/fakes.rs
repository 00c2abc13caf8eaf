//! Fakes of the search side for the fast test tier (feature `test-utils`): an embedder that
//! hashes words instead of running the model, and a retriever that ranks the clauses of the
//! queried version by word overlap. Deterministic, instant, and honouring the same contract
//! (hits only from the queried region and version).

use std::sync::Arc;

use policy_core::text::terms;
use policy_core::{ClauseStatus, Corpus};

use crate::embed::{EmbedError, Embedder};
use crate::retriever::{ClauseHit, RetrievalQuery, Retriever, SearchError, SearchFuture};

/// Bag-of-stemmed-words vectors hashed into `dimension` buckets, L2-normalised: texts sharing
/// words are close, as with a real model, at no cost.
#[derive(Debug, Clone, Copy)]
pub struct FakeEmbedder {
    pub dimension: usize,
}

impl Default for FakeEmbedder {
    fn default() -> Self {
        FakeEmbedder { dimension: 64 }
    }
}

fn bucket(term: &str, dimension: usize) -> usize {
    // FNV-1a: stable across runs and platforms, unlike the std hasher.
    let hash = term.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    });
    (hash % dimension as u64) as usize
}

impl Embedder for FakeEmbedder {
    fn model_id(&self) -> &str {
        "fake-hashing-embedder"
    }

    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts
            .iter()
            .map(|text| {
                let mut v = vec![0.0f32; self.dimension];
                for term in terms(text) {
                    v[bucket(&term, self.dimension)] += 1.0;
                }
                let norm = v
                    .iter()
                    .map(|x| x * x)
                    .sum::<f32>()
                    .sqrt()
                    .max(f32::EPSILON);
                v.iter_mut().for_each(|x| *x /= norm);
                v
            })
            .collect())
    }
}

/// How a [`FakeRetriever`] misbehaves, to test the stage's error paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FakeFailure {
    /// Every call fails as if the backend were down.
    Unavailable,
    /// Every call returns a clause of another version (a broken backend).
    CrossesBoundary,
}

/// Ranks the clauses of the queried (region, version) of a corpus by the share of the
/// question's words they contain.
#[derive(Debug, Clone)]
pub struct FakeRetriever {
    corpus: Arc<Corpus>,
    failure: Option<FakeFailure>,
}

impl FakeRetriever {
    pub fn new(corpus: Arc<Corpus>) -> FakeRetriever {
        FakeRetriever {
            corpus,
            failure: None,
        }
    }

    pub fn failing(corpus: Arc<Corpus>, failure: FakeFailure) -> FakeRetriever {
        FakeRetriever {
            corpus,
            failure: Some(failure),
        }
    }

    fn search(&self, query: RetrievalQuery<'_>) -> Result<Vec<ClauseHit>, SearchError> {
        match self.failure {
            Some(FakeFailure::Unavailable) => {
                return Err(SearchError::Unavailable {
                    backend: "fake",
                    reason: "down for the test".into(),
                })
            }
            Some(FakeFailure::CrossesBoundary) => {
                return Err(SearchError::BoundaryViolation {
                    backend: "fake",
                    chunk_id: "xx-v1#sec-1/0".into(),
                    wanted: format!("{}/{}", query.region, query.version_id),
                })
            }
            None => {}
        }
        let wanted: std::collections::HashSet<String> = terms(query.text).into_iter().collect();
        let mut hits: Vec<ClauseHit> = self
            .corpus
            .version_clauses(query.version_id)
            .filter(|c| c.region == query.region && c.text == c.body)
            .map(|c| {
                let words: std::collections::HashSet<String> =
                    terms(&format!("{} {}", c.title, c.text))
                        .into_iter()
                        .collect();
                let overlap =
                    wanted.intersection(&words).count() as f32 / wanted.len().max(1) as f32;
                ClauseHit {
                    clause_id: c.clause_id.clone(),
                    version_id: c.version_id.clone(),
                    region: c.region.clone(),
                    title: c.title.clone(),
                    text: c.text.clone(),
                    status: ClauseStatus::Active,
                    fused: overlap,
                    cosine: overlap,
                    question_cosine: overlap,
                    bm25: overlap,
                    lexical_rank: None,
                    vector_rank: None,
                    score: overlap,
                    coverage: 0.0,
                    title_cosine: 0.0,
                    body_cosine: 0.0,
                    question_title_cosine: 0.0,
                    question_body_cosine: 0.0,
                    sentence_scores: Vec::new(),
                }
            })
            .filter(|h| h.score > 0.0)
            .collect();
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.clause_id.cmp(&b.clause_id))
        });
        for (rank, hit) in hits.iter_mut().enumerate() {
            hit.lexical_rank = Some(rank as u32 + 1);
            hit.vector_rank = Some(rank as u32 + 1);
        }
        hits.truncate(query.top_k);
        Ok(hits)
    }
}

impl Retriever for FakeRetriever {
    fn backend(&self) -> &str {
        "fake"
    }

    fn retrieve<'a>(&'a self, query: RetrievalQuery<'a>) -> SearchFuture<'a> {
        Box::pin(async move { self.search(query) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::dot;

    #[test]
    fn texts_sharing_words_are_closer() {
        let e = FakeEmbedder::default();
        let v = e
            .embed_batch(&["return window days", "return window", "gift card balance"])
            .unwrap();
        assert!(dot(&v[0], &v[1]) > dot(&v[0], &v[2]));
        assert!((dot(&v[0], &v[0]) - 1.0).abs() < 1e-5);
    }
}
