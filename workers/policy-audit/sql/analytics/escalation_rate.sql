-- Escalations (and dead letters) per reason, as a share of all turns in the window.
SELECT
    reason_code AS reason,
    count() AS turns,
    round(count() / (SELECT greatest(count(), 1) FROM {db}.turns FINAL WHERE {window}), 4) AS rate
FROM {db}.turns FINAL
WHERE outcome != 'answer' AND {window}
GROUP BY reason
ORDER BY turns DESC, reason
