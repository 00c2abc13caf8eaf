//! `topics apply` against the real broker: creates what is missing, is idempotent, reports drift.

mod common;

use policy_avro::SchemaName;
use policy_kafka::{apply_topics, TopicReport, TopicSpec};

fn spec(name: &str, partitions: i32) -> TopicSpec {
    TopicSpec {
        name: name.into(),
        partitions,
        replication_factor: 1,
        cleanup_policy: "delete".into(),
        retention_ms: 86_400_000,
        value_schema: SchemaName::ChatTurn,
        key: "conversation_id".into(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn creates_then_up_to_date_then_drift() {
    let name = format!("test.apply.{}", uuid::Uuid::new_v4().simple());
    let config = common::config();
    let dry = apply_topics(&config, &[spec(&name, 3)], true)
        .await
        .unwrap();
    assert_eq!(dry, [TopicReport::Missing { name: name.clone() }]);
    let created = apply_topics(&config, &[spec(&name, 3)], false)
        .await
        .unwrap();
    assert_eq!(created, [TopicReport::Created { name: name.clone() }]);
    let again = apply_topics(&config, &[spec(&name, 3)], false)
        .await
        .unwrap();
    assert_eq!(again, [TopicReport::UpToDate { name: name.clone() }]);
    let drift = apply_topics(&config, &[spec(&name, 5)], false)
        .await
        .unwrap();
    let TopicReport::Drift { differences, .. } = &drift[0] else {
        panic!("{drift:?}")
    };
    assert!(
        differences.contains(&"partitions 3 (spec 5)".to_string()),
        "{differences:?}"
    );
}
