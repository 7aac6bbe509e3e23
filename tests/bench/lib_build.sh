# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# lib_build.sh - what the benchmarks that drive the agent with fake guests
# (bench_host.sh, bench_ship.sh, bench_fleet.sh) build before they start,
# so that each runs from a fresh clone: the agent and the fake guest.
# Sourced before tests/integration/lib_agent.sh (whose la_init skips
# without them). BENCH_NO_BUILD=1 uses what is already built.
#
#   bench_build_agent NAME   make -C host-agent and tests/fakeguest, log in
#                            BUILD/bench/NAME-build.log; exits 1 on failure

bench_build_agent() {
	local top log

	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	[ "${BENCH_NO_BUILD:-0}" = 1 ] && return 0
	mkdir -p "${BUILD:-$top/build}/bench"
	log=${BUILD:-$top/build}/bench/$1-build.log
	echo "$1: building the agent and the fake guest" >&2
	if ! { make -C "$top/host-agent" && make -C "$top/tests/fakeguest"; } \
		>"$log" 2>&1; then
		echo "$1: the build failed; see $log" >&2
		tail -n 20 "$log" >&2
		exit 1
	fi
}
