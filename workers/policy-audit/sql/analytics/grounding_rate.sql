-- Citation-grounding rate per region: share of drafts with citations (delivered answers and
-- judge-rejected drafts alike) whose every citation is a clause of the version in force.
-- (countEqual, not arrayAll with a lambda: 18.16 lambdas cannot see other columns.)
SELECT
    resolved_region AS region,
    countIf(length(cited_versions) > 0) AS drafts_with_citations,
    countIf(length(cited_versions) > 0
        AND countEqual(cited_versions, resolved_version) = length(cited_versions)) AS grounded,
    round(grounded / greatest(drafts_with_citations, 1), 4) AS grounding_rate
FROM {db}.turns FINAL
WHERE resolved_region != '' AND {window}
GROUP BY region
ORDER BY region
