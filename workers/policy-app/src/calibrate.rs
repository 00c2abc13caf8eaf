//! `policyctl calibrate`: fits the reranker's weights and the confidence model on development
//! case sets and writes them as a calibration file (the shipped one is
//! `workers/policy-search/calibration.json`). Each case is enriched like a real turn (region,
//! version), its candidates retrieved from that version, and their features recorded with
//! which one, if any, is the expected clause.

use std::path::PathBuf;

use anyhow::Context;
use policy_core::golden::ExpectedOutcome;
use policy_pipeline::golden_turn::turn_for_case;
use policy_pipeline::outcome::now_millis;
use policy_pipeline::{Entry, Exit, StageName, Turn};
use policy_search::rerank::{self, Calibration, FitQuery, FitReport};
use policy_search::ClauseHit;

use crate::eval::CaseSet;
use crate::settings::AppSettings;

#[derive(Debug, Clone)]
pub struct CalibrateOptions {
    pub sets: Vec<CaseSet>,
    pub out: PathBuf,
}

/// Fits on every case of every set and writes the calibration to `options.out`.
pub async fn run(
    settings: &AppSettings,
    options: &CalibrateOptions,
) -> anyhow::Result<(Calibration, FitReport)> {
    let mut queries = Vec::new();
    let mut described = Vec::new();
    for set in &options.sets {
        let before = queries.len();
        queries.extend(fit_queries(settings, set).await?);
        described.push(format!("{} ({} queries)", set.name, queries.len() - before));
    }
    let (mut calibration, report) = rerank::fit(&queries);
    calibration.fitted_on = format!(
        "policyctl calibrate on {}: top-1 {:.3}, top-3 {:.3}, expected clause not a candidate {}",
        described.join(", "),
        report.top1,
        report.top3,
        report.not_retrieved
    );
    let json = serde_json::to_string_pretty(&calibration)?;
    std::fs::write(&options.out, format!("{json}\n"))
        .with_context(|| options.out.display().to_string())?;
    Ok((calibration, report))
}

async fn fit_queries(settings: &AppSettings, set: &CaseSet) -> anyhow::Result<Vec<FitQuery>> {
    let scratch = tempfile::tempdir()?;
    let set_settings = AppSettings {
        corpus: crate::settings::CorpusSettings {
            policies: set.policies.clone(),
            index_dir: settings
                .corpus
                .index_dir
                .clone()
                .map(|dir| dir.join(format!("set-{}", set.name))),
            data_dir: None,
        },
        ..settings.clone()
    };
    let index_dir = set_settings
        .corpus
        .index_dir
        .clone()
        .unwrap_or_else(|| scratch.path().to_path_buf());
    let (assembled, _) = crate::assemble::pipeline(&set_settings, &index_dir).await?;
    let chain = &assembled.chain;
    let cases =
        policy_core::load_cases(&set.cases).with_context(|| set.cases.display().to_string())?;
    let mut queries = Vec::new();
    for case in &cases {
        let turn = turn_for_case(case).map_err(anyhow::Error::msg)?;
        let entry = Entry::Received(Turn::new(turn, Default::default(), now_millis()));
        // Turns that stop at enrich (injections, cutovers, unknown regions) never reach the
        // reranker: nothing to learn from them here.
        let Exit::Enriched(turn) = chain.run(entry, StageName::Enrich).await? else {
            continue;
        };
        let e = turn.enrichment();
        let (expansion, hits) = chain
            .retrieve_stage()
            .candidates(&e.sanitized_question, &e.region, &e.version_id)
            .await?;
        let answerable = case.expected_outcome == ExpectedOutcome::Answer;
        let expected = case
            .expected_clause_id
            .as_ref()
            .and_then(|id| hits.iter().position(|h| &h.clause_id == id));
        let as_asked: Vec<ClauseHit> = hits.iter().map(ClauseHit::as_asked).collect();
        queries.push(FitQuery {
            features: rerank::features(&e.sanitized_question, &expansion, &hits),
            asked_features: rerank::features(&e.sanitized_question, &expansion, &as_asked),
            expected,
            answerable,
        });
    }
    Ok(queries)
}
