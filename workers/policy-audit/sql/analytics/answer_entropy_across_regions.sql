-- Per topic, pooled over regions: does the bot say different things in different regions?
-- For a topic whose policy differs by region, one distinct answer across several regions
-- (entropy 0) is the "entropy collapse" `policyctl report` alerts on.
SELECT
    topic,
    regions,
    total AS answers,
    length(counts) AS distinct_answers,
    round(arraySum(arrayMap(c -> -(c / total) * log2(c / total), counts)), 4) AS entropy_bits
FROM (
    SELECT topic, uniqExactArray(answer_regions) AS regions, groupArray(n) AS counts, sum(n) AS total
    FROM (
        SELECT
            topic,
            replaceRegexpAll(answer_text, '\\s*\\[clause:[^\\]]*\\]', '') AS answer,
            count() AS n,
            groupUniqArray(resolved_region) AS answer_regions
        FROM {db}.turns FINAL
        WHERE outcome = 'answer' AND topic != '' AND {window}
        GROUP BY topic, answer
    )
    GROUP BY topic
)
ORDER BY topic
