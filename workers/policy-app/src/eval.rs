//! Golden-set evaluation: the cases run through the pipeline (in this process, or as real
//! turns through the broker and the running workers), scored by the metrics the product is
//! judged by, against thresholds.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use policy_avro::InputCoordinates;
use policy_core::{Corpus, GoldenCase};
use policy_pipeline::eval::{Counts, Evaluation, Metrics};
use policy_pipeline::golden_turn::turn_for_case;
use policy_pipeline::Outcome;
use serde::Serialize;

use crate::settings::AppSettings;

/// What to evaluate and the bar it must clear.
#[derive(Debug, Clone)]
pub struct EvalOptions {
    /// A .jsonl file or a directory of them.
    pub golden: PathBuf,
    pub limit: Option<usize>,
    /// Through the broker and the running workers instead of in this process.
    pub via_kafka: bool,
    pub timeout: Duration,
    pub thresholds: Thresholds,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Thresholds {
    pub min_outcome_accuracy: f64,
    pub min_expected_clause_citation: f64,
    pub max_wrong_version_answers: usize,
}

/// Delivery through Kafka: every turn has exactly one outcome.
#[derive(Debug, Clone, Serialize)]
pub struct Delivery {
    pub turns: usize,
    pub outcomes: usize,
    pub missing: Vec<String>,
    pub duplicate_outcomes: usize,
    pub turns_per_second: f64,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct StageLatency {
    pub p50_ms: f64,
    pub p99_ms: f64,
}

#[derive(Debug)]
pub struct EvalReport {
    pub via_kafka: bool,
    /// `None` via Kafka, where the workers' backend answers.
    pub search_backend: Option<String>,
    pub delivery: Option<Delivery>,
    pub evaluation: Evaluation,
    pub metrics: Metrics,
    pub stage_latency: BTreeMap<String, StageLatency>,
    pub index_seconds: f64,
    pub run_seconds: f64,
    pub failed_thresholds: Vec<String>,
}

impl EvalReport {
    pub fn passed(&self) -> bool {
        self.failed_thresholds.is_empty()
    }
}

/// The cases, the outcome of each, scored.
pub async fn run(settings: &AppSettings, options: &EvalOptions) -> anyhow::Result<EvalReport> {
    let cases = load_cases(options)?;
    let started = Instant::now();
    let (outcomes, corpus, search_backend, delivery, index_seconds) = if options.via_kafka {
        let corpus = Arc::new(
            policy_core::load_dir(&settings.corpus.policies)
                .with_context(|| settings.corpus.policies.display().to_string())?,
        );
        let (outcomes, delivery) = outcomes_via_kafka(settings, &cases, options.timeout).await?;
        (outcomes, corpus, None, Some(delivery), 0.0)
    } else {
        let scratch = tempfile::tempdir()?;
        let index_dir = settings
            .corpus
            .index_dir
            .clone()
            .unwrap_or_else(|| scratch.path().to_path_buf());
        let (assembled, _) = crate::assemble::pipeline(settings, &index_dir).await?;
        let index_seconds = started.elapsed().as_secs_f64();
        let outcomes = outcomes_in_process(&assembled.chain, &cases).await?;
        let backend = assembled.chain.search_backend().to_string();
        (
            outcomes,
            assembled.corpus,
            Some(backend),
            None,
            index_seconds,
        )
    };
    let run_seconds = started.elapsed().as_secs_f64() - index_seconds;
    let evaluation = score(&cases, &outcomes, &corpus);
    let metrics = evaluation.overall.metrics();
    Ok(EvalReport {
        via_kafka: options.via_kafka,
        search_backend,
        delivery,
        stage_latency: stage_latency(&outcomes),
        failed_thresholds: failed_thresholds(&options.thresholds, &metrics),
        evaluation,
        metrics,
        index_seconds,
        run_seconds,
    })
}

fn load_cases(options: &EvalOptions) -> anyhow::Result<Vec<GoldenCase>> {
    let mut cases = policy_core::load_cases(&options.golden)
        .with_context(|| options.golden.display().to_string())?;
    if let Some(limit) = options.limit {
        cases.truncate(limit);
    }
    Ok(cases)
}

async fn outcomes_in_process(
    chain: &policy_pipeline::Chain,
    cases: &[GoldenCase],
) -> anyhow::Result<Vec<Outcome>> {
    let mut outcomes = Vec::with_capacity(cases.len());
    for (offset, case) in cases.iter().enumerate() {
        let turn = turn_for_case(case).map_err(|e| anyhow::anyhow!("{}: {e}", case.id))?;
        let input = InputCoordinates {
            topic: "golden".into(),
            partition: 0,
            offset: offset as i64,
        };
        outcomes.push(chain.process(turn, input).await?);
    }
    Ok(outcomes)
}

async fn outcomes_via_kafka(
    settings: &AppSettings,
    cases: &[GoldenCase],
    timeout: Duration,
) -> anyhow::Result<(Vec<Outcome>, Delivery)> {
    let topics = settings.topics.names();
    let collected = crate::client::run_cases(&settings.kafka, &topics, cases, timeout).await?;
    let delivery = Delivery {
        turns: cases.len(),
        outcomes: collected.outcomes.len(),
        missing: collected.missing.clone(),
        duplicate_outcomes: collected.duplicates.values().sum(),
        turns_per_second: cases.len() as f64 / collected.seconds.max(1e-9),
    };
    if !collected.missing.is_empty() {
        anyhow::bail!(
            "{} turn(s) without an outcome after {} s: {:?}",
            collected.missing.len(),
            timeout.as_secs(),
            &collected.missing[..collected.missing.len().min(10)]
        );
    }
    let mut by_id = collected.outcomes;
    let outcomes = cases
        .iter()
        .map(|case| {
            by_id
                .remove(&case.id)
                .with_context(|| format!("no outcome for {}", case.id))
        })
        .collect::<anyhow::Result<_>>()?;
    Ok((outcomes, delivery))
}

fn score(cases: &[GoldenCase], outcomes: &[Outcome], corpus: &Corpus) -> Evaluation {
    let clause_text = |id: &str| corpus.clause(id).map(|c| c.text.clone());
    let mut evaluation = Evaluation::default();
    for (case, outcome) in cases.iter().zip(outcomes) {
        evaluation.record(case, outcome, &clause_text);
    }
    evaluation
}

/// p50 and p99 per stage over every outcome.
fn stage_latency(outcomes: &[Outcome]) -> BTreeMap<String, StageLatency> {
    let mut by_stage: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for outcome in outcomes {
        for (stage, ms) in outcome.stage_latency_ms() {
            by_stage.entry(stage.clone()).or_default().push(*ms);
        }
    }
    by_stage
        .into_iter()
        .map(|(stage, mut values)| {
            values.sort_by(f64::total_cmp);
            let at = |q: f64| crate::loadtest::percentile(&values, q);
            (
                stage,
                StageLatency {
                    p50_ms: at(0.5),
                    p99_ms: at(0.99),
                },
            )
        })
        .collect()
}

fn failed_thresholds(t: &Thresholds, m: &Metrics) -> Vec<String> {
    let mut failed = Vec::new();
    if m.outcome_accuracy < t.min_outcome_accuracy {
        failed.push(format!(
            "outcome_accuracy {:.4} < {}",
            m.outcome_accuracy, t.min_outcome_accuracy
        ));
    }
    if m.expected_clause_citation_rate < t.min_expected_clause_citation {
        failed.push(format!(
            "expected_clause_citation_rate {:.4} < {}",
            m.expected_clause_citation_rate, t.min_expected_clause_citation
        ));
    }
    if m.wrong_version_answers > t.max_wrong_version_answers {
        failed.push(format!(
            "wrong_version_answers {} > {}",
            m.wrong_version_answers, t.max_wrong_version_answers
        ));
    }
    failed
}

fn per_bucket(buckets: &BTreeMap<String, Counts>) -> serde_json::Value {
    buckets
        .iter()
        .map(|(k, c)| {
            (
                k.clone(),
                serde_json::to_value(c.metrics()).unwrap_or_default(),
            )
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

impl EvalReport {
    /// Every metric as one JSON object (the fields are documented in the README).
    pub fn to_json(&self) -> serde_json::Value {
        let e = &self.evaluation;
        serde_json::json!({
            "mode": if self.via_kafka { "via_kafka" } else { "in_process" },
            "search_backend": self.search_backend,
            "delivery": self.delivery,
            "overall": self.metrics,
            "by_region": per_bucket(&e.by_region),
            "by_version": per_bucket(&e.by_version),
            "by_decay_class": per_bucket(&e.by_decay_class),
            "stage_latency": self.stage_latency,
            "index_seconds": self.index_seconds,
            "run_seconds": self.run_seconds,
            "failures": e.failures,
            "failed_thresholds": self.failed_thresholds,
            "passed": self.passed(),
        })
    }

    /// The tables people read.
    pub fn render_text(&self) -> String {
        use std::fmt::Write as _;
        let (e, m) = (&self.evaluation, &self.metrics);
        let mut out = String::new();
        if let Some(backend) = &self.search_backend {
            let _ = writeln!(out, "search backend: {backend}");
        }
        let _ = writeln!(
            out,
            "golden evaluation: {} cases ({:.1}s indexing, {:.1}s running)\n",
            m.cases, self.index_seconds, self.run_seconds
        );
        for (name, value) in [
            ("outcome accuracy (answer vs escalate)", m.outcome_accuracy),
            ("version accuracy", m.version_accuracy),
            ("expected clause cited", m.expected_clause_citation_rate),
            ("citation precision", m.citation_precision),
            ("citation grounding rate", m.citation_grounding_rate),
            ("facts contained", m.facts_contained_rate),
            ("deflection rate", m.deflection_rate),
            ("escalation precision", m.escalation_precision),
            ("escalation recall", m.escalation_recall),
        ] {
            let _ = writeln!(out, "  {name:<40} {:>7.2} %", value * 100.0);
        }
        let _ = writeln!(
            out,
            "  {:<40} {:>7}",
            "wrong-version answers served", m.wrong_version_answers
        );
        for (title, map) in [
            ("region", &e.by_region),
            ("version", &e.by_version),
            ("decay class", &e.by_decay_class),
        ] {
            let _ = writeln!(
                out,
                "\n  {title:<14} {:>6} {:>9} {:>9} {:>9} {:>7}",
                "cases", "outcome", "version", "clause", "wrong-v"
            );
            for (key, counts) in map {
                let m = counts.metrics();
                let _ = writeln!(
                    out,
                    "  {key:<14} {:>6} {:>8.1}% {:>8.1}% {:>8.1}% {:>7}",
                    m.cases,
                    m.outcome_accuracy * 100.0,
                    m.version_accuracy * 100.0,
                    m.expected_clause_citation_rate * 100.0,
                    m.wrong_version_answers
                );
            }
        }
        let latency: Vec<String> = self
            .stage_latency
            .iter()
            .map(|(stage, l)| format!("{stage} p50 {:.2} ms p99 {:.2} ms", l.p50_ms, l.p99_ms))
            .collect();
        let _ = writeln!(out, "\n  stage latency: {}", latency.join("; "));
        if !e.failures.is_empty() {
            let _ = writeln!(out, "\n  failures ({}):", e.failures.len());
            for f in e.failures.iter().take(40) {
                let _ = writeln!(
                    out,
                    "    {}: expected {} | got {}",
                    f.case_id, f.expected, f.got
                );
            }
        }
        for failure in &self.failed_thresholds {
            let _ = writeln!(out, "THRESHOLD FAILED: {failure}");
        }
        out
    }
}
