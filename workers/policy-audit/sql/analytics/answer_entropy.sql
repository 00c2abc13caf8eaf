-- Answer entropy per (region, topic), in bits: how many different answers one region gives to
-- one topic. Citations are stripped first (their version prefix differs even when the words do
-- not). 0 = always the same answer; it rises with policy versions and with unstable generation.
-- Entropy is computed from counts: the entropy() aggregate is newer than ClickHouse 18.16.
SELECT
    region,
    topic,
    total AS answers,
    length(counts) AS distinct_answers,
    round(arraySum(arrayMap(c -> -(c / total) * log2(c / total), counts)), 4) AS entropy_bits
FROM (
    SELECT region, topic, groupArray(n) AS counts, sum(n) AS total
    FROM (
        SELECT
            resolved_region AS region,
            topic,
            replaceRegexpAll(answer_text, '\\s*\\[clause:[^\\]]*\\]', '') AS answer,
            count() AS n
        FROM {db}.turns FINAL
        WHERE outcome = 'answer' AND topic != '' AND {window}
        GROUP BY region, topic, answer
    )
    GROUP BY region, topic
)
ORDER BY topic, region
