#!/usr/bin/env bash
# Installs (once per version and machine) mailpit, the SMTP server (with an HTTP API to read what
# it received) that the email tests run against (see hack/gotool.sh), and prints the path of its
# link in bin/.
#
# TCS_MAILPIT set by the user wins when it names an executable: nothing is built.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/gotool.sh" mailpit "${MAILPIT_VERSION:-v1.27.11}" \
  github.com/axllent/mailpit "${TCS_MAILPIT:-}"
