/* linux.c -- the Linux/m68k personality: the initial stack and system calls of static programs.
 *
 * Design notes
 *
 * 1. The guest's address space is the machine's RAM: the ELF segments at
 *    the bottom, the heap (brk) above them, mmap regions handed out
 *    downwards from below the stack, the stack at the top, and the top
 *    4 KiB as a supervisor stack nobody uses (system calls never reach
 *    the CPU's exception path: the trap hook serves them). munmap'ed
 *    ranges are remembered (up to MMAP_HOLES of them; past that a range
 *    stays unusable) and mmap reuses them first fit before it carves new
 *    space, so that a program which maps and unmaps large buffers, as
 *    glibc's malloc does for big blocks, does not run out of memory.
 *
 * 2. System calls arrive through the core's trap hook on TRAP #0 with the
 *    number in D0 and arguments in D1-D5 and A0; the result goes to D0,
 *    a negative errno on failure. The host serves them on the guest's
 *    behalf with the same file descriptors; structures are converted to
 *    the m68k layout (big-endian, 2-byte alignment). Errno numbers are
 *    the asm-generic ones on both sides.
 *
 * 3. The calls are listed once, in SYSCALLS below; a call not listed
 *    stops the machine naming it and the PC. Calls that glibc probes and
 *    tolerates missing (set_robust_list, rseq) answer -ENOSYS, as
 *    qemu-m68k does.
 *
 * 4. Paths resolve inside the directory of --root (linux-root.c); signals
 *    are generated and delivered on frames as Linux/m68k builds them (the
 *    note of the Signals section); the interval timer is polled after each
 *    system call and between the slices m68k_linux_run runs.
 */
#include "machine-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096u
#define STACK_MAX (8u << 20)
#define SUPER_STACK 4096u
#define NSIG_GUEST 65
#define SIGACTION_SIZE 20 /* m68k kernel struct sigaction */
#define MMAP_HOLES 512 /* unmapped ranges remembered for reuse */
#define LINUX_SLICE (1u << 16) /* instructions between checks of the timer */

struct m68k__linux {
  uint32_t brk_start, brk;
  uint32_t mmap_low, mmap_top; /* mmap hands out [mmap_low, mmap_top) downwards */
  /* Unmapped ranges inside [mmap_low, mmap_top), sorted, disjoint and not
   * adjacent; mmap reuses them first fit (note 1). */
  struct {
    uint32_t addr, len;
  } holes[MMAP_HOLES];
  unsigned nholes;
  uint32_t stack_top;
  uint32_t stack_size;
  uint32_t tp; /* the thread pointer (set_thread_area) */
  uint64_t sigmask;  /* blocked signals, bit sig - 1 */
  uint64_t pending;  /* generated, not yet delivered */
  struct {
    int32_t code;
    uint32_t a, b; /* si_pid and si_uid, or si_addr */
  } info[NSIG_GUEST];
  uint64_t saved_mask; /* sigsuspend's mask to restore, when mask_saved */
  bool mask_saved;
  uint64_t timer_next;     /* ITIMER_REAL: monotonic ns of the next SIGALRM (0: off) */
  uint64_t timer_interval; /* ns (0: once) */
  m68k__root_t *root; /* the guest's "/" (NULL: no files) */
  bool told_no_root;
  uint8_t sigact[NSIG_GUEST][SIGACTION_SIZE];
  char *exe_path;
};

/* One system call being served. */
typedef struct sc {
  struct m68k_machine *m;
  m68k__mcpu_t *c;
  m68k__linux_t *lx;
  uint32_t nr;
  uint32_t a[6];
} sc_t;

/* clang-format off */
static const char *const syscall_names[] = {
    [0] = "restart_syscall", [1] = "exit", [2] = "fork", [3] = "read", [4] = "write", [5] = "open",
    [6] = "close", [7] = "waitpid", [8] = "creat", [9] = "link", [10] = "unlink", [11] = "execve",
    [12] = "chdir", [13] = "time", [14] = "mknod", [15] = "chmod", [16] = "chown", [18] = "oldstat",
    [19] = "lseek", [20] = "getpid", [21] = "mount", [22] = "umount", [23] = "setuid",
    [24] = "getuid", [25] = "stime", [26] = "ptrace", [27] = "alarm", [28] = "oldfstat",
    [29] = "pause", [30] = "utime", [33] = "access", [34] = "nice", [36] = "sync", [37] = "kill",
    [38] = "rename", [39] = "mkdir", [40] = "rmdir", [41] = "dup", [42] = "pipe", [43] = "times",
    [45] = "brk", [46] = "setgid", [47] = "getgid", [48] = "signal", [49] = "geteuid",
    [50] = "getegid", [51] = "acct", [52] = "umount2", [54] = "ioctl", [55] = "fcntl",
    [57] = "setpgid", [60] = "umask", [61] = "chroot", [62] = "ustat", [63] = "dup2",
    [64] = "getppid", [65] = "getpgrp", [66] = "setsid", [67] = "sigaction", [68] = "sgetmask",
    [69] = "ssetmask", [70] = "setreuid", [71] = "setregid", [72] = "sigsuspend",
    [73] = "sigpending", [74] = "sethostname", [75] = "setrlimit", [76] = "getrlimit",
    [77] = "getrusage", [78] = "gettimeofday", [79] = "settimeofday", [80] = "getgroups",
    [81] = "setgroups", [82] = "select", [83] = "symlink", [84] = "oldlstat", [85] = "readlink",
    [86] = "uselib", [87] = "swapon", [88] = "reboot", [89] = "readdir", [90] = "mmap",
    [91] = "munmap", [92] = "truncate", [93] = "ftruncate", [94] = "fchmod", [95] = "fchown",
    [96] = "getpriority", [97] = "setpriority", [99] = "statfs", [100] = "fstatfs",
    [102] = "socketcall", [103] = "syslog", [104] = "setitimer", [105] = "getitimer",
    [106] = "stat", [107] = "lstat", [108] = "fstat", [111] = "vhangup", [114] = "wait4",
    [115] = "swapoff", [116] = "sysinfo", [117] = "ipc", [118] = "fsync", [119] = "sigreturn",
    [120] = "clone", [121] = "setdomainname", [122] = "uname", [123] = "cacheflush",
    [124] = "adjtimex", [125] = "mprotect", [126] = "sigprocmask", [127] = "create_module",
    [128] = "init_module", [129] = "delete_module", [130] = "get_kernel_syms", [131] = "quotactl",
    [132] = "getpgid", [133] = "fchdir", [134] = "bdflush", [135] = "sysfs", [136] = "personality",
    [138] = "setfsuid", [139] = "setfsgid", [140] = "_llseek", [141] = "getdents",
    [142] = "_newselect", [143] = "flock", [144] = "msync", [145] = "readv", [146] = "writev",
    [147] = "getsid", [148] = "fdatasync", [149] = "_sysctl", [150] = "mlock", [151] = "munlock",
    [152] = "mlockall", [153] = "munlockall", [154] = "sched_setparam", [155] = "sched_getparam",
    [156] = "sched_setscheduler", [157] = "sched_getscheduler", [158] = "sched_yield",
    [159] = "sched_get_priority_max", [160] = "sched_get_priority_min",
    [161] = "sched_rr_get_interval", [162] = "nanosleep", [163] = "mremap", [164] = "setresuid",
    [165] = "getresuid", [166] = "getpagesize", [167] = "query_module", [168] = "poll",
    [169] = "nfsservctl", [170] = "setresgid", [171] = "getresgid", [172] = "prctl",
    [173] = "rt_sigreturn", [174] = "rt_sigaction", [175] = "rt_sigprocmask",
    [176] = "rt_sigpending", [177] = "rt_sigtimedwait", [178] = "rt_sigqueueinfo",
    [179] = "rt_sigsuspend", [180] = "pread64", [181] = "pwrite64", [182] = "lchown",
    [183] = "getcwd", [184] = "capget", [185] = "capset", [186] = "sigaltstack", [187] = "sendfile",
    [188] = "getpmsg", [189] = "putpmsg", [190] = "vfork", [191] = "ugetrlimit", [192] = "mmap2",
    [193] = "truncate64", [194] = "ftruncate64", [195] = "stat64", [196] = "lstat64",
    [197] = "fstat64", [198] = "chown32", [199] = "getuid32", [200] = "getgid32",
    [201] = "geteuid32", [202] = "getegid32", [203] = "setreuid32", [204] = "setregid32",
    [205] = "getgroups32", [206] = "setgroups32", [207] = "fchown32", [208] = "setresuid32",
    [209] = "getresuid32", [210] = "setresgid32", [211] = "getresgid32", [212] = "lchown32",
    [213] = "setuid32", [214] = "setgid32", [215] = "setfsuid32", [216] = "setfsgid32",
    [217] = "pivot_root", [220] = "getdents64", [221] = "gettid", [222] = "tkill",
    [223] = "setxattr", [224] = "lsetxattr", [225] = "fsetxattr", [226] = "getxattr",
    [227] = "lgetxattr", [228] = "fgetxattr", [229] = "listxattr", [230] = "llistxattr",
    [231] = "flistxattr", [232] = "removexattr", [233] = "lremovexattr", [234] = "fremovexattr",
    [235] = "futex", [236] = "sendfile64", [237] = "mincore", [238] = "madvise", [239] = "fcntl64",
    [240] = "readahead", [241] = "io_setup", [242] = "io_destroy", [243] = "io_getevents",
    [244] = "io_submit", [245] = "io_cancel", [246] = "fadvise64", [247] = "exit_group",
    [248] = "lookup_dcookie", [249] = "epoll_create", [250] = "epoll_ctl", [251] = "epoll_wait",
    [252] = "remap_file_pages", [253] = "set_tid_address", [254] = "timer_create",
    [255] = "timer_settime", [256] = "timer_gettime", [257] = "timer_getoverrun",
    [258] = "timer_delete", [259] = "clock_settime", [260] = "clock_gettime",
    [261] = "clock_getres", [262] = "clock_nanosleep", [263] = "statfs64", [264] = "fstatfs64",
    [265] = "tgkill", [266] = "utimes", [267] = "fadvise64_64", [268] = "mbind",
    [269] = "get_mempolicy", [270] = "set_mempolicy", [271] = "mq_open", [272] = "mq_unlink",
    [273] = "mq_timedsend", [274] = "mq_timedreceive", [275] = "mq_notify", [276] = "mq_getsetattr",
    [277] = "waitid", [279] = "add_key", [280] = "request_key", [281] = "keyctl",
    [282] = "ioprio_set", [283] = "ioprio_get", [284] = "inotify_init", [285] = "inotify_add_watch",
    [286] = "inotify_rm_watch", [287] = "migrate_pages", [288] = "openat", [289] = "mkdirat",
    [290] = "mknodat", [291] = "fchownat", [292] = "futimesat", [293] = "fstatat64",
    [294] = "unlinkat", [295] = "renameat", [296] = "linkat", [297] = "symlinkat",
    [298] = "readlinkat", [299] = "fchmodat", [300] = "faccessat", [301] = "pselect6",
    [302] = "ppoll", [303] = "unshare", [304] = "set_robust_list", [305] = "get_robust_list",
    [306] = "splice", [307] = "sync_file_range", [308] = "tee", [309] = "vmsplice",
    [310] = "move_pages", [311] = "sched_setaffinity", [312] = "sched_getaffinity",
    [313] = "kexec_load", [314] = "getcpu", [315] = "epoll_pwait", [316] = "utimensat",
    [317] = "signalfd", [318] = "timerfd_create", [319] = "eventfd", [320] = "fallocate",
    [321] = "timerfd_settime", [322] = "timerfd_gettime", [323] = "signalfd4", [324] = "eventfd2",
    [325] = "epoll_create1", [326] = "dup3", [327] = "pipe2", [328] = "inotify_init1",
    [329] = "preadv", [330] = "pwritev", [331] = "rt_tgsigqueueinfo", [332] = "perf_event_open",
    [333] = "get_thread_area", [334] = "set_thread_area", [335] = "atomic_cmpxchg_32",
    [336] = "atomic_barrier", [337] = "fanotify_init", [338] = "fanotify_mark", [339] = "prlimit64",
    [340] = "name_to_handle_at", [341] = "open_by_handle_at", [342] = "clock_adjtime",
    [343] = "syncfs", [344] = "setns", [345] = "process_vm_readv", [346] = "process_vm_writev",
    [347] = "kcmp", [348] = "finit_module", [349] = "sched_setattr", [350] = "sched_getattr",
    [351] = "renameat2", [352] = "getrandom", [353] = "memfd_create", [354] = "bpf",
    [355] = "execveat", [356] = "socket", [357] = "socketpair", [358] = "bind", [359] = "connect",
    [360] = "listen", [361] = "accept4", [362] = "getsockopt", [363] = "setsockopt",
    [364] = "getsockname", [365] = "getpeername", [366] = "sendto", [367] = "sendmsg",
    [368] = "recvfrom", [369] = "recvmsg", [370] = "shutdown", [371] = "recvmmsg",
    [372] = "sendmmsg", [373] = "userfaultfd", [374] = "membarrier", [375] = "mlock2",
    [376] = "copy_file_range", [377] = "preadv2", [378] = "pwritev2", [379] = "statx",
    [380] = "seccomp", [381] = "pkey_mprotect", [382] = "pkey_alloc", [383] = "pkey_free",
    [384] = "rseq", [393] = "semget", [394] = "semctl", [395] = "shmget", [396] = "shmctl",
    [397] = "shmat", [398] = "shmdt", [399] = "msgget", [400] = "msgsnd", [401] = "msgrcv",
    [402] = "msgctl", [403] = "clock_gettime64", [404] = "clock_settime64",
    [405] = "clock_adjtime64", [406] = "clock_getres_time64", [407] = "clock_nanosleep_time64",
    [408] = "timer_gettime64", [409] = "timer_settime64", [410] = "timerfd_gettime64",
    [411] = "timerfd_settime64", [412] = "utimensat_time64", [413] = "pselect6_time64",
    [414] = "ppoll_time64", [416] = "io_pgetevents_time64", [417] = "recvmmsg_time64",
    [418] = "mq_timedsend_time64", [419] = "mq_timedreceive_time64", [420] = "semtimedop_time64",
    [421] = "rt_sigtimedwait_time64", [422] = "futex_time64",
    [423] = "sched_rr_get_interval_time64", [424] = "pidfd_send_signal", [425] = "io_uring_setup",
    [426] = "io_uring_enter", [427] = "io_uring_register", [428] = "open_tree",
    [429] = "move_mount", [430] = "fsopen", [431] = "fsconfig", [432] = "fsmount", [433] = "fspick",
    [434] = "pidfd_open", [435] = "clone3", [436] = "close_range", [437] = "openat2",
    [438] = "pidfd_getfd", [439] = "faccessat2", [440] = "process_madvise", [441] = "epoll_pwait2",
    [442] = "mount_setattr", [443] = "quotactl_fd", [444] = "landlock_create_ruleset",
    [445] = "landlock_add_rule", [446] = "landlock_restrict_self", [448] = "process_mrelease",
    [449] = "futex_waitv", [450] = "set_mempolicy_home_node",
};
/* clang-format on */

M68K_API const char *m68k_linux_syscall_name(uint32_t nr) {
  if (nr >= sizeof syscall_names / sizeof syscall_names[0])
    return NULL;
  return syscall_names[nr];
}

void m68k__linux_free(m68k__linux_t *lx) {
  if (lx == NULL)
    return;
  free(lx->exe_path);
  m68k__root_free(lx->root);
  free(lx);
}

/* ---- Helpers ------------------------------------------------------------ */

static uint32_t err(int e) { return (uint32_t)-e; }
static uint32_t host_ret(long r) { return r < 0 ? err(errno) : (uint32_t)r; }

static void *gmem(sc_t *s, uint32_t addr, uint32_t len) {
  return m68k_machine_ram(s->m, addr, len != 0 ? len : 1);
}

/* Copies a NUL-terminated guest string; 0, -EFAULT or -ENAMETOOLONG. */
static int gstr(sc_t *s, uint32_t addr, char *buf, size_t max) {
  for (size_t i = 0; i < max; i++) {
    const uint8_t *p = gmem(s, addr + (uint32_t)i, 1);
    if (p == NULL)
      return -EFAULT;
    buf[i] = (char)*p;
    if (*p == 0)
      return 0;
  }
  return -ENAMETOOLONG;
}

static uint32_t page_up(uint32_t v) { return (v + PAGE - 1) & ~(PAGE - 1); }

/* Guest (m68k) open flags to the host's: the asm-generic bits are shared,
 * O_DIRECTORY, O_NOFOLLOW, O_DIRECT and O_LARGEFILE differ. */
#define G_O_DIRECTORY 040000u
#define G_O_NOFOLLOW 0100000u
#define G_O_DIRECT 0200000u
#define G_O_LARGEFILE 0400000u
#define G_O_COMMON 0x3E3FFFu /* everything else the two share */

static int host_oflags(uint32_t g) {
  int h = (int)(g & G_O_COMMON & ~(G_O_DIRECTORY | G_O_NOFOLLOW | G_O_DIRECT | G_O_LARGEFILE));
  if (g & G_O_DIRECTORY)
    h |= O_DIRECTORY;
  if (g & G_O_NOFOLLOW)
    h |= O_NOFOLLOW;
  if (g & G_O_DIRECT)
    h |= O_DIRECT;
  return h;
}

static uint32_t guest_oflags(int h) {
  uint32_t g =
      (uint32_t)h & G_O_COMMON & ~(G_O_DIRECTORY | G_O_NOFOLLOW | G_O_DIRECT | G_O_LARGEFILE);
  g &= ~(uint32_t)(O_DIRECTORY | O_NOFOLLOW | O_DIRECT | 0100000);
  if (h & O_DIRECTORY)
    g |= G_O_DIRECTORY;
  if (h & O_NOFOLLOW)
    g |= G_O_NOFOLLOW;
  if (h & O_DIRECT)
    g |= G_O_DIRECT;
  return g | G_O_LARGEFILE;
}

static int dirfd_of(uint32_t g) { return (int32_t)g == -100 ? AT_FDCWD : (int)(int32_t)g; }

/* ---- Process and memory ---------------------------------------------------- */

static uint32_t sys_exit(sc_t *s) {
  int code = (int)(s->a[0] & 0xFF);
  m68k__machine_stop(s->m, s->c, M68K_MACHINE_EXITED, code, "%s(%d)", syscall_names[s->nr], code);
  return 0;
}

static uint32_t sys_brk(sc_t *s) {
  m68k__linux_t *lx = s->lx;
  uint32_t want = s->a[0] & s->m->addr_mask;
  if (want >= lx->brk_start && want <= lx->mmap_low) {
    if (want > lx->brk)
      memset(gmem(s, lx->brk, want - lx->brk), 0, want - lx->brk);
    lx->brk = want;
  }
  return lx->brk;
}

#define G_MAP_FIXED 0x10u
#define G_MAP_ANONYMOUS 0x20u

/* Removes [addr, addr + len) from the holes (a MAP_FIXED mapping). */
static void holes_take(m68k__linux_t *lx, uint32_t addr, uint32_t len) {
  uint64_t end = (uint64_t)addr + len;
  for (unsigned i = 0; i < lx->nholes; i++) {
    uint64_t ha = lx->holes[i].addr, he = ha + lx->holes[i].len;
    if (he <= addr || ha >= end)
      continue;
    if (ha < addr && he > end && lx->nholes < MMAP_HOLES) { /* split in two */
      memmove(&lx->holes[i + 2], &lx->holes[i + 1], (lx->nholes - i - 1) * sizeof lx->holes[0]);
      lx->nholes++;
      lx->holes[i + 1].addr = (uint32_t)end;
      lx->holes[i + 1].len = (uint32_t)(he - end);
      lx->holes[i].len = (uint32_t)(addr - ha);
      return;
    }
    if (ha < addr) {
      lx->holes[i].len = (uint32_t)(addr - ha);
    } else if (he > end) {
      lx->holes[i].addr = (uint32_t)end;
      lx->holes[i].len = (uint32_t)(he - end);
    } else {
      memmove(&lx->holes[i], &lx->holes[i + 1], (lx->nholes - i - 1) * sizeof lx->holes[0]);
      lx->nholes--;
      i--;
    }
  }
}

/* Gives [addr, addr + len) of the mmap area back: a hole, merged with its
 * neighbours; holes at the bottom return to the unused space below. */
static void holes_give(m68k__linux_t *lx, uint32_t addr, uint32_t len) {
  if (addr < lx->mmap_low) {
    if ((uint64_t)addr + len <= lx->mmap_low)
      return;
    len -= lx->mmap_low - addr;
    addr = lx->mmap_low;
  }
  if ((uint64_t)addr + len > lx->mmap_top)
    len = addr < lx->mmap_top ? lx->mmap_top - addr : 0;
  if (len == 0)
    return;
  holes_take(lx, addr, len); /* unmapping a range twice */
  unsigned i = 0;
  while (i < lx->nholes && lx->holes[i].addr < addr)
    i++;
  bool prev = i > 0 && lx->holes[i - 1].addr + lx->holes[i - 1].len == addr;
  bool next = i < lx->nholes && addr + len == lx->holes[i].addr;
  if (prev && next) {
    lx->holes[i - 1].len += len + lx->holes[i].len;
    memmove(&lx->holes[i], &lx->holes[i + 1], (lx->nholes - i - 1) * sizeof lx->holes[0]);
    lx->nholes--;
  } else if (prev) {
    lx->holes[i - 1].len += len;
  } else if (next) {
    lx->holes[i].addr = addr;
    lx->holes[i].len += len;
  } else if (lx->nholes < MMAP_HOLES) {
    memmove(&lx->holes[i + 1], &lx->holes[i], (lx->nholes - i) * sizeof lx->holes[0]);
    lx->holes[i].addr = addr;
    lx->holes[i].len = len;
    lx->nholes++;
  } else {
    return; /* no room to remember it: it stays unusable (note 1) */
  }
  if (lx->nholes > 0 && lx->holes[0].addr == lx->mmap_low) {
    lx->mmap_low += lx->holes[0].len;
    memmove(&lx->holes[0], &lx->holes[1], (lx->nholes - 1) * sizeof lx->holes[0]);
    lx->nholes--;
  }
}

/* A fresh range of len bytes for mmap: a hole first fit, else new space
 * below mmap_low; 0 when there is none. */
static uint32_t mmap_space(m68k__linux_t *lx, uint32_t len) {
  for (unsigned i = 0; i < lx->nholes; i++) {
    if (lx->holes[i].len < len)
      continue;
    uint32_t addr = lx->holes[i].addr;
    holes_take(lx, addr, len);
    return addr;
  }
  if (lx->mmap_low - lx->brk < len)
    return 0;
  lx->mmap_low -= len;
  return lx->mmap_low;
}

static uint32_t do_mmap(sc_t *s, uint32_t addr, uint32_t len, uint32_t flags, int32_t fd,
                        uint64_t off) {
  m68k__linux_t *lx = s->lx;
  if (len == 0 || len > s->m->ram_size)
    return err(EINVAL);
  len = page_up(len);
  uint8_t *p;
  if (flags & G_MAP_FIXED) {
    if (addr & (PAGE - 1))
      return err(EINVAL);
    p = gmem(s, addr, len);
    if (p == NULL)
      return err(ENOMEM);
    holes_take(lx, addr, len);
  } else {
    addr = mmap_space(lx, len);
    if (addr == 0)
      return err(ENOMEM);
    p = gmem(s, addr, len);
  }
  memset(p, 0, len);
  if (!(flags & G_MAP_ANONYMOUS)) {
    uint32_t got = 0;
    while (got < len) {
      ssize_t r = pread(fd, p + got, len - got, (off_t)(off + got));
      if (r < 0) {
        int e = errno;
        if (!(flags & G_MAP_FIXED))
          holes_give(lx, addr, len);
        return err(e);
      }
      if (r == 0)
        break;
      got += (uint32_t)r;
    }
  }
  return addr;
}

static uint32_t sys_mmap(sc_t *s) {
  const uint8_t *a = gmem(s, s->a[0], 24);
  if (a == NULL)
    return err(EFAULT);
  uint32_t off = m68k__be32(a + 20);
  if (off & (PAGE - 1))
    return err(EINVAL);
  return do_mmap(s, m68k__be32(a), m68k__be32(a + 4), m68k__be32(a + 12),
                 (int32_t)m68k__be32(a + 16), off);
}

static uint32_t sys_mmap2(sc_t *s) {
  return do_mmap(s, s->a[0], s->a[1], s->a[3], (int32_t)s->a[4], (uint64_t)s->a[5] * PAGE);
}

static uint32_t sys_munmap(sc_t *s) {
  m68k__linux_t *lx = s->lx;
  uint32_t addr = s->a[0] & s->m->addr_mask, len = page_up(s->a[1]);
  if (addr & (PAGE - 1) || len == 0)
    return err(EINVAL);
  holes_give(lx, addr, len);
  return 0;
}

static uint32_t sys_ok(sc_t *s) {
  (void)s;
  return 0;
}
static uint32_t sys_enosys(sc_t *s) {
  (void)s;
  return err(ENOSYS);
}
static uint32_t sys_enomem(sc_t *s) {
  (void)s;
  return err(ENOMEM);
}

static uint32_t sys_set_thread_area(sc_t *s) {
  s->lx->tp = s->a[0];
  return 0;
}

static uint32_t sys_get_thread_area(sc_t *s) { return s->lx->tp; }
static uint32_t sys_getpid(sc_t *s) {
  (void)s;
  return (uint32_t)getpid();
}
static uint32_t sys_getppid(sc_t *s) {
  (void)s;
  return (uint32_t)getppid();
}
static uint32_t sys_getuid(sc_t *s) {
  (void)s;
  return (uint32_t)getuid();
}
static uint32_t sys_geteuid(sc_t *s) {
  (void)s;
  return (uint32_t)geteuid();
}
static uint32_t sys_getgid(sc_t *s) {
  (void)s;
  return (uint32_t)getgid();
}
static uint32_t sys_getegid(sc_t *s) {
  (void)s;
  return (uint32_t)getegid();
}

static uint32_t sys_uname(sc_t *s) {
  uint8_t *p = gmem(s, s->a[0], 6 * 65);
  struct utsname u;
  if (p == NULL)
    return err(EFAULT);
  if (uname(&u) != 0)
    memset(&u, 0, sizeof u);
  memset(p, 0, 6 * 65);
  snprintf((char *)p, 65, "Linux");
  snprintf((char *)p + 65, 65, "%s", u.nodename);
  snprintf((char *)p + 130, 65, "%s", u.release);
  snprintf((char *)p + 195, 65, "%s", u.version);
  snprintf((char *)p + 260, 65, "m68k");
  snprintf((char *)p + 325, 65, "(none)");
  return 0;
}

/* struct sysinfo of m68k: 64 bytes; the machine's RAM, the host's uptime. */
static uint32_t sys_sysinfo(sc_t *s) {
  uint8_t *p = gmem(s, s->a[0], 64);
  struct timespec up;
  if (p == NULL)
    return err(EFAULT);
  clock_gettime(CLOCK_BOOTTIME, &up);
  memset(p, 0, 64);
  m68k__put32(p, (uint32_t)up.tv_sec);
  m68k__put32(p + 16, s->m->ram_size);               /* totalram */
  m68k__put32(p + 20, s->lx->mmap_low - s->lx->brk); /* freeram */
  m68k__put16(p + 40, 1);                            /* procs */
  m68k__put32(p + 52, 1);                            /* mem_unit */
  return 0;
}

static uint32_t sys_getrandom(sc_t *s) {
  uint8_t *p = gmem(s, s->a[0], s->a[1]);
  if (p == NULL)
    return err(EFAULT);
  return host_ret(getrandom(p, s->a[1], s->a[2] & (GRND_NONBLOCK | GRND_RANDOM)));
}

/* ---- Signals ---------------------------------------------------------------- */

/* Signals are generated (post_signal) by kill and its kin, by the CPU's
 * exceptions and by the interval timer, and delivered (deliver_one) when
 * the CPU is at an instruction boundary: after each system call and
 * between the slices m68k_linux_run runs. Delivery builds the frame Linux/m68k
 * builds (arch/m68k/kernel/signal.c): struct sigframe for a handler without
 * SA_SIGINFO, struct rt_sigframe with one, each with its return code on the
 * stack (moveq #119,d0; trap #0, or moveq #~173,d0; notb d0; trap #0), so
 * that sigreturn and rt_sigreturn find everything on the guest's stack and
 * a handler may longjmp out. The FPU state is saved as the kernel saves a
 * 68882's: FPCR/FPSR/FPIAR and FP0-FP1 (sigframe) or FP0-FP7 (rt_sigframe),
 * with a non-null idle frame header (version 0x1f, size 0x38). No
 * alternate signal stack: SA_ONSTACK handlers run on the normal stack. */

#define G_SA_SIGINFO 0x4u
#define G_SA_NODEFER 0x40000000u
#define G_SA_RESETHAND 0x80000000u
#define SIGBIT(sig) (1ull << ((sig) - 1))
#define UNBLOCKABLE (SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))
#define SI_USER_CODE 0
#define SI_KERNEL_CODE 0x80
#define SI_TKILL_CODE (-6)

/* struct sigframe and struct rt_sigframe of Linux/m68k: sizes, offsets. */
#define SF_SIZE 312u
#define SF_SC 28u /* struct sigcontext */
#define RT_SIZE 684u
#define RT_INFO 24u
#define RT_UC 152u
#define RT_GREGS (RT_UC + 24u)    /* mcontext.gregs: D0-D7, A0-A6, USP, PC, SR */
#define RT_FPCNTL (RT_UC + 96u)   /* mcontext.fpregs: FPCR, FPSR, FPIAR */
#define RT_FPREGS (RT_UC + 108u)  /* FP0-FP7, 12 bytes each */
#define RT_FPSTATE (RT_UC + 204u) /* uc_filler[0]: the fsave frame */
#define RT_FORMATVEC (RT_FPSTATE + 216u)
#define RT_SIGMASK (RT_UC + 524u)
#define MCONTEXT_VERSION 2u

static uint64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint32_t act_handler(const m68k__linux_t *lx, int sig) { return m68k__be32(lx->sigact[sig]); }
static uint32_t act_flags(const m68k__linux_t *lx, int sig) {
  return m68k__be32(lx->sigact[sig] + 4);
}

/* SIGCHLD, SIGURG, SIGWINCH and SIGCONT are ignored by default; with no job
 * control the stop signals are too. */
static bool default_ignored(int sig) {
  return sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH || sig == SIGCONT || sig == SIGTSTP ||
         sig == SIGTTIN || sig == SIGTTOU || sig == SIGSTOP;
}

static bool ignored(const m68k__linux_t *lx, int sig) {
  uint32_t h = act_handler(lx, sig);
  return sig != SIGKILL && (h == 1 || (h == 0 && default_ignored(sig)));
}

/* Generates sig (1-64) with its siginfo; an ignored, unblocked signal is
 * discarded, and a standard signal already pending is not queued twice. */
static void post_signal(m68k__linux_t *lx, int sig, int32_t code, uint32_t a, uint32_t b) {
  if (!(lx->sigmask & SIGBIT(sig)) && ignored(lx, sig))
    return;
  if (lx->pending & SIGBIT(sig))
    return;
  lx->pending |= SIGBIT(sig);
  lx->info[sig].code = code;
  lx->info[sig].a = a;
  lx->info[sig].b = b;
}

static uint64_t deliverable(const m68k__linux_t *lx) { return lx->pending & ~lx->sigmask; }

/* The interval timer (ITIMER_REAL): SIGALRM once its time has come. */
static void poll_timer(m68k__linux_t *lx) {
  if (lx->timer_next == 0)
    return;
  uint64_t now = mono_ns();
  if (now < lx->timer_next)
    return;
  post_signal(lx, SIGALRM, SI_KERNEL_CODE, 0, 0);
  if (lx->timer_interval == 0)
    lx->timer_next = 0;
  else
    lx->timer_next = now - lx->timer_next < lx->timer_interval ? lx->timer_next + lx->timer_interval
                                                                 : now + lx->timer_interval;
}

/* Waits until the monotonic time `end` (0: none) or until a signal can be
 * delivered; true when a signal ended the wait. With no end and no timer
 * armed nothing can come: false at once. */
static bool wait_signal(m68k__linux_t *lx, uint64_t end) {
  for (;;) {
    poll_timer(lx);
    if (deliverable(lx))
      return true;
    uint64_t until = end;
    if (lx->timer_next != 0 && (until == 0 || lx->timer_next < until))
      until = lx->timer_next;
    if (until == 0)
      return false;
    if (mono_ns() >= until) {
      if (until == end)
        return false;
      continue;
    }
    struct timespec ts = {.tv_sec = (time_t)(until / 1000000000u),
                          .tv_nsec = (long)(until % 1000000000u)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
  }
}

static void put_fpreg(uint8_t *p, m68k_cpu_t *cpu, int n) {
  uint16_t se;
  uint64_t mant;
  m68k_get_fpreg(cpu, n, &se, &mant);
  m68k__put16(p, se);
  m68k__put16(p + 2, 0);
  m68k__put64(p + 4, mant);
}

static void get_fpreg(const uint8_t *p, m68k_cpu_t *cpu, int n) {
  m68k_set_fpreg(cpu, n, m68k__be16(p), (uint64_t)m68k__be32(p + 4) << 32 | m68k__be32(p + 8));
}

static void put_fpctl(uint8_t *p, m68k_cpu_t *cpu) {
  for (int i = 0; i < 3; i++)
    m68k__put32(p + 4 * i, m68k_get_fpctl(cpu, i));
}

static void get_fpctl(const uint8_t *p, m68k_cpu_t *cpu) {
  for (int i = 0; i < 3; i++)
    m68k_set_fpctl(cpu, i, m68k__be32(p + 4 * i));
}

/* The kernel's answer to a frame it cannot write or read back. */
static void bad_frame(struct m68k_machine *m, m68k__mcpu_t *c, const char *what, uint32_t at) {
  m68k__machine_stop(m, c, M68K_MACHINE_SIGNALED, SIGSEGV,
                     "%s signal frame at 0x%08" PRIx32 ": killed by signal %d (%s)", what, at,
                     SIGSEGV, strsignal(SIGSEGV));
}

/* Builds sig's frame below the stack pointer and enters its handler
 * (design note above); `vecoff` is the format/vector word Linux would
 * save (0x80 after TRAP #0, 0 between instructions). */
static void enter_handler(struct m68k_machine *m, m68k__mcpu_t *c, int sig, uint32_t vecoff) {
  m68k__linux_t *lx = m->linux_state;
  m68k_cpu_t *cpu = c->cpu;
  uint32_t r[18];
  for (int i = 0; i < 16; i++)
    r[i] = m68k_get_reg(cpu, (m68k_reg_t)i);
  r[16] = m68k_get_reg(cpu, M68K_REG_PC);
  r[17] = m68k_get_reg(cpu, M68K_REG_SR);
  uint64_t old = lx->mask_saved ? lx->saved_mask : lx->sigmask;
  lx->mask_saved = false;
  uint32_t flags = act_flags(lx, sig);
  bool rt = (flags & G_SA_SIGINFO) != 0;
  uint32_t size = rt ? RT_SIZE : SF_SIZE;
  uint32_t frame = (r[15] - size) & ~7u;
  uint8_t *p = m68k_machine_ram(m, frame, size);
  if (p == NULL || frame > r[15]) {
    bad_frame(m, c, "no room for a", frame);
    return;
  }
  memset(p, 0, size);
  m68k__put32(p, frame + 16); /* pretcode: the return code below */
  m68k__put32(p + 4, (uint32_t)sig);
  if (rt) {
    m68k__put32(p + 8, frame + RT_INFO);
    m68k__put32(p + 12, frame + RT_UC);
    m68k__put32(p + 16, 0x70004600u | ((173u ^ 0xFFu) << 16)); /* moveq #~173,d0; notb d0 */
    m68k__put16(p + 20, 0x4E40);                                /* trap #0 */
    uint8_t *si = p + RT_INFO;
    m68k__put32(si, (uint32_t)sig);
    m68k__put32(si + 8, (uint32_t)lx->info[sig].code);
    m68k__put32(si + 12, lx->info[sig].a);
    m68k__put32(si + 16, lx->info[sig].b);
    m68k__put32(p + RT_UC + 12, 2); /* uc_stack.ss_flags: SS_DISABLE */
    m68k__put32(p + RT_UC + 20, MCONTEXT_VERSION);
    for (int i = 0; i < 18; i++)
      m68k__put32(p + RT_GREGS + 4 * i, r[i]);
    put_fpctl(p + RT_FPCNTL, cpu);
    for (int i = 0; i < 8; i++)
      put_fpreg(p + RT_FPREGS + 12 * i, cpu, i);
    p[RT_FPSTATE] = 0x1F;
    p[RT_FPSTATE + 1] = 0x38;
    m68k__put32(p + RT_FORMATVEC, vecoff);
    m68k__put32(p + RT_SIGMASK, (uint32_t)old);
    m68k__put32(p + RT_SIGMASK + 4, (uint32_t)(old >> 32));
  } else {
    m68k__put32(p + 8, vecoff);
    m68k__put32(p + 12, frame + SF_SC);
    m68k__put32(p + 16, 0x70004E40u | (119u << 16)); /* moveq #119,d0; trap #0 */
    m68k__put32(p + 24, (uint32_t)(old >> 32));      /* extramask */
    uint8_t *sc = p + SF_SC;
    m68k__put32(sc, (uint32_t)old);
    m68k__put32(sc + 4, r[15]);
    m68k__put32(sc + 8, r[0]);
    m68k__put32(sc + 12, r[1]);
    m68k__put32(sc + 16, r[8]);
    m68k__put32(sc + 20, r[9]);
    m68k__put16(sc + 24, (uint16_t)r[17]);
    m68k__put32(sc + 26, r[16]);
    m68k__put16(sc + 30, (uint16_t)vecoff);
    put_fpreg(sc + 32, cpu, 0);
    put_fpreg(sc + 44, cpu, 1);
    put_fpctl(sc + 56, cpu);
    sc[68] = 0x1F;
    sc[69] = 0x38;
  }
  m68k_set_reg(cpu, M68K_REG_A0 + 7, frame);
  m68k_set_reg(cpu, M68K_REG_PC, act_handler(lx, sig));
  lx->sigmask |= (uint64_t)m68k__be32(lx->sigact[sig] + 12) |
                 (uint64_t)m68k__be32(lx->sigact[sig] + 16) << 32;
  if (!(flags & G_SA_NODEFER))
    lx->sigmask |= SIGBIT(sig);
  lx->sigmask &= ~UNBLOCKABLE;
  if (flags & G_SA_RESETHAND)
    m68k__put32(lx->sigact[sig], 0);
}

/* Delivers the lowest deliverable signal, if any: its handler, nothing
 * (ignored), or the end of the process (its default action). */
static void deliver_one(struct m68k_machine *m, m68k__mcpu_t *c, uint32_t vecoff) {
  m68k__linux_t *lx = m->linux_state;
  uint64_t ready = deliverable(lx);
  if (ready == 0 || m->stopped)
    return;
  int sig = __builtin_ctzll(ready) + 1;
  lx->pending &= ~SIGBIT(sig);
  uint32_t h = act_handler(lx, sig);
  if (sig != SIGKILL && sig != SIGSTOP && h > 1) {
    enter_handler(m, c, sig, vecoff);
    return;
  }
  if (lx->mask_saved) {
    lx->sigmask = lx->saved_mask;
    lx->mask_saved = false;
  }
  if (ignored(lx, sig))
    return;
  m68k__machine_stop(m, c, M68K_MACHINE_SIGNALED, sig, "killed by signal %d (%s)", sig,
                     strsignal(sig));
}

/* Between slices of m68k_linux_run: the timer, then any signal. */
static void linux_between_slices(struct m68k_machine *m) {
  poll_timer(m->linux_state);
  deliver_one(m, &m->cpus[0], 0);
}

static uint32_t sys_sigreturn(sc_t *s) {
  m68k_cpu_t *cpu = s->c->cpu;
  uint32_t frame = m68k_get_reg(cpu, M68K_REG_A0 + 7) - 4;
  const uint8_t *p = gmem(s, frame, SF_SIZE);
  if (p == NULL) {
    bad_frame(s->m, s->c, "a bad", frame);
    return 0;
  }
  const uint8_t *sc = p + SF_SC;
  s->lx->sigmask = ((uint64_t)m68k__be32(p + 24) << 32 | m68k__be32(sc)) & ~UNBLOCKABLE;
  m68k_set_reg(cpu, M68K_REG_D0 + 1, m68k__be32(sc + 12));
  m68k_set_reg(cpu, M68K_REG_A0, m68k__be32(sc + 16));
  m68k_set_reg(cpu, M68K_REG_A0 + 1, m68k__be32(sc + 20));
  uint32_t sr = m68k_get_reg(cpu, M68K_REG_SR);
  m68k_set_reg(cpu, M68K_REG_SR, (sr & 0xFF00u) | (m68k__be16(sc + 24) & 0xFFu));
  m68k_set_reg(cpu, M68K_REG_PC, m68k__be32(sc + 26));
  m68k_set_reg(cpu, M68K_REG_A0 + 7, m68k__be32(sc + 4));
  if (sc[68] != 0) {
    get_fpreg(sc + 32, cpu, 0);
    get_fpreg(sc + 44, cpu, 1);
    get_fpctl(sc + 56, cpu);
  }
  return m68k__be32(sc + 8);
}

static uint32_t sys_rt_sigreturn(sc_t *s) {
  m68k_cpu_t *cpu = s->c->cpu;
  uint32_t frame = m68k_get_reg(cpu, M68K_REG_A0 + 7) - 4;
  const uint8_t *p = gmem(s, frame, RT_SIZE);
  if (p == NULL || m68k__be32(p + RT_UC + 20) != MCONTEXT_VERSION) {
    bad_frame(s->m, s->c, "a bad", frame);
    return 0;
  }
  s->lx->sigmask =
      ((uint64_t)m68k__be32(p + RT_SIGMASK + 4) << 32 | m68k__be32(p + RT_SIGMASK)) & ~UNBLOCKABLE;
  for (int i = 1; i < 16; i++)
    m68k_set_reg(cpu, (m68k_reg_t)i, m68k__be32(p + RT_GREGS + 4 * i));
  m68k_set_reg(cpu, M68K_REG_PC, m68k__be32(p + RT_GREGS + 64));
  uint32_t sr = m68k_get_reg(cpu, M68K_REG_SR);
  m68k_set_reg(cpu, M68K_REG_SR, (sr & 0xFF00u) | (m68k__be32(p + RT_GREGS + 68) & 0xFFu));
  if (p[RT_FPSTATE] != 0) {
    get_fpctl(p + RT_FPCNTL, cpu);
    for (int i = 0; i < 8; i++)
      get_fpreg(p + RT_FPREGS + 12 * i, cpu, i);
  }
  return m68k__be32(p + RT_GREGS);
}

/* kill and its kin: the process itself is the only one there is. */
static uint32_t send_self(sc_t *s, uint32_t sig, int32_t code) {
  if (sig >= NSIG_GUEST)
    return err(EINVAL);
  if (sig != 0)
    post_signal(s->lx, (int)sig, code, (uint32_t)getpid(), (uint32_t)getuid());
  return 0;
}

static uint32_t sys_kill(sc_t *s) {
  int32_t pid = (int32_t)s->a[0];
  if (pid != getpid() && pid != 0 && pid != -1 && pid != -getpid())
    return err(ESRCH);
  return send_self(s, s->a[1], SI_USER_CODE);
}

static uint32_t sys_tkill(sc_t *s) {
  if ((int32_t)s->a[0] != getpid())
    return err(ESRCH);
  return send_self(s, s->a[1], SI_TKILL_CODE);
}

static uint32_t sys_tgkill(sc_t *s) {
  if ((int32_t)s->a[0] != getpid() || (int32_t)s->a[1] != getpid())
    return err(ESRCH);
  return send_self(s, s->a[2], SI_TKILL_CODE);
}

static uint32_t sys_rt_sigaction(sc_t *s) {
  uint32_t sig = s->a[0];
  if (sig == 0 || sig >= NSIG_GUEST || s->a[3] != 8)
    return err(EINVAL);
  if (s->a[1] != 0 && (sig == SIGKILL || sig == SIGSTOP))
    return err(EINVAL);
  if (s->a[2] != 0) {
    uint8_t *o = gmem(s, s->a[2], SIGACTION_SIZE);
    if (o == NULL)
      return err(EFAULT);
    memcpy(o, s->lx->sigact[sig], SIGACTION_SIZE);
  }
  if (s->a[1] != 0) {
    const uint8_t *n = gmem(s, s->a[1], SIGACTION_SIZE);
    if (n == NULL)
      return err(EFAULT);
    memcpy(s->lx->sigact[sig], n, SIGACTION_SIZE);
    /* A pending signal now ignored is discarded. */
    if (ignored(s->lx, (int)sig))
      s->lx->pending &= ~SIGBIT(sig);
  }
  return 0;
}

/* Reads a guest sigset_t (two longs, signals 1-32 in the first). */
static int get_sigset(sc_t *s, uint32_t addr, uint64_t *set) {
  const uint8_t *n = gmem(s, addr, 8);
  if (n == NULL)
    return -EFAULT;
  *set = (uint64_t)m68k__be32(n + 4) << 32 | m68k__be32(n);
  return 0;
}

static uint32_t put_sigset(sc_t *s, uint32_t addr, uint64_t set) {
  uint8_t *o = gmem(s, addr, 8);
  if (o == NULL)
    return err(EFAULT);
  m68k__put32(o, (uint32_t)set);
  m68k__put32(o + 4, (uint32_t)(set >> 32));
  return 0;
}

static uint32_t sys_rt_sigprocmask(sc_t *s) {
  uint64_t old = s->lx->sigmask, set;
  if (s->a[3] != 8)
    return err(EINVAL);
  if (s->a[1] != 0) {
    int r = get_sigset(s, s->a[1], &set);
    if (r != 0)
      return err(-r);
    switch (s->a[0]) {
    case 0: s->lx->sigmask |= set; break;  /* SIG_BLOCK */
    case 1: s->lx->sigmask &= ~set; break; /* SIG_UNBLOCK */
    case 2: s->lx->sigmask = set; break;   /* SIG_SETMASK */
    default: return err(EINVAL);
    }
    s->lx->sigmask &= ~UNBLOCKABLE;
  }
  return s->a[2] != 0 ? put_sigset(s, s->a[2], old) : 0;
}

static uint32_t sys_rt_sigpending(sc_t *s) {
  if (s->a[1] != 8)
    return err(EINVAL);
  return put_sigset(s, s->a[0], s->lx->pending & s->lx->sigmask);
}

/* pause and sigsuspend: wait for a signal; with none that can come, the
 * process would wait forever, and the machine says so. */
static uint32_t wait_forever(sc_t *s, const char *what) {
  if (!wait_signal(s->lx, 0))
    m68k__machine_stop(s->m, s->c, M68K_MACHINE_DEADLOCK, 0,
                       "%s with no signal that can come: the program would wait forever", what);
  return err(EINTR);
}

static uint32_t sys_pause(sc_t *s) { return wait_forever(s, "pause()"); }

static uint32_t sys_rt_sigsuspend(sc_t *s) {
  uint64_t set;
  if (s->a[1] != 8)
    return err(EINVAL);
  int r = get_sigset(s, s->a[0], &set);
  if (r != 0)
    return err(-r);
  s->lx->saved_mask = s->lx->sigmask;
  s->lx->mask_saved = true;
  s->lx->sigmask = set & ~UNBLOCKABLE;
  return wait_forever(s, "sigsuspend()");
}

/* struct itimerval of m68k: interval then value, each 32-bit seconds and
 * microseconds. Only ITIMER_REAL is served. */
static void put_itimer(uint8_t *p, const m68k__linux_t *lx) {
  uint64_t left = 0, now = mono_ns();
  if (lx->timer_next != 0)
    left = lx->timer_next > now ? lx->timer_next - now : 1000;
  m68k__put32(p, (uint32_t)(lx->timer_interval / 1000000000u));
  m68k__put32(p + 4, (uint32_t)(lx->timer_interval % 1000000000u / 1000u));
  m68k__put32(p + 8, (uint32_t)(left / 1000000000u));
  m68k__put32(p + 12, (uint32_t)(left % 1000000000u / 1000u));
}

static uint32_t sys_getitimer(sc_t *s) {
  if (s->a[0] != 0)
    return err(EINVAL);
  uint8_t *p = gmem(s, s->a[1], 16);
  if (p == NULL)
    return err(EFAULT);
  put_itimer(p, s->lx);
  return 0;
}

static uint32_t sys_setitimer(sc_t *s) {
  if (s->a[0] != 0)
    return err(EINVAL); /* ITIMER_VIRTUAL and ITIMER_PROF are not served */
  const uint8_t *n = s->a[1] != 0 ? gmem(s, s->a[1], 16) : NULL;
  uint8_t *o = s->a[2] != 0 ? gmem(s, s->a[2], 16) : NULL;
  if ((s->a[1] != 0 && n == NULL) || (s->a[2] != 0 && o == NULL))
    return err(EFAULT);
  uint32_t v[4] = {0, 0, 0, 0};
  for (int i = 0; n != NULL && i < 4; i++)
    v[i] = m68k__be32(n + 4 * i);
  if (n != NULL && (v[1] >= 1000000u || v[3] >= 1000000u))
    return err(EINVAL);
  if (o != NULL)
    put_itimer(o, s->lx);
  uint64_t value = (uint64_t)v[2] * 1000000000u + (uint64_t)v[3] * 1000u;
  s->lx->timer_interval = (uint64_t)v[0] * 1000000000u + (uint64_t)v[1] * 1000u;
  s->lx->timer_next = value != 0 ? mono_ns() + value : 0;
  if (value == 0)
    s->lx->timer_interval = 0;
  return 0;
}

static uint32_t sys_alarm(sc_t *s) {
  uint64_t now = mono_ns(), left = s->lx->timer_next > now ? s->lx->timer_next - now : 0;
  /* The seconds left, rounded as the kernel rounds (half up, never 0). */
  uint32_t secs = (uint32_t)((left + 500000000u) / 1000000000u);
  if (secs == 0 && s->lx->timer_next != 0)
    secs = 1;
  s->lx->timer_interval = 0;
  s->lx->timer_next = s->a[0] != 0 ? now + (uint64_t)s->a[0] * 1000000000u : 0;
  return secs;
}

static uint32_t sys_sigaltstack(sc_t *s) {
  if (s->a[1] != 0) {
    uint8_t *o = gmem(s, s->a[1], 12);
    if (o == NULL)
      return err(EFAULT);
    memset(o, 0, 12);
    m68k__put32(o + 4, 2); /* SS_DISABLE */
  }
  return 0;
}

static uint32_t sys_futex(sc_t *s) {
  switch (s->a[1] & 0x7F) {
  case 0: /* FUTEX_WAIT: one thread, nobody can wake it */
  case 9: /* FUTEX_WAIT_BITSET */ {
    const uint8_t *p = gmem(s, s->a[0], 4);
    if (p == NULL)
      return err(EFAULT);
    return m68k__be32(p) != s->a[2] ? err(EAGAIN) : err(ETIMEDOUT);
  }
  case 1: /* FUTEX_WAKE */
  case 10: /* FUTEX_WAKE_BITSET */ return 0;
  default: return err(ENOSYS);
  }
}

static uint32_t sys_sched_getaffinity(sc_t *s) {
  if (s->a[1] < 4)
    return err(EINVAL);
  uint8_t *p = gmem(s, s->a[2], 4);
  if (p == NULL)
    return err(EFAULT);
  m68k__put32(p, 1);
  return 4;
}

static uint32_t rlimit_of(uint32_t res, uint64_t *cur, uint64_t *max, m68k__linux_t *lx) {
  struct rlimit r;
  if (res == RLIMIT_STACK) {
    *cur = *max = lx->stack_size;
    return 0;
  }
  if (getrlimit((int)res, &r) != 0)
    return err(errno);
  *cur = r.rlim_cur == RLIM_INFINITY ? UINT64_MAX : r.rlim_cur;
  *max = r.rlim_max == RLIM_INFINITY ? UINT64_MAX : r.rlim_max;
  return 0;
}

static uint32_t sys_getrlimit(sc_t *s) {
  uint64_t cur = 0, max = 0;
  uint8_t *p = gmem(s, s->a[1], 8);
  if (p == NULL)
    return err(EFAULT);
  uint32_t rc = rlimit_of(s->a[0], &cur, &max, s->lx);
  if (rc != 0)
    return rc;
  m68k__put32(p, cur > UINT32_MAX ? UINT32_MAX : (uint32_t)cur);
  m68k__put32(p + 4, max > UINT32_MAX ? UINT32_MAX : (uint32_t)max);
  return 0;
}

static uint32_t sys_prlimit64(sc_t *s) {
  if (s->a[0] != 0 && (int32_t)s->a[0] != getpid())
    return err(EPERM);
  if (s->a[3] != 0) {
    uint64_t cur = 0, max = 0;
    uint8_t *p = gmem(s, s->a[3], 16);
    if (p == NULL)
      return err(EFAULT);
    uint32_t rc = rlimit_of(s->a[1], &cur, &max, s->lx);
    if (rc != 0)
      return rc;
    m68k__put64(p, cur);
    m68k__put64(p + 8, max);
  }
  return 0;
}

/* ---- Time --------------------------------------------------------------- */

static uint32_t put_timespec(sc_t *s, uint32_t addr, const struct timespec *ts, bool t64) {
  uint8_t *p = gmem(s, addr, t64 ? 16 : 8);
  if (p == NULL)
    return err(EFAULT);
  if (t64) {
    m68k__put64(p, (uint64_t)ts->tv_sec);
    m68k__put64(p + 8, (uint64_t)ts->tv_nsec);
  } else {
    m68k__put32(p, (uint32_t)ts->tv_sec);
    m68k__put32(p + 4, (uint32_t)ts->tv_nsec);
  }
  return 0;
}

static int get_timespec(sc_t *s, uint32_t addr, struct timespec *ts, bool t64) {
  const uint8_t *p = gmem(s, addr, t64 ? 16 : 8);
  if (p == NULL)
    return -EFAULT;
  if (t64) {
    ts->tv_sec = (time_t)(((uint64_t)m68k__be32(p) << 32) | m68k__be32(p + 4));
    ts->tv_nsec = (long)m68k__be32(p + 12);
  } else {
    ts->tv_sec = (int32_t)m68k__be32(p);
    ts->tv_nsec = (int32_t)m68k__be32(p + 4);
  }
  return 0;
}

static uint32_t clock_get(sc_t *s, bool t64, bool res) {
  struct timespec ts;
  int r = res ? clock_getres((clockid_t)s->a[0], &ts) : clock_gettime((clockid_t)s->a[0], &ts);
  if (r != 0)
    return err(errno);
  return s->a[1] != 0 ? put_timespec(s, s->a[1], &ts, t64) : 0;
}

static uint32_t sys_clock_gettime(sc_t *s) { return clock_get(s, false, false); }
static uint32_t sys_clock_gettime64(sc_t *s) { return clock_get(s, true, false); }
static uint32_t sys_clock_getres(sc_t *s) { return clock_get(s, false, true); }
static uint32_t sys_clock_getres64(sc_t *s) { return clock_get(s, true, true); }

static uint32_t sys_gettimeofday(sc_t *s) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  if (s->a[0] != 0) {
    uint8_t *p = gmem(s, s->a[0], 8);
    if (p == NULL)
      return err(EFAULT);
    m68k__put32(p, (uint32_t)tv.tv_sec);
    m68k__put32(p + 4, (uint32_t)tv.tv_usec);
  }
  if (s->a[1] != 0) {
    uint8_t *p = gmem(s, s->a[1], 8);
    if (p == NULL)
      return err(EFAULT);
    memset(p, 0, 8);
  }
  return 0;
}

static uint32_t sys_time(sc_t *s) {
  uint32_t t = (uint32_t)time(NULL);
  if (s->a[0] != 0) {
    uint8_t *p = gmem(s, s->a[0], 4);
    if (p == NULL)
      return err(EFAULT);
    m68k__put32(p, t);
  }
  return t;
}

static uint32_t do_sleep(sc_t *s, uint32_t clk, uint32_t flags, uint32_t req, uint32_t rem,
                         bool t64) {
  struct timespec ts, left = {0, 0};
  int r = get_timespec(s, req, &ts, t64);
  if (r != 0)
    return err(-r);
  if (ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000L || ts.tv_sec < 0)
    return err(EINVAL);
  if (s->lx->timer_next != 0 && (clk == CLOCK_MONOTONIC || clk == CLOCK_REALTIME)) {
    /* A SIGALRM may come first: wait on the monotonic clock for either. */
    struct timespec now;
    clock_gettime((clockid_t)clk, &now);
    int64_t ns = (int64_t)(ts.tv_sec - ((flags & TIMER_ABSTIME) ? now.tv_sec : 0)) * 1000000000 +
                 (ts.tv_nsec - ((flags & TIMER_ABSTIME) ? now.tv_nsec : 0));
    uint64_t end = mono_ns() + (ns > 0 ? (uint64_t)ns : 0);
    if (!wait_signal(s->lx, end))
      return 0;
    uint64_t t = mono_ns(), rest = end > t ? end - t : 0;
    left.tv_sec = (time_t)(rest / 1000000000u);
    left.tv_nsec = (long)(rest % 1000000000u);
    if (rem != 0 && !(flags & TIMER_ABSTIME) && put_timespec(s, rem, &left, t64) != 0)
      return err(EFAULT);
    return err(EINTR);
  }
  r = clock_nanosleep((clockid_t)clk, (int)flags, &ts, &left);
  if (r != 0)
    return err(r);
  if (rem != 0 && !(flags & TIMER_ABSTIME))
    return put_timespec(s, rem, &left, t64);
  return 0;
}

static uint32_t sys_nanosleep(sc_t *s) {
  return do_sleep(s, CLOCK_MONOTONIC, 0, s->a[0], s->a[1], false);
}
static uint32_t sys_clock_nanosleep(sc_t *s) {
  return do_sleep(s, s->a[0], s->a[1], s->a[2], s->a[3], false);
}
static uint32_t sys_clock_nanosleep64(sc_t *s) {
  return do_sleep(s, s->a[0], s->a[1], s->a[2], s->a[3], true);
}

/* ---- Files --------------------------------------------------------------- */

static uint32_t sys_read(sc_t *s) {
  void *p = gmem(s, s->a[1], s->a[2]);
  if (p == NULL)
    return err(EFAULT);
  return host_ret(read((int)s->a[0], p, s->a[2]));
}

static uint32_t sys_write(sc_t *s) {
  const void *p = gmem(s, s->a[1], s->a[2]);
  if (p == NULL)
    return err(EFAULT);
  return host_ret(write((int)s->a[0], p, s->a[2]));
}

static uint32_t do_iov(sc_t *s, bool wr) {
  uint32_t n = s->a[2];
  struct iovec iov[64];
  if (n > 1024)
    return err(EINVAL);
  if (n > 64)
    n = 64; /* a short transfer, as the kernel may give */
  for (uint32_t i = 0; i < n; i++) {
    const uint8_t *e = gmem(s, s->a[1] + 8 * i, 8);
    if (e == NULL)
      return err(EFAULT);
    uint32_t len = m68k__be32(e + 4);
    iov[i].iov_base = len != 0 ? gmem(s, m68k__be32(e), len) : NULL;
    iov[i].iov_len = len;
    if (len != 0 && iov[i].iov_base == NULL)
      return err(EFAULT);
  }
  ssize_t r = wr ? writev((int)s->a[0], iov, (int)n) : readv((int)s->a[0], iov, (int)n);
  return host_ret(r);
}

static uint32_t sys_readv(sc_t *s) { return do_iov(s, false); }
static uint32_t sys_writev(sc_t *s) { return do_iov(s, true); }

/* Reads the guest path at addr into buf and says, once, when the guest has
 * no file system (linux-root.c, note 1): 0 or -errno. */
static int gpath_str(sc_t *s, uint32_t addr, char *buf, size_t len) {
  int r = gstr(s, addr, buf, len);
  if (r == 0 && s->lx->root == NULL && !s->lx->told_no_root) {
    s->lx->told_no_root = true;
    fprintf(stderr,
            "quamachine: the program named the file '%s'; without --root DIR it has no files "
            "(EACCES)\n",
            buf);
  }
  return r;
}

/* Names the guest's path at addr to the host (linux-root.c, note 3). */
static int gpath_at(sc_t *s, uint32_t dirfd, uint32_t addr, bool follow, m68k__gpath_t *g) {
  char name[PATH_MAX];
  g->fd = -1;
  int r = gpath_str(s, addr, name, sizeof name);
  return r != 0 ? r : m68k__root_at(s->lx->root, dirfd_of(dirfd), name, follow, g);
}

static uint32_t do_open(sc_t *s, uint32_t dirfd, uint32_t path, uint32_t flags, uint32_t mode) {
  char buf[PATH_MAX];
  int r = gpath_str(s, path, buf, sizeof buf);
  if (r == 0)
    r = m68k__root_open_file(s->lx->root, dirfd_of(dirfd), buf, host_oflags(flags), (mode_t)mode);
  return r < 0 ? err(-r) : (uint32_t)r;
}

static uint32_t sys_open(sc_t *s) { return do_open(s, (uint32_t)-100, s->a[0], s->a[1], s->a[2]); }
static uint32_t sys_openat(sc_t *s) { return do_open(s, s->a[0], s->a[1], s->a[2], s->a[3]); }
/* The root's own descriptor is not the guest's (linux-root.c, note 4). */
static bool not_guest_fd(sc_t *s, uint32_t fd) { return m68k__root_owns(s->lx->root, (int)fd); }

static uint32_t sys_close(sc_t *s) {
  return not_guest_fd(s, s->a[0]) ? err(EBADF) : host_ret(close((int)s->a[0]));
}
static uint32_t sys_dup(sc_t *s) { return host_ret(dup((int)s->a[0])); }
static uint32_t sys_dup2(sc_t *s) {
  return not_guest_fd(s, s->a[1]) ? err(EBADF) : host_ret(dup2((int)s->a[0], (int)s->a[1]));
}
static uint32_t sys_dup3(sc_t *s) {
  if (not_guest_fd(s, s->a[1]))
    return err(EBADF);
  return host_ret(dup3((int)s->a[0], (int)s->a[1], host_oflags(s->a[2])));
}

static uint32_t sys_lseek(sc_t *s) {
  off_t r = lseek((int)s->a[0], (off_t)(int32_t)s->a[1], (int)s->a[2]);
  if (r < 0)
    return err(errno);
  return r > INT32_MAX ? err(EOVERFLOW) : (uint32_t)r;
}

static uint32_t sys_llseek(sc_t *s) {
  uint8_t *res = gmem(s, s->a[3], 8);
  if (res == NULL)
    return err(EFAULT);
  off_t off = (off_t)(int64_t)((uint64_t)s->a[1] << 32 | s->a[2]);
  off_t r = lseek((int)s->a[0], off, (int)s->a[4]);
  if (r < 0)
    return err(errno);
  m68k__put64(res, (uint64_t)r);
  return 0;
}

static uint32_t sys_fcntl(sc_t *s) {
  int fd = (int)s->a[0];
  switch (s->a[1]) {
  case 0: /* F_DUPFD */ return host_ret(fcntl(fd, F_DUPFD, (int)s->a[2]));
  case 1030: /* F_DUPFD_CLOEXEC */ return host_ret(fcntl(fd, F_DUPFD_CLOEXEC, (int)s->a[2]));
  case 1: /* F_GETFD */ return host_ret(fcntl(fd, F_GETFD));
  case 2: /* F_SETFD */ return host_ret(fcntl(fd, F_SETFD, (int)s->a[2]));
  case 3: { /* F_GETFL */ int r = fcntl(fd, F_GETFL); return r < 0 ? err(errno) : guest_oflags(r);
  }
  case 4: /* F_SETFL */ return host_ret(fcntl(fd, F_SETFL, host_oflags(s->a[2])));
  default: return err(EINVAL);
  }
}

static uint32_t sys_ioctl(sc_t *s) {
  int fd = (int)s->a[0];
  switch (s->a[1]) {
  case 0x5401: { /* TCGETS: the kernel's struct termios, 19 control chars */
    struct termios t;
    uint8_t *p = gmem(s, s->a[2], 36);
    if (p == NULL)
      return err(EFAULT);
    if (tcgetattr(fd, &t) != 0)
      return err(errno);
    m68k__put32(p, (uint32_t)t.c_iflag);
    m68k__put32(p + 4, (uint32_t)t.c_oflag);
    m68k__put32(p + 8, (uint32_t)t.c_cflag);
    m68k__put32(p + 12, (uint32_t)t.c_lflag);
    p[16] = (uint8_t)t.c_line;
    memcpy(p + 17, t.c_cc, 19);
    return 0;
  }
  case 0x5402: /* TCSETS, TCSETSW, TCSETSF: accepted, not applied */
  case 0x5403:
  case 0x5404: return isatty(fd) ? 0 : err(ENOTTY);
  case 0x5413: { /* TIOCGWINSZ */
    struct winsize w;
    uint8_t *p = gmem(s, s->a[2], 8);
    if (p == NULL)
      return err(EFAULT);
    if (ioctl(fd, TIOCGWINSZ, &w) != 0)
      return err(errno);
    m68k__put16(p, w.ws_row);
    m68k__put16(p + 2, w.ws_col);
    m68k__put16(p + 4, w.ws_xpixel);
    m68k__put16(p + 6, w.ws_ypixel);
    return 0;
  }
  default: return err(ENOTTY);
  }
}

/* struct stat64 of m68k (asm/stat.h): 92 bytes, 2-byte aligned. */
static uint32_t put_stat64(sc_t *s, uint32_t addr, const struct stat *st) {
  uint8_t *p = gmem(s, addr, 92);
  if (p == NULL)
    return err(EFAULT);
  memset(p, 0, 92);
  m68k__put64(p + 0, (uint64_t)st->st_dev);
  m68k__put32(p + 10, (uint32_t)st->st_ino);
  m68k__put32(p + 14, (uint32_t)st->st_mode);
  m68k__put32(p + 18, (uint32_t)st->st_nlink);
  m68k__put32(p + 22, (uint32_t)st->st_uid);
  m68k__put32(p + 26, (uint32_t)st->st_gid);
  m68k__put64(p + 30, (uint64_t)st->st_rdev);
  m68k__put64(p + 40, (uint64_t)st->st_size);
  m68k__put32(p + 48, (uint32_t)st->st_blksize);
  m68k__put64(p + 52, (uint64_t)st->st_blocks);
  m68k__put32(p + 60, (uint32_t)st->st_atim.tv_sec);
  m68k__put32(p + 64, (uint32_t)st->st_atim.tv_nsec);
  m68k__put32(p + 68, (uint32_t)st->st_mtim.tv_sec);
  m68k__put32(p + 72, (uint32_t)st->st_mtim.tv_nsec);
  m68k__put32(p + 76, (uint32_t)st->st_ctim.tv_sec);
  m68k__put32(p + 80, (uint32_t)st->st_ctim.tv_nsec);
  m68k__put64(p + 84, (uint64_t)st->st_ino);
  return 0;
}

/* An empty path with AT_EMPTY_PATH names the descriptor dirfd itself. */
static bool empty_path(sc_t *s, uint32_t path, uint32_t flags) {
  const uint8_t *p = gmem(s, path, 1);
  return (flags & AT_EMPTY_PATH) && p != NULL && *p == 0;
}

static uint32_t do_fstatat(sc_t *s, uint32_t dirfd, uint32_t path, uint32_t buf, int flags) {
  struct stat st;
  if (empty_path(s, path, (uint32_t)flags)) {
    if (fstat((int)dirfd, &st) != 0)
      return err(errno);
    return put_stat64(s, buf, &st);
  }
  m68k__gpath_t g;
  int r = gpath_at(s, dirfd, path, !(flags & AT_SYMLINK_NOFOLLOW), &g);
  if (r != 0)
    return err(-r);
  r = fstatat(g.fd, g.name, &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0 ? -errno : 0;
  m68k__gpath_done(&g);
  return r != 0 ? err(-r) : put_stat64(s, buf, &st);
}

static uint32_t sys_fstat64(sc_t *s) {
  struct stat st;
  if (fstat((int)s->a[0], &st) != 0)
    return err(errno);
  return put_stat64(s, s->a[1], &st);
}

static uint32_t sys_stat64(sc_t *s) { return do_fstatat(s, (uint32_t)-100, s->a[0], s->a[1], 0); }
static uint32_t sys_lstat64(sc_t *s) {
  return do_fstatat(s, (uint32_t)-100, s->a[0], s->a[1], AT_SYMLINK_NOFOLLOW);
}
static uint32_t sys_fstatat64(sc_t *s) {
  return do_fstatat(s, s->a[0], s->a[1], s->a[2],
                    (int)(s->a[3] & (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)));
}

static void put_statx_ts(uint8_t *p, const struct statx_timestamp *t) {
  m68k__put64(p, (uint64_t)t->tv_sec);
  m68k__put32(p + 8, t->tv_nsec);
  m68k__put32(p + 12, 0);
}

static uint32_t sys_statx(sc_t *s) {
  struct statx x;
  uint8_t *p = gmem(s, s->a[4], 256);
  if (p == NULL)
    return err(EFAULT);
  int sync = (int)(s->a[2] & AT_STATX_SYNC_TYPE);
  if (empty_path(s, s->a[1], s->a[2])) {
    if (statx((int)s->a[0], "", AT_EMPTY_PATH | sync, s->a[3], &x) != 0)
      return err(errno);
  } else {
    m68k__gpath_t g;
    int r = gpath_at(s, s->a[0], s->a[1], !(s->a[2] & AT_SYMLINK_NOFOLLOW), &g);
    if (r != 0)
      return err(-r);
    r = statx(g.fd, g.name, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | sync, s->a[3], &x) != 0 ? -errno
                                                                                        : 0;
    m68k__gpath_done(&g);
    if (r != 0)
      return err(-r);
  }
  memset(p, 0, 256);
  m68k__put32(p + 0x00, x.stx_mask);
  m68k__put32(p + 0x04, x.stx_blksize);
  m68k__put64(p + 0x08, x.stx_attributes);
  m68k__put32(p + 0x10, x.stx_nlink);
  m68k__put32(p + 0x14, x.stx_uid);
  m68k__put32(p + 0x18, x.stx_gid);
  m68k__put16(p + 0x1C, x.stx_mode);
  m68k__put64(p + 0x20, x.stx_ino);
  m68k__put64(p + 0x28, x.stx_size);
  m68k__put64(p + 0x30, x.stx_blocks);
  m68k__put64(p + 0x38, x.stx_attributes_mask);
  put_statx_ts(p + 0x40, &x.stx_atime);
  put_statx_ts(p + 0x50, &x.stx_btime);
  put_statx_ts(p + 0x60, &x.stx_ctime);
  put_statx_ts(p + 0x70, &x.stx_mtime);
  m68k__put32(p + 0x80, x.stx_rdev_major);
  m68k__put32(p + 0x84, x.stx_rdev_minor);
  m68k__put32(p + 0x88, x.stx_dev_major);
  m68k__put32(p + 0x8C, x.stx_dev_minor);
  return 0;
}

static uint32_t do_readlink(sc_t *s, uint32_t dirfd, uint32_t path, uint32_t buf, uint32_t size) {
  char name[PATH_MAX], out[PATH_MAX];
  int r = gstr(s, path, name, sizeof name);
  if (r != 0)
    return err(-r);
  uint8_t *p = gmem(s, buf, size);
  if (p == NULL)
    return err(EFAULT);
  ssize_t n;
  if (strcmp(name, "/proc/self/exe") == 0) {
    n = (ssize_t)strlen(s->lx->exe_path);
    memcpy(out, s->lx->exe_path, (size_t)n);
  } else {
    m68k__gpath_t g;
    r = gpath_at(s, dirfd, path, false, &g);
    if (r != 0)
      return err(-r);
    n = readlinkat(g.fd, g.name, out, sizeof out);
    r = n < 0 ? -errno : 0;
    m68k__gpath_done(&g);
    if (r != 0)
      return err(-r);
  }
  if ((size_t)n > size)
    n = (ssize_t)size;
  memcpy(p, out, (size_t)n);
  return (uint32_t)n;
}

static uint32_t sys_readlink(sc_t *s) {
  return do_readlink(s, (uint32_t)-100, s->a[0], s->a[1], s->a[2]);
}
static uint32_t sys_readlinkat(sc_t *s) {
  return do_readlink(s, s->a[0], s->a[1], s->a[2], s->a[3]);
}

static uint32_t do_access(sc_t *s, uint32_t dirfd, uint32_t path, uint32_t mode, uint32_t flags) {
  m68k__gpath_t g;
  if (mode & ~7u || flags & ~(uint32_t)(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
    return err(EINVAL);
  int eaccess = (int)(flags & AT_EACCESS);
  if (empty_path(s, path, flags))
    return host_ret(faccessat((int)dirfd, "", (int)mode, AT_EMPTY_PATH | eaccess));
  int r = gpath_at(s, dirfd, path, !(flags & AT_SYMLINK_NOFOLLOW), &g);
  if (r != 0)
    return err(-r);
  r = faccessat(g.fd, g.name, (int)mode, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | eaccess) ? -errno : 0;
  m68k__gpath_done(&g);
  return err(-r);
}

static uint32_t sys_access(sc_t *s) { return do_access(s, (uint32_t)-100, s->a[0], s->a[1], 0); }
static uint32_t sys_faccessat(sc_t *s) { return do_access(s, s->a[0], s->a[1], s->a[2], 0); }
static uint32_t sys_faccessat2(sc_t *s) { return do_access(s, s->a[0], s->a[1], s->a[2], s->a[3]); }

static uint32_t sys_getcwd(sc_t *s) {
  const char *buf = m68k__root_cwd(s->lx->root);
  uint32_t n = (uint32_t)strlen(buf) + 1;
  if (n > s->a[1])
    return err(ERANGE);
  uint8_t *p = gmem(s, s->a[0], n);
  if (p == NULL)
    return err(EFAULT);
  memcpy(p, buf, n);
  return n;
}

/* Calls that take one path (and an optional directory descriptor). */
typedef enum { P_UNLINK, P_MKDIR, P_CHDIR, P_CHMOD, P_SYMLINK } path_op_t;

static uint32_t path_call(sc_t *s, uint32_t dirfd, uint32_t path, path_op_t op, uint32_t arg) {
  m68k__gpath_t g;
  char target[PATH_MAX];
  int r = 0;
  if (op == P_SYMLINK && (r = gstr(s, arg, target, sizeof target)) != 0)
    return err(-r);
  r = gpath_at(s, dirfd, path, op == P_CHDIR || op == P_CHMOD, &g);
  if (r != 0)
    return err(-r);
  switch (op) {
  case P_UNLINK: r = unlinkat(g.fd, g.name, (int)(arg & AT_REMOVEDIR)); break;
  case P_MKDIR: r = mkdirat(g.fd, g.name, (mode_t)arg); break;
  case P_SYMLINK: r = symlinkat(target, g.fd, g.name); break;
  case P_CHMOD: {
    /* The O_PATH descriptor's magic link reaches the file itself. */
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", g.fd);
    r = chmod(link, (mode_t)(arg & 07777));
    break;
  }
  case P_CHDIR: {
    struct stat st;
    r = fstat(g.fd, &st);
    if (r == 0 && !S_ISDIR(st.st_mode)) {
      errno = ENOTDIR;
      r = -1;
    } else if (r == 0) {
      int e = m68k__root_chdir(s->lx->root, g.fd);
      errno = -e;
      r = e != 0 ? -1 : 0;
    }
    break;
  }
  }
  r = r != 0 ? -errno : 0;
  m68k__gpath_done(&g);
  return err(-r);
}

#define CWD ((uint32_t)-100)
static uint32_t sys_unlink(sc_t *s) { return path_call(s, CWD, s->a[0], P_UNLINK, 0); }
static uint32_t sys_unlinkat(sc_t *s) {
  if (s->a[2] & ~(uint32_t)AT_REMOVEDIR)
    return err(EINVAL);
  return path_call(s, s->a[0], s->a[1], P_UNLINK, s->a[2]);
}
static uint32_t sys_rmdir(sc_t *s) { return path_call(s, CWD, s->a[0], P_UNLINK, AT_REMOVEDIR); }
static uint32_t sys_mkdir(sc_t *s) { return path_call(s, CWD, s->a[0], P_MKDIR, s->a[1]); }
static uint32_t sys_mkdirat(sc_t *s) { return path_call(s, s->a[0], s->a[1], P_MKDIR, s->a[2]); }
static uint32_t sys_chdir(sc_t *s) { return path_call(s, CWD, s->a[0], P_CHDIR, 0); }
static uint32_t sys_chmod(sc_t *s) { return path_call(s, CWD, s->a[0], P_CHMOD, s->a[1]); }
static uint32_t sys_fchmodat(sc_t *s) { return path_call(s, s->a[0], s->a[1], P_CHMOD, s->a[2]); }
static uint32_t sys_fchmod(sc_t *s) {
  return host_ret(fchmod((int)s->a[0], (mode_t)(s->a[1] & 07777)));
}
static uint32_t sys_symlink(sc_t *s) { return path_call(s, CWD, s->a[1], P_SYMLINK, s->a[0]); }
static uint32_t sys_symlinkat(sc_t *s) {
  return path_call(s, s->a[1], s->a[2], P_SYMLINK, s->a[0]);
}
static uint32_t sys_fchdir(sc_t *s) {
  struct stat st;
  if (fstat((int)s->a[0], &st) != 0)
    return err(EBADF);
  if (!S_ISDIR(st.st_mode))
    return err(ENOTDIR);
  return err(-m68k__root_chdir(s->lx->root, (int)s->a[0]));
}

/* rename (link: false) or link (true) of two paths, neither followed. */
static uint32_t two_paths(sc_t *s, uint32_t olddir, uint32_t oldp, uint32_t newdir, uint32_t newp,
                          bool link) {
  m68k__gpath_t from, to = {.fd = -1};
  int r = gpath_at(s, olddir, oldp, false, &from);
  if (r == 0)
    r = gpath_at(s, newdir, newp, false, &to);
  if (r == 0) {
    r = link ? linkat(from.fd, from.name, to.fd, to.name, 0)
             : renameat(from.fd, from.name, to.fd, to.name);
    r = r != 0 ? -errno : 0;
  }
  m68k__gpath_done(&from);
  m68k__gpath_done(&to);
  return err(-r);
}

static uint32_t sys_rename(sc_t *s) { return two_paths(s, CWD, s->a[0], CWD, s->a[1], false); }
static uint32_t sys_renameat(sc_t *s) {
  return two_paths(s, s->a[0], s->a[1], s->a[2], s->a[3], false);
}
static uint32_t sys_renameat2(sc_t *s) {
  if (s->a[4] != 0)
    return err(EINVAL); /* RENAME_NOREPLACE and the others are not served */
  return sys_renameat(s);
}
static uint32_t sys_link(sc_t *s) { return two_paths(s, CWD, s->a[0], CWD, s->a[1], true); }
static uint32_t sys_linkat(sc_t *s) {
  if (s->a[4] != 0)
    return err(EINVAL); /* AT_SYMLINK_FOLLOW and AT_EMPTY_PATH are not served */
  return two_paths(s, s->a[0], s->a[1], s->a[2], s->a[3], true);
}
static uint32_t sys_umask(sc_t *s) { return (uint32_t)umask((mode_t)(s->a[0] & 0777)); }
static uint32_t sys_fsync(sc_t *s) { return host_ret(fsync((int)s->a[0])); }
static uint32_t sys_fdatasync(sc_t *s) { return host_ret(fdatasync((int)s->a[0])); }

/* 64-bit arguments come in two registers, high word first. */
static off_t off64_of(uint32_t hi, uint32_t lo) {
  return (off_t)(int64_t)((uint64_t)hi << 32 | lo);
}

static uint32_t sys_pread64(sc_t *s) {
  void *p = gmem(s, s->a[1], s->a[2]);
  if (p == NULL)
    return err(EFAULT);
  return host_ret(pread((int)s->a[0], p, s->a[2], off64_of(s->a[3], s->a[4])));
}

static uint32_t sys_pwrite64(sc_t *s) {
  const void *p = gmem(s, s->a[1], s->a[2]);
  if (p == NULL)
    return err(EFAULT);
  return host_ret(pwrite((int)s->a[0], p, s->a[2], off64_of(s->a[3], s->a[4])));
}

static uint32_t sys_ftruncate64(sc_t *s) {
  return host_ret(ftruncate((int)s->a[0], off64_of(s->a[1], s->a[2])));
}

static uint32_t sys_pipe2(sc_t *s) {
  int fds[2];
  uint8_t *p = gmem(s, s->a[0], 8);
  if (p == NULL)
    return err(EFAULT);
  if (pipe2(fds, host_oflags(s->a[1])) != 0)
    return err(errno);
  m68k__put32(p, (uint32_t)fds[0]);
  m68k__put32(p + 4, (uint32_t)fds[1]);
  return 0;
}

static uint32_t sys_pipe(sc_t *s) {
  s->a[1] = 0;
  return sys_pipe2(s);
}

/* struct linux_dirent64 has the same layout on both sides (8-byte
 * aligned records); only the byte order of d_ino, d_off, d_reclen
 * differs. A 32-bit process's libc refuses (EOVERFLOW) a d_off beyond 31
 * bits, and the host's file systems hand this 64-bit process 64-bit hash
 * cookies: such a cookie is given as its top 31 bits, the position ext4
 * gives 32-bit processes. Reading a directory through is exact; a
 * telldir() of such an entry is not a position lseek() can return to. */
static uint32_t sys_getdents64(sc_t *s) {
  uint8_t *p = gmem(s, s->a[1], s->a[2]);
  if (p == NULL)
    return err(EFAULT);
  long n = syscall(SYS_getdents64, (int)s->a[0], p, (size_t)s->a[2]);
  if (n < 0)
    return err(errno);
  for (long off = 0; off < n;) {
    uint8_t *e = p + off;
    uint64_t ino, doff;
    uint16_t reclen;
    memcpy(&ino, e, 8);
    memcpy(&doff, e + 8, 8);
    memcpy(&reclen, e + 16, 2);
    if (doff > INT32_MAX)
      doff >>= 33;
    m68k__put64(e, ino);
    m68k__put64(e + 8, doff);
    m68k__put16(e + 16, reclen);
    if (reclen == 0)
      break;
    off += reclen;
  }
  return (uint32_t)n;
}

/* ---- The table ----------------------------------------------------------- */

/* Every system call served: number, handler. Others stop the machine. */
#define SYSCALLS(XX)                                                                               \
  XX(1, sys_exit)                                                                                  \
  XX(3, sys_read)                                                                                  \
  XX(4, sys_write)                                                                                 \
  XX(5, sys_open)                                                                                  \
  XX(9, sys_link)                                                                                  \
  XX(6, sys_close)                                                                                 \
  XX(10, sys_unlink)                                                                               \
  XX(12, sys_chdir)                                                                                \
  XX(13, sys_time)                                                                                 \
  XX(15, sys_chmod)                                                                                \
  XX(19, sys_lseek)                                                                                \
  XX(20, sys_getpid)                                                                               \
  XX(27, sys_alarm)                                                                                \
  XX(29, sys_pause)                                                                                \
  XX(24, sys_getuid)                                                                               \
  XX(33, sys_access)                                                                               \
  XX(37, sys_kill)                                                                                 \
  XX(38, sys_rename)                                                                               \
  XX(39, sys_mkdir)                                                                                \
  XX(40, sys_rmdir)                                                                                \
  XX(41, sys_dup)                                                                                  \
  XX(42, sys_pipe)                                                                                 \
  XX(45, sys_brk)                                                                                  \
  XX(47, sys_getgid)                                                                               \
  XX(49, sys_geteuid)                                                                              \
  XX(50, sys_getegid)                                                                              \
  XX(54, sys_ioctl)                                                                                \
  XX(55, sys_fcntl)                                                                                \
  XX(60, sys_umask)                                                                                \
  XX(63, sys_dup2)                                                                                 \
  XX(64, sys_getppid)                                                                              \
  XX(75, sys_ok) /* setrlimit: accepted */                                                         \
  XX(76, sys_getrlimit)                                                                            \
  XX(78, sys_gettimeofday)                                                                         \
  XX(83, sys_symlink)                                                                              \
  XX(85, sys_readlink)                                                                             \
  XX(90, sys_mmap)                                                                                 \
  XX(91, sys_munmap)                                                                               \
  XX(104, sys_setitimer)                                                                           \
  XX(105, sys_getitimer)                                                                           \
  XX(116, sys_sysinfo)                                                                             \
  XX(119, sys_sigreturn)                                                                           \
  XX(94, sys_fchmod)                                                                               \
  XX(118, sys_fsync)                                                                               \
  XX(122, sys_uname)                                                                               \
  XX(125, sys_ok) /* mprotect: no MMU, nothing to protect */                                       \
  XX(133, sys_fchdir)                                                                              \
  XX(140, sys_llseek)                                                                              \
  XX(145, sys_readv)                                                                               \
  XX(146, sys_writev)                                                                              \
  XX(148, sys_fdatasync)                                                                           \
  XX(158, sys_ok) /* sched_yield */                                                                \
  XX(162, sys_nanosleep)                                                                           \
  XX(163, sys_enomem) /* mremap: never moves */                                                    \
  XX(173, sys_rt_sigreturn)                                                                        \
  XX(174, sys_rt_sigaction)                                                                        \
  XX(175, sys_rt_sigprocmask)                                                                      \
  XX(176, sys_rt_sigpending)                                                                       \
  XX(179, sys_rt_sigsuspend)                                                                       \
  XX(180, sys_pread64)                                                                             \
  XX(181, sys_pwrite64)                                                                            \
  XX(183, sys_getcwd)                                                                              \
  XX(186, sys_sigaltstack)                                                                         \
  XX(191, sys_getrlimit) /* ugetrlimit */                                                          \
  XX(192, sys_mmap2)                                                                               \
  XX(194, sys_ftruncate64)                                                                         \
  XX(195, sys_stat64)                                                                              \
  XX(196, sys_lstat64)                                                                             \
  XX(197, sys_fstat64)                                                                             \
  XX(199, sys_getuid)                                                                              \
  XX(200, sys_getgid)                                                                              \
  XX(201, sys_geteuid)                                                                             \
  XX(202, sys_getegid)                                                                             \
  XX(220, sys_getdents64)                                                                          \
  XX(221, sys_getpid) /* gettid: one thread */                                                     \
  XX(222, sys_tkill)                                                                               \
  XX(235, sys_futex)                                                                               \
  XX(238, sys_ok)     /* madvise */                                                                \
  XX(239, sys_fcntl)  /* fcntl64 */                                                                \
  XX(247, sys_exit)   /* exit_group */                                                             \
  XX(253, sys_getpid) /* set_tid_address: returns the tid */                                       \
  XX(260, sys_clock_gettime)                                                                       \
  XX(261, sys_clock_getres)                                                                        \
  XX(262, sys_clock_nanosleep)                                                                     \
  XX(265, sys_tgkill)                                                                              \
  XX(288, sys_openat)                                                                              \
  XX(289, sys_mkdirat)                                                                             \
  XX(293, sys_fstatat64)                                                                           \
  XX(294, sys_unlinkat)                                                                            \
  XX(295, sys_renameat)                                                                            \
  XX(296, sys_linkat)                                                                              \
  XX(297, sys_symlinkat)                                                                           \
  XX(298, sys_readlinkat)                                                                          \
  XX(299, sys_fchmodat)                                                                            \
  XX(300, sys_faccessat)                                                                           \
  XX(304, sys_enosys) /* set_robust_list */                                                        \
  XX(312, sys_sched_getaffinity)                                                                   \
  XX(326, sys_dup3)                                                                                \
  XX(327, sys_pipe2)                                                                               \
  XX(333, sys_get_thread_area)                                                                     \
  XX(334, sys_set_thread_area)                                                                     \
  XX(339, sys_prlimit64)                                                                           \
  XX(351, sys_renameat2)                                                                           \
  XX(352, sys_getrandom)                                                                           \
  XX(379, sys_statx)                                                                               \
  XX(384, sys_enosys) /* rseq */                                                                   \
  XX(403, sys_clock_gettime64)                                                                     \
  XX(406, sys_clock_getres64)                                                                      \
  XX(407, sys_clock_nanosleep64)                                                                   \
  XX(422, sys_futex) /* futex_time64 */                                                            \
  XX(439, sys_faccessat2)

/* Returns false when the call is not served. */
static bool dispatch(sc_t *s, uint32_t *result) {
  switch (s->nr) {
#define XX(nr, fn)                                                                                 \
  case nr: *result = fn(s); return true;
    SYSCALLS(XX)
#undef XX
  default: return false;
  }
}

/* ---- The trap hook -------------------------------------------------------- */

/* What Linux/m68k sends a process for an exception vector, with the
 * siginfo code (arch/m68k/kernel/traps.c); 0: none. */
static int signal_of(int vector, int32_t *code) {
  switch (vector) {
  case 2: *code = 1; return SIGSEGV;            /* SEGV_MAPERR */
  case 3: *code = 1; return SIGBUS;             /* BUS_ADRALN */
  case 4: case 10: *code = 1; return SIGILL;    /* ILL_ILLOPC */
  case 11: *code = 7; return SIGILL;            /* ILL_COPROC */
  case 8: *code = 5; return SIGILL;             /* ILL_PRVOPC */
  case 5: *code = 1; return SIGFPE;             /* FPE_INTDIV */
  case 6: case 7: *code = 2; return SIGFPE;     /* FPE_INTOVF */
  case 9: *code = 2; return SIGTRAP;            /* TRAP_TRACE */
  case 47: *code = 1; return SIGTRAP;           /* TRAP_BRKPT */
  case 48: case 52: case 54: *code = 7; return SIGFPE; /* FPE_FLTINV */
  case 49: *code = 6; return SIGFPE;            /* FPE_FLTRES */
  case 50: *code = 3; return SIGFPE;            /* FPE_FLTDIV */
  case 51: *code = 5; return SIGFPE;            /* FPE_FLTUND */
  case 53: *code = 4; return SIGFPE;            /* FPE_FLTOVF */
  default: *code = 4; return vector >= 33 && vector <= 46 ? SIGILL : 0; /* ILL_ILLTRP */
  }
}

/* A system call: served, then any signal it made deliverable. */
static void linux_syscall(struct m68k_machine *m, m68k__mcpu_t *c, m68k_cpu_t *cpu, uint32_t pc) {
  sc_t s = {.m = m, .c = c, .lx = m->linux_state, .nr = m68k_get_reg(cpu, M68K_REG_D0)};
  for (int i = 0; i < 5; i++)
    s.a[i] = m68k_get_reg(cpu, (m68k_reg_t)(M68K_REG_D0 + 1 + i));
  s.a[5] = m68k_get_reg(cpu, M68K_REG_A0);
  uint32_t result;
  if (!dispatch(&s, &result)) {
    const char *name = m68k_linux_syscall_name(s.nr);
    m68k__machine_stop(m, c, M68K_MACHINE_FAULT, (int32_t)s.nr,
                       "unsupported system call %" PRIu32 " (%s) at PC 0x%08" PRIx32, s.nr,
                       name != NULL ? name : "unknown", pc - 2);
    return;
  }
  if (m->stopped)
    return;
  m68k_set_reg(cpu, M68K_REG_D0, result);
  poll_timer(s.lx);
  deliver_one(m, c, 32u * 4u);
}

static bool linux_hook(void *ctx, m68k_cpu_t *cpu, int vector) {
  m68k__mcpu_t *c = ctx;
  struct m68k_machine *m = c->m;
  m68k__linux_t *lx = m->linux_state;
  /* For TRAP and the instruction exceptions the core's PC is past the
   * opcode word: the instruction is at PC - 2. */
  uint32_t pc = m68k_get_reg(cpu, M68K_REG_PC);
  if (vector == 32) {
    linux_syscall(m, c, cpu, pc);
    return true;
  }
  char name[64], dis[96];
  m68k__vector_name(vector, name, sizeof name);
  int32_t code;
  int sig = signal_of(vector, &code);
  /* Where the handler returns to: the instruction itself for those that
   * did not run, the next one for the others (the FPU's traps are taken
   * after the instruction, cpu-fpu.c note 5). */
  uint32_t at = vector == 4 || vector == 8 || vector == 10 || vector == 11 ? pc - 2 : pc;
  if (sig != 0 && vector != 2 && vector != 3 && act_handler(lx, sig) > 1 &&
      !(lx->sigmask & SIGBIT(sig))) {
    m68k_set_reg(cpu, M68K_REG_PC, at);
    lx->info[sig].code = code;
    lx->info[sig].a = at; /* si_addr */
    lx->info[sig].b = 0;
    enter_handler(m, c, sig, (uint32_t)vector * 4u);
    return true;
  }
  if (vector == 4 || vector == 10 || vector == 11) {
    const uint8_t *op = m68k_machine_ram(m, pc - 2, 2);
    dis[0] = '\0';
    m68k_disassemble(cpu, pc - 2, dis, sizeof dis);
    m68k__machine_stop(m, c, M68K_MACHINE_FAULT, vector,
                       "unsupported instruction 0x%04x (%s; %s) at PC 0x%08" PRIx32,
                       op != NULL ? m68k__be16(op) : 0u, dis[0] ? dis : "?", name, pc - 2);
    return true;
  }
  if (vector == 2) {
    m68k__machine_stop(m, c, M68K_MACHINE_SIGNALED, sig,
                       "segmentation fault: no memory at address 0x%08" PRIx32
                       " (near PC 0x%08" PRIx32 "): killed by signal %d (%s)",
                       m->fault_addr, pc, sig, strsignal(sig));
    return true;
  }
  if (sig != 0) {
    m68k__machine_stop(m, c, M68K_MACHINE_SIGNALED, sig,
                       "%s near PC 0x%08" PRIx32 ": killed by signal %d (%s)", name, pc, sig,
                       strsignal(sig));
    return true;
  }
  m68k__machine_stop(m, c, M68K_MACHINE_FAULT, vector, "unexpected %s at PC 0x%08" PRIx32, name,
                     pc);
  return true;
}

/* ---- The initial process --------------------------------------------------- */

/* Pushes bytes below *sp, not below `lim`; returns their address or 0. */
static uint32_t push(struct m68k_machine *m, uint32_t *sp, uint32_t lim, const void *data,
                     size_t len) {
  if (*sp - lim < len)
    return 0;
  *sp -= (uint32_t)len;
  memcpy(m68k_machine_ram(m, *sp, (uint32_t)len), data, len);
  return *sp;
}

M68K_API int m68k_linux_setup(m68k_machine_t *m, const m68k_elf_t *elf, const char *exe_path,
                              int argc, char *const argv[], char *const envp[]) {
  int rc = M68K_OK;
  uint32_t *envs = NULL, *args = NULL;
  m68k__linux_t *lx = calloc(1, sizeof *lx);
  if (lx == NULL)
    return M68K_ENOMEM;
  char *real = realpath(exe_path, NULL);
  lx->exe_path = real != NULL ? real : strdup(exe_path);
  if (lx->exe_path == NULL) {
    rc = M68K_ENOMEM;
    goto fail;
  }

  /* Layout (note 1). */
  uint32_t ram_end = m->ram_base + m->ram_size;
  lx->stack_top = ram_end - SUPER_STACK;
  lx->stack_size = m->ram_size / 4 < STACK_MAX ? (m->ram_size / 4) & ~(PAGE - 1) : STACK_MAX;
  lx->mmap_top = lx->stack_top - lx->stack_size;
  lx->mmap_low = lx->mmap_top;
  lx->brk_start = page_up(((elf->high - 1) & m->addr_mask) + 1);
  lx->brk = lx->brk_start;
  if (lx->brk_start < m->ram_base || lx->brk_start >= lx->mmap_top) {
    m68k__machine_msg(m,
                      "the program (up to 0x%08" PRIx32
                      ") leaves no room for heap and stack below 0x%08" PRIx32,
                      elf->high, lx->mmap_top);
    rc = M68K_ENOFIT;
    goto fail;
  }

  int envc = 0;
  while (envp != NULL && envp[envc] != NULL)
    envc++;
  args = calloc((size_t)argc + 1, sizeof *args);
  envs = calloc((size_t)envc + 1, sizeof *envs);
  if (args == NULL || envs == NULL) {
    rc = M68K_ENOMEM;
    goto fail;
  }

  /* Strings and random bytes at the top, at most half the stack. */
  uint32_t sp = lx->stack_top;
  uint32_t lim = lx->stack_top - lx->stack_size / 2;
  uint8_t rnd[16];
  if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
    memset(rnd, 0x5A, sizeof rnd);
  uint32_t execfn = push(m, &sp, lim, exe_path, strlen(exe_path) + 1);
  uint32_t rnd_addr = push(m, &sp, lim, rnd, sizeof rnd);
  if (execfn == 0 || rnd_addr == 0)
    goto toobig;
  for (int i = envc - 1; i >= 0; i--)
    if ((envs[i] = push(m, &sp, lim, envp[i], strlen(envp[i]) + 1)) == 0)
      goto toobig;
  for (int i = argc - 1; i >= 0; i--)
    if ((args[i] = push(m, &sp, lim, argv[i], strlen(argv[i]) + 1)) == 0)
      goto toobig;

  uint32_t auxv[][2] = {
      {3, elf->phdr_vaddr}, /* AT_PHDR */
      {4, 32},              /* AT_PHENT */
      {5, elf->phnum},      /* AT_PHNUM */
      {6, PAGE},            /* AT_PAGESZ */
      {7, 0},               /* AT_BASE */
      {8, 0},               /* AT_FLAGS */
      {9, elf->entry},      /* AT_ENTRY */
      {11, (uint32_t)getuid()},
      {12, (uint32_t)geteuid()},
      {13, (uint32_t)getgid()},
      {14, (uint32_t)getegid()},
      {16, 0},        /* AT_HWCAP */
      {17, 100},      /* AT_CLKTCK */
      {23, 0},        /* AT_SECURE */
      {25, rnd_addr}, /* AT_RANDOM */
      {31, execfn},   /* AT_EXECFN */
      {0, 0},         /* AT_NULL */
  };
  size_t naux = sizeof auxv / sizeof auxv[0];
  size_t items = 1 + (size_t)argc + 1 + (size_t)envc + 1 + 2 * naux;
  sp &= ~3u;
  if ((sp - lim) / 4 < items + 4)
    goto toobig;
  sp = (sp - (uint32_t)items * 4) & ~15u;
  uint8_t *p = m68k_machine_ram(m, sp, (uint32_t)items * 4);
  m68k__put32(p, (uint32_t)argc);
  p += 4;
  for (int i = 0; i < argc; i++, p += 4)
    m68k__put32(p, args[i]);
  m68k__put32(p, 0);
  p += 4;
  for (int i = 0; i < envc; i++, p += 4)
    m68k__put32(p, envs[i]);
  m68k__put32(p, 0);
  p += 4;
  for (size_t i = 0; i < naux; i++, p += 8) {
    m68k__put32(p, auxv[i][0]);
    m68k__put32(p + 4, auxv[i][1]);
  }

  /* CPU 0: user mode at the entry, system calls through the hook. */
  m68k_cpu_t *cpu = m->cpus[0].cpu;
  m68k_set_reg(cpu, M68K_REG_SR, 0x2700);
  m68k_set_reg(cpu, M68K_REG_ISP, ram_end);
  m68k_set_reg(cpu, M68K_REG_SR, 0x0000);
  for (int r = 0; r < 15; r++)
    m68k_set_reg(cpu, (m68k_reg_t)r, 0);
  m68k_set_reg(cpu, M68K_REG_A0 + 7, sp);
  m68k_set_reg(cpu, M68K_REG_PC, elf->entry);
  m->cpus[0].personality = linux_hook;
  m->freestanding = false;
  m68k__linux_free(m->linux_state);
  m->linux_state = lx;
  free(args);
  free(envs);
  return M68K_OK;

toobig:
  m68k__machine_msg(m, "%s", m68k_strerror(M68K_ETOOBIG));
  rc = M68K_ETOOBIG;
fail:
  free(args);
  free(envs);
  m68k__linux_free(lx);
  return rc;
}

M68K_API int m68k_linux_set_root(m68k_machine_t *m, const char *dir) {
  char msg[PATH_MAX + 160];
  m68k__root_t *r;
  if (m->linux_state == NULL) {
    m68k__machine_msg(m, "no Linux process to give a root to");
    return M68K_EINVAL;
  }
  if (m68k__root_open(&r, dir, msg, sizeof msg) != 0) {
    m68k__machine_msg(m, "%s", msg);
    return M68K_EINVAL;
  }
  m68k__root_free(m->linux_state->root);
  m->linux_state->root = r;
  return M68K_OK;
}

M68K_API int m68k_linux_run(const char *path, int argc, char *const argv[], char *const envp[],
                            const m68k_run_options_t *opt, m68k_machine_result_t *res, char *msg,
                            size_t msglen) {
  m68k_elf_t *elf = NULL;
  m68k_machine_t *m = NULL;
  int rc = m68k_elf_open(path, &elf, msg, msglen);
  if (rc != M68K_OK)
    return rc;
  uint32_t mask = opt->model == M68K_MODEL_68000 ? 0x00FFFFFFu : 0xFFFFFFFFu;
  uint32_t base = (m68k_elf_low(elf) & mask) & ~0xFFFFu;
  uint32_t size = opt->ram_size != 0 ? opt->ram_size : M68K_MACHINE_DEFAULT_RAM;
  uint32_t room = (M68K_DEV_BASE & mask) - base;
  if (opt->ram_size == 0 && size > room)
    size = room & ~0xFFFFu;
  /* One long-lived process: huge pages pay (m68k_machine_config_t). */
  m68k_machine_config_t cfg = {
      .model = opt->model, .ncpus = 1, .ram_base = base, .ram_size = size, .huge_pages = true};
  m = m68k_machine_create(&cfg);
  if (m == NULL) {
    snprintf(msg, msglen,
             "%s: cannot create a machine with %" PRIu32 " bytes of RAM at 0x%08" PRIx32
             " (too large for the address space, or out of memory)",
             path, size, base);
    rc = M68K_ENOMEM;
    goto out;
  }
  rc = m68k_elf_load(m, elf);
  if (rc == M68K_OK)
    rc = m68k_linux_setup(m, elf, path, argc, argv, envp);
  if (rc == M68K_OK && opt->root != NULL)
    rc = m68k_linux_set_root(m, opt->root);
  if (rc != M68K_OK) {
    snprintf(msg, msglen, "%s: %s", path, m68k_machine_message(m));
    goto out;
  }
  m68k_machine_set_trace(m, opt->trace);
  m68k_machine_set_limit(m, opt->limit);
  m68k_machine_set_cycle_count(m, opt->cycles);
  /* In slices, so that the interval timer's SIGALRM arrives between
   * instructions even in a loop without system calls. */
  while (!m68k_machine_stopped(m, NULL) && m68k_machine_step(m, 0, LINUX_SLICE) != 0)
    linux_between_slices(m);
  m68k_machine_run(m, res);
  snprintf(msg, msglen, "%s", m68k_machine_message(m));
out:
  m68k_machine_destroy(m);
  m68k_elf_close(elf);
  return rc;
}
