//! The audit trail against the real ClickHouse (and, for the sink, the real broker):
//! a deliberately broken generator moves the mismatch and grounding figures by exactly the
//! amount its outcomes predict, and a kill -9 mid-batch neither loses nor double-counts a row.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::audit::AuditDb;
use common::workers::{apply_topics, index_copy, repo, Worker};
use policy_audit::analytics::{self, Table, Window};
use policy_audit::row;
use policy_audit::AuditRow;
use policy_avro::{
    AvroCodec, Citation, InputCoordinates, InputCoordinates as Coordinates, PolicyAnswer,
    SchemaName,
};
use policy_pipeline::generate::{GenerateFuture, GenerationRequest, Generator};
use policy_pipeline::golden_turn::turn_for_case;
use policy_pipeline::{embedded, ExtractiveGenerator, Outcome, PipelineConfig};

/// The extractive generator, except that every eu-v4 citation is rewritten to eu-v3: the
/// classic "cites the policy that was in force last year" defect.
#[derive(Debug)]
struct CitesPreviousEuVersion(ExtractiveGenerator);

impl Generator for CitesPreviousEuVersion {
    fn name(&self) -> &str {
        "broken-cites-eu-v3"
    }

    fn retries_on_rejection(&self) -> bool {
        false
    }

    fn generate<'a>(&'a self, request: GenerationRequest<'a>) -> GenerateFuture<'a> {
        Box::pin(async move {
            let mut generated = self.0.generate(request).await?;
            generated.text = generated.text.replace("[clause: eu-v4#", "[clause: eu-v3#");
            Ok(generated)
        })
    }
}

/// The golden EU turns through the in-process pipeline with `generator`, as audit rows.
async fn eu_rows(generator: Arc<dyn Generator>) -> Vec<AuditRow> {
    let dir = tempfile::tempdir().unwrap();
    let index = index_copy(dir.path());
    let assembled = embedded::build(
        &repo().join("golden/policies"),
        &index,
        &policy_search::embed::default_model_dir(),
        PipelineConfig::default(),
        Some(generator),
    )
    .expect("pipeline");
    let cases = policy_core::load_cases(&repo().join("golden/cases")).unwrap();
    let mut rows = Vec::new();
    for (i, case) in cases
        .iter()
        .filter(|c| c.region.as_deref() == Some("eu"))
        .enumerate()
    {
        let turn = turn_for_case(case).unwrap();
        let input = InputCoordinates {
            topic: "policy.turns".into(),
            partition: 0,
            offset: i as i64,
        };
        let at = Coordinates {
            topic: "policy.answers".into(),
            partition: 0,
            offset: i as i64,
        };
        rows.push(match assembled.chain.process(turn, input).await.unwrap() {
            Outcome::Answer(a) => row::from_answer(&a, &at),
            Outcome::Escalate(e) => row::from_escalation(&e, &at),
        });
    }
    rows
}

fn is_mismatch(row: &AuditRow) -> bool {
    row.judge_verdict == "reject"
        && row.judge_reasons.iter().any(|r| {
            [
                "version_mismatch:",
                "unknown_clause:",
                "clause_not_retrieved:",
            ]
            .iter()
            .any(|code| r.starts_with(code))
        })
}

fn grounded(row: &AuditRow) -> bool {
    !row.cited_versions.is_empty()
        && row
            .cited_versions
            .iter()
            .all(|v| *v == row.resolved_version)
}

/// (judged, mismatches, drafts with citations, grounded) for eu, as ClickHouse computes them.
async fn eu_figures(db: &AuditDb) -> (f64, f64, f64, f64) {
    let run = |name| async move {
        let table = analytics::run(
            &db.store,
            analytics::query(name).unwrap(),
            Window::default(),
            60,
        )
        .await
        .unwrap();
        table
            .rows
            .into_iter()
            .find(|r| Table::text(r, "region") == "eu")
            .unwrap()
    };
    let mismatch = run("judge_mismatch").await;
    let grounding = run("grounding_rate").await;
    let n = |row: &serde_json::Map<String, serde_json::Value>, c| Table::number(row, c).unwrap();
    (
        n(&mismatch, "judged"),
        n(&mismatch, "mismatches"),
        n(&grounding, "drafts_with_citations"),
        n(&grounding, "grounded"),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn broken_generator_moves_mismatch_and_grounding_by_the_expected_amount() {
    let extractive = ExtractiveGenerator {
        runner_up_margin: PipelineConfig::default().runner_up_margin,
    };
    let healthy = eu_rows(Arc::new(extractive)).await;
    let broken = eu_rows(Arc::new(CitesPreviousEuVersion(extractive))).await;
    // Hand-computed from the healthy outcomes: every eu-v4 draft that cited eu-v4 now cites
    // eu-v3, so it becomes a mismatch (unless it already was one) and stops being grounded.
    let eu_v4_citing_drafts: Vec<&AuditRow> = healthy
        .iter()
        .filter(|r| r.resolved_version == "eu-v4" && r.cited_versions.iter().any(|v| v == "eu-v4"))
        .collect();
    let new_mismatches = eu_v4_citing_drafts
        .iter()
        .filter(|r| !is_mismatch(r))
        .count() as f64;
    let lost_grounding = eu_v4_citing_drafts.iter().filter(|r| grounded(r)).count() as f64;
    assert!(
        new_mismatches >= 20.0,
        "the golden set has many eu-v4 turns: {new_mismatches}"
    );

    let (healthy_db, broken_db) = (
        AuditDb::fresh("healthy").await,
        AuditDb::fresh("broken").await,
    );
    healthy_db.store.insert(&healthy).await.unwrap();
    broken_db.store.insert(&broken).await.unwrap();
    let (judged, mismatches, drafts, grounded_drafts) = eu_figures(&healthy_db).await;
    let (b_judged, b_mismatches, b_drafts, b_grounded) = eu_figures(&broken_db).await;

    assert_eq!(
        mismatches, 0.0,
        "the healthy generator never cites another version"
    );
    assert_eq!(grounded_drafts, drafts, "healthy grounding rate is 100%");
    assert_eq!(b_judged, judged, "the same turns reach the judge");
    assert_eq!(b_drafts, drafts, "the same drafts carry citations");
    assert_eq!(b_mismatches - mismatches, new_mismatches);
    assert_eq!(grounded_drafts - b_grounded, lost_grounding);
    println!(
        "eu: judged {judged}; mismatch rate {:.4} -> {:.4}; grounding rate {:.4} -> {:.4}",
        mismatches / judged,
        b_mismatches / b_judged,
        grounded_drafts / drafts,
        b_grounded / b_drafts
    );
    healthy_db.drop().await;
    broken_db.drop().await;
}

fn outcome(i: usize) -> PolicyAnswer {
    PolicyAnswer {
        conversation_id: format!("conv-{}", i % 97),
        turn_id: format!("kill-{i}"),
        question: "What is the return window?".into(),
        answer_text: "Within 30 days [clause: eu-v4#sec-3.2]".into(),
        citations: vec![Citation {
            clause_id: "eu-v4#sec-3.2".into(),
            version_id: "eu-v4".into(),
            effective_from: Some(1_769_904_000_000),
        }],
        resolved_region: "eu".into(),
        resolved_version: "eu-v4".into(),
        judge_verdict: "pass".into(),
        answered_at: policy_avro::now_millis(),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn kill_9_mid_batch_loses_no_row_and_counts_none_twice() {
    const OUTCOMES: usize = 3_000;
    let prefix = format!("audit-kill-{}", uuid::Uuid::new_v4().simple());
    apply_topics(&prefix);
    let db = AuditDb::fresh("kill").await;
    let topic = format!("{prefix}.answers");
    let codec =
        AvroCodec::<PolicyAnswer>::register(common::registry(), &topic, SchemaName::PolicyAnswer)
            .await
            .unwrap();
    let producer = common::producer();
    for i in 0..OUTCOMES {
        let answer = outcome(i);
        common::produce(
            &producer,
            &topic,
            answer.conversation_id.as_bytes(),
            &codec.encode(&answer).unwrap(),
        )
        .await;
    }
    let env = [
        ("CLICKHOUSE_DATABASE", db.name.as_str()),
        // Small batches: a hundred inserts take long enough for the kill to land mid-stream
        // (with 250-row batches a fast machine stored all 3,000 between two looks).
        ("POLICY_AUDIT_BATCH_ROWS", "25"),
        ("POLICY_AUDIT_BATCH_MS", "1000"),
    ];
    let first = Worker::start_with_env("audit", &prefix, &env);
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    let seen = loop {
        let n = db.scalar("SELECT count() FROM {db}.turns").await as usize;
        if n >= 25 || std::time::Instant::now() > deadline {
            break n;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    assert!(
        (25..OUTCOMES).contains(&seen),
        "killed mid-stream: {seen} rows"
    );
    first.kill_9();
    let at_kill = db.scalar("SELECT count() FROM {db}.turns").await;

    // Restart while the dead member is still in the group: policy_kafka::assignment recovers.
    let second = Worker::start_with_env("audit", &prefix, &env);
    let rows = db.wait_for_rows(OUTCOMES, Duration::from_secs(240)).await;
    let log = second.log_tail(30);
    assert!(second.stop().success(), "graceful stop flushes and commits");
    assert_eq!(rows, OUTCOMES, "every outcome has its row\n{log}");
    assert_eq!(
        db.scalar("SELECT uniqExact(turn_id) FROM {db}.turns").await as usize,
        OUTCOMES,
        "no row lost"
    );
    assert_eq!(
        db.scalar("SELECT count() FROM {db}.turns FINAL WHERE turn_id LIKE 'kill-%'")
            .await as usize,
        OUTCOMES,
        "re-delivered rows are replaced, not counted twice"
    );
    let physical = db.scalar("SELECT count() FROM {db}.turns").await;
    println!(
        "killed with {at_kill} rows stored; {} physical rows after restart for {OUTCOMES} turns (re-inserted duplicates collapse under FINAL and on merge)",
        physical
    );
    db.drop().await;
}
