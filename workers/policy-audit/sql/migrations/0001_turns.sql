-- One row per turn. Runs on ClickHouse 18.16 (Debian) and current releases alike: plain String
-- instead of LowCardinality, DateTime (seconds) plus a millisecond column instead of DateTime64,
-- arrays instead of Map. ReplacingMergeTree keyed by turn_id: a re-delivered outcome replaces
-- its row on merge, and queries read `FINAL`, so nothing is ever counted twice. No time
-- partitioning: replacement only happens within a partition, and a turn re-processed after a
-- month boundary would otherwise keep two rows.
CREATE TABLE IF NOT EXISTS {db}.turns (
    turn_id String,
    conversation_id String,
    outcome String,
    question String,
    resolved_region String,
    region_source String,
    region_disagreement UInt8,
    ip_region String,
    resolved_version String,
    effective_at DateTime,
    has_effective_at UInt8,
    manifest_sha String,
    topic String,
    tier String,
    confidence Float64,
    cited_clause_ids Array(String),
    cited_versions Array(String),
    cited_effective_from Array(DateTime),
    judge_verdict String,
    judge_reasons Array(String),
    reason_code String,
    answer_text String,
    latency_enrich_ms Float64,
    latency_retrieve_ms Float64,
    latency_generate_ms Float64,
    latency_judge_ms Float64,
    latency_total_ms Float64,
    input_topic String,
    input_partition Int32,
    input_offset Int64,
    source_topic String,
    source_partition Int32,
    source_offset Int64,
    processed_at DateTime,
    processed_at_ms UInt64
) ENGINE = ReplacingMergeTree(processed_at_ms)
ORDER BY turn_id;
