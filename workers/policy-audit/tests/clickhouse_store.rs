//! Against the real ClickHouse started by `infra/start.sh` (`make test` starts it): migrations,
//! idempotent inserts, and every analytics query on a small hand-computed scenario.

use std::collections::BTreeMap;

use policy_audit::analytics::{self, Table, Window, QUERIES};
use policy_audit::report::{self, Thresholds};
use policy_audit::row;
use policy_audit::{AuditConfig, AuditRow, AuditStore};
use policy_avro::InputCoordinates as Coordinates;
use policy_avro::{Citation, Escalation, InputCoordinates, PolicyAnswer};

fn config() -> AuditConfig {
    let mut config = <AuditConfig as policy_settings::Settings>::from_env().expect("audit config");
    config.database = format!("audit_test_{}", uuid::Uuid::new_v4().simple());
    config
}

async fn store(config: &AuditConfig) -> AuditStore {
    AuditStore::connect(config)
        .await
        .unwrap_or_else(|e| panic!("{e} (run `make up`)"))
}

fn at(offset: i64) -> Coordinates {
    Coordinates {
        topic: "policy.answers".into(),
        partition: 0,
        offset,
    }
}

const DAY_MS: i64 = 86_400_000;
const EU_V4_FROM_MS: i64 = 1_769_904_000_000; // 2026-02-01
const EU_V3_FROM_MS: i64 = 1_748_736_000_000; // 2025-06-01

fn answer(turn: usize, region: &str, version: &str, cited: &str, text: &str) -> PolicyAnswer {
    let cited_from = if cited.starts_with("eu-v3") {
        EU_V3_FROM_MS
    } else {
        EU_V4_FROM_MS
    };
    PolicyAnswer {
        conversation_id: format!("c{turn}"),
        turn_id: format!("t{turn}"),
        question: "What is the return window?".into(),
        answer_text: format!("{text} [clause: {cited}]"),
        citations: vec![Citation {
            clause_id: cited.into(),
            version_id: cited.split('#').next().unwrap().into(),
            effective_from: Some(cited_from),
        }],
        resolved_region: region.into(),
        region_source: "session".into(),
        resolved_version: version.into(),
        effective_at: Some(EU_V4_FROM_MS + 10 * DAY_MS),
        manifest_sha: "sha".into(),
        confidence: 0.9,
        tier: "high".into(),
        judge_verdict: "pass".into(),
        input: InputCoordinates {
            topic: "policy.turns".into(),
            partition: 0,
            offset: turn as i64,
        },
        stage_latency_ms: BTreeMap::from([("enrich".into(), 1.0), ("retrieve".into(), 3.0)]),
        answered_at: 1_790_000_000_000 + turn as i64,
        topic: Some("return_window".into()),
        ip_region: Some(if turn.is_multiple_of(2) {
            region.into()
        } else {
            "us".into()
        }),
        ..Default::default()
    }
}

fn mismatch(turn: usize) -> Escalation {
    Escalation {
        conversation_id: format!("c{turn}"),
        turn_id: format!("t{turn}"),
        reason_code: "version_mismatch".into(),
        reasons: vec![
            "low_confidence: 0.41 is below 0.45".into(),
            "version_mismatch: cites eu-v3#sec-3.2 but the turn resolved to eu-v4".into(),
        ],
        resolved_region: Some("eu".into()),
        resolved_version: Some("eu-v4".into()),
        context: BTreeMap::from([("draft_citations".to_string(), "eu-v3#sec-3.2".to_string())]),
        escalated_at: 1_790_000_000_000 + turn as i64,
        topic: Some("return_window".into()),
        ..Default::default()
    }
}

/// 10 turns: eu answers t0..t5 (grounded, eu-v4), t6..t7 escalated for citing eu-v3, us answers
/// t8..t9. Expected: eu grounding 6/8, eu mismatch 2/8; us grounding 2/2, mismatch 0/2.
fn scenario() -> Vec<AuditRow> {
    let mut rows = Vec::new();
    for t in 0..6 {
        rows.push(row::from_answer(
            &answer(
                t,
                "eu",
                "eu-v4",
                "eu-v4#sec-3.2",
                "You may return items within 30 days.",
            ),
            &at(t as i64),
        ));
    }
    for t in 6..8 {
        rows.push(row::from_escalation(&mismatch(t), &at(t as i64)));
    }
    for t in 8..10 {
        rows.push(row::from_answer(
            &answer(
                t,
                "us",
                "us-v3",
                "us-v3#sec-3.2",
                "Items can be returned within 45 days.",
            ),
            &at(t as i64),
        ));
    }
    rows
}

fn number(table: &Table, key_column: &str, key: &str, column: &str) -> f64 {
    let row = table
        .rows
        .iter()
        .find(|r| Table::text(r, key_column) == key)
        .unwrap_or_else(|| panic!("{}: no row {key}: {:?}", table.name, table.rows));
    Table::number(row, column).unwrap()
}

#[tokio::test]
async fn a_table_with_rows_from_before_a_migration_stays_readable() {
    // A database as migration 0001 left it, holding a row written then.
    let scratch = config();
    let admin = store(&scratch).await;
    let old = config();
    let db = &old.database;
    admin
        .execute(&format!("CREATE DATABASE {db}"))
        .await
        .unwrap();
    for statement in policy_audit::store::statements(policy_audit::store::MIGRATIONS[0].sql, db) {
        admin.execute(&statement).await.unwrap();
    }
    admin
        .execute(&format!(
            "INSERT INTO {db}.turns (turn_id, outcome, question, answer_text) \
             VALUES ('old-turn', 'answer', 'q', 'Within 30 days. [clause: eu-v4#sec-3.2]')"
        ))
        .await
        .unwrap();
    // Connecting applies the later migrations to it.
    let migrated = store(&old).await;
    let rows = migrated
        .query_json(
            "old",
            &format!(
                "SELECT turn_id, answer_text, generator, llm_calls, length(rejected_drafts) AS rejected, \
                 has_received, length(order_fact_keys) AS facts FROM {db}.turns"
            ),
        )
        .await
        .unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(Table::text(&rows[0], "turn_id"), "old-turn");
    assert_eq!(
        Table::text(&rows[0], "answer_text"),
        "Within 30 days. [clause: eu-v4#sec-3.2]"
    );
    assert_eq!(Table::text(&rows[0], "generator"), "");
    assert_eq!(Table::number(&rows[0], "llm_calls"), Some(0.0));
    assert_eq!(Table::number(&rows[0], "rejected"), Some(0.0));
    assert_eq!(Table::number(&rows[0], "has_received"), Some(0.0));
    assert_eq!(Table::number(&rows[0], "facts"), Some(0.0));
    for database in [db, &scratch.database] {
        admin
            .execute(&format!("DROP DATABASE IF EXISTS {database}"))
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn migrations_apply_once_and_record_their_version() {
    let config = config();
    let first = store(&config).await;
    let again = store(&config).await;
    let applied = again
        .query_json(
            "migrations",
            &format!(
                "SELECT version, name FROM {}.schema_migrations",
                config.database
            ),
        )
        .await
        .unwrap();
    assert_eq!(
        applied.len(),
        policy_audit::store::MIGRATIONS.len(),
        "{applied:?}"
    );
    let names: Vec<&str> = applied.iter().map(|r| Table::text(r, "name")).collect();
    assert!(
        names.contains(&"turns") && names.contains(&"generation"),
        "{names:?}"
    );
    assert!(first.server().major >= 18);
    first
        .execute(&format!("DROP DATABASE {}", config.database))
        .await
        .unwrap();
}

#[tokio::test]
async fn every_query_runs_and_redelivered_rows_count_once() {
    let config = config();
    let store = store(&config).await;
    let rows = scenario();
    store.insert(&rows).await.unwrap();
    // Re-delivery: the same outcomes inserted again (a crash between insert and commit).
    store.insert(&rows[..5]).await.unwrap();

    let mut tables = Vec::new();
    for query in QUERIES {
        let table = analytics::run(&store, query, Window::default(), 60)
            .await
            .unwrap_or_else(|e| panic!("{} does not run on this server: {e}", query.name));
        tables.push(table);
    }
    let table = |name: &str| tables.iter().find(|t| t.name == name).unwrap();

    let overview = &table("overview").rows[0];
    assert_eq!(Table::number(overview, "turns"), Some(10.0), "FINAL dedups");
    assert_eq!(Table::number(overview, "answers"), Some(8.0));
    assert_eq!(Table::number(overview, "escalations"), Some(2.0));

    let grounding = table("grounding_rate");
    assert_eq!(
        number(grounding, "region", "eu", "drafts_with_citations"),
        8.0
    );
    assert_eq!(number(grounding, "region", "eu", "grounding_rate"), 0.75);
    assert_eq!(number(grounding, "region", "us", "grounding_rate"), 1.0);

    let mismatch = table("judge_mismatch");
    assert_eq!(number(mismatch, "region", "eu", "judged"), 8.0);
    assert_eq!(number(mismatch, "region", "eu", "mismatch_rate"), 0.25);
    assert_eq!(number(mismatch, "region", "us", "mismatch_rate"), 0.0);

    let across = table("answer_entropy_across_regions");
    assert_eq!(number(across, "topic", "return_window", "regions"), 2.0);
    assert_eq!(
        number(across, "topic", "return_window", "distinct_answers"),
        2.0
    );
    // 6 eu answers and 2 us answers: H = -(6/8 log2 6/8 + 2/8 log2 2/8) = 0.8113
    assert_eq!(
        number(across, "topic", "return_window", "entropy_bits"),
        0.8113
    );

    let per_region = table("answer_entropy");
    assert_eq!(per_region.rows.len(), 2);
    assert!(per_region
        .rows
        .iter()
        .all(|r| Table::number(r, "entropy_bits") == Some(0.0)));

    let age = table("clause_age");
    assert_eq!(number(age, "region", "eu", "mean_age_days"), 10.0);

    let ip = table("region_ip_mismatch");
    assert_eq!(
        number(ip, "region", "eu", "with_ip"),
        6.0,
        "escalations had no IP signal"
    );
    assert_eq!(
        number(ip, "region", "eu", "ip_elsewhere"),
        3.0,
        "odd turns came from a us IP"
    );

    let escalations = table("escalation_rate");
    assert_eq!(
        number(escalations, "reason", "version_mismatch", "turns"),
        2.0
    );
    assert_eq!(
        number(escalations, "reason", "version_mismatch", "rate"),
        0.2
    );

    let latency = table("stage_latency");
    assert_eq!(number(latency, "stage", "retrieve", "p50_ms"), 3.0);
    assert_eq!(number(latency, "stage", "total", "turns"), 8.0);

    let traffic = table("version_traffic");
    assert_eq!(number(traffic, "version", "eu-v4", "turns"), 8.0);

    let report = report::build(
        &store,
        Window::default(),
        &Thresholds {
            region_dependent_topics: ["return_window".to_string()].into_iter().collect(),
            ..Thresholds::default()
        },
    )
    .await
    .unwrap();
    let checks: Vec<&str> = report.alerts.iter().map(|a| a.check).collect();
    assert_eq!(
        checks,
        ["grounding_rate", "judge_mismatch"],
        "{:?}",
        report.alerts
    );

    store
        .execute(&format!("DROP DATABASE {}", config.database))
        .await
        .unwrap();
}

#[tokio::test]
async fn the_window_filters_on_processing_time() {
    let config = config();
    let store = store(&config).await;
    store.insert(&scenario()).await.unwrap();
    let before = Window {
        since: None,
        until: Some(1_789_999_999),
    };
    let overview = analytics::run(&store, analytics::query("overview").unwrap(), before, 60)
        .await
        .unwrap();
    assert_eq!(Table::number(&overview.rows[0], "turns"), Some(0.0));
    store
        .execute(&format!("DROP DATABASE {}", config.database))
        .await
        .unwrap();
}
