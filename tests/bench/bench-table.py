#!/usr/bin/env python3
"""bench-table.py -- the closing table of `make bench`: figure, ours, anchor, ratio, goal, from the BENCH lines of meson's benchmark log.

Usage: bench-table.py BENCHMARK_LOG. Every figure of the goal table must appear, as a value
or as `BENCH <name> skipped <why>`; a figure that is missing altogether (its benchmark did not
run or printed nothing) is listed as MISSING and the exit status is 1. The ratio is recomputed
from the medians the benchmarks printed, so the table and the BENCH lines agree.
"""
import math
import re
import sys

# The programs of the m68k benchmark (tests/m68k/bench-m68k.c), by their BENCH suffix.
M68K_PROGS = ("int", "mem", "branch", "fpu")

# name, ours (BENCH name), anchor (BENCH name, a list: the best of them, or None),
# 'higher' or 'lower' is better for ours, goal (comparison, value), what the ratio is
ROWS = [
    ("queue_spsc_vs_best", "queue_spsc_mops",
     ["rte_ring_spsc_mops", "boost_spsc_mops", "ck_ring_spsc_mops"], "higher", (">=", 1.0)),
    ("queue_mpmc_contended_vs_rte_ring", "queue_mpmc_contended_mops",
     ["rte_ring_mpmc_contended_mops"], "higher", (">=", 1.0)),
    ("queue_mpmc_mixed_vs_rte_ring", "queue_mpmc_mixed_mops",
     ["rte_ring_mpmc_mixed_mops"], "higher", None),
    ("queue_burst8_vs_rte_ring", "queue_burst8_mops", ["rte_ring_burst8_mops"], "higher",
     (">=", 1.0)),
    ("queue_burst32_vs_rte_ring", "queue_burst32_mops", ["rte_ring_burst32_mops"], "higher",
     None),
    ("rpc_tcp_vs_tcp_echo", "rpc_tcp_rtt_us", ["tcp_echo_rtt_us"], "lower", (">=", 0.8)),
    # The same against an echo thread inside the client's process (no address-space switch).
    ("rpc_tcp_vs_tcp_echo_thread", "rpc_tcp_rtt_us", ["tcp_echo_thread_rtt_us"], "lower", None),
    ("rpc_vs_redis_same_transport", "rpc_tcp_calls_per_s", ["redis_incr_tcp_per_s"], "higher",
     (">=", 1.0)),
    ("rpc_vs_redis_unix", "rpc_unix_calls_per_s", ["redis_incr_unix_per_s"], "higher", None),
    ("synth_wire_e2e_ns", "synth_wire_e2e_ns", None, "lower", ("<=", 5000.0)),
    ("synth_e2e_vs_libtcc", "synth_wire_e2e_ns", ["libtcc_template_compile_ns"], "lower",
     (">=", 50.0)),
    ("synth_call_speedup", "put_get_synth_ns", ["put_get_generic_ns"], "lower", (">=", 1.3)),
    ("pipeline4_speedup", "pipeline4_synth_mops", ["pipeline4_generic_mops"], "higher",
     (">=", 2.5)),
    # The same pumped pipeline written by hand in C (one thread taking batches from the source
    # ring, counting and putting inline): how close the synthesised step comes to it.
    ("pipeline4_synth_vs_floor", "pipeline4_synth_mops", ["pipeline4_floor_mops"], "higher",
     None),
    # The pipeline driven by a plain thread calling the first put site, so nothing of the
    # caller can be folded: synthesis against generic code, and against a hand-written floor
    # whose every put and get is still one call through a site.
    ("pipeline4_thread_speedup", "pipeline4_thread_synth_mops",
     ["pipeline4_thread_generic_mops"], "higher", None),
    ("pipeline4_thread_synth_vs_floor", "pipeline4_thread_synth_mops",
     ["pipeline4_thread_floor_mops"], "higher", None),
    ("pump_step_speedup", "pump_move_synth_mops", ["pump_move_generic_mops"], "higher",
     (">=", 1.5)),
    # quamachine against qemu-m68k (tests/m68k/bench-m68k.c): these three are the geometric
    # means over the benchmark's programs (integer, memory-bound, branchy, FPU) of the
    # per-program ratios below (GEOMEANS).
    ("quamachine_vs_qemu", "quamachine_vs_qemu", None, "higher", (">=", 0.1)),
    ("quamachine_fpu_vs_qemu", "quamachine_fpu_mflops", ["qemu_m68k_fpu_mflops"], "higher",
     None),
    # The translator (m68k/xlat.c) on the same rounds, and what translating costs.
    ("quamachine_jit_vs_qemu", "quamachine_jit_vs_qemu", None, "higher", (">=", 1.0)),
    ("quamachine_jit_vs_interp", "quamachine_jit_vs_interp", None, "higher", None),
    ("quamachine_translate_ns_per_insn", "quamachine_translate_ns_per_insn", None, "lower", None),
] + [
    # Per program: the interpreter and the translator against qemu-m68k, and the translator
    # against the interpreter, from each program's time per round.
    (f"quamachine{jit}_vs_{anchor}_{prog}", f"quamachine{jit}_round_ms_{prog}",
     [f"{anchor_n}_{prog}"], "lower", None)
    for prog in M68K_PROGS
    for jit, anchor, anchor_n in (("", "qemu", "qemu_m68k_round_ms"),
                                  ("_jit", "qemu", "qemu_m68k_round_ms"),
                                  ("_jit", "interp", "quamachine_round_ms"))
] + [
    # The lowest per-file agreement of the 68000's clock counts with the single-step data's.
    ("m68000_cycle_agreement", "m68000_cycle_agreement", None, "higher", (">=", 99.0)),
] + [
    # The m68k backend against Massalin's thesis, Table 5.1 (tests/m68k/bench-qj.c): the
    # folded forms, inline in their caller as the table's code was; the called entries beside.
    row
    for op in ("counter_inc", "list_insert", "list_delete", "queue_put", "queue_get",
               "stack_push", "stack_pop")
    for row in ((f"m68k_{op}_vs_thesis", f"m68k_{op}_folded_cycles",
                 [f"m68k_{op}_thesis_cycles"], "lower", (">=", 1.0)),
                (f"m68k_{op}_called_vs_thesis", f"m68k_{op}_cycles",
                 [f"m68k_{op}_thesis_cycles"], "lower", None))
]

# Figures that are geometric means of ratios, ours / anchor ('lower' is better for both), one
# per program: recomputed here from the per-program medians when all of them are present.
GEOMEANS = {
    "quamachine_vs_qemu": [(f"quamachine_round_ms_{p}", f"qemu_m68k_round_ms_{p}")
                           for p in M68K_PROGS],
    "quamachine_jit_vs_qemu": [(f"quamachine_jit_round_ms_{p}", f"qemu_m68k_round_ms_{p}")
                               for p in M68K_PROGS],
    "quamachine_jit_vs_interp": [(f"quamachine_jit_round_ms_{p}", f"quamachine_round_ms_{p}")
                                 for p in M68K_PROGS],
}

LINE = re.compile(r"^BENCH (\S+) (\S+)(?: (.*))?$")


def read(path):
    values, skipped, units = {}, {}, {}
    with open(path, errors="replace") as f:
        for raw in f:
            m = LINE.match(raw.strip())
            if not m:
                continue
            name, value, rest = m.group(1), m.group(2), m.group(3) or ""
            if value == "skipped":
                skipped[name] = rest
                continue
            try:
                values[name] = float(value)  # the last run of a name wins
                units[name] = rest
            except ValueError:
                pass
    return values, skipped, units


def fmt(v, unit):
    if v is None:
        return "-"
    text = f"{v:.0f}" if abs(v) >= 1000 else f"{v:.3g}" if abs(v) < 10 else f"{v:.1f}"
    return f"{text} {unit}".strip()


def main():
    if len(sys.argv) != 2:
        print("usage: bench-table.py BENCHMARK_LOG", file=sys.stderr)
        return 2
    values, skipped, units = read(sys.argv[1])
    for name, parts in GEOMEANS.items():
        if all(o in values and a in values and values[o] > 0 for o, a in parts):
            values[name] = math.exp(sum(math.log(values[a] / values[o]) for o, a in parts)
                                    / len(parts))
            units[name] = "x"
    out, missing = [], 0
    for name, ours_n, anchors, better, goal in ROWS:
        if name in skipped or ours_n in skipped:
            out.append((name, "skipped", "", "", "", skipped.get(name, skipped.get(ours_n, ""))))
            continue
        ours = values.get(ours_n)
        anchor_n = None
        if anchors:
            present = [a for a in anchors if a in values]
            if present:
                pick = max if better == "higher" else min
                anchor_n = pick(present, key=lambda a: values[a])
        anchor = values.get(anchor_n) if anchor_n else None
        if ours is None or (anchors and anchor is None):
            missing += 1
            out.append((name, "MISSING", "", "", "", "its benchmark did not run or printed nothing"))
            continue
        if anchors:
            ratio = ours / anchor if better == "higher" else anchor / ours
        else:
            ratio = None
        judged = ratio if anchors else ours
        verdict = ""
        if goal:
            op, g = goal
            met = judged >= g if op == ">=" else judged <= g
            verdict = f"{op} {g:g} {'met' if met else 'NOT met'}"
        anchor_text = fmt(anchor, units.get(anchor_n, "")) + (f" ({anchor_n})" if anchors and len(anchors) > 1 else "")
        if ours_n in GEOMEANS:  # a ratio already: shown in the ratio column
            out.append((name, f"geomean of {len(GEOMEANS[ours_n])}", "-", f"{ours:.3g} x",
                        verdict, ""))
            continue
        out.append((name, fmt(ours, units.get(ours_n, "")), anchor_text,
                    f"{ratio:.3g} x" if ratio is not None else "-", verdict, ""))
    widths = [max(len(r[i]) for r in out + [("figure", "ours", "anchor", "ratio", "goal", "")])
              for i in range(5)]
    head = ("figure", "ours", "anchor", "ratio", "goal")
    print()
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    print("  ".join("-" * w for w in widths))
    for r in out:
        line = "  ".join(c.ljust(w) for c, w in zip(r[:5], widths))
        print((line + ("  " + r[5] if r[5] else "")).rstrip())
    print("\n(medians of interleaved runs; each benchmark's '#' lines give the spread)")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
