#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_allevents.sh - throughput with every event on (issue 25): the
# workloads of bench_workload.sh with no tracer, LTTng, ftrace and
# guestrelay each recording every event the guest's kernel has, in ONE
# guest boot; ops/s, events written per op and what each event costs the
# workload, beside each other.
#
#   tests/bench/bench_allevents.sh       (make bench runs it)
#
# It is bench_workload.sh with BENCH_WL_SET=all (that script and
# tests/bench/guest-workload say what each tracer records); the same
# environment. Table in build/bench/allevents.md.
set -euo pipefail
BENCH_WL_SET=all exec "$(dirname "$0")/bench_workload.sh" "$@"
