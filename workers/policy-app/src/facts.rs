//! The order system and the employee directory a worker's decisions ask ([`policy_pipeline::facts`]):
//! an HTTP service when its URL is set, a JSONL fixture held in memory (offline commands), or by
//! default the compacted topic (`<prefix>.orders`, `<prefix>.employees`) that every worker
//! materialises in memory: read from the beginning up to the high watermark before the worker
//! serves, then followed live. `policyctl orders load` / `employees load` fill the topics.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use policy_avro::{AvroCodec, FactRecord, RegistryClient, SchemaName};
use policy_kafka::KafkaConfig;
use policy_pipeline::facts::{
    fields_from_json, FactSource, HttpSource, HttpSourceConfig, MemorySource, Sources,
};
use policy_settings::{Settings, SettingsError};
use rdkafka::consumer::{Consumer, StreamConsumer};
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::{Message, Offset, TopicPartitionList};

use crate::topics::TopicNames;

/// Where decisions find orders and employees, and how an HTTP source is called.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct SourceSettings {
    /// Order service base URL (records at `<url>/<order id>`); unset: the orders topic, or
    /// POLICY_ORDERS_FILE
    #[arg(
        value_name = "POLICY_ORDERS_URL",
        id = "policy_orders_url",
        long = "orders-url",
        env = "POLICY_ORDERS_URL"
    )]
    pub orders_url: Option<String>,
    /// Employee directory base URL (records at `<url>/<employee id>`); unset: the employees
    /// topic, or POLICY_EMPLOYEES_FILE
    #[arg(
        value_name = "POLICY_EMPLOYEES_URL",
        id = "policy_employees_url",
        long = "employees-url",
        env = "POLICY_EMPLOYEES_URL"
    )]
    pub employees_url: Option<String>,
    /// Orders as JSONL (one object per line with `order_id`), held in memory: for eval, ask and
    /// tests, which run without a broker
    #[arg(
        value_name = "POLICY_ORDERS_FILE",
        id = "policy_orders_file",
        long = "orders-file",
        env = "POLICY_ORDERS_FILE"
    )]
    pub orders_file: Option<PathBuf>,
    /// Employees as JSONL (one object per line with `employee_id`), held in memory
    #[arg(
        value_name = "POLICY_EMPLOYEES_FILE",
        id = "policy_employees_file",
        long = "employees-file",
        env = "POLICY_EMPLOYEES_FILE"
    )]
    pub employees_file: Option<PathBuf>,
    /// Timeout of one request to an HTTP source (milliseconds)
    #[arg(
        value_name = "POLICY_SOURCE_TIMEOUT_MS",
        id = "policy_source_timeout_ms",
        long = "source-timeout-ms",
        env = "POLICY_SOURCE_TIMEOUT_MS",
        default_value_t = 1500
    )]
    pub timeout_ms: u64,
    /// Retries after a failed request (transport error, 5xx, 429), with jittered backoff
    #[arg(
        value_name = "POLICY_SOURCE_RETRIES",
        id = "policy_source_retries",
        long = "source-retries",
        env = "POLICY_SOURCE_RETRIES",
        default_value_t = 2
    )]
    pub retries: usize,
    /// Time for all attempts of one lookup (milliseconds); then the turn escalates
    /// `source_unavailable`
    #[arg(
        value_name = "POLICY_SOURCE_BUDGET_MS",
        id = "policy_source_budget_ms",
        long = "source-budget-ms",
        env = "POLICY_SOURCE_BUDGET_MS",
        default_value_t = 4000
    )]
    pub budget_ms: u64,
    /// Consecutive failures that open an HTTP source's circuit
    #[arg(
        value_name = "POLICY_SOURCE_BREAKER_FAILURES",
        id = "policy_source_breaker_failures",
        long = "source-breaker-failures",
        env = "POLICY_SOURCE_BREAKER_FAILURES",
        default_value_t = 5
    )]
    pub breaker_failures: u32,
    /// Seconds an open circuit stays open
    #[arg(
        value_name = "POLICY_SOURCE_BREAKER_COOLDOWN_SECS",
        id = "policy_source_breaker_cooldown_secs",
        long = "source-breaker-cooldown-secs",
        env = "POLICY_SOURCE_BREAKER_COOLDOWN_SECS",
        default_value_t = 30
    )]
    pub breaker_cooldown_secs: u64,
}

impl Settings for SourceSettings {
    fn validate(&self) -> Result<(), SettingsError> {
        for (variable, url) in [
            ("POLICY_ORDERS_URL", &self.orders_url),
            ("POLICY_EMPLOYEES_URL", &self.employees_url),
        ] {
            if url
                .as_deref()
                .is_some_and(|u| !(u.starts_with("http://") || u.starts_with("https://")))
            {
                return Err(SettingsError::invalid(variable, "must be an http(s) URL"));
            }
        }
        if self.timeout_ms == 0 || self.budget_ms < self.timeout_ms {
            return Err(SettingsError::invalid(
                "POLICY_SOURCE_BUDGET_MS",
                "must be at least POLICY_SOURCE_TIMEOUT_MS, which must be positive",
            ));
        }
        if self.breaker_failures == 0 {
            return Err(SettingsError::invalid(
                "POLICY_SOURCE_BREAKER_FAILURES",
                "must be positive",
            ));
        }
        Ok(())
    }
}

/// The two subjects, with what differs between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    Orders,
    Employees,
}

impl Subject {
    /// The field of a fixture line that holds the id.
    pub fn id_field(self) -> &'static str {
        match self {
            Subject::Orders => "order_id",
            Subject::Employees => "employee_id",
        }
    }

    pub fn topic(self, topics: &TopicNames) -> String {
        match self {
            Subject::Orders => topics.orders.clone(),
            Subject::Employees => topics.employees.clone(),
        }
    }

    fn endpoint(self) -> &'static str {
        match self {
            Subject::Orders => "orders",
            Subject::Employees => "employees",
        }
    }
}

impl SourceSettings {
    fn url(&self, subject: Subject) -> Option<&str> {
        match subject {
            Subject::Orders => self.orders_url.as_deref(),
            Subject::Employees => self.employees_url.as_deref(),
        }
    }

    fn file(&self, subject: Subject) -> Option<&Path> {
        match subject {
            Subject::Orders => self.orders_file.as_deref(),
            Subject::Employees => self.employees_file.as_deref(),
        }
    }

    /// The HTTP or file source of `subject`, when one is configured.
    pub fn configured(&self, subject: Subject) -> anyhow::Result<Option<Arc<dyn FactSource>>> {
        if let Some(url) = self.url(subject) {
            let config = HttpSourceConfig {
                base_url: url.trim_end_matches('/').to_string(),
                timeout: Duration::from_millis(self.timeout_ms),
                retries: self.retries,
                budget: Duration::from_millis(self.budget_ms),
                breaker_failures: self.breaker_failures,
                breaker_cooldown: Duration::from_secs(self.breaker_cooldown_secs),
            };
            let source = HttpSource::new(subject.endpoint(), config).map_err(anyhow::Error::msg)?;
            return Ok(Some(Arc::new(source)));
        }
        if let Some(file) = self.file(subject) {
            let name = file.display().to_string();
            let source = MemorySource::from_jsonl(&name, file, subject.id_field())
                .map_err(anyhow::Error::msg)?;
            return Ok(Some(Arc::new(source)));
        }
        Ok(None)
    }

    /// Both sources for a worker: what is configured, else the compacted topic's view.
    pub async fn for_worker(
        &self,
        kafka: &KafkaConfig,
        topics: &TopicNames,
    ) -> anyhow::Result<Sources> {
        let source = |subject: Subject| async move {
            anyhow::Ok(match self.configured(subject)? {
                Some(source) => source,
                None => Arc::new(topic_view(kafka, &subject.topic(topics)).await?),
            })
        };
        Ok(Sources {
            orders: Some(source(Subject::Orders).await?),
            employees: Some(source(Subject::Employees).await?),
        })
    }

    /// Both sources for an offline command (no broker): configured ones only; a subject with
    /// neither URL nor file has no source, and its decisions escalate `source_unavailable`.
    pub fn offline(&self) -> anyhow::Result<Sources> {
        Ok(Sources {
            orders: self.configured(Subject::Orders)?,
            employees: self.configured(Subject::Employees)?,
        })
    }
}

/// The compacted topic `topic` in memory, caught up to its high watermarks before it returns,
/// then kept up to date by a background task.
pub async fn topic_view(kafka: &KafkaConfig, topic: &str) -> anyhow::Result<MemorySource> {
    let registry = Arc::new(RegistryClient::new(&kafka.schema_registry_url)?);
    let codec = AvroCodec::<FactRecord>::register(registry, topic, SchemaName::FactRecord).await?;
    // No group: every worker reads the whole table, and nothing is ever committed.
    let consumer: StreamConsumer = kafka
        .client()
        .set("group.id", format!("facts-view-{}", std::process::id()))
        .set("enable.auto.commit", "false")
        .create()?;
    let metadata = while_reachable(&format!("{topic}: metadata"), || {
        consumer.fetch_metadata(Some(topic), Duration::from_secs(10))
    })
    .await?;
    let partitions: Vec<i32> = metadata
        .topics()
        .iter()
        .flat_map(|t| t.partitions().iter().map(|p| p.id()))
        .collect();
    anyhow::ensure!(
        !partitions.is_empty(),
        "{topic}: no partitions (run `policyctl topics apply`)"
    );
    let mut assignment = TopicPartitionList::new();
    let mut targets = Vec::new();
    for &p in &partitions {
        assignment.add_partition_offset(topic, p, Offset::Beginning)?;
        let (_, high) = while_reachable(&format!("{topic}/{p}: watermarks"), || {
            consumer.fetch_watermarks(topic, p, Duration::from_secs(10))
        })
        .await?;
        targets.push((p, high));
    }
    consumer.assign(&assignment)?;
    let view = MemorySource::new(topic);
    let mut next: std::collections::HashMap<i32, i64> =
        partitions.iter().map(|p| (*p, 0)).collect();
    let caught_up = |next: &std::collections::HashMap<i32, i64>| {
        targets
            .iter()
            .all(|(p, high)| next.get(p).copied().unwrap_or(0) >= *high)
    };
    while !caught_up(&next) {
        let message = tokio::time::timeout(Duration::from_secs(30), consumer.recv())
            .await
            .with_context(|| format!("{topic}: not caught up within 30 s"))??
            .detach();
        apply(&view, &codec, &message).await;
        next.insert(message.partition(), message.offset() + 1);
    }
    tracing::info!(topic, records = view.len(), "fact view caught up");
    let live = view.clone();
    tokio::spawn(async move {
        loop {
            match consumer.recv().await {
                Ok(message) => apply(&live, &codec, &message.detach()).await,
                Err(e) => {
                    tracing::warn!(error = %e, "fact view");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }
        }
    });
    Ok(view)
}

/// How long a worker starting up waits for the broker to answer a metadata request.
const BROKER_PATIENCE: Duration = Duration::from_secs(60);

/// `request` retried while the broker does not answer (a broker restarting, a connection
/// dropped while a worker starts): the worker waits up to [`BROKER_PATIENCE`] instead of
/// exiting on the first transport failure, then fails with the last error and `what`; any
/// other error fails at once.
async fn while_reachable<T>(
    what: &str,
    request: impl Fn() -> rdkafka::error::KafkaResult<T>,
) -> anyhow::Result<T> {
    let deadline = std::time::Instant::now() + BROKER_PATIENCE;
    loop {
        match request() {
            Ok(found) => return Ok(found),
            Err(e) if transient(&e) && std::time::Instant::now() < deadline => {
                tracing::warn!(error = %e, what, "broker not answering, retrying");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            Err(e) => return Err(e).with_context(|| what.to_string()),
        }
    }
}

/// A failure to reach the broker, as against an answer (an unknown topic stays an error).
fn transient(error: &rdkafka::error::KafkaError) -> bool {
    use rdkafka::types::RDKafkaErrorCode as Code;
    matches!(
        error.rdkafka_error_code(),
        Some(
            Code::BrokerTransportFailure
                | Code::AllBrokersDown
                | Code::OperationTimedOut
                | Code::RequestTimedOut
                | Code::BrokerNotAvailable
                | Code::NetworkException
                | Code::LeaderNotAvailable
        )
    )
}

async fn apply(
    view: &MemorySource,
    codec: &AvroCodec<FactRecord>,
    message: &rdkafka::message::OwnedMessage,
) {
    let Some(key) = message
        .key()
        .map(|k| String::from_utf8_lossy(k).into_owned())
    else {
        return tracing::warn!(
            offset = message.offset(),
            "fact record without a key ignored"
        );
    };
    match message.payload() {
        None => view.remove(&key),
        Some(payload) => match codec.decode(payload).await {
            Ok(record) => view.upsert(key, record.fields),
            Err(e) => {
                tracing::error!(key, offset = message.offset(), error = %e, "unreadable fact record ignored")
            }
        },
    }
}

/// Produces every line of the JSONL `file` to `subject`'s compacted topic, keyed by its id.
pub async fn load(
    kafka: &KafkaConfig,
    topics: &TopicNames,
    subject: Subject,
    file: &Path,
) -> anyhow::Result<usize> {
    let topic = subject.topic(topics);
    let registry = Arc::new(RegistryClient::new(&kafka.schema_registry_url)?);
    let codec = AvroCodec::<FactRecord>::register(registry, &topic, SchemaName::FactRecord).await?;
    let producer: FutureProducer = kafka.producer().create()?;
    let text = std::fs::read_to_string(file).with_context(|| file.display().to_string())?;
    let mut sent = 0;
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let at = || format!("{}:{}", file.display(), n + 1);
        let value: serde_json::Value = serde_json::from_str(line).with_context(at)?;
        let fields = fields_from_json(&value)
            .map_err(anyhow::Error::msg)
            .with_context(at)?;
        let id = fields
            .get(subject.id_field())
            .cloned()
            .with_context(|| format!("{}: no `{}`", at(), subject.id_field()))?;
        let record = FactRecord {
            id: id.clone(),
            fields,
            updated_at: policy_avro::now_millis(),
        };
        let payload = codec.encode(&record)?;
        producer
            .send(
                FutureRecord::to(&topic)
                    .key(id.as_bytes())
                    .payload(&payload),
                Duration::from_secs(10),
            )
            .await
            .map_err(|(e, _)| anyhow::anyhow!("{topic}: {e}"))?;
        sent += 1;
    }
    Ok(sent)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdkafka::error::KafkaError;
    use rdkafka::types::RDKafkaErrorCode;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test]
    async fn a_broker_not_answering_is_retried_and_an_answer_is_not() {
        let calls = AtomicUsize::new(0);
        let found = while_reachable("orders: metadata", || {
            match calls.fetch_add(1, Ordering::SeqCst) {
                0 | 1 => Err(KafkaError::MetadataFetch(
                    RDKafkaErrorCode::BrokerTransportFailure,
                )),
                _ => Ok(3),
            }
        })
        .await
        .unwrap();
        assert_eq!((found, calls.load(Ordering::SeqCst)), (3, 3));

        let calls = AtomicUsize::new(0);
        let unknown = while_reachable("orders: metadata", || -> rdkafka::error::KafkaResult<()> {
            calls.fetch_add(1, Ordering::SeqCst);
            Err(KafkaError::MetadataFetch(
                RDKafkaErrorCode::UnknownTopicOrPartition,
            ))
        })
        .await
        .unwrap_err();
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert!(
            unknown.to_string().contains("orders: metadata"),
            "{unknown}"
        );
    }
}
