-- Traffic per resolved policy version.
SELECT
    resolved_version AS version,
    count() AS turns,
    countIf(outcome = 'answer') AS answers,
    countIf(outcome = 'escalate') AS escalations
FROM {db}.turns FINAL
WHERE resolved_version != '' AND {window}
GROUP BY version
ORDER BY version
