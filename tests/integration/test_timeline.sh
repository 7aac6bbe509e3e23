#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_timeline.sh - `guestrelay timeline` pictures, rendered by a real
# headless Chromium
#
# Traces: synthetic scheduler traces written by build/tests/tl_mktrace
# (tests/unit/tl_synth.c: the guest module's event layouts, a random
# workload, hostile comm names, packet losses, a synchronized clock),
# which also prints the truth (per CPU, the time tasks other than idle
# ran); and a trace of the real module in a real QEMU guest stored by the
# real agent: GR_TIMELINE_TRACE=DIR, else the last one of `make demo`
# (tests/e2e/test_basic.sh runs this script with GR_TIMELINE_TRACE set to
# its trace and GR_TIMELINE_REAL_ONLY=1: only that trace's checks).
# For each picture (SVG and HTML):
#   - the SVG is well-formed XML; lanes = CPUs of the trace(s)
#   - per CPU, the slices' time (data-d) = the truth, and = span minus idle
#     as computed from `guestrelay report --host-time`; the rectangles'
#     widths give the same within the decimation error
#   - Chromium loads it: no console error (a page with a deliberate error
#     proves the check sees one), the script ran (data-ready), the DOM has
#     as many lanes as CPUs and no element made of a guest's comm name
#   - the screenshot is a PNG of the window's size with many colours
# and: two VMs on one host-time axis, --from/--to, the output size bounded
# by the width (not by the events).
# Needs chromium (scripts/deps.sh view); exit 77 if it cannot be had.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
. "$TOP/tests/lib/lib.sh"
t_init test_timeline

BUILD=${BUILD:-$TOP/build}
GR=${GUESTRELAY:-$BUILD/host-agent/guestrelay}
MK=$BUILD/tests/tl_mktrace
PY=${PYTHON:-/usr/bin/python3}
[ -x "$GR" ] || t_skip "no $GR (make host)"
# only the synthetic traces need it (not the e2e tier's real trace)
[ "${GR_TIMELINE_REAL_ONLY:-0}" = 1 ] || [ -x "$MK" ] ||
	t_skip "no $MK (make tests)"
[ -x "$PY" ] || t_skip "no $PY"
if ! command -v chromium >/dev/null; then
	"$TOP/scripts/deps.sh" view >/dev/null 2>&1 ||
		t_skip "chromium is not installed and cannot be (scripts/deps.sh view)"
	command -v chromium >/dev/null || t_skip "chromium is not installed"
fi
t_tmpdir test_timeline
T=$T_TMP
W=1760
H=420

# chrome ARGS...: headless Chromium, 60 s at most, its own profile
chrome() {
	timeout -k 5 60 chromium --headless --no-sandbox --disable-gpu \
		--hide-scrollbars --no-first-run --user-data-dir="$T/profile" \
		--enable-logging=stderr --v=0 "$@"
}

# console_errors LOG: Chromium's console lines that report an error
console_errors() {
	grep -E 'CONSOLE|Uncaught|SyntaxError|TypeError|ReferenceError' "$1" |
		grep -v 'dbus' || true
}

# check.py: the SVG against the truth and the report
cat >"$T/check.py" <<'EOF'
import re, sys, xml.etree.ElementTree as ET
from decimal import Decimal

svg_path, truth_path, report_path = sys.argv[1:4]
text = open(svg_path, encoding="ascii").read()    # ASCII only, or this fails
m = re.search(r"<svg .*</svg>", text, re.S)
root = ET.fromstring(m.group(0))                  # well-formed, or this fails
ns = "{http://www.w3.org/2000/svg}"
t0, t1 = int(root.get("data-t0")), int(root.get("data-t1"))
lanes = [e for e in root.iter(ns + "rect")
         if e.get("class", "").split()[:1] == ["lane"]]
width = float(lanes[0].get("width"))
scale = width / (t1 - t0)                         # px per ns
busy, geo, merged = {}, {}, {}
for e in root.iter(ns + "rect"):
    cls = e.get("class", "").split()
    if cls[:1] != ["s"]:
        continue
    l = int(e.get("data-l"))
    busy[l] = busy.get(l, 0) + int(e.get("data-d"))
    geo[l] = geo.get(l, 0.0) + float(e.get("width")) / scale
    merged[l] = merged.get(l, 0) + ("m" in cls)
truth = {}
for line in open(truth_path) if truth_path != "-" else []:
    k = line.split()
    if k[0] == "busy":
        truth[int(k[1])] = int(k[2])
start = [int(e.get("data-start")) for e in root.iter(ns + "text")
         if e.get("data-start")][0]
end = [int(e.get("data-end")) for e in root.iter(ns + "text")
       if e.get("data-end")][0]

# span minus idle from the report's sched_switch lines (host time)
rx = re.compile(r"^\s*\d+ \[(\d+)\] (\d+)\.(\d+): sched_switch: .*"
                r" prev_tid=(-?\d+) .* next_tid=(-?\d+) ")
cur, since, rep = {}, {}, {}
for line in open(report_path, errors="replace"):
    g = rx.match(line)
    if not g:
        continue
    cpu, ts = int(g.group(1)), int(g.group(2)) * 10**9 + int(g.group(3))
    prev, nxt = int(g.group(4)), int(g.group(5))
    a, b = max(since.get(cpu, start), t0), min(ts, t1)
    if prev != 0 and b > a:
        rep[cpu] = rep.get(cpu, 0) + b - a
    cur[cpu], since[cpu] = nxt, ts
for cpu, tid in cur.items():
    a, b = max(since[cpu], t0), min(end, t1)
    if tid != 0 and b > a:
        rep[cpu] = rep.get(cpu, 0) + b - a
out = ["lanes %d" % len(lanes)]
for l in range(len(lanes)):
    px = 1 / scale
    tol = 2 * merged.get(l, 0) * px + 2 * px + 0.001 * (t1 - t0)
    out.append("lane %d busy %d truth %s report %d geo %.0f tol %.0f %s" % (
        l, busy.get(l, 0), truth.get(l, "-"), rep.get(l, 0),
        geo.get(l, 0), tol,
        "geo-ok" if abs(geo.get(l, 0) - busy.get(l, 0)) <= tol else "geo-bad"))
print("\n".join(out))
EOF

# png.py: size and number of colours of a PNG (8-bit RGB/RGBA, no PIL)
cat >"$T/png.py" <<'EOF'
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(d):
    n, kind = struct.unpack(">I4s", d[pos:pos + 8])
    body = d[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
bpp = {2: 3, 6: 4}[ctype]
raw, stride = zlib.decompress(idat), w * bpp
prev, colours = bytearray(stride), set()
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if y % 2 == 0:
        for x in range(0, stride, bpp * 2):
            colours.add(bytes(line[x:x + 3]))
    prev = line
print(w, h, len(colours))
EOF

# check_picture NAME FILE TRUTH REPORT CPUS: the SVG checks of one picture
check_picture() {
	local name=$1 file=$2 truth=$3 report=$4 cpus=$5 out l

	if ! out=$("$PY" "$T/check.py" "$file" "$truth" "$report" 2>&1); then
		fail "$name-parses" "check.py failed" "$out"
		return
	fi
	ok "$name-is-well-formed-ascii-svg"
	l=$(awk '$1 == "lanes" { print $2 }' <<<"$out")
	if [ "$l" = "$cpus" ]; then ok "$name-lanes-equal-cpus ($l)"; else
		fail "$name-lanes-equal-cpus" "$l lanes for $cpus CPUs"; fi
	if [ "$truth" != - ]; then
		if awk '$1 == "lane" && $4 != $6 { bad = 1 } END { exit bad }' <<<"$out"; then
			ok "$name-busy-time-equals-workload"
		else
			fail "$name-busy-time-equals-workload" "slices' time differs" "$out"
		fi
	fi
	if awk '$1 == "lane" && $4 != $8 { bad = 1 } END { exit bad }' <<<"$out"; then
		ok "$name-busy-time-equals-span-minus-idle-of-report"
	else
		fail "$name-busy-time-equals-span-minus-idle-of-report" "differs" "$out"
	fi
	if ! grep -q geo-bad <<<"$out"; then
		ok "$name-rectangle-widths-match-within-decimation"
	else
		fail "$name-rectangle-widths-match-within-decimation" "off" "$out"
	fi
}

# render_check NAME FILE CPUS: Chromium loads it; DOM, console, screenshot
render_check() {
	local name=$1 file=$2 cpus=$3 n errs png

	png=$T/$name.png
	chrome --screenshot="$png" --window-size=$W,$H "file://$file" \
		>"$T/$name.shot.log" 2>&1
	chrome --dump-dom "file://$file" >"$T/$name.dom" 2>"$T/$name.dom.log"
	errs=$(console_errors "$T/$name.dom.log"; console_errors "$T/$name.shot.log")
	if [ -z "$errs" ]; then ok "$name-no-console-errors"; else
		fail "$name-no-console-errors" "Chromium reported" "$errs"; fi
	n=$(grep -o '<rect class="lane[ "]' "$T/$name.dom" | wc -l)
	if [ "$n" = "$cpus" ]; then ok "$name-dom-has-one-lane-per-cpu ($n)"
	else fail "$name-dom-has-one-lane-per-cpu" "$n lanes in the DOM, $cpus CPUs"; fi
	if grep -q '<b>' "$T/$name.dom"; then
		fail "$name-dom-has-no-guest-markup" "a comm name became an element"
	else
		ok "$name-dom-has-no-guest-markup"
	fi
	case $file in
	*.html)
		if grep -q 'data-ready="1"' "$T/$name.dom"; then
			ok "$name-script-ran"
		else
			fail "$name-script-ran" "no data-ready in the DOM"
		fi ;;
	esac
	if [ -s "$png" ] && read -r pw ph colours < <("$PY" "$T/png.py" "$png" 2>&1) &&
	   [ "$pw" = "$W" ] && [ "$ph" = "$H" ] && [ "$colours" -gt 40 ]; then
		ok "$name-screenshot-is-a-${pw}x$ph-png-of-$colours-colours"
	else
		fail "$name-screenshot" "no good PNG: ${pw:-?}x${ph:-?} ${colours:-?} colours" \
			"$(cat "$T/$name.shot.log")"
	fi
}

# --- the console check sees an error -------------------------------------
printf '<!DOCTYPE html><html><body><script>nosuchfunction();</script></body></html>\n' \
	>"$T/bad.html"
chrome --dump-dom "file://$T/bad.html" >/dev/null 2>"$T/bad.log"
if [ -n "$(console_errors "$T/bad.log")" ]; then
	ok "console-check-sees-a-deliberate-error"
else
	fail "console-check-sees-a-deliberate-error" "nothing in Chromium's log" \
		"$(tail -n 5 "$T/bad.log")"
fi

if [ "${GR_TIMELINE_REAL_ONLY:-0}" != 1 ]; then
# --- one synthetic VM: 4 CPUs, hostile names, losses ---------------------
"$MK" "$T/vm1" 4 3000 16384 7 hostile losses synced >"$T/vm1.truth" ||
	{ fail mktrace "tl_mktrace failed"; finish; }
"$GR" report --host-time "$T/vm1" >"$T/vm1.report" 2>/dev/null
for f in vm1.svg vm1.html; do
	if out=$("$GR" timeline -o "$T/$f" --latency "$T/vm1" 2>&1); then
		ok "timeline-writes-$f"
	else
		fail "timeline-writes-$f" "exit $?" "$out"
		continue
	fi
done
grep -Eq ' [1-9][0-9]* loss marks' <<<"$out" &&
	ok "losses-are-marked (${out##*latency and })" ||
	fail "losses-are-marked" "no loss mark counted" "$out"
check_picture vm1-svg "$T/vm1.svg" "$T/vm1.truth" "$T/vm1.report" 4
check_picture vm1-html "$T/vm1.html" "$T/vm1.truth" "$T/vm1.report" 4
render_check vm1-svg "$T/vm1.svg" 4
render_check vm1-html "$T/vm1.html" 4

# --- a window ---------------------------------------------------------------
"$GR" timeline -o "$T/win.svg" --from 0.5 --to 0.75 "$T/vm1" >/dev/null 2>&1
check_picture win "$T/win.svg" - "$T/vm1.report" 4
span=$("$PY" -c 'import re,sys; t=open(sys.argv[1]).read(); a=int(re.search(r"data-t0=\"(\d+)\"",t).group(1)); b=int(re.search(r"data-t1=\"(\d+)\"",t).group(1)); print(b-a)' "$T/win.svg")
if [ "$span" = 250000000 ]; then ok "window-is-0.25-s"; else
	fail "window-is-0.25-s" "span $span ns"; fi

# --- two VMs on one host-time axis ---------------------------------------
"$MK" "$T/vm2" 2 2000 16384 8 synced >"$T/vm2.truth"
"$GR" timeline -o "$T/two.html" "$T/vm1" "$T/vm2" >/dev/null 2>&1
n=$(grep -o '<rect class="lane[ "]' "$T/two.html" | wc -l)
if [ "$n" = 6 ]; then ok "two-vms-six-lanes"; else fail "two-vms-six-lanes" "$n"; fi
render_check two "$T/two.html" 6

# --- size bounded by the width -------------------------------------------
"$MK" "$T/big" 2 200000 65536 9 >/dev/null
"$GR" timeline -o "$T/big.svg" --width 800 "$T/big" >"$T/big.out" 2>&1
"$GR" timeline -o "$T/small.svg" --width 800 "$T/vm2" >/dev/null 2>&1
bs=$(stat -c %s "$T/big.svg")
ss=$(stat -c %s "$T/small.svg")
if [ "$bs" -lt $((3 * ss)) ] && [ "$bs" -lt 4000000 ]; then
	ok "size-bounded-by-width ($(cut -d: -f2- "$T/big.out" | cut -d, -f3-4): $bs bytes)"
else
	fail "size-bounded-by-width" "$bs bytes against $ss" "$(cat "$T/big.out")"
fi

fi

# --- a real guest's trace: GR_TIMELINE_TRACE, else the last `make demo` ---
if [ "${GR_TIMELINE_REAL_ONLY:-0}" = 1 ] &&
   ! [ -d "${GR_TIMELINE_TRACE:-}" ]; then
	# the caller (e2e test_basic) made a trace: it must be drawn
	fail "real-guest-trace-given" "no trace directory '${GR_TIMELINE_TRACE:-}'"
	finish
fi
if [ -z "${GR_TIMELINE_TRACE:-}" ] && [ -d "$BUILD/demo/traces/demo" ]; then
	GR_TIMELINE_TRACE=$(find "$BUILD/demo/traces/demo" -mindepth 1 \
		-maxdepth 1 -type d ! -name 'snapshot-*' | sort | tail -n1)
fi
if [ -n "${GR_TIMELINE_TRACE:-}" ] && [ -d "$GR_TIMELINE_TRACE" ]; then
	real=$GR_TIMELINE_TRACE
	cpus=$("$GR" report --summary "$real" | sed -n 's/.*, \([0-9]*\) CPUs*, .*/\1/p')
	"$GR" report --host-time "$real" >"$T/real.report" 2>/dev/null
	if "$GR" timeline -o "$T/real.html" --latency "$real" >"$T/real.out" 2>&1; then
		ok "real-guest-trace-draws ($(cut -d: -f2- "$T/real.out"))"
		check_picture real "$T/real.html" - "$T/real.report" "$cpus"
		render_check real "$T/real.html" "$cpus"
	else
		fail "real-guest-trace-draws" "failed" "$(cat "$T/real.out")"
	fi
else
	# not a skip: the e2e tier runs these checks on a fresh guest's trace
	note "real guest: no demo trace here; tests/e2e/test_basic.sh draws its own"
fi

[ "${KEEP:-0}" = 1 ] && note "pictures in $T"
finish
