-- Latency percentiles per stage, in milliseconds (processing time inside the workers).
SELECT 'enrich' AS stage, count() AS turns,
    round(quantile(0.5)(latency_enrich_ms), 3) AS p50_ms,
    round(quantile(0.95)(latency_enrich_ms), 3) AS p95_ms,
    round(quantile(0.99)(latency_enrich_ms), 3) AS p99_ms
FROM {db}.turns FINAL WHERE latency_enrich_ms > 0 AND {window}
UNION ALL
SELECT 'retrieve' AS stage, count() AS turns,
    round(quantile(0.5)(latency_retrieve_ms), 3) AS p50_ms,
    round(quantile(0.95)(latency_retrieve_ms), 3) AS p95_ms,
    round(quantile(0.99)(latency_retrieve_ms), 3) AS p99_ms
FROM {db}.turns FINAL WHERE latency_retrieve_ms > 0 AND {window}
UNION ALL
SELECT 'generate' AS stage, count() AS turns,
    round(quantile(0.5)(latency_generate_ms), 3) AS p50_ms,
    round(quantile(0.95)(latency_generate_ms), 3) AS p95_ms,
    round(quantile(0.99)(latency_generate_ms), 3) AS p99_ms
FROM {db}.turns FINAL WHERE latency_generate_ms > 0 AND {window}
UNION ALL
SELECT 'judge' AS stage, count() AS turns,
    round(quantile(0.5)(latency_judge_ms), 3) AS p50_ms,
    round(quantile(0.95)(latency_judge_ms), 3) AS p95_ms,
    round(quantile(0.99)(latency_judge_ms), 3) AS p99_ms
FROM {db}.turns FINAL WHERE latency_judge_ms > 0 AND {window}
UNION ALL
SELECT 'total' AS stage, count() AS turns,
    round(quantile(0.5)(latency_total_ms), 3) AS p50_ms,
    round(quantile(0.95)(latency_total_ms), 3) AS p95_ms,
    round(quantile(0.99)(latency_total_ms), 3) AS p99_ms
FROM {db}.turns FINAL WHERE latency_total_ms > 0 AND {window}
