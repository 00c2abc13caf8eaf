//! Reranking and confidence. No cross-encoder ships in any installable package here, so the
//! reranker is linear over a handful of evidence features of each fused candidate (cosines,
//! BM25, how much of the question the clause covers), and confidence is a logistic model of
//! "the top clause answers the question". Both are fitted on a development set by
//! `policyctl calibrate` ([`fit`]) and stored as [`Calibration`] (the shipped one:
//! `calibration.json`); the fit is reported, so the thresholds on confidence mean a
//! probability on a corpus the team did not write rather than a hand-set score.

use serde::{Deserialize, Serialize};

use crate::retriever::ClauseHit;
use crate::vocabulary::QueryExpansion;

pub trait Reranker: Send + Sync + std::fmt::Debug {
    /// Reorders `hits` best first and sets each `score`. `expansion` says which words of the
    /// question the version uses, and what it calls the others (empty: the question's words
    /// as they are).
    fn rerank(
        &self,
        question: &str,
        expansion: &QueryExpansion,
        hits: Vec<ClauseHit>,
    ) -> Vec<ClauseHit>;
    /// The probability that the top clause answers the question, in [0, 1].
    fn confidence(&self, hits: &[ClauseHit]) -> f64;

    /// `hits` reranked, those `keep` refuses dropped, cut to `top_k`; and the confidence.
    /// Confidence is read on the same candidates ranked by the question as written
    /// ([`ClauseHit::as_asked`]): it was fitted on that similarity, and what a blended search
    /// vector changes is which clause is quoted, not whether the version answers.
    fn rank(
        &self,
        question: &str,
        expansion: &QueryExpansion,
        hits: Vec<ClauseHit>,
        top_k: usize,
        keep: &dyn Fn(&ClauseHit) -> bool,
    ) -> Ranking {
        let rank = |hits: Vec<ClauseHit>| -> Vec<ClauseHit> {
            let mut ranked: Vec<ClauseHit> = self
                .rerank(question, expansion, hits)
                .into_iter()
                .filter(|h| keep(h))
                .collect();
            ranked.truncate(top_k);
            ranked
        };
        let confidence = hits
            .iter()
            .any(ClauseHit::differs_as_asked)
            .then(|| self.confidence(&rank(hits.iter().map(ClauseHit::as_asked).collect())));
        let hits = rank(hits);
        let confidence = confidence.unwrap_or_else(|| self.confidence(&hits));
        Ranking { hits, confidence }
    }
}

/// Candidates best first and how sure the ranking is that the version answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranking {
    pub hits: Vec<ClauseHit>,
    pub confidence: f64,
}

/// Evidence features of one candidate, in [`FEATURE_NAMES`] order.
pub const FEATURES: usize = 7;
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "best chunk cosine",
    "title and whole-body cosine",
    "bm25 / best bm25",
    "question words in the clause",
    "question words or equivalents in the clause",
    "question words in the title",
    "rrf / best rrf",
];

/// Features of the top candidate that predict "it answers the question".
pub const CONFIDENCE_FEATURES: usize = 5;
pub const CONFIDENCE_FEATURE_NAMES: [&str; CONFIDENCE_FEATURES] = [
    "top score",
    "top score - second score",
    "top cosine",
    "top coverage with equivalents",
    "bias",
];

/// Fitted weights: ranking (one per feature) and confidence (logistic).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub rank_weights: [f32; FEATURES],
    pub confidence_weights: [f32; CONFIDENCE_FEATURES],
    /// What the fit saw and how it did: for the report, not used at run time.
    #[serde(default)]
    pub fitted_on: String,
}

/// The calibration shipped with the workers (fitted on golden/ and golden/dev).
pub const BUILTIN_CALIBRATION: &str = include_str!("../calibration.json");

impl Calibration {
    pub fn builtin() -> Calibration {
        serde_json::from_str(BUILTIN_CALIBRATION).expect("the shipped calibration parses")
    }

    pub fn load(setting: &str) -> Result<Calibration, String> {
        if setting == "builtin" {
            return Ok(Calibration::builtin());
        }
        let text = std::fs::read_to_string(setting).map_err(|e| format!("{setting}: {e}"))?;
        serde_json::from_str(&text).map_err(|e| format!("{setting}: {e}"))
    }
}

/// Every candidate's features. `expansion` empty means the question's words as they are.
pub fn features(
    question: &str,
    expansion: &QueryExpansion,
    hits: &[ClauseHit],
) -> Vec<[f32; FEATURES]> {
    let plain;
    let expansion = if expansion.terms.is_empty() {
        plain = QueryExpansion::plain(question);
        &plain
    } else {
        expansion
    };
    let own = expansion.own_words();
    let max_bm25 = hits
        .iter()
        .map(|h| h.bm25)
        .fold(0.0f32, f32::max)
        .max(f32::EPSILON);
    let max_fused = hits
        .iter()
        .map(|h| h.fused)
        .fold(0.0f32, f32::max)
        .max(f32::EPSILON);
    hits.iter()
        .map(|hit| {
            let text = format!("{} {}", hit.title, hit.text);
            let cosine = hit.cosine.max(0.0);
            // The clause as a whole (its title, its body) against the question, besides its
            // best single chunk.
            let whole = (hit.title_cosine.max(0.0) + hit.body_cosine.max(0.0)) / 2.0;
            [
                cosine,
                whole,
                hit.bm25 / max_bm25,
                own.coverage(&text),
                expansion.coverage(&text),
                own.coverage(&hit.title),
                hit.fused / max_fused,
            ]
        })
        .collect()
}

fn dot<const N: usize>(w: &[f32; N], x: &[f32; N]) -> f32 {
    w.iter().zip(x).map(|(a, b)| a * b).sum()
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The confidence features of a reranked list (best first).
pub fn confidence_features(hits: &[ClauseHit]) -> [f32; CONFIDENCE_FEATURES] {
    let Some(top) = hits.first() else {
        return [0.0, 0.0, 0.0, 0.0, 1.0];
    };
    let second = hits.get(1).map_or(0.0, |h| h.score);
    [
        top.score,
        top.score - second,
        top.cosine.max(0.0),
        top.coverage,
        1.0,
    ]
}

#[derive(Debug, Clone, PartialEq)]
pub struct LinearReranker {
    pub calibration: Calibration,
}

impl Default for LinearReranker {
    fn default() -> Self {
        LinearReranker {
            calibration: Calibration::builtin(),
        }
    }
}

impl Reranker for LinearReranker {
    fn rerank(
        &self,
        question: &str,
        expansion: &QueryExpansion,
        mut hits: Vec<ClauseHit>,
    ) -> Vec<ClauseHit> {
        let features = features(question, expansion, &hits);
        for (hit, x) in hits.iter_mut().zip(&features) {
            hit.score = dot(&self.calibration.rank_weights, x);
            hit.coverage = x[4];
        }
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.clause_id.cmp(&b.clause_id))
        });
        hits
    }

    fn confidence(&self, hits: &[ClauseHit]) -> f64 {
        if hits.is_empty() {
            return 0.0;
        }
        let x = confidence_features(hits);
        sigmoid(dot(&self.calibration.confidence_weights, &x) as f64)
    }
}

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

pub use policy_core::Tier;

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

/// One query of a fitting set: every candidate's features, which candidate (if any) is the
/// expected clause, and whether the question should be answered at all.
#[derive(Debug, Clone)]
pub struct FitQuery {
    pub features: Vec<[f32; FEATURES]>,
    /// The same candidates' features as the question as written sees them
    /// ([`ClauseHit::as_asked`]): what confidence is fitted on ([`Reranker::rank`]).
    pub asked_features: Vec<[f32; FEATURES]>,
    pub expected: Option<usize>,
    pub answerable: bool,
}

/// How a fit did on its own data.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FitReport {
    pub queries: usize,
    /// Of answerable queries whose expected clause was a candidate: ranked first.
    pub top1: f64,
    /// ... ranked in the first three.
    pub top3: f64,
    /// Answerable queries whose expected clause was not among the candidates at all.
    pub not_retrieved: usize,
    /// Reliability: (predicted confidence bucket, queries, observed share answerable).
    pub reliability: Vec<(String, usize, f64)>,
}

/// Fits ranking weights (softmax over each query's candidates) and then the confidence model
/// (logistic: the question should be answered from this version). Which clause the answer
/// quotes is the ranking's business, and the judge's; confidence decides answer or escalate.
pub fn fit(queries: &[FitQuery]) -> (Calibration, FitReport) {
    let rank_weights = fit_ranking(queries);
    let mut rows = Vec::new();
    let mut top1 = (0usize, 0usize);
    let mut top3 = 0usize;
    let not_retrieved = queries
        .iter()
        .filter(|q| q.answerable && q.expected.is_none())
        .count();
    let scored = |features: &[[f32; FEATURES]]| -> Vec<(usize, f32)> {
        let mut scored: Vec<(usize, f32)> = features
            .iter()
            .enumerate()
            .map(|(i, x)| (i, dot(&rank_weights, x)))
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        scored
    };
    for q in queries {
        let ranked = scored(&q.features);
        if let (true, Some(expected), Some(&(best, _))) = (q.answerable, q.expected, ranked.first())
        {
            top1.1 += 1;
            top1.0 += (best == expected) as usize;
            top3 += ranked.iter().take(3).any(|(i, _)| *i == expected) as usize;
        }
        let as_asked = scored(&q.asked_features);
        let Some(&(best, top_score)) = as_asked.first() else {
            rows.push(([0.0, 0.0, 0.0, 0.0, 1.0], 0.0));
            continue;
        };
        let second = as_asked.get(1).map_or(0.0, |s| s.1);
        let x = q.asked_features[best];
        rows.push((
            [top_score, top_score - second, x[0], x[4], 1.0],
            q.answerable as u8 as f64,
        ));
    }
    let confidence_weights = fit_logistic(&rows);
    let mut buckets = [(0usize, 0usize); 5];
    for (x, y) in &rows {
        let p = sigmoid(dot(&confidence_weights, x) as f64);
        let b = ((p * 5.0) as usize).min(4);
        buckets[b].0 += 1;
        buckets[b].1 += *y as usize;
    }
    let report = FitReport {
        queries: queries.len(),
        top1: top1.0 as f64 / top1.1.max(1) as f64,
        top3: top3 as f64 / top1.1.max(1) as f64,
        not_retrieved,
        reliability: buckets
            .iter()
            .enumerate()
            .map(|(i, (n, ok))| {
                (
                    format!("{:.1}-{:.1}", i as f64 / 5.0, (i + 1) as f64 / 5.0),
                    *n,
                    *ok as f64 / (*n).max(1) as f64,
                )
            })
            .collect(),
    };
    (
        Calibration {
            rank_weights,
            confidence_weights,
            fitted_on: String::new(),
        },
        report,
    )
}

/// Mean and standard deviation of each feature, to fit on standardised features (gradient
/// descent converges on any scale) and map the weights back.
fn standardisation<const N: usize>(
    rows: &[[f32; N]],
    constant: Option<usize>,
) -> ([f64; N], [f64; N]) {
    let n = rows.len().max(1) as f64;
    let mut mean = [0.0f64; N];
    let mut sd = [1.0f64; N];
    for k in 0..N {
        if Some(k) == constant {
            continue;
        }
        mean[k] = rows.iter().map(|r| r[k] as f64).sum::<f64>() / n;
        let var = rows
            .iter()
            .map(|r| (r[k] as f64 - mean[k]).powi(2))
            .sum::<f64>()
            / n;
        sd[k] = var.sqrt().max(1e-6);
    }
    (mean, sd)
}

fn fit_ranking(queries: &[FitQuery]) -> [f32; FEATURES] {
    let usable: Vec<&FitQuery> = queries
        .iter()
        .filter(|q| q.answerable && q.expected.is_some() && q.features.len() > 1)
        .collect();
    let all: Vec<[f32; FEATURES]> = usable
        .iter()
        .flat_map(|q| q.features.iter().copied())
        .collect();
    let (mean, sd) = standardisation(&all, None);
    let z = |x: &[f32; FEATURES]| -> [f64; FEATURES] {
        std::array::from_fn(|k| (x[k] as f64 - mean[k]) / sd[k])
    };
    let mut w = [0.0f64; FEATURES];
    let (rate, l2) = (1.0, 1e-4);
    for _ in 0..4000 {
        let mut grad = [0.0f64; FEATURES];
        for q in &usable {
            let zs: Vec<[f64; FEATURES]> = q.features.iter().map(z).collect();
            let scores: Vec<f64> = zs
                .iter()
                .map(|x| w.iter().zip(x).map(|(a, b)| a * b).sum())
                .collect();
            let max = scores.iter().cloned().fold(f64::MIN, f64::max);
            let exps: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
            let total: f64 = exps.iter().sum();
            let expected = q.expected.unwrap_or(0);
            for (i, x) in zs.iter().enumerate() {
                let p = exps[i] / total;
                let target = (i == expected) as u8 as f64;
                for k in 0..FEATURES {
                    grad[k] += (p - target) * x[k];
                }
            }
        }
        for k in 0..FEATURES {
            w[k] -= rate * (grad[k] / usable.len().max(1) as f64 + l2 * w[k]);
        }
    }
    // Scores only need to order candidates: the mean shift is a constant per query, dropped.
    std::array::from_fn(|k| (w[k] / sd[k]) as f32)
}

fn fit_logistic(rows: &[([f32; CONFIDENCE_FEATURES], f64)]) -> [f32; CONFIDENCE_FEATURES] {
    const BIAS: usize = CONFIDENCE_FEATURES - 1;
    let xs: Vec<[f32; CONFIDENCE_FEATURES]> = rows.iter().map(|(x, _)| *x).collect();
    let (mean, sd) = standardisation(&xs, Some(BIAS));
    let mut w = [0.0f64; CONFIDENCE_FEATURES];
    let (rate, l2) = (1.0, 1e-4);
    for _ in 0..6000 {
        let mut grad = [0.0f64; CONFIDENCE_FEATURES];
        for (x, y) in rows {
            let z: [f64; CONFIDENCE_FEATURES] = std::array::from_fn(|k| {
                if k == BIAS {
                    1.0
                } else {
                    (x[k] as f64 - mean[k]) / sd[k]
                }
            });
            let p = sigmoid(w.iter().zip(&z).map(|(a, b)| a * b).sum());
            for k in 0..CONFIDENCE_FEATURES {
                grad[k] += (p - y) * z[k];
            }
        }
        for k in 0..CONFIDENCE_FEATURES {
            let penalty = if k != BIAS { l2 * w[k] } else { 0.0 };
            w[k] -= rate * (grad[k] / rows.len().max(1) as f64 + penalty);
        }
    }
    // Back to raw features: w_k / sd_k, and the bias absorbs the means.
    let mut raw: [f64; CONFIDENCE_FEATURES] =
        std::array::from_fn(|k| if k == BIAS { w[k] } else { w[k] / sd[k] });
    raw[BIAS] -= (0..BIAS).map(|k| raw[k] * mean[k]).sum::<f64>();
    raw.map(|v| v as f32)
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
            question_cosine: cosine,
            bm25: 0.0,
            lexical_rank: None,
            vector_rank: None,
            score: fused,
            coverage: 0.0,
            title_cosine: 0.0,
            body_cosine: 0.0,
            question_title_cosine: 0.0,
            question_body_cosine: 0.0,
            sentence_scores: Vec::new(),
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
        let ranked = LinearReranker::default().rerank(
            "How many days do I have to return an item?",
            &QueryExpansion::default(),
            hits,
        );
        assert_eq!(ranked[0].clause_id, "b");
        assert!(ranked[0].score > ranked[1].score);
    }

    #[test]
    fn rank_orders_by_the_search_vector_and_reads_confidence_as_asked() {
        let question = "I moved house last month and the parcel went to my old flat. How long \
                        do I have to return it?";
        // The search vector (a blend) finds the return window clearly; the question as
        // written is closer to the delivery clause.
        let mut window = hit("b", "Return window", "Return within 30 days.", 0.8, 0.03);
        window.question_cosine = 0.4;
        let mut delivery = hit(
            "a",
            "Delivery",
            "We deliver to the address given.",
            0.3,
            0.03,
        );
        delivery.question_cosine = 0.6;
        let hits = vec![delivery, window];
        let reranker = LinearReranker::default();
        let expansion = QueryExpansion::default();
        let ranking = reranker.rank(question, &expansion, hits.clone(), 5, &|_| true);
        assert_eq!(ranking.hits[0].clause_id, "b");
        assert_eq!(
            ranking.hits[0].cosine, 0.8,
            "the hit keeps its search evidence"
        );
        let as_asked = reranker.rerank(
            question,
            &expansion,
            hits.iter().map(ClauseHit::as_asked).collect(),
        );
        assert_eq!(ranking.confidence, reranker.confidence(&as_asked));
        assert_ne!(ranking.confidence, reranker.confidence(&ranking.hits));

        // Unblended evidence: one ranking, its own confidence; `keep` and `top_k` apply.
        let plain: Vec<ClauseHit> = hits.iter().map(ClauseHit::as_asked).collect();
        let ranking = reranker.rank(question, &expansion, plain, 1, &|h| h.clause_id == "b");
        assert_eq!(ranking.hits.len(), 1);
        assert_eq!(ranking.hits[0].clause_id, "b");
        assert_eq!(ranking.confidence, reranker.confidence(&ranking.hits));
    }

    #[test]
    fn the_fit_learns_which_feature_ranks_and_a_calibrated_confidence() {
        // Ten queries where the expected candidate has the higher first feature, ten more
        // that should not be answered (every candidate weak).
        let mut queries = Vec::new();
        for i in 0..10 {
            let d = i as f32 * 0.01;
            let features = vec![
                [0.3 + d, 0.3, 0.5, 0.5, 0.5, 0.0, 0.5],
                [0.8 + d, 0.8, 0.5, 0.5, 0.5, 0.0, 0.5],
            ];
            queries.push(FitQuery {
                asked_features: features.clone(),
                features,
                expected: Some(1),
                answerable: true,
            });
            let features = vec![[0.1 + d, 0.1, 0.1, 0.0, 0.0, 0.0, 0.1]; 2];
            queries.push(FitQuery {
                asked_features: features.clone(),
                features,
                expected: None,
                answerable: false,
            });
        }
        let (calibration, report) = fit(&queries);
        assert_eq!(report.top1, 1.0);
        assert!(calibration.rank_weights[0] > 0.0);
        let reranker = LinearReranker { calibration };
        let mut strong = hit("a", "", "", 0.85, 0.5);
        strong.score = dot(
            &reranker.calibration.rank_weights,
            &[0.85, 0.85, 0.5, 0.5, 0.5, 0.0, 0.5],
        );
        let mut weak = hit("b", "", "", 0.1, 0.1);
        weak.score = dot(
            &reranker.calibration.rank_weights,
            &[0.1, 0.1, 0.1, 0.0, 0.0, 0.0, 0.1],
        );
        assert!(reranker.confidence(&[strong]) > 0.7);
        assert!(reranker.confidence(&[weak]) < 0.3);
    }

    #[test]
    fn tiers_follow_thresholds() {
        let tiers = ConfidenceTiers::default();
        assert_eq!(tiers.tier(0.9), Tier::Answer);
        assert_eq!(tiers.tier(0.75), Tier::Answer);
        assert_eq!(tiers.tier(0.6), Tier::Disclaimer);
        assert_eq!(tiers.tier(0.5), Tier::Disclaimer);
        assert_eq!(tiers.tier(0.49), Tier::Escalate);
    }
}
