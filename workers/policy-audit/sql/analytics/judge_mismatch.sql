-- Judge mismatch rate per region: drafts the judge rejected because they cited another version,
-- an unknown clause or a clause that was not retrieved, over every judged draft (answers plus
-- judge rejections).
SELECT
    resolved_region AS region,
    countIf(outcome = 'answer' OR reason_code IN ('version_mismatch', 'unknown_clause',
        'clause_not_retrieved', 'no_citation', 'malformed_citation', 'ungrounded_fact',
        'empty_answer', 'generator_refused', 'output_pii')) AS judged,
    countIf(reason_code IN ('version_mismatch', 'unknown_clause', 'clause_not_retrieved')) AS mismatches,
    round(mismatches / greatest(judged, 1), 4) AS mismatch_rate
FROM {db}.turns FINAL
WHERE resolved_region != '' AND {window}
GROUP BY region
ORDER BY region
