-- Turns per {bucket} seconds of processing time, by outcome: the report's time series.
SELECT
    toDateTime(intDiv(toUInt32(processed_at), {bucket}) * {bucket}) AS bucket,
    count() AS turns,
    countIf(outcome = 'answer') AS answers,
    countIf(outcome != 'answer') AS escalations
FROM {db}.turns FINAL
WHERE {window}
GROUP BY bucket
ORDER BY bucket
