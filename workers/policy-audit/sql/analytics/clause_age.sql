-- Mean age, in days, of the first cited clause's version at the turn's effective date (the
-- purchase date; the processing time when the turn had none), per (region, topic).
SELECT
    resolved_region AS region,
    topic,
    count() AS answers,
    round(avg((toUInt32(if(has_effective_at = 1, effective_at, processed_at))
        - toUInt32(cited_effective_from[1])) / 86400), 1) AS mean_age_days
FROM {db}.turns FINAL
WHERE outcome = 'answer' AND length(cited_effective_from) > 0
    AND toUInt32(cited_effective_from[1]) > 0 AND {window}
GROUP BY region, topic
ORDER BY region, topic
