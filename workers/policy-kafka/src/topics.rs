//! Declarative topics (`topics/topics.toml`): parse and validate the specs, then create what is
//! missing and report drift (partitions, cleanup policy, retention) on what exists.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use policy_avro::SchemaName;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, ResourceSpecifier, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::RDKafkaErrorCode;
use serde::Deserialize;

use crate::config::KafkaConfig;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicSpec {
    pub name: String,
    pub partitions: i32,
    pub replication_factor: i32,
    pub cleanup_policy: String,
    pub retention_ms: i64,
    pub value_schema: SchemaName,
    pub key: String,
}

#[derive(Debug, thiserror::Error)]
pub enum TopicsError {
    #[error("topic specs: {0}")]
    Spec(String),
    #[error("kafka admin: {0}")]
    Kafka(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Defaults {
    partitions: i32,
    replication_factor: i32,
    cleanup_policy: String,
    retention_ms: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTopic {
    name: String,
    value_schema: String,
    key: String,
    partitions: Option<i32>,
    replication_factor: Option<i32>,
    cleanup_policy: Option<String>,
    retention_ms: Option<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TopicsFile {
    defaults: Defaults,
    topic: Vec<RawTopic>,
}

pub fn parse_topic_specs(text: &str) -> Result<Vec<TopicSpec>, TopicsError> {
    let file: TopicsFile = toml::from_str(text).map_err(|e| TopicsError::Spec(e.to_string()))?;
    let mut names = BTreeSet::new();
    let mut specs = Vec::new();
    for raw in file.topic {
        let fail = |reason: String| TopicsError::Spec(format!("topic `{}`: {reason}", raw.name));
        if !names.insert(raw.name.clone()) {
            return Err(fail("defined twice".into()));
        }
        let value_schema = SchemaName::from_name(&raw.value_schema)
            .ok_or_else(|| fail(format!("unknown value_schema `{}`", raw.value_schema)))?;
        let spec = TopicSpec {
            partitions: raw.partitions.unwrap_or(file.defaults.partitions),
            replication_factor: raw
                .replication_factor
                .unwrap_or(file.defaults.replication_factor),
            cleanup_policy: raw
                .cleanup_policy
                .clone()
                .unwrap_or_else(|| file.defaults.cleanup_policy.clone()),
            retention_ms: raw.retention_ms.unwrap_or(file.defaults.retention_ms),
            value_schema,
            key: raw.key.clone(),
            name: raw.name.clone(),
        };
        if spec.partitions < 1 || spec.replication_factor < 1 {
            return Err(fail(
                "partitions and replication_factor must be at least 1".into(),
            ));
        }
        if !matches!(
            spec.cleanup_policy.as_str(),
            "delete" | "compact" | "compact,delete"
        ) {
            return Err(fail(format!(
                "cleanup_policy `{}` is not delete, compact or compact,delete",
                spec.cleanup_policy
            )));
        }
        if spec.retention_ms < -1 || spec.retention_ms == 0 {
            return Err(fail("retention_ms must be positive or -1 (forever)".into()));
        }
        specs.push(spec);
    }
    Ok(specs)
}

pub fn load_topic_specs(path: &Path) -> Result<Vec<TopicSpec>, TopicsError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| TopicsError::Spec(format!("{}: {e}", path.display())))?;
    parse_topic_specs(&text)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TopicReport {
    Created {
        name: String,
    },
    Missing {
        name: String,
    },
    UpToDate {
        name: String,
    },
    Drift {
        name: String,
        differences: Vec<String>,
    },
}

impl std::fmt::Display for TopicReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TopicReport::Created { name } => write!(f, "created    {name}"),
            TopicReport::Missing { name } => write!(f, "missing    {name} (dry run: not created)"),
            TopicReport::UpToDate { name } => write!(f, "up to date {name}"),
            TopicReport::Drift { name, differences } => {
                write!(f, "DRIFT      {name}: {}", differences.join("; "))
            }
        }
    }
}

const TIMEOUT: Duration = Duration::from_secs(10);

/// Creates missing topics (unless `dry_run`) and compares existing ones with their spec.
pub async fn apply_topics(
    config: &KafkaConfig,
    specs: &[TopicSpec],
    dry_run: bool,
) -> Result<Vec<TopicReport>, TopicsError> {
    let kafka = |e: rdkafka::error::KafkaError| TopicsError::Kafka(e.to_string());
    let admin: AdminClient<DefaultClientContext> = config.client().create().map_err(kafka)?;
    let metadata_client: BaseConsumer = config.client().create().map_err(kafka)?;
    let metadata = tokio::task::block_in_place(|| metadata_client.fetch_metadata(None, TIMEOUT))
        .map_err(kafka)?;
    let options = AdminOptions::new().operation_timeout(Some(TIMEOUT));
    let mut reports = Vec::new();
    for spec in specs {
        let existing = metadata.topics().iter().find(|t| t.name() == spec.name);
        let Some(existing) = existing else {
            if dry_run {
                reports.push(TopicReport::Missing {
                    name: spec.name.clone(),
                });
                continue;
            }
            let retention = spec.retention_ms.to_string();
            let topic = NewTopic::new(
                &spec.name,
                spec.partitions,
                TopicReplication::Fixed(spec.replication_factor),
            )
            .set("cleanup.policy", &spec.cleanup_policy)
            .set("retention.ms", &retention);
            let results = admin
                .create_topics([&topic], &options)
                .await
                .map_err(kafka)?;
            for result in results {
                match result {
                    Ok(_) | Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
                    Err((name, code)) => {
                        return Err(TopicsError::Kafka(format!("create {name}: {code}")))
                    }
                }
            }
            tracing::info!(
                topic = spec.name,
                partitions = spec.partitions,
                "topic created"
            );
            reports.push(TopicReport::Created {
                name: spec.name.clone(),
            });
            continue;
        };
        let mut differences = Vec::new();
        if existing.partitions().len() as i32 != spec.partitions {
            differences.push(format!(
                "partitions {} (spec {})",
                existing.partitions().len(),
                spec.partitions
            ));
        }
        differences.extend(config_drift(&admin, &options, spec).await);
        reports.push(if differences.is_empty() {
            TopicReport::UpToDate {
                name: spec.name.clone(),
            }
        } else {
            TopicReport::Drift {
                name: spec.name.clone(),
                differences,
            }
        });
    }
    Ok(reports)
}

async fn config_drift(
    admin: &AdminClient<DefaultClientContext>,
    options: &AdminOptions,
    spec: &TopicSpec,
) -> Vec<String> {
    let described = match admin
        .describe_configs([&ResourceSpecifier::Topic(&spec.name)], options)
        .await
    {
        Ok(mut results) => results.pop(),
        Err(e) => return vec![format!("configs not comparable: {e}")],
    };
    let resource = match described {
        Some(Ok(resource)) => resource,
        Some(Err(e)) => return vec![format!("configs not comparable: {e}")],
        None => return vec!["configs not comparable: empty answer".into()],
    };
    let mut differences = Vec::new();
    let expected = [
        ("cleanup.policy", spec.cleanup_policy.clone()),
        ("retention.ms", spec.retention_ms.to_string()),
    ];
    for (key, want) in expected {
        // Brokers that do not report a key are not counted as drift: absence is not evidence.
        if let Some(have) = resource.get(key).and_then(|entry| entry.value.clone()) {
            if have != want {
                differences.push(format!("{key} {have} (spec {want})"));
            }
        }
    }
    differences
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &str = r#"
[defaults]
partitions = 6
replication_factor = 1
cleanup_policy = "delete"
retention_ms = 1000

[[topic]]
name = "a"
value_schema = "ChatTurn"
key = "conversation_id"

[[topic]]
name = "b"
value_schema = "ManifestRecord"
key = "manifest"
partitions = 1
cleanup_policy = "compact"
retention_ms = -1
"#;

    #[test]
    fn defaults_and_overrides() {
        let specs = parse_topic_specs(SPECS).unwrap();
        assert_eq!(specs[0].partitions, 6);
        assert_eq!(specs[0].value_schema, SchemaName::ChatTurn);
        assert_eq!(
            (
                specs[1].partitions,
                specs[1].cleanup_policy.as_str(),
                specs[1].retention_ms
            ),
            (1, "compact", -1)
        );
    }

    #[test]
    fn the_committed_specs_are_valid() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../topics/topics.toml");
        let specs = load_topic_specs(&path).unwrap();
        assert!(specs
            .iter()
            .any(|s| s.name == "policy.turns" && s.key == "conversation_id"));
        let manifest = specs.iter().find(|s| s.name == "policy.manifest").unwrap();
        assert_eq!(manifest.cleanup_policy, "compact");
    }

    #[test]
    fn invalid_specs_rejected_with_topic_name() {
        let cases = [
            (
                SPECS.replace("\"ChatTurn\"", "\"Nope\""),
                "topic `a`: unknown value_schema `Nope`",
            ),
            (
                SPECS.replace("name = \"b\"", "name = \"a\""),
                "topic `a`: defined twice",
            ),
            (
                SPECS.replace("\"compact\"", "\"forever\""),
                "cleanup_policy `forever`",
            ),
            (
                SPECS.replace("partitions = 1", "partitions = 0"),
                "partitions and replication_factor",
            ),
            (
                SPECS.replace("retention_ms = -1", "retention_ms = 0"),
                "retention_ms must be positive",
            ),
            (
                SPECS.replace("key = \"manifest\"", "key = \"manifest\"\ncolour = \"red\""),
                "unknown field `colour`",
            ),
        ];
        for (text, expected) in cases {
            let err = parse_topic_specs(&text).unwrap_err().to_string();
            assert!(err.contains(expected), "{err} should contain {expected}");
        }
    }
}
