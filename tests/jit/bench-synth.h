/* bench-synth.h -- the quaject-level synthesis figures bench-jit prints beside its anchors. */
#ifndef QUA_BENCH_SYNTH_H
#define QUA_BENCH_SYNTH_H

/* Prints synth_wire_ns (with its ratios to the anchors' compile times, when
 * positive), put_get_*_ns and pipeline4_* figures. */
void bench_synth(double tcc_ns, double gccjit_ns);

#endif
