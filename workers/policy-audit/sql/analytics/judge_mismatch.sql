-- Judge mismatch rate per region: judged drafts (answers that passed, plus rejections) whose
-- rejection names a citation of another version, an unknown clause or a clause that was not
-- retrieved, whatever the first reason was. Reasons are stored as "code: detail".
SELECT
    resolved_region AS region,
    countIf(judge_verdict IN ('pass', 'reject')) AS judged,
    countIf(judge_verdict = 'reject' AND arrayExists(r -> (r LIKE 'version_mismatch:%')
        OR (r LIKE 'unknown_clause:%') OR (r LIKE 'clause_not_retrieved:%'), judge_reasons)) AS mismatches,
    round(mismatches / greatest(judged, 1), 4) AS mismatch_rate
FROM {db}.turns FINAL
WHERE resolved_region != '' AND {window}
GROUP BY region
ORDER BY region
