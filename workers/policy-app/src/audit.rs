//! The audit worker process: outcomes and dead letters → ClickHouse, on the runtime's batching
//! loop.

use std::future::Future;
use std::sync::Arc;

use anyhow::Context;
use policy_audit::sink::{AuditCodecs, AuditSink, AuditTopics};
use policy_audit::{AuditConfig, AuditStore};
use policy_avro::{AvroCodec, RegistryClient, SchemaName};
use policy_kafka::metrics::{serve_metrics, WorkerMetrics};
use policy_kafka::{run_batch_worker, BatchLimits, KafkaConfig, WorkerConfig};

use crate::settings::{RunSettings, TopicSettings};

pub async fn run(
    kafka: &KafkaConfig,
    audit: &AuditConfig,
    topics: &TopicSettings,
    run: &RunSettings,
    shutdown: impl Future<Output = ()>,
) -> anyhow::Result<()> {
    let names = topics.names();
    let store = Arc::new(AuditStore::connect(audit).await?);
    let registry = Arc::new(RegistryClient::new(&kafka.schema_registry_url)?);
    let codecs = AuditCodecs {
        answers: AvroCodec::register(registry.clone(), &names.answers, SchemaName::PolicyAnswer)
            .await?,
        escalations: AvroCodec::register(
            registry.clone(),
            &names.escalations,
            SchemaName::Escalation,
        )
        .await?,
        dead_letters: AvroCodec::register(
            registry.clone(),
            &names.deadletter,
            SchemaName::DeadLetter,
        )
        .await?,
    };
    // The sink never dead-letters (an undecodable record becomes a row), but the runtime's
    // dead-letter path needs a codec of its own.
    let dead_letters =
        Arc::new(AvroCodec::register(registry, &names.deadletter, SchemaName::DeadLetter).await?);
    let metrics = WorkerMetrics::new("audit", &[]);
    let metrics_addr = serve_metrics(run.metrics_listen, vec![metrics.clone()])
        .await
        .context("metrics listener")?;
    tracing::info!(%metrics_addr, "metrics and health endpoint");
    let sink = Arc::new(AuditSink {
        topics: AuditTopics {
            answers: names.answers.clone(),
            escalations: names.escalations.clone(),
            dead_letters: names.deadletter.clone(),
        },
        codecs,
        store,
        metrics: metrics.clone(),
    });
    let group = run
        .group
        .clone()
        .unwrap_or_else(|| format!("{}-audit", topics.topic_prefix));
    let mut config = WorkerConfig::new("audit", &group, &sink.topics.all());
    config.dead_letter_topic = names.deadletter.clone();
    let limits = BatchLimits {
        max_items: audit.batch_max_rows,
        max_age: audit.batch_max_age(),
    };
    run_batch_worker(kafka, config, sink, limits, dead_letters, metrics, shutdown).await?;
    Ok(())
}
