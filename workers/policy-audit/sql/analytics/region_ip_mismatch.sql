-- Region-vs-IP mismatch per resolved region: turns whose IP pointed elsewhere, among turns that
-- had an IP signal; plus turns the resolver flagged as disagreeing signals.
SELECT
    resolved_region AS region,
    countIf(ip_region != '') AS with_ip,
    countIf(ip_region != '' AND ip_region != resolved_region) AS ip_elsewhere,
    round(ip_elsewhere / greatest(with_ip, 1), 4) AS ip_mismatch_rate,
    countIf(region_disagreement = 1) AS flagged_disagreement
FROM {db}.turns FINAL
WHERE resolved_region != '' AND {window}
GROUP BY region
ORDER BY region
