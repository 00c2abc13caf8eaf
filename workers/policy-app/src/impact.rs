//! `policy impact`: what a policy pull request would change, before it is published. The golden
//! set under the served corpus and under the candidate (which cases it breaks), and the recent
//! real turns from the audit store re-run under the candidate against what was served to them.
//! A turn served under a version that the candidate still has is an order in flight: its answer
//! must not change. A candidate that only adds a future-dated version changes none; one that
//! edits a version in force, or back-dates a new one, changes some, and fails.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use policy_audit::AuditConfig;
use serde::Serialize;

use crate::eval::{EvalOptions, Thresholds};
use crate::publish::{export, Export};
use crate::replay::{self, Change, Diff, Mode, ReplayOptions, Source, Summary};
use crate::settings::AppSettings;

#[derive(Debug, Clone)]
pub struct ImpactOptions {
    pub repo: PathBuf,
    /// The candidate revision (a pull request's head).
    pub rev: String,
    /// Directory of the corpus inside the repository.
    pub path: String,
    /// Recent turns: audit rows processed since (`30d`, an instant); `None`: no recent turns.
    pub since: Option<String>,
    /// The golden cases, judged under the served corpus and the candidate.
    pub golden: PathBuf,
    pub thresholds: Thresholds,
    /// Per-turn diff records of the recent turns (JSONL) and the summary page.
    pub out: Option<PathBuf>,
    pub html: Option<PathBuf>,
    pub progress: bool,
}

/// A golden case that passes under the served corpus and fails under the candidate.
#[derive(Debug, Clone, Serialize)]
pub struct Regression {
    pub case_id: String,
    pub served: String,
    pub candidate: String,
}

/// A recent turn served under a version the candidate keeps, whose answer would change.
#[derive(Debug, Clone, Serialize)]
pub struct InFlightChange {
    pub turn_id: String,
    pub region: String,
    pub version: String,
    pub topic: String,
    pub change: Change,
    pub served: String,
    pub candidate: String,
}

#[derive(Debug)]
pub struct ImpactReport {
    pub candidate_sha: String,
    pub golden_cases: usize,
    pub golden_regressions: Vec<Regression>,
    /// Thresholds the candidate fails on the golden set that the served corpus passes.
    pub golden_failed_thresholds: Vec<String>,
    /// The recent turns under the candidate (`None` without `since`).
    pub recent: Option<Summary>,
    pub in_flight_changes: Vec<InFlightChange>,
    /// Recent turns that could not be run under the candidate.
    pub unverified: Vec<String>,
}

impl ImpactReport {
    pub fn passed(&self) -> bool {
        self.golden_regressions.is_empty()
            && self.golden_failed_thresholds.is_empty()
            && self.in_flight_changes.is_empty()
            && self.unverified.is_empty()
    }

    pub fn render_text(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let _ = writeln!(out, "policy impact of {}", self.candidate_sha);
        let _ = writeln!(
            out,
            "golden: {} case(s), {} regression(s){}",
            self.golden_cases,
            self.golden_regressions.len(),
            if self.golden_failed_thresholds.is_empty() {
                String::new()
            } else {
                format!(", failed: {}", self.golden_failed_thresholds.join("; "))
            }
        );
        for r in self.golden_regressions.iter().take(30) {
            let _ = writeln!(
                out,
                "  {}\n    served:    {}\n    candidate: {}",
                r.case_id, r.served, r.candidate
            );
        }
        match &self.recent {
            Some(recent) => {
                let _ = writeln!(
                    out,
                    "\nrecent turns under the candidate: {} in-flight answer(s) would change, {} \
                     could not be run",
                    self.in_flight_changes.len(),
                    self.unverified.len()
                );
                out.push_str(&recent.render_text());
            }
            None => {
                let _ = writeln!(out, "\nrecent turns: not checked (no --since)");
            }
        }
        let _ = writeln!(
            out,
            "\n{}",
            if self.passed() {
                "PASS: no golden regression, no in-flight answer changes"
            } else {
                "FAIL"
            }
        );
        out
    }
}

/// A golden case's result in one line; `None` when it passes (right outcome, and an answer
/// holds the expected facts).
fn failing(case: &policy_pipeline::eval::CaseResult) -> Option<String> {
    let passes = case.correct && case.facts_contained != Some(false);
    (!passes).then(|| {
        format!(
            "{} {} [{}]{}",
            case.outcome,
            case.reason.as_deref().unwrap_or(""),
            case.cited.join(", "),
            if case.facts_contained == Some(false) {
                " without the expected facts"
            } else {
                ""
            }
        )
    })
}

pub async fn run(
    settings: &AppSettings,
    audit: &AuditConfig,
    options: &ImpactOptions,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<ImpactReport> {
    let candidate: Export = export(&options.repo, &options.rev, &options.path)?;
    // Refused like `policy publish` refuses it.
    let candidate_corpus = replay::checked_corpus(&candidate.root)?;
    let scratch = tempfile::tempdir()?;
    let served_index = settings
        .corpus
        .index_dir
        .clone()
        .unwrap_or_else(|| scratch.path().join("served"));
    let eval = |settings: AppSettings| {
        let options = EvalOptions {
            golden: options.golden.clone(),
            extra_sets: Vec::new(),
            injections: Vec::new(),
            injection_customer: Default::default(),
            limit: None,
            sample: None,
            via_kafka: false,
            timeout: std::time::Duration::from_secs(60),
            thresholds: options.thresholds,
        };
        async move { crate::eval::run(&settings, &options).await }
    };
    let served_settings = AppSettings {
        corpus: crate::settings::CorpusSettings {
            index_dir: Some(served_index.clone()),
            ..settings.corpus.clone()
        },
        ..settings.clone()
    };
    let served_eval = eval(served_settings).await?;
    // The candidate's index starts from the served one: only versions it changes are embedded.
    let candidate_index = scratch.path().join("candidate");
    policy_pipeline::published::copy_tree(&served_index, &candidate_index)?;
    let candidate_settings = AppSettings {
        corpus: crate::settings::CorpusSettings {
            policies: candidate.root.clone(),
            index_dir: Some(candidate_index),
            data_dir: None,
        },
        ..settings.clone()
    };
    let candidate_eval = eval(candidate_settings.clone()).await?;
    let served_cases = &served_eval.primary().evaluation.cases;
    let golden_regressions: Vec<Regression> = candidate_eval
        .primary()
        .evaluation
        .cases
        .iter()
        .filter_map(|case| {
            let now = failing(case)?;
            let before = served_cases.iter().find(|c| c.case_id == case.case_id);
            match before.map(failing) {
                Some(None) => Some(Regression {
                    case_id: case.case_id.clone(),
                    served: "passes".into(),
                    candidate: now,
                }),
                _ => None, // failing already, or new: not this change's doing
            }
        })
        .collect();
    let already: BTreeSet<&String> = served_eval.primary().failed_thresholds.iter().collect();
    let golden_failed_thresholds = candidate_eval
        .primary()
        .failed_thresholds
        .iter()
        .filter(|f| !already.contains(f))
        .cloned()
        .collect();

    let mut in_flight_changes = Vec::new();
    let mut unverified = Vec::new();
    let recent = match &options.since {
        Some(since) => {
            let condition = replay::source::since_condition(since, chrono::Utc::now())?;
            let mut replay_options = ReplayOptions::new(Source::AuditWhere(condition), Mode::Rerun);
            replay_options.out = options.out.clone();
            replay_options.html = options.html.clone();
            replay_options.progress = options.progress;
            replay_options.parameters.insert(
                "candidate".into(),
                format!(
                    "{} {} ({})",
                    options.repo.display(),
                    options.rev,
                    candidate.sha
                )
                .into(),
            );
            let kept: BTreeSet<String> = candidate_corpus
                .manifest()
                .versions()
                .map(|v| v.id.clone())
                .collect();
            let mut observe = |diff: &Diff| {
                let (region, version, topic) = diff.group();
                match diff.change {
                    Change::Failed => unverified.push(format!(
                        "{}: {}",
                        diff.turn_id,
                        diff.error.clone().unwrap_or_default()
                    )),
                    change if change.is_change() => in_flight_changes.push(InFlightChange {
                        turn_id: diff.turn_id.clone(),
                        served: diff
                            .recorded
                            .as_ref()
                            .map(|s| s.text.clone())
                            .unwrap_or_default(),
                        candidate: if kept.contains(&version) {
                            diff.rerun
                                .as_ref()
                                .map(|s| s.text.clone())
                                .unwrap_or_default()
                        } else {
                            format!("the candidate removes version {version}")
                        },
                        region,
                        version,
                        topic,
                        change,
                    }),
                    _ => {}
                }
            };
            Some(
                replay::run(
                    &candidate_settings,
                    audit,
                    &replay_options,
                    stop,
                    &mut observe,
                )
                .await?,
            )
        }
        None => None,
    };
    Ok(ImpactReport {
        candidate_sha: candidate.sha.clone(),
        golden_cases: candidate_eval.primary().evaluation.cases.len(),
        golden_regressions,
        golden_failed_thresholds,
        recent,
        in_flight_changes,
        unverified,
    })
}
