-- Overview: turns by final outcome in the window.
-- Every query reads `turns FINAL` so a re-delivered turn counts once; {window} filters on
-- processed_at.
SELECT
    count() AS turns,
    countIf(outcome = 'answer') AS answers,
    countIf(outcome = 'escalate') AS escalations,
    countIf(outcome = 'dead_letter') AS dead_letters,
    countIf(outcome = 'undecodable') AS undecodable,
    round(countIf(outcome = 'answer') / greatest(count(), 1), 4) AS answer_rate
FROM {db}.turns FINAL
WHERE {window}
