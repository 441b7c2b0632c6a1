#!/usr/bin/env bash
# Installs (once per version and machine) versitygw, the S3-compatible server that the tests
# of internal/platform/blob run against (see hack/gotool.sh), and prints the path of its link in bin/.
#
# TCS_S3SERVER set by the user wins when it names an executable: nothing is built.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/gotool.sh" versitygw "${VERSITYGW_VERSION:-v1.8.0}" \
  github.com/versity/versitygw/cmd/versitygw "${TCS_S3SERVER:-}"
