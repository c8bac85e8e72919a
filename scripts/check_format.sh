#!/usr/bin/env bash
# Fails when a tracked .c or .h file is not formatted as .clang-format says (clang-format 14,
# the version the style was applied with; other versions format some constructs differently).
#   scripts/check_format.sh [CLANG_FORMAT]
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format=${1:-clang-format}
git ls-files '*.c' '*.h' | xargs "$clang_format" --dry-run --Werror
