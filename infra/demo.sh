#!/usr/bin/env bash
# The main job on the embedded default: validate the golden corpus, register schemas, and run
# what the pipeline offers so far on the golden set, printing a summary. Never fakes a result.
source "$(dirname "$0")/lib.sh"
cd "$REPO_DIR"
policyctl=${POLICYCTL:-$REPO_DIR/target/debug/policyctl}
echo "== corpus"
"$policyctl" manifest check golden/policies
echo "== schemas"
"$policyctl" schemas register
echo "== topics"
"$policyctl" topics apply --dry-run
