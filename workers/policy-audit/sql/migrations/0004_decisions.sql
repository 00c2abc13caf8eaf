-- Decisions (issue 15): what the turn asked for, and for a decision, what was decided from which
-- data under which rules. And the clauses retrieved for the answer (issue 14: `replay --rejudge`
-- runs the current judge over what was served with what was retrieved for it). Rows written before have intent '' (read as policy_faq) and no
-- decision (`decision_kind` ''). `decision_eligible` is 1 for eligible / approved.
ALTER TABLE {db}.turns ADD COLUMN intent String DEFAULT '';
ALTER TABLE {db}.turns ADD COLUMN decision_kind String DEFAULT '';
ALTER TABLE {db}.turns ADD COLUMN decision_eligible UInt8 DEFAULT 0;
ALTER TABLE {db}.turns ADD COLUMN decision_reason String DEFAULT '';
ALTER TABLE {db}.turns ADD COLUMN decision_deadline_ms Int64 DEFAULT 0;
ALTER TABLE {db}.turns ADD COLUMN decision_amount String DEFAULT '';
ALTER TABLE {db}.turns ADD COLUMN decision_policy_refs Array(String);
ALTER TABLE {db}.turns ADD COLUMN decision_rules Array(String);
ALTER TABLE {db}.turns ADD COLUMN decision_human_review UInt8 DEFAULT 0;
ALTER TABLE {db}.turns ADD COLUMN employee_level String DEFAULT '';
ALTER TABLE {db}.turns ADD COLUMN decision_source String DEFAULT '';
ALTER TABLE {db}.turns ADD COLUMN decision_conflicts Array(String);
ALTER TABLE {db}.turns ADD COLUMN retrieved_clause_ids Array(String);
