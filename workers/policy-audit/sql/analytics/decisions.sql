-- Decisions per intent and employee level: approvals (eligible) vs denials vs escalations, and
-- the false-approval alarm: approvals served although flagged for human review, or expense
-- approvals without a known level (must stay 0: the judge blocks what the rules do not permit).
SELECT
    if(intent = '', 'policy_faq', intent) AS intent,
    employee_level AS level,
    countIf(outcome = 'answer' AND decision_kind != '' AND decision_eligible = 1) AS approved,
    countIf(outcome = 'answer' AND decision_kind != '' AND decision_eligible = 0) AS denied,
    countIf(outcome != 'answer') AS escalated,
    countIf(outcome = 'answer' AND decision_eligible = 1 AND (decision_human_review = 1 OR (decision_kind = 'expense_approval' AND employee_level = ''))) AS approval_alarms
FROM {db}.turns FINAL
WHERE {window}
GROUP BY intent, level
ORDER BY intent, level
