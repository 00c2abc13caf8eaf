//! kill -9 in the middle of 2,000 turns, then restart: every turn ends with an outcome; after
//! de-duplication by turn id exactly one per turn, and re-deliveries agree with the first.

mod common;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::workers::{apply_topics, Worker};
use policy_avro::{AvroCodec, ChatTurn, Escalation, PolicyAnswer, SchemaName};
use policy_pipeline::golden_turn::turn_for_case;
use policy_pipeline::Outcome;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::Message;

const TURNS: usize = 2_000;

/// Outcomes seen so far, by turn id (re-deliveries included).
type Seen = HashMap<String, Vec<Outcome>>;

#[tokio::test(flavor = "multi_thread")]
async fn kill_9_mid_stream_loses_nothing_and_duplicates_nothing_after_dedup() {
    let prefix = format!("crash-{}", uuid::Uuid::new_v4().simple());
    apply_topics(&prefix);
    let registry = common::registry();
    let turns_topic = format!("{prefix}.turns");
    let codec =
        AvroCodec::<ChatTurn>::register(registry.clone(), &turns_topic, SchemaName::ChatTurn)
            .await
            .unwrap();
    let cases = policy_core::load_cases(&common::workers::repo().join("golden/cases")).unwrap();
    let turns: Vec<ChatTurn> = cases
        .iter()
        .cycle()
        .take(TURNS)
        .enumerate()
        .map(|(i, case)| {
            let mut turn = turn_for_case(case).unwrap();
            turn.turn_id = format!("{}#{i}", case.id);
            turn.conversation_id = format!("conv-{}", i % 300);
            turn
        })
        .collect();
    let producer = common::producer();
    for turn in &turns {
        common::produce(
            &producer,
            &turns_topic,
            turn.conversation_id.as_bytes(),
            &codec.encode(turn).unwrap(),
        )
        .await;
    }

    let answers = Arc::new(
        AvroCodec::<PolicyAnswer>::register(
            registry.clone(),
            &format!("{prefix}.answers"),
            SchemaName::PolicyAnswer,
        )
        .await
        .unwrap(),
    );
    let escalations = Arc::new(
        AvroCodec::<Escalation>::register(
            registry,
            &format!("{prefix}.escalations"),
            SchemaName::Escalation,
        )
        .await
        .unwrap(),
    );
    let reader: BaseConsumer = common::config()
        .consumer(&format!("crash-reader-{}", uuid::Uuid::new_v4().simple()))
        .create()
        .unwrap();
    reader
        .subscribe(&[
            &format!("{prefix}.answers"),
            &format!("{prefix}.escalations"),
        ])
        .unwrap();
    let mut seen: Seen = HashMap::new();
    let read = |seen: &mut Seen, until: &dyn Fn(&Seen) -> bool, timeout: Duration| {
        let deadline = Instant::now() + timeout;
        while !until(seen) && Instant::now() < deadline {
            let Some(message) = reader.poll(Duration::from_millis(100)) else {
                continue;
            };
            let message = message.unwrap();
            let payload = message.payload().unwrap().to_vec();
            let is_answer = message.topic().ends_with(".answers");
            let (answers, escalations) = (answers.clone(), escalations.clone());
            let outcome = tokio::task::block_in_place(|| {
                tokio::runtime::Handle::current().block_on(async move {
                    if is_answer {
                        Outcome::Answer(answers.decode(&payload).await.unwrap())
                    } else {
                        Outcome::Escalate(escalations.decode(&payload).await.unwrap())
                    }
                })
            });
            seen.entry(outcome.turn_id().to_string())
                .or_default()
                .push(outcome);
        }
    };

    let first = Worker::start(&prefix);
    read(
        &mut seen,
        &|s| s.len() >= TURNS / 4,
        Duration::from_secs(180),
    );
    assert!(seen.len() < TURNS, "killed mid-stream, not after the end");
    first.kill_9();
    let killed_at = seen.len();
    // Restart while the dead member is still in the group (session timeout 10 s): its expiry
    // then lands mid-rebalance, the case policy_kafka::assignment recovers from.
    std::thread::sleep(Duration::from_secs(5));

    let second = Worker::start(&prefix);
    read(&mut seen, &|s| s.len() >= TURNS, Duration::from_secs(300));
    // Let re-deliveries of the last uncommitted messages arrive too.
    read(&mut seen, &|_| false, Duration::from_secs(3));
    let second_log = second.log_tail(40);
    let rejoined = second_log.contains("leaving and rejoining");
    drop(second);

    let missing: Vec<&String> = turns
        .iter()
        .map(|t| &t.turn_id)
        .filter(|id| !seen.contains_key(*id))
        .collect();
    assert!(
        missing.is_empty(),
        "{} turns without an outcome, e.g. {:?}\nrestarted worker log:\n{second_log}",
        missing.len(),
        &missing[..missing.len().min(5)]
    );
    assert_eq!(
        seen.len(),
        TURNS,
        "after de-duplication by turn id: exactly one outcome per turn"
    );
    let redelivered: usize = seen.values().map(|v| v.len() - 1).sum();
    for (turn_id, outcomes) in &seen {
        let kinds: Vec<String> = outcomes
            .iter()
            .map(|o| match o {
                Outcome::Answer(a) => format!("answer {:?}", a.citations),
                Outcome::Escalate(e) => format!("escalate {}", e.reason_code),
            })
            .collect();
        assert!(
            kinds.windows(2).all(|w| w[0] == w[1]),
            "{turn_id}: re-delivered outcomes disagree: {kinds:?}"
        );
    }
    println!("killed after {killed_at} outcomes; {redelivered} re-delivered outcome(s) removed by turn-id de-duplication; stranded replacement rejoined: {rejoined}");
}
