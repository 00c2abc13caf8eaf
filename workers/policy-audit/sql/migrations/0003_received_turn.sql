-- The turn as received (issue 14): with the row's own ids and sanitized question, enough to run
-- the turn again long after the turns topic has dropped it (`policyctl replay --audit-where`).
-- `has_received` is 0 on rows written before: those cannot be replayed from the audit store.
-- Nullable values are a value plus a flag (ClickHouse 18.16 has no Nullable in arrays, and
-- flags keep every column plain); the order facts map is two parallel arrays.
ALTER TABLE {db}.turns ADD COLUMN has_received UInt8 DEFAULT 0;
ALTER TABLE {db}.turns ADD COLUMN user_id String DEFAULT '';
ALTER TABLE {db}.turns ADD COLUMN locale String DEFAULT '';
ALTER TABLE {db}.turns ADD COLUMN channel String DEFAULT '';
ALTER TABLE {db}.turns ADD COLUMN session_region String DEFAULT '';
ALTER TABLE {db}.turns ADD COLUMN billing_region String DEFAULT '';
ALTER TABLE {db}.turns ADD COLUMN purchase_at_ms Int64 DEFAULT 0;
ALTER TABLE {db}.turns ADD COLUMN has_purchase_at UInt8 DEFAULT 0;
ALTER TABLE {db}.turns ADD COLUMN sent_at_ms Int64 DEFAULT 0;
ALTER TABLE {db}.turns ADD COLUMN order_id String DEFAULT '';
ALTER TABLE {db}.turns ADD COLUMN employee_id String DEFAULT '';
ALTER TABLE {db}.turns ADD COLUMN order_fact_keys Array(String);
ALTER TABLE {db}.turns ADD COLUMN order_fact_values Array(String);
ALTER TABLE {db}.turns ADD COLUMN input_schema_id UInt32 DEFAULT 0;
