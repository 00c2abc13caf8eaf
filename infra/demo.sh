#!/usr/bin/env bash
# The main job on the embedded default: validate the corpus, start `policyctl worker all`,
# send the whole golden set through the broker, print the evaluation, answer two sample
# questions on both sides of the EU cutover and decide a return from the order system's record
# on both sides of its deadline, land every turn in ClickHouse through the audit
# worker and print the audit report, then stop the workers. Never fakes a result.
source "$(dirname "$0")/lib.sh"
cd "$REPO_DIR"
policyctl=${POLICYCTL:-$REPO_DIR/target/debug/policyctl}
worker_log="$RUN_DIR/logs/worker-all.log"
audit_log="$RUN_DIR/logs/worker-audit.log"
started_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)

echo "== 1. corpus and manifest"
"$policyctl" manifest check golden/policies

echo "== 2. the order system's records on the compacted orders topic; starting policyctl worker all (first start indexes the corpus, ~1 min)"
"$policyctl" orders load golden/decisions/orders.jsonl
"$policyctl" worker all --index-dir "$RUN_DIR/index" --metrics-listen 127.0.0.1:9464 >"$worker_log" 2>&1 &
worker=$!
"$policyctl" worker audit --metrics-listen 127.0.0.1:9465 >"$audit_log" 2>&1 &
audit=$!
trap 'kill -TERM $worker $audit 2>/dev/null; wait $worker $audit 2>/dev/null' EXIT
wait_for "worker" 300 "$worker_log" grep -q "partitions assigned" "$worker_log"
wait_for "audit worker" 60 "$audit_log" grep -q "partitions assigned" "$audit_log"

echo "== 3. golden set through the broker (policyctl eval --via-kafka)"
"$policyctl" eval --via-kafka

echo "== 4. the same question on both sides of the EU cutover (2026-02-01)"
"$policyctl" ask --region eu --purchased-at 2026-01-15T10:00:00Z "What is my return window?" | tail -n 3
"$policyctl" ask --region eu --purchased-at 2026-03-01T10:00:00Z "What is my return window?" | tail -n 3

echo "== 5. a decision from the order system: order o-us-1005 (us-v3, 45 days from delivery), a day before and a week after its deadline"
"$policyctl" ask --order-id o-us-1005 --sent-at 2026-08-27T15:00:00Z "Can I still return this order?" | tail -n 3
"$policyctl" ask --order-id o-us-1005 --sent-at 2026-09-03T15:00:00Z "Can I still return this order?" | tail -n 3

echo "== 6. worker metrics"
curl -fsS 127.0.0.1:9464/metrics | grep -E '^policy_(messages_processed|turns_answered|turns_escalated|messages_dead_lettered)'

echo "== 7. audit report for this run (ClickHouse; HTML with charts in $RUN_DIR/report.html)"
audit_rows() {
  curl -fsS "${CLICKHOUSE_URL:-http://127.0.0.1:$CLICKHOUSE_HTTP_PORT}/" --data-binary \
    "SELECT count() FROM ${CLICKHOUSE_DATABASE:-policy_audit}.turns FINAL WHERE processed_at >= parseDateTimeBestEffort('$started_at')"
}
expected=$(( $(cat golden/cases/*.jsonl | grep -c .) + 4 ))
for _ in $(seq 1 120); do
  [ "$(audit_rows)" -ge "$expected" ] && break
  sleep 0.5
done
echo "audit rows for this run: $(audit_rows) of $expected turns"
"$policyctl" report --since "$started_at" --html "$RUN_DIR/report.html"
