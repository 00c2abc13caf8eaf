#!/usr/bin/env bash
# Stops what infra/start.sh started (and only that), waiting until each process is gone.
source "$(dirname "$0")/lib.sh"

stop_one() {
  local name=$1 pidfile="$RUN_DIR/pids/$1.pid"
  if ! pid_alive "$pidfile"; then rm -f "$pidfile"; return; fi
  local pid; pid=$(cat "$pidfile")
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then log "$name did not stop in 10 s, killing"; kill -KILL "$pid" || true; fi
  rm -f "$pidfile"
  log "$name stopped"
}

for name in ${@:-llm registry clickhouse tansu}; do stop_one "$name"; done
# tansu releases its port ~2 s after exit; wait so that an immediate restart does not panic.
for _ in $(seq 1 50); do port_open "$KAFKA_PORT" || break; sleep 0.1; done
