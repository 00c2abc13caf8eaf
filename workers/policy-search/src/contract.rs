//! The retrieval contract measured on a golden set, the same way for every backend: for each
//! answerable case, every hit must come from the case's region and version (a violation is
//! listed, never tolerated), hits come best first, and the expected clause should be in the
//! reranked top 3.

use policy_core::golden::ExpectedOutcome;
use policy_core::{Corpus, GoldenCase, QueryExpansion};

use crate::rerank::Reranker;
use crate::retriever::{ClauseHit, RetrievalQuery, SearchError};

/// Clauses asked of the backend per case (before reranking).
pub const GOLDEN_TOP_K: usize = 8;

#[derive(Debug, Default)]
pub struct ContractReport {
    pub cases: usize,
    pub expected_in_top3: usize,
    /// Case ids whose expected clause was not in the top 3.
    pub misses: Vec<String>,
    /// Broken promises: a hit from another region or version, too many hits, wrong order.
    pub violations: Vec<String>,
    /// The reranked top clause of each case, to compare backends.
    pub top_clause: Vec<(String, Option<String>)>,
}

impl ContractReport {
    pub fn top3_recall(&self) -> f64 {
        self.expected_in_top3 as f64 / self.cases.max(1) as f64
    }

    /// Share of cases whose top clause is the same in `other` (same cases, same order).
    pub fn top1_agreement(&self, other: &ContractReport) -> f64 {
        let same = self
            .top_clause
            .iter()
            .zip(&other.top_clause)
            .filter(|(a, b)| a == b)
            .count();
        same as f64 / self.top_clause.len().max(1) as f64
    }
}

/// Runs every answerable case of `cases` through `expand` (question, version → the version's
/// words for it, as the retrieve stage expands) and `retrieve`, and checks the contract.
pub fn check_golden(
    corpus: &Corpus,
    cases: &[GoldenCase],
    reranker: &dyn Reranker,
    mut expand: impl FnMut(&str, &str) -> QueryExpansion,
    mut retrieve: impl FnMut(RetrievalQuery<'_>) -> Result<Vec<ClauseHit>, SearchError>,
) -> Result<ContractReport, SearchError> {
    let mut report = ContractReport::default();
    let answerable = cases
        .iter()
        .filter(|c| c.expected_outcome == ExpectedOutcome::Answer);
    for case in answerable {
        let Some(version) = case.expected_version_id.as_deref() else {
            continue;
        };
        let Some(entry) = corpus.manifest().version(version) else {
            report
                .violations
                .push(format!("{}: {version} not in the manifest", case.id));
            continue;
        };
        let expansion = expand(&case.question, version);
        let lexical = expansion.lexical_text();
        let query = RetrievalQuery {
            expansion: &lexical,
            text: &case.question,
            region: &entry.region,
            version_id: version,
            top_k: GOLDEN_TOP_K,
        };
        let hits = retrieve(query)?;
        if hits.is_empty() || hits.len() > GOLDEN_TOP_K {
            report
                .violations
                .push(format!("{}: {} hits", case.id, hits.len()));
        }
        if !hits.windows(2).all(|w| w[0].fused >= w[1].fused) {
            report
                .violations
                .push(format!("{}: not best first", case.id));
        }
        for hit in &hits {
            let inside = hit.region == entry.region
                && hit.version_id == version
                && hit.clause_id.starts_with(&format!("{version}#"));
            if !inside {
                report.violations.push(format!(
                    "{}: {} ({}/{}) for {}/{version}",
                    case.id, hit.clause_id, hit.region, hit.version_id, entry.region
                ));
            }
        }
        let ranked = reranker.rerank(&case.question, &expansion, hits);
        report.cases += 1;
        let expected = case.expected_clause_id.as_ref();
        if ranked
            .iter()
            .take(3)
            .any(|h| Some(&h.clause_id) == expected)
        {
            report.expected_in_top3 += 1;
        } else {
            report
                .misses
                .push(format!("{} ({})", case.id, case.question));
        }
        report
            .top_clause
            .push((case.id.clone(), ranked.first().map(|h| h.clause_id.clone())));
    }
    Ok(report)
}
