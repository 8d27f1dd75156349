#!/usr/bin/env bash
# Fails when the library's sources or its user-facing pages speak of the project's work history instead of the
# product: session numbers, run names and call letters of past measurement rounds, commit hashes, and (in src/)
# dates. Measurements and their dates belong in perf_tests/results and docs/performance.md.
#   tools/check-words.sh            checks src/, README.md and docs/ (CI runs it)
set -euo pipefail
cd "$(dirname "$0")/.."
pages=(README.md docs)
status=0
check() {  # check DESCRIPTION PERL-REGEX PATH...
  local what=$1 pattern=$2; shift 2
  local hits
  hits=$(grep -rnP --binary-files=without-match "$pattern" "$@" 2>/dev/null || true)
  if [ -n "$hits" ]; then
    echo "check-words: $what:"
    echo "$hits" | sed 's/^/  /'
    status=1
  fi
}
check "session numbers" '\b[Ss]ession [0-9]' src "${pages[@]}"
check "call letters of measurement rounds" '\bcalls? [A-Z](\b|-[A-Z]\b)(?![ ]?[=·(*+\-])' src "${pages[@]}"
check "run names" '\b(s[0-9]{1,2}[a-z]\b|s[0-9]{1,2}-[a-z]\b|run ?[0-9]+[a-z]?\b)' src "${pages[@]}"
check "commit hashes" '(?<![0-9A-Za-z_x])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![0-9A-Za-z_])' \
  src "${pages[@]}"
check "dates in sources" '\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b' src
if [ $status -eq 0 ]; then echo "check-words: src/, README.md and docs/ are free of work-history words"; fi
exit $status
