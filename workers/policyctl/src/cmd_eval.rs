//! `policyctl eval`: run golden cases through the pipeline and report the metrics the product
//! is judged by.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use policy_avro::InputCoordinates;
use policy_core::load_cases;
use policy_pipeline::embedded;
use policy_pipeline::eval::{Counts, Evaluation, Metrics};
use policy_pipeline::golden_turn::turn_for_case;
use policy_pipeline::PipelineConfig;
use policy_search::embed::default_model_dir;

#[derive(Args)]
pub struct EvalArgs {
    /// Corpus root (manifest.json and {region}/v{N}/*.md); any corpus in that format.
    #[arg(long, default_value = "golden/policies")]
    policies: PathBuf,
    /// A .jsonl file or a directory of them.
    #[arg(long, default_value = "golden/cases")]
    golden: PathBuf,
    /// Index directory; default: a fresh temporary index of its own.
    #[arg(long)]
    index_dir: Option<PathBuf>,
    /// Print one JSON object with every metric instead of tables.
    #[arg(long)]
    json: bool,
    /// Thresholds: exit non-zero when one is not met.
    #[arg(long, default_value_t = 0.97)]
    min_outcome_accuracy: f64,
    #[arg(long, default_value_t = 0.95)]
    min_expected_clause_citation: f64,
    #[arg(long, default_value_t = 0)]
    max_wrong_version_answers: usize,
    /// Only the first N cases (for quick runs).
    #[arg(long)]
    limit: Option<usize>,
    /// Send the cases as turns through the real broker and the running workers
    /// (`policyctl worker all`, or the per-stage workers) and collect their outcomes.
    #[arg(long)]
    via_kafka: bool,
    #[arg(long, env = "POLICY_TOPIC_PREFIX", default_value = "policy")]
    topic_prefix: String,
    /// How long to wait for all outcomes in --via-kafka mode.
    #[arg(long, default_value_t = 300)]
    timeout_secs: u64,
}

pub async fn run(args: EvalArgs) -> anyhow::Result<ExitCode> {
    let mut cases = load_cases(&args.golden).with_context(|| args.golden.display().to_string())?;
    if let Some(limit) = args.limit {
        cases.truncate(limit);
    }
    let scratch = tempfile::tempdir()?;
    let index_dir = args
        .index_dir
        .clone()
        .unwrap_or_else(|| scratch.path().to_path_buf());
    let started = Instant::now();
    // Via Kafka the running workers answer; only the corpus is needed here, to score citations.
    let assembled = if args.via_kafka {
        None
    } else {
        let backend = crate::search_backend::SearchBackend::from_env()?;
        let mut assembled = tokio::task::block_in_place(|| {
            embedded::build(
                &args.policies,
                &index_dir,
                &default_model_dir(),
                PipelineConfig::load()?,
                None,
            )
            .map_err(anyhow::Error::from)
        })?;
        backend.attach(&mut assembled, true).await?;
        Some(assembled)
    };
    let index_seconds = started.elapsed().as_secs_f64();
    // Via Kafka the workers' backend answers; this process does not know which.
    let search_backend = assembled
        .as_ref()
        .map(|a| a.pipeline.search_backend().to_string());
    let corpus = match &assembled {
        Some(a) => a.corpus.clone(),
        None => std::sync::Arc::new(
            policy_core::load_dir(&args.policies)
                .with_context(|| args.policies.display().to_string())?,
        ),
    };
    let clause_text = |id: &str| corpus.clause(id).map(|c| c.text.clone());
    let mut evaluation = Evaluation::default();
    let mut latencies: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    let run_started = Instant::now();
    let mut delivery = serde_json::Value::Null;
    let mut outcomes = Vec::with_capacity(cases.len());
    if args.via_kafka {
        let kafka = policy_kafka::KafkaConfig::from_env();
        let topics = crate::topics::TopicNames::with_prefix(&args.topic_prefix);
        let collected = crate::via_kafka::run_cases(
            &kafka,
            &topics,
            &cases,
            std::time::Duration::from_secs(args.timeout_secs),
        )
        .await?;
        delivery = serde_json::json!({
            "turns": cases.len(),
            "outcomes": collected.outcomes.len(),
            "missing": collected.missing,
            "duplicate_outcomes": collected.duplicates.values().sum::<usize>(),
            "turns_per_second": cases.len() as f64 / collected.seconds.max(1e-9),
        });
        if !collected.missing.is_empty() {
            anyhow::bail!(
                "{} turn(s) without an outcome after {} s: {:?}",
                collected.missing.len(),
                args.timeout_secs,
                &collected.missing[..collected.missing.len().min(10)]
            );
        }
        let mut by_id = collected.outcomes;
        for case in &cases {
            outcomes.push(by_id.remove(&case.id).expect("no missing outcomes"));
        }
    } else {
        for (offset, case) in cases.iter().enumerate() {
            let turn = turn_for_case(case).map_err(|e| anyhow::anyhow!("{}: {e}", case.id))?;
            let input = InputCoordinates {
                topic: "golden".into(),
                partition: 0,
                offset: offset as i64,
            };
            let assembled = assembled.as_ref().expect("built for in-process mode");
            let outcome = assembled.pipeline.process(turn, input).await?;

            outcomes.push(outcome);
        }
    }
    for (case, outcome) in cases.iter().zip(&outcomes) {
        let stage_latency = match outcome {
            policy_pipeline::Outcome::Answer(a) => &a.stage_latency_ms,
            policy_pipeline::Outcome::Escalate(e) => &e.stage_latency_ms,
        };
        for (stage, ms) in stage_latency {
            latencies.entry(stage.clone()).or_default().push(*ms);
        }
        evaluation.record(case, outcome, &clause_text);
    }
    let run_seconds = run_started.elapsed().as_secs_f64();
    let metrics = evaluation.overall.metrics();
    let percentiles: serde_json::Value = latencies
        .iter_mut()
        .map(|(stage, values)| {
            values.sort_by(f64::total_cmp);
            let p = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
            (
                stage.clone(),
                serde_json::json!({"p50_ms": p(0.5), "p99_ms": p(0.99)}),
            )
        })
        .collect::<serde_json::Map<_, _>>()
        .into();
    let failed_thresholds = thresholds(&args, &metrics);
    if args.json {
        let per = |m: &std::collections::BTreeMap<String, Counts>| -> serde_json::Value {
            m.iter()
                .map(|(k, c)| {
                    (
                        k.clone(),
                        serde_json::to_value(c.metrics()).expect("serialisable"),
                    )
                })
                .collect::<serde_json::Map<_, _>>()
                .into()
        };
        let report = serde_json::json!({
            "mode": if args.via_kafka { "via_kafka" } else { "in_process" },
            "search_backend": search_backend,
            "delivery": delivery,
            "overall": metrics,
            "by_region": per(&evaluation.by_region),
            "by_version": per(&evaluation.by_version),
            "by_decay_class": per(&evaluation.by_decay_class),
            "stage_latency": percentiles,
            "index_seconds": index_seconds,
            "run_seconds": run_seconds,
            "failures": evaluation.failures,
            "failed_thresholds": failed_thresholds,
            "passed": failed_thresholds.is_empty(),
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        if let Some(backend) = &search_backend {
            println!("search backend: {backend}");
        }
        print_tables(
            &evaluation,
            &metrics,
            &percentiles,
            index_seconds,
            run_seconds,
        );
        for failure in &failed_thresholds {
            println!("THRESHOLD FAILED: {failure}");
        }
    }
    Ok(if failed_thresholds.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn thresholds(args: &EvalArgs, m: &Metrics) -> Vec<String> {
    let mut failed = Vec::new();
    if m.outcome_accuracy < args.min_outcome_accuracy {
        failed.push(format!(
            "outcome_accuracy {:.4} < {}",
            m.outcome_accuracy, args.min_outcome_accuracy
        ));
    }
    if m.expected_clause_citation_rate < args.min_expected_clause_citation {
        failed.push(format!(
            "expected_clause_citation_rate {:.4} < {}",
            m.expected_clause_citation_rate, args.min_expected_clause_citation
        ));
    }
    if m.wrong_version_answers > args.max_wrong_version_answers {
        failed.push(format!(
            "wrong_version_answers {} > {}",
            m.wrong_version_answers, args.max_wrong_version_answers
        ));
    }
    failed
}

fn print_tables(
    e: &Evaluation,
    m: &Metrics,
    latency: &serde_json::Value,
    index_seconds: f64,
    run_seconds: f64,
) {
    println!(
        "golden evaluation: {} cases ({:.1}s indexing, {:.1}s running)\n",
        m.cases, index_seconds, run_seconds
    );
    let rows = [
        ("outcome accuracy (answer vs escalate)", m.outcome_accuracy),
        ("version accuracy", m.version_accuracy),
        ("expected clause cited", m.expected_clause_citation_rate),
        ("citation precision", m.citation_precision),
        ("citation grounding rate", m.citation_grounding_rate),
        ("facts contained", m.facts_contained_rate),
        ("deflection rate", m.deflection_rate),
        ("escalation precision", m.escalation_precision),
        ("escalation recall", m.escalation_recall),
    ];
    for (name, value) in rows {
        println!("  {name:<40} {:>7.2} %", value * 100.0);
    }
    println!(
        "  {:<40} {:>7}",
        "wrong-version answers served", m.wrong_version_answers
    );
    let section = |title: &str, map: &std::collections::BTreeMap<String, Counts>| {
        println!(
            "\n  {title:<14} {:>6} {:>9} {:>9} {:>9} {:>7}",
            "cases", "outcome", "version", "clause", "wrong-v"
        );
        for (key, counts) in map {
            let m = counts.metrics();
            println!(
                "  {key:<14} {:>6} {:>8.1}% {:>8.1}% {:>8.1}% {:>7}",
                m.cases,
                m.outcome_accuracy * 100.0,
                m.version_accuracy * 100.0,
                m.expected_clause_citation_rate * 100.0,
                m.wrong_version_answers
            );
        }
    };
    section("region", &e.by_region);
    section("version", &e.by_version);
    section("decay class", &e.by_decay_class);
    println!("\n  stage latency: {latency}");
    if !e.failures.is_empty() {
        println!("\n  failures ({}):", e.failures.len());
        for f in e.failures.iter().take(40) {
            println!("    {}: expected {} | got {}", f.case_id, f.expected, f.got);
        }
    }
}
