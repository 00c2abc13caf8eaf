#!/usr/bin/env bash
# Starts every server on 127.0.0.1 (broker, ClickHouse, schema registry), idempotently:
# a server that is already running is left alone. Logs and data go to $RUN_DIR.
source "$(dirname "$0")/lib.sh"
mkdir -p "$RUN_DIR"/{logs,pids,tansu,registry}

start_tansu() {
  if pid_alive "$RUN_DIR/pids/tansu.pid"; then log "tansu already running"; return; fi
  if port_open "$KAFKA_PORT"; then log "port $KAFKA_PORT is taken by another process"; exit 1; fi
  [ -x "$TANSU_BIN" ] || { log "tansu missing: run infra/install.sh"; exit 1; }
  local logfile="$RUN_DIR/logs/tansu.log"
  # SQLite, not memory://: the memory engine under-reports high watermarks. tansu resolves the
  # sqlite:// path against its working directory, so it runs from its data folder.
  (cd "$RUN_DIR/tansu" && exec nohup "$TANSU_BIN" broker \
    --listener-url "tcp://$KAFKA_HOST:$KAFKA_PORT" \
    --advertised-listener-url "tcp://$KAFKA_HOST:$KAFKA_PORT" \
    --storage-engine "sqlite://tansu.db") >"$logfile" 2>&1 &
  echo $! >"$RUN_DIR/pids/tansu.pid"
  wait_for tansu 30 "$logfile" port_open "$KAFKA_PORT"
}

clickhouse_ready() {
  [ "$(curl -fsS "http://127.0.0.1:$CLICKHOUSE_HTTP_PORT/?query=SELECT%201" 2>/dev/null)" = 1 ]
}

start_clickhouse() {
  if pid_alive "$RUN_DIR/pids/clickhouse.pid"; then log "clickhouse already running"; return; fi
  if clickhouse_ready; then log "clickhouse already answering on $CLICKHOUSE_HTTP_PORT"; return; fi
  local dir="$RUN_DIR/clickhouse"
  mkdir -p "$dir"/{log,data,tmp,user_files,format_schemas}
  sed -e "s#@RUN_DIR@#$RUN_DIR#g" -e "s#@REPO_DIR@#$REPO_DIR#g" \
      -e "s#@HTTP_PORT@#$CLICKHOUSE_HTTP_PORT#g" -e "s#@TCP_PORT@#$CLICKHOUSE_TCP_PORT#g" \
      "$REPO_DIR/infra/clickhouse/config.xml" >"$dir/config.xml"
  local logfile="$RUN_DIR/logs/clickhouse.log"
  nohup clickhouse-server --config-file="$dir/config.xml" >"$logfile" 2>&1 &
  echo $! >"$RUN_DIR/pids/clickhouse.pid"
  wait_for clickhouse 60 "$dir/log/server.err.log" clickhouse_ready
}

registry_ready() { curl -fsS "http://127.0.0.1:$REGISTRY_PORT/subjects" >/dev/null; }

start_registry() {
  if pid_alive "$RUN_DIR/pids/registry.pid"; then log "registry already running"; return; fi
  local bin=${POLICYCTL:-$REPO_DIR/target/debug/policyctl}
  if [ -z "${POLICYCTL:-}" ]; then
    log "building policyctl (dev profile)"
    (cd "$REPO_DIR" && cargo build -q -p policyctl)
  fi
  local logfile="$RUN_DIR/logs/registry.log"
  nohup "$bin" registry serve --listen "127.0.0.1:$REGISTRY_PORT" \
    --data-dir "$RUN_DIR/registry" >"$logfile" 2>&1 &
  echo $! >"$RUN_DIR/pids/registry.pid"
  wait_for registry 30 "$logfile" registry_ready
}

llm_ready() { curl -fsS "http://127.0.0.1:$LLM_PORT/health" >/dev/null 2>&1; }

# llama.cpp's server with the small GGUF: an OpenAI-compatible endpoint at
# http://127.0.0.1:$LLM_PORT/v1. Two slots (one per core) so two turns generate side by side.
start_llm() {
  if pid_alive "$RUN_DIR/pids/llm.pid"; then log "llm already running"; return; fi
  if port_open "$LLM_PORT"; then log "port $LLM_PORT is taken by another process"; exit 1; fi
  local bin; bin=$(llama_server_bin)
  [ -n "$bin" ] && [ -x "$bin" ] || { log "llama-server missing: run infra/install.sh llm"; exit 1; }
  [ -f "$LLM_MODEL_FILE" ] || { log "LLM model missing: run infra/install.sh llm"; exit 1; }
  local logfile="$RUN_DIR/logs/llm.log"
  nohup "$bin" --model "$LLM_MODEL_FILE" --host 127.0.0.1 --port "$LLM_PORT" \
    --ctx-size 4096 --parallel 2 --threads 2 >"$logfile" 2>&1 &
  echo $! >"$RUN_DIR/pids/llm.pid"
  wait_for llm 120 "$logfile" llm_ready
}

what=${1:-all}
case "$what" in
  tansu) start_tansu ;;
  clickhouse) start_clickhouse ;;
  registry) start_registry ;;
  llm) start_llm ;;
  all) start_tansu; start_clickhouse; start_registry ;;
  *) log "unknown component $what"; exit 2 ;;
esac
