#!/usr/bin/env bash
# Starts a release-built `policyctl worker all`, offers load with `policyctl loadtest`, prints the
# table and the chart path, stops the worker. Arguments are passed to `policyctl loadtest`.
source "$(dirname "$0")/lib.sh"
cd "$REPO_DIR"
cargo build -q --release -p policyctl
policyctl=$REPO_DIR/target/release/policyctl
log="$RUN_DIR/logs/worker-loadtest.log"
# Topics of their own: a backlog left by a heavy run never delays the demo's pipeline.
prefix=${LOADTEST_PREFIX:-loadtest}
"$policyctl" topics apply --prefix "$prefix" >/dev/null
metrics="127.0.0.1:${LOADTEST_METRICS_PORT:-9474}"
"$policyctl" worker all --topic-prefix "$prefix" --index-dir "$RUN_DIR/index" --metrics-listen "$metrics" >"$log" 2>&1 &
worker=$!
trap 'kill -TERM $worker 2>/dev/null; wait $worker 2>/dev/null' EXIT
wait_for "worker" 300 "$log" grep -q "partitions assigned" "$log"
"$policyctl" loadtest --topic-prefix "$prefix" --worker-pid "$worker" --worker-metrics "http://$metrics/metrics" "$@"
