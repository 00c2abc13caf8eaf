#!/usr/bin/env bash
# The main job on the embedded default: validate the corpus, start `policyctl worker all`,
# send the whole golden set through the broker, print the evaluation, answer two sample
# questions on both sides of the EU cutover, then stop the worker. Never fakes a result.
source "$(dirname "$0")/lib.sh"
cd "$REPO_DIR"
policyctl=${POLICYCTL:-$REPO_DIR/target/debug/policyctl}
worker_log="$RUN_DIR/logs/worker-all.log"

echo "== 1. corpus and manifest"
"$policyctl" manifest check golden/policies

echo "== 2. starting policyctl worker all (first start indexes the corpus, ~1 min)"
"$policyctl" worker all --index-dir "$RUN_DIR/index" --metrics-listen 127.0.0.1:9464 >"$worker_log" 2>&1 &
worker=$!
trap 'kill -TERM $worker 2>/dev/null; wait $worker 2>/dev/null' EXIT
wait_for "worker" 300 "$worker_log" grep -q "partitions assigned" "$worker_log"

echo "== 3. golden set through the broker (policyctl eval --via-kafka)"
"$policyctl" eval --via-kafka

echo "== 4. the same question on both sides of the EU cutover (2026-02-01)"
"$policyctl" ask --region eu --purchased-at 2026-01-15T10:00:00Z "What is my return window?" | tail -n 3
"$policyctl" ask --region eu --purchased-at 2026-03-01T10:00:00Z "What is my return window?" | tail -n 3

echo "== 5. worker metrics"
curl -fsS 127.0.0.1:9464/metrics | grep -E '^policy_(messages_processed|turns_answered|turns_escalated|messages_dead_lettered)'
