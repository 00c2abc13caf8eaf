-- Trend of the cited clause age per region, one point per {bucket} seconds of processing time.
SELECT
    toDateTime(intDiv(toUInt32(processed_at), {bucket}) * {bucket}) AS bucket,
    resolved_region AS region,
    round(avg((toUInt32(if(has_effective_at = 1, effective_at, processed_at))
        - toUInt32(cited_effective_from[1])) / 86400), 1) AS mean_age_days
FROM {db}.turns FINAL
WHERE outcome = 'answer' AND length(cited_effective_from) > 0
    AND toUInt32(cited_effective_from[1]) > 0 AND {window}
GROUP BY bucket, region
ORDER BY bucket, region
