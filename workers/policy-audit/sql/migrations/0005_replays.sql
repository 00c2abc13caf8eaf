-- Forensic replays (issue 14): `policyctl replay --write-clickhouse` stores one row per replayed
-- turn, each with its replay's id, parameters and the code version that ran it, so a finding can
-- be queried (and shown to an auditor) long after the terminal is closed. Keyed by (replay id,
-- turn id): a replay restarted with the same id replaces its rows instead of counting twice.
CREATE TABLE IF NOT EXISTS {db}.replays (
    replay_id String,
    started_at DateTime,
    mode String,
    parameters String,
    code_version String,
    turn_id String,
    conversation_id String,
    input_topic String,
    input_partition Int32,
    input_offset Int64,
    read_from String,
    change String,
    region String,
    version String,
    topic String,
    served_outcome String,
    served_clause_ids Array(String),
    served_text String,
    served_manifest_sha String,
    rerun_outcome String,
    rerun_version String,
    rerun_clause_ids Array(String),
    rerun_text String,
    rerun_manifest_sha String,
    verdict_then String,
    verdict_now String,
    reasons_now Array(String),
    error String,
    recorded_at_ms UInt64
) ENGINE = ReplacingMergeTree(recorded_at_ms)
ORDER BY (replay_id, turn_id);
