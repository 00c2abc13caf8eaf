#!/usr/bin/env bash
# Rejects a schema change that is not BACKWARD compatible with the previous committed version:
# for an edited file, the version at HEAD; for a file committed at HEAD, the version before the
# last commit that touched it. New schemas have nothing to be compatible with.
source "$(dirname "$0")/lib.sh"
cd "$REPO_DIR"
policyctl=${POLICYCTL:-$REPO_DIR/target/debug/policyctl}
[ -x "$policyctl" ] || cargo build -q -p policyctl
failed=0
checked=0
for file in schemas/*.avsc; do
  if ! git cat-file -e "HEAD:$file" 2>/dev/null; then
    log "$file: new schema"; continue
  fi
  if git diff --quiet HEAD -- "$file"; then
    last=$(git log -1 --format=%H -- "$file")
    ref="$last^"
  else
    ref=HEAD
  fi
  if ! git cat-file -e "$ref:$file" 2>/dev/null; then
    log "$file: no earlier committed version"; continue
  fi
  old=$(mktemp)
  git show "$ref:$file" >"$old"
  if cmp -s "$old" "$file"; then rm -f "$old"; continue; fi
  checked=$((checked + 1))
  "$policyctl" schemas compat --old "$old" --new "$file" --level BACKWARD || failed=1
  rm -f "$old"
done
log "schema compatibility: $checked changed schema(s) checked"
exit $failed
