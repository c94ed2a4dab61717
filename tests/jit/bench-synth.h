/* bench-synth.h -- the quaject-level synthesis figures bench-jit prints beside its anchors. */
#ifndef QUA_BENCH_SYNTH_H
#define QUA_BENCH_SYNTH_H

/* Prints synth_wire_ns, the end-to-end synth_wire_e2e* figures (with their
 * ratios to libtcc's and the C compiler's compile times of the template
 * file, when positive), put_get_*_ns, pipeline4_* and pump_* figures. */
void bench_synth(double tcc_ns, double cc_ns);

#endif
