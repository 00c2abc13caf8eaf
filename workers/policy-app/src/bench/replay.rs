//! `policyctl bench replay --turns N`: replay rate of each mode over N turns. The golden
//! questions (cycled, each turn with an id of its own) are produced to a scratch turns topic,
//! served by an in-process pipeline and audited into a scratch database, exactly as the workers
//! and the audit sink would; then each replay mode reads them back and the table reports turns/s.
//! Everything it creates is deleted afterwards (unless `keep`).

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use futures::StreamExt;
use policy_audit::{AuditConfig, AuditStore};
use policy_avro::{ChatTurn, InputCoordinates, SchemaName};
use policy_kafka::topics::{apply_topics, TopicSpec};
use policy_pipeline::golden_turn::turn_for_case;
use policy_pipeline::Outcome;
use rdkafka::admin::{AdminClient, AdminOptions};
use rdkafka::client::DefaultClientContext;
use rdkafka::producer::{FutureProducer, FutureRecord};

use crate::client::ClientCodecs;
use crate::replay::{self, Archive, Mode, PartitionRange, ReplayOptions, Source, Summary};
use crate::settings::AppSettings;

#[derive(Debug, Clone)]
pub struct ReplayBench {
    pub turns: usize,
    pub golden: PathBuf,
    /// Keep the scratch topic and database afterwards.
    pub keep: bool,
}

const PARTITIONS: i32 = 6;
/// Audit rows per insert (the sink's order of magnitude).
const INSERT_BATCH: usize = 10_000;

/// Serves `turns` in process and audits them: (coordinates, audit row) as a worker and the audit
/// sink would have written them.
async fn serve_and_audit(
    settings: &AppSettings,
    store: &AuditStore,
    topic: &str,
    turns: Vec<ChatTurn>,
) -> anyhow::Result<(f64, f64, usize)> {
    let codecs = ClientCodecs::register(&settings.kafka, &settings.topics.names()).await?;
    let producer: FutureProducer = settings.kafka.producer().create()?;
    let started = Instant::now();
    // Produced first, so each turn's coordinates are the ones the workers would have read.
    let mut produced = Vec::with_capacity(turns.len());
    for chunk in turns.chunks(5_000) {
        let sends = chunk.iter().map(|turn| {
            let payload = codecs.turns.encode(turn);
            let producer = &producer;
            async move {
                let payload = payload?;
                let delivery = producer
                    .send(
                        FutureRecord::to(topic)
                            .key(&turn.conversation_id)
                            .payload(&payload),
                        Duration::from_secs(30),
                    )
                    .await
                    .map_err(|(e, _)| e)
                    .context("producing a turn")?;
                anyhow::Ok(InputCoordinates {
                    topic: topic.to_string(),
                    partition: delivery.partition,
                    offset: delivery.offset,
                })
            }
        });
        for coordinates in futures::future::join_all(sends).await {
            produced.push(coordinates?);
        }
    }
    let produce_seconds = started.elapsed().as_secs_f64();
    let scratch = tempfile::tempdir()?;
    let index_dir = settings
        .corpus
        .index_dir
        .clone()
        .unwrap_or_else(|| scratch.path().to_path_buf());
    let (assembled, _) = crate::assemble::pipeline(settings, &index_dir).await?;
    let chain = &assembled.chain;
    let started = Instant::now();
    let mut rows = Vec::with_capacity(INSERT_BATCH);
    let mut answered = 0;
    let mut outcomes = futures::stream::iter(turns.into_iter().zip(produced))
        .map(|(turn, input)| async move {
            let outcome = chain.process(turn, input.clone()).await?;
            anyhow::Ok((outcome, input))
        })
        .buffered(16);
    while let Some(result) = outcomes.next().await {
        let (outcome, input) = result?;
        answered += matches!(outcome, Outcome::Answer(_)) as usize;
        rows.push(match &outcome {
            Outcome::Answer(a) => policy_audit::row::from_answer(a, &input),
            Outcome::Escalate(e) => policy_audit::row::from_escalation(e, &input),
        });
        if rows.len() >= INSERT_BATCH {
            store.insert(&rows).await?;
            rows.clear();
        }
    }
    if !rows.is_empty() {
        store.insert(&rows).await?;
    }
    Ok((produce_seconds, started.elapsed().as_secs_f64(), answered))
}

pub async fn run(
    settings: &AppSettings,
    audit: &AuditConfig,
    bench: &ReplayBench,
) -> anyhow::Result<String> {
    anyhow::ensure!(bench.turns > 0, "--turns must be positive");
    let tag = uuid::Uuid::new_v4().simple().to_string()[..10].to_string();
    let settings = AppSettings {
        topics: crate::settings::TopicSettings {
            topic_prefix: format!("bench-replay-{tag}"),
        },
        ..settings.clone()
    };
    let audit = AuditConfig {
        database: format!("bench_replay_{tag}"),
        ..audit.clone()
    };
    let topic = settings.topics.names().turns;
    apply_topics(
        &settings.kafka,
        &[TopicSpec {
            name: topic.clone(),
            partitions: PARTITIONS,
            replication_factor: 1,
            cleanup_policy: "delete".into(),
            retention_ms: 86_400_000,
            value_schema: SchemaName::ChatTurn,
            key: "conversation_id".into(),
        }],
        false,
    )
    .await?;
    let store = AuditStore::connect(&audit).await?;
    let result = measure(&settings, &audit, &store, &topic, bench).await;
    if !bench.keep {
        let _ = store
            .execute(&format!("DROP DATABASE IF EXISTS {}", audit.database))
            .await;
        let admin: AdminClient<DefaultClientContext> = settings.kafka.client().create()?;
        let _ = admin
            .delete_topics(&[topic.as_str()], &AdminOptions::new())
            .await;
    }
    result
}

async fn measure(
    settings: &AppSettings,
    audit: &AuditConfig,
    store: &AuditStore,
    topic: &str,
    bench: &ReplayBench,
) -> anyhow::Result<String> {
    let cases = policy_core::load_cases(&bench.golden)
        .with_context(|| bench.golden.display().to_string())?;
    anyhow::ensure!(
        !cases.is_empty(),
        "no golden cases in {}",
        bench.golden.display()
    );
    let turns: Vec<ChatTurn> = (0..bench.turns)
        .map(|i| {
            let mut turn = turn_for_case(&cases[i % cases.len()])
                .map_err(|e| anyhow::anyhow!("{}: {e}", cases[i % cases.len()].id))?;
            turn.turn_id = format!("bench-{i:07}");
            turn.conversation_id = format!("bench-conversation-{}", i % 1_000);
            Ok(turn)
        })
        .collect::<anyhow::Result<_>>()?;
    let (produce_seconds, serve_seconds, answered) =
        serve_and_audit(settings, store, topic, turns).await?;
    let out = tempfile::tempdir()?;
    let stop = Arc::new(AtomicBool::new(false));
    let mut rows: Vec<(String, Summary)> = Vec::new();
    let ranges: Vec<PartitionRange> = (0..PARTITIONS)
        .map(|partition| PartitionRange {
            partition,
            from: 0,
            to: i64::MAX,
        })
        .collect();
    let everything = Source::AuditWhere("1 = 1".into());
    let modes = [
        (
            "rerun, turns topic by offsets",
            Source::Ranges(ranges),
            Mode::Rerun,
            false,
        ),
        ("rerun, audit store", everything.clone(), Mode::Rerun, false),
        (
            "rerun --pinned, audit store",
            everything.clone(),
            Mode::Rerun,
            true,
        ),
        ("rejudge, audit store", everything, Mode::Rejudge, false),
    ];
    for (what, source, mode, pinned) in modes {
        let mut options = ReplayOptions::new(source, mode);
        options.out = Some(out.path().join("replay.jsonl"));
        options.concurrency = 16;
        if pinned {
            // The turns were all served under the corpus of `settings`: the pinned lookup and
            // its checks are measured, not an index build per sha.
            options.pinned = Some(Archive {
                data_dir: settings.corpus.data_dir.clone(),
                repo: None,
            });
        }
        let summary = replay::run(settings, audit, &options, stop.clone(), &mut |_| {}).await?;
        // Re-judging reads the answers only.
        let expected = if mode == Mode::Rejudge {
            answered
        } else {
            bench.turns
        };
        anyhow::ensure!(
            summary.turns as usize == expected,
            "{what}: replayed {} of {expected} turns",
            summary.turns
        );
        rows.push((what.to_string(), summary));
    }
    use std::fmt::Write as _;
    let mut table = format!(
        "{:<34} {:>9} {:>9} {:>9} {:>8}\n",
        "mode", "turns", "seconds", "turns/s", "same"
    );
    let _ = writeln!(
        table,
        "{:<34} {:>9} {:>9.1} {:>9.0} {:>8}",
        "(setup) produce to the turns topic",
        bench.turns,
        produce_seconds,
        bench.turns as f64 / produce_seconds.max(1e-9),
        "-"
    );
    let _ = writeln!(
        table,
        "{:<34} {:>9} {:>9.1} {:>9.0} {:>8}",
        "(setup) serve in process + audit",
        bench.turns,
        serve_seconds,
        bench.turns as f64 / serve_seconds.max(1e-9),
        "-"
    );
    for (what, summary) in &rows {
        let _ = writeln!(
            table,
            "{:<34} {:>9} {:>9.1} {:>9.0} {:>8}",
            what,
            summary.turns,
            summary.seconds,
            summary.turns as f64 / summary.seconds.max(1e-9),
            summary.count(replay::Change::Same)
        );
    }
    let _ = writeln!(
        table,
        "{} golden questions cycled over {} turns; replay rates include the pipeline build \
         (index from --index-dir when given) and reading; same = reproduced what was served",
        cases.len(),
        bench.turns
    );
    Ok(table)
}
