//! Reciprocal-rank fusion, shared by every backend so that "the same contract" includes the same
//! ranking arithmetic: a clause scores by its best chunk in each leg, ties broken by clause id.

use std::collections::HashMap;

use crate::index::ChunkRecord;
use crate::retriever::ClauseHit;

/// RRF constant: 60 is the value from the original paper and what Elasticsearch uses.
pub const RRF_K: f32 = 60.0;

/// Cosine of a clause that the vector leg did not return; backends fill it in afterwards.
pub const COSINE_UNKNOWN: f32 = f32::MIN;

/// A chunk found by one leg. Leg slices are ordered best first.
#[derive(Debug, Clone, Copy)]
pub struct LegHit<'a> {
    pub chunk: &'a ChunkRecord,
    pub score: f32,
}

/// Fuses the lexical and the vector leg into clause hits, best first. A clause found only
/// lexically keeps `cosine == COSINE_UNKNOWN` for the backend to compute.
pub fn fuse(lexical: &[LegHit<'_>], semantic: &[LegHit<'_>]) -> Vec<ClauseHit> {
    let mut by_clause: HashMap<&str, ClauseHit> = HashMap::new();
    for (hits, is_lexical) in [(lexical, true), (semantic, false)] {
        for (rank, hit) in hits.iter().enumerate() {
            let chunk = hit.chunk;
            let entry = by_clause
                .entry(chunk.clause_id.as_str())
                .or_insert_with(|| ClauseHit {
                    clause_id: chunk.clause_id.clone(),
                    version_id: chunk.version_id.clone(),
                    region: chunk.region.clone(),
                    title: chunk.title.clone(),
                    text: chunk.clause_text.clone(),
                    status: chunk.status,
                    fused: 0.0,
                    cosine: COSINE_UNKNOWN,
                    question_cosine: COSINE_UNKNOWN,
                    bm25: 0.0,
                    lexical_rank: None,
                    vector_rank: None,
                    score: 0.0,
                    coverage: 0.0,
                    title_cosine: 0.0,
                    body_cosine: 0.0,
                    question_title_cosine: 0.0,
                    question_body_cosine: 0.0,
                    sentence_scores: Vec::new(),
                });
            let rank = rank as u32 + 1;
            if is_lexical {
                if entry.lexical_rank.is_none() {
                    entry.lexical_rank = Some(rank);
                    entry.bm25 = hit.score;
                    entry.fused += 1.0 / (RRF_K + rank as f32);
                }
            } else if entry.vector_rank.is_none() {
                entry.vector_rank = Some(rank);
                entry.cosine = hit.score;
                entry.fused += 1.0 / (RRF_K + rank as f32);
            }
        }
    }
    let mut hits: Vec<ClauseHit> = by_clause.into_values().collect();
    for hit in &mut hits {
        hit.score = hit.fused;
    }
    hits.sort_by(|a, b| {
        b.fused
            .total_cmp(&a.fused)
            .then_with(|| a.clause_id.cmp(&b.clause_id))
    });
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(clause: &str, n: u32) -> ChunkRecord {
        ChunkRecord {
            chunk_id: format!("{clause}/{n}"),
            clause_id: clause.into(),
            version_id: "eu-v4".into(),
            region: "eu".into(),
            title: clause.into(),
            text: format!("chunk {n} of {clause}"),
            clause_text: format!("text of {clause}"),
            status: policy_core::ClauseStatus::Active,
        }
    }

    #[test]
    fn a_clause_found_by_both_legs_outranks_one_found_by_one() {
        let (a, b, c) = (
            chunk("eu-v4#a", 0),
            chunk("eu-v4#b", 0),
            chunk("eu-v4#c", 0),
        );
        let lexical = [
            LegHit {
                chunk: &a,
                score: 9.0,
            },
            LegHit {
                chunk: &b,
                score: 5.0,
            },
        ];
        let semantic = [
            LegHit {
                chunk: &c,
                score: 0.9,
            },
            LegHit {
                chunk: &b,
                score: 0.8,
            },
        ];
        let hits = fuse(&lexical, &semantic);
        let ids: Vec<&str> = hits.iter().map(|h| h.clause_id.as_str()).collect();
        assert_eq!(ids, ["eu-v4#b", "eu-v4#a", "eu-v4#c"]);
        let b = &hits[0];
        assert_eq!((b.lexical_rank, b.vector_rank), (Some(2), Some(2)));
        assert_eq!((b.bm25, b.cosine), (5.0, 0.8));
        assert!((b.fused - 2.0 / (RRF_K + 2.0)).abs() < 1e-6);
        assert_eq!(b.score, b.fused);
        assert_eq!(
            hits[1].cosine, COSINE_UNKNOWN,
            "lexical only: cosine left to the backend"
        );
    }

    #[test]
    fn a_clause_scores_by_its_best_chunk_in_each_leg() {
        let (a0, a1) = (chunk("eu-v4#a", 0), chunk("eu-v4#a", 1));
        let lexical = [
            LegHit {
                chunk: &a1,
                score: 7.0,
            },
            LegHit {
                chunk: &a0,
                score: 3.0,
            },
        ];
        let hits = fuse(&lexical, &[]);
        assert_eq!(hits.len(), 1);
        assert_eq!((hits[0].lexical_rank, hits[0].bm25), (Some(1), 7.0));
        assert!((hits[0].fused - 1.0 / (RRF_K + 1.0)).abs() < 1e-6);
    }

    #[test]
    fn ties_are_broken_by_clause_id_so_results_are_deterministic() {
        let (a, b) = (chunk("eu-v4#a", 0), chunk("eu-v4#b", 0));
        let hits = fuse(
            &[LegHit {
                chunk: &b,
                score: 1.0,
            }],
            &[LegHit {
                chunk: &a,
                score: 0.5,
            }],
        );
        let ids: Vec<&str> = hits.iter().map(|h| h.clause_id.as_str()).collect();
        assert_eq!(ids, ["eu-v4#a", "eu-v4#b"]);
    }

    #[test]
    fn no_candidates_no_hits() {
        assert!(fuse(&[], &[]).is_empty());
    }
}
