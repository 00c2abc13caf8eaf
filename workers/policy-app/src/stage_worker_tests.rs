//! The four stage workers chained by hand through their output records (no broker, no
//! registry, no model): same outcome as one `all` worker, every stage's latency on it, every
//! step in each worker's metrics, and a malformed input refused with its reason.

use policy_kafka::metrics::WorkerMetrics;
use policy_pipeline::fakes::{chat_turn, fake_chain, tiny_corpus};
use rdkafka::message::{OwnedHeaders, OwnedMessage, Timestamp};
use rdkafka::Message;

use super::*;
use crate::metrics::{steps, StageMetrics};

fn worker(role: Role, codecs: Arc<StageCodecs>) -> StageWorker {
    let chain = fake_chain(tiny_corpus(), None);
    let metrics = WorkerMetrics::new(role.name(), &steps(&chain));
    StageWorker {
        role,
        chain: chain.with_observer(Arc::new(StageMetrics(metrics.clone()))),
        codecs,
        topics: TopicNames::with_prefix("t"),
        metrics,
    }
}

fn message(topic: &str, payload: Vec<u8>, offset: i64) -> OwnedMessage {
    OwnedMessage::new(
        Some(payload),
        Some(b"conv-1".to_vec()),
        topic.to_string(),
        Timestamp::NotAvailable,
        0,
        offset,
        Some(OwnedHeaders::new()),
    )
}

fn turn_message(codecs: &StageCodecs) -> OwnedMessage {
    let turn = chat_turn(
        "How many days is the return window?",
        Some("eu"),
        Some("2026-06-01T10:00:00Z"),
    );
    message("t.turns", codecs.turn.encode(&turn).unwrap(), 7)
}

#[tokio::test]
async fn per_stage_workers_record_every_stage_like_one_worker() {
    let codecs = Arc::new(StageCodecs::offline().unwrap());
    let all = worker(Role::All, codecs.clone());
    let whole = all.handle_message(&turn_message(&codecs)).await.unwrap();
    assert_eq!(whole[0].topic, "t.answers");

    let stages: Vec<StageWorker> = [Role::Enrich, Role::Retrieve, Role::Generate, Role::Judge]
        .into_iter()
        .map(|role| worker(role, codecs.clone()))
        .collect();
    let mut input = turn_message(&codecs);
    let mut topics = Vec::new();
    for stage in &stages {
        assert_eq!(stage.input_topic(), input.topic());
        let out = stage.handle_message(&input).await.unwrap();
        topics.push(out[0].topic.clone());
        input = message(&out[0].topic, out[0].payload.clone(), 0);
    }
    assert_eq!(
        topics,
        [
            "t.turns.enriched",
            "t.turns.retrieved",
            "t.turns.drafted",
            "t.answers"
        ]
    );
    let answer = codecs
        .answer
        .decode(input.payload().unwrap())
        .await
        .unwrap();
    let one = codecs.answer.decode(&whole[0].payload).await.unwrap();
    assert_eq!(
        (&answer.answer_text, &answer.citations, &answer.input),
        (&one.answer_text, &one.citations, &one.input)
    );
    assert_eq!(
        answer.input.offset, 7,
        "the turn's own coordinates travel along"
    );
    assert_eq!(
        answer.stage_latency_ms.keys().collect::<Vec<_>>(),
        ["enrich", "generate", "judge", "retrieve"]
    );
    for (stage, name) in stages
        .iter()
        .zip(["enrich", "retrieve", "generate", "judge"])
    {
        let text = stage.metrics.render();
        for step in ["decode", name, "encode"] {
            let line = format!(
                "policy_step_seconds_total{{stage=\"{}\",step=\"{step}\"}} ",
                stage.role.name()
            );
            let value: f64 = text
                .lines()
                .find_map(|l| l.strip_prefix(&line))
                .unwrap_or_else(|| panic!("{line} missing:\n{text}"))
                .parse()
                .unwrap();
            assert!(value > 0.0, "{line}{value}");
        }
    }
    assert_eq!(stages[3].metrics.answered.get(), 1);
}

#[tokio::test]
async fn a_state_missing_its_part_is_refused_with_the_reason() {
    let codecs = Arc::new(StageCodecs::offline().unwrap());
    let retrieve = worker(Role::Retrieve, codecs.clone());
    let bare = TurnState {
        turn: chat_turn("q", Some("eu"), None),
        ..Default::default()
    };
    let input = message(
        "t.turns.enriched",
        codecs.enriched.encode(&bare).unwrap(),
        3,
    );
    let err = retrieve.handle_message(&input).await.unwrap_err();
    assert_eq!(
        err,
        HandleError::Poison("turn turn-1 arrived without enrichment".into())
    );
    let garbage = message("t.turns.enriched", vec![0xde, 0xad], 4);
    let err = retrieve.handle_message(&garbage).await.unwrap_err();
    assert!(
        matches!(&err, HandleError::Poison(r) if r.contains("t.turns.enriched/0@4")),
        "{err}"
    );
}
