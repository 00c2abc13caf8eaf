//! Reranking and confidence. No cross-encoder ships in any installable package here, so the
//! default reranker re-scores the fused candidates with the embedding cosine and the share of
//! the question's content words that the clause covers.

use std::collections::HashSet;

use policy_core::text::terms;

use crate::retriever::ClauseHit;
use policy_core::synonyms::expand_query;

pub trait Reranker: Send + Sync {
    /// Reorders `hits` best first and sets each `score`.
    fn rerank(&self, question: &str, hits: Vec<ClauseHit>) -> Vec<ClauseHit>;
    /// Maps the top score to a confidence in [0, 1].
    fn confidence(&self, hits: &[ClauseHit]) -> f64;
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LexicalCosineReranker {
    pub cosine_weight: f32,
    pub coverage_weight: f32,
    pub fused_weight: f32,
    /// Scores at or below `floor` map to confidence 0, at or above `ceiling` to 1.
    pub floor: f32,
    pub ceiling: f32,
}

impl Default for LexicalCosineReranker {
    fn default() -> Self {
        LexicalCosineReranker {
            cosine_weight: 0.6,
            coverage_weight: 0.25,
            fused_weight: 0.15,
            floor: 0.2,
            ceiling: 0.6,
        }
    }
}

/// Share of the question's content words found in the clause title or text.
pub fn coverage(question_terms: &HashSet<String>, hit: &ClauseHit) -> f32 {
    if question_terms.is_empty() {
        return 0.0;
    }
    let clause: HashSet<String> = terms(&hit.title)
        .into_iter()
        .chain(terms(&hit.text))
        .collect();
    question_terms.intersection(&clause).count() as f32 / question_terms.len() as f32
}

impl Reranker for LexicalCosineReranker {
    fn rerank(&self, question: &str, mut hits: Vec<ClauseHit>) -> Vec<ClauseHit> {
        let question_terms: HashSet<String> = terms(&expand_query(question)).into_iter().collect();
        let max_fused = hits
            .iter()
            .map(|h| h.fused)
            .fold(f32::MIN, f32::max)
            .max(f32::EPSILON);
        for hit in &mut hits {
            hit.score = self.cosine_weight * hit.cosine.max(0.0)
                + self.coverage_weight * coverage(&question_terms, hit)
                + self.fused_weight * (hit.fused / max_fused);
        }
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.clause_id.cmp(&b.clause_id))
        });
        hits
    }

    fn confidence(&self, hits: &[ClauseHit]) -> f64 {
        let Some(top) = hits.first() else { return 0.0 };
        (((top.score - self.floor) / (self.ceiling - self.floor)).clamp(0.0, 1.0)) as f64
    }
}

pub use policy_core::Tier;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConfidenceTiers {
    /// At or above: answer.
    pub answer: f64,
    /// At or above (and below `answer`): answer with a disclaimer. Below: escalate.
    pub disclaimer: f64,
}

impl Default for ConfidenceTiers {
    fn default() -> Self {
        ConfidenceTiers {
            answer: 0.75,
            disclaimer: 0.5,
        }
    }
}

impl ConfidenceTiers {
    pub fn tier(&self, confidence: f64) -> Tier {
        if confidence >= self.answer {
            Tier::Answer
        } else if confidence >= self.disclaimer {
            Tier::Disclaimer
        } else {
            Tier::Escalate
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(id: &str, title: &str, text: &str, cosine: f32, fused: f32) -> ClauseHit {
        ClauseHit {
            clause_id: id.into(),
            version_id: "eu-v4".into(),
            region: "eu".into(),
            title: title.into(),
            text: text.into(),
            status: policy_core::ClauseStatus::Active,
            fused,
            cosine,
            bm25: 0.0,
            lexical_rank: None,
            vector_rank: None,
            score: fused,
        }
    }

    #[test]
    fn coverage_breaks_a_cosine_tie() {
        let hits = vec![
            hit("a", "Refunds", "Refunds are paid to your card.", 0.5, 0.03),
            hit(
                "b",
                "Return window",
                "You may return items within 30 days.",
                0.5,
                0.03,
            ),
        ];
        let ranked =
            LexicalCosineReranker::default().rerank("How many days to return an item?", hits);
        assert_eq!(ranked[0].clause_id, "b");
        assert!(ranked[0].score > ranked[1].score);
    }

    #[test]
    fn confidence_is_clamped_linear_map_of_top_score() {
        let reranker = LexicalCosineReranker::default();
        let mut top = hit("a", "", "", 0.0, 0.0);
        for (score, expected) in [(0.1, 0.0), (0.2, 0.0), (0.4, 0.5), (0.6, 1.0), (0.9, 1.0)] {
            top.score = score;
            assert!(
                (reranker.confidence(std::slice::from_ref(&top)) - expected).abs() < 1e-6,
                "{score}"
            );
        }
        assert_eq!(reranker.confidence(&[]), 0.0);
    }

    #[test]
    fn tiers_follow_thresholds() {
        let tiers = ConfidenceTiers::default();
        assert_eq!(tiers.tier(0.9), Tier::Answer);
        assert_eq!(tiers.tier(0.75), Tier::Answer);
        assert_eq!(tiers.tier(0.6), Tier::Disclaimer);
        assert_eq!(tiers.tier(0.5), Tier::Disclaimer);
        assert_eq!(tiers.tier(0.49), Tier::Escalate);
        let strict = ConfidenceTiers {
            answer: 0.9,
            disclaimer: 0.8,
        };
        assert_eq!(strict.tier(0.85), Tier::Disclaimer);
    }
}
