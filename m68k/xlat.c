/* xlat.c -- the translator: hot 68k code turned into host code by chaining stencils.
 *
 * Design notes
 *
 * 1. Tiering. m68k__xlat_exec() replaces the interpreter's m68k__exec()
 *    while translation is on, with the same contract: it runs at least one
 *    instruction, then goes on while nothing is pending and icount is below
 *    `end`. At each PC it looks for a translated block; there is none, it
 *    counts the PC (a small table of counters indexed by the PC's hash, so
 *    that cold code allocates nothing) and interprets one instruction; a PC
 *    counted `threshold` times is translated. Blocks may overlap (a block
 *    starting inside another one's code), as in QEMU's TBs.
 * 2. A block is at most XLAT_INSNS instructions of straight-line code,
 *    from the stencils of xlat-templates.c chained by jit_emit_chain,
 *    each instruction's stencil falling through into the next. The
 *    commonest integer instructions have stencils of their own with their
 *    operands folded in (special(): MOVEQ, MOVE/MOVEA.L between
 *    registers, ADD, SUB, CMP, AND, OR, EOR .L on registers, ADDQ/SUBQ,
 *    ORI/ANDI/EORI/ADDI/SUBI/CMPI.L and ADDI/CMPI.B #imm,Dn,
 *    LSL/LSR/ASR.L #q and Dx,Dy, ADDA, SUBA, CMPA, LEA, CLR.L, TST,
 *    MULS.L/MULU.L #imm and Ds into Dl and #imm into Dh:Dl (xt_muls64_i:
 *    GCC's division by a constant, which writes two registers and so is
 *    not in pure[]); on the 68030 also the MOVE family and the long
 *    operations on memory (note 11), LEA (d8,An,Xi), CLR.L (d16,An),
 *    MOVE.B #imm,(An), MOVEM.L to -(An) and from (An)+ (unrolled: a
 *    stencil per list length), PEA (An) and (d16,An), JMP (d8,PC,Xi);
 *    BRA, Bcc and DBcc with the condition folded in). Every other
 *    instruction calls its interpreter handler (xt_insn), so it computes
 *    exactly what the interpreter does. The condition codes are the
 *    interpreter's split flags (m68k-internal.h note 1): a store or two
 *    per instruction that sets them (none where no later instruction
 *    reads them: note 8), evaluated only where a branch tests them; a
 *    compare's are lazy (note 13). A block ends after a jump, call,
 *    return or trap (xt_last: the loop finds the block at the new PC), at
 *    a BRA it does not follow, at a branch back to its own start (a
 *    loop: note 19), or after XLAT_INSNS instructions,
 *    XLAT_EXITS branch exits, or the end of RAM. A BRA to anywhere but the
 *    block's own start is followed (up to XLAT_SPANS - 1 times, and only
 *    with room for an instruction after it): the block goes on at its
 *    target, the BRA itself an xt_nop that counts as an instruction (note
 *    6), so the block is made of spans of guest code, [lo, hi) each. This
 *    is tail duplication: a switch's cases, which each end in a BRA back
 *    to the dispatch, each get a copy of the dispatch and so a jump
 *    through the jump table of their own, whose target the host's branch
 *    predictor learns from the case it follows, where one shared jump
 *    mispredicts at nearly every bytecode.
 * 3. Chaining. An exit to a known address (a branch target, the address
 *    after the block) is a jump in the block's code (a JMP or Jcc rel32:
 *    the taken branch's own, or xt_exit's after the last instruction)
 *    with an m68k__xlat_exit_t recording where its displacement is. The
 *    jump first goes to the exit's xt_unchained, which returns to the loop
 *    with the exit taken; the loop then patches it to the entry of the
 *    block at its target when there is one (the "patched jump" of a
 *    translating JIT), writing through the code's read-write view, so
 *    code memory stays W^X (note 7). Every block keeps the exits linked to
 *    it (`in`), whose jumps go back to their xt_unchained when it dies. A
 *    target out of a rel32's reach (code memory more than 2 GiB away)
 *    stays unchained: the loop finds the block there. A branch back to
 *    the block's own start (a loop) needs no exit: it jumps straight to
 *    the block's entry in the same code, which checks the budget as any
 *    entry does, and dies with the block.
 * 4. Self-modifying code. pages[] has one byte per RAM page
 *    (M68K_XLAT_PAGE_SHIFT) a live block was translated from (every one
 *    of its spans). A CPU's
 *    store into such a page (m68k__wr) and a host write through the
 *    machine (m68k_jit_invalidate) kill every block with a span overlapping the page:
 *    out of the hash, unlinked, its code kept on `dead` until the loop next
 *    runs. Every CPU sharing the translator gets xlat_dirty, which makes
 *    the running block return after the storing instruction; the loop then
 *    frees the dead code (no CPU is inside translated code there: one host
 *    thread steps every CPU of a machine, and a CPU's trap hook does not
 *    run another CPU's translated code). A page whose translations stores
 *    have dropped XLAT_MIXED times holds data written next to code (a
 *    freestanding image's counter beside its loop): it is no longer
 *    translated, so the interpreter runs it instead of retranslating it
 *    after every store.
 * 5. Bound. At most max_blocks blocks live; the translation that would
 *    exceed it first flushes the whole cache (as QEMU does when its code
 *    buffer is full), from the loop, where no translated code runs.
 * 6. Exactness. A block begins with xt_enter, which goes on only when
 *    all its instructions fit in the budget (icount + ninsn <= `end`;
 *    every way in passes icount, as just stored, in a register: the
 *    check does not wait for the store to be read back). Nothing is
 *    pending at any entry: the loop enters only when nothing is, and a
 *    stencil whose call out leaves something pending or xlat_dirty set
 *    returns to the loop after its instruction, so no exit, return or
 *    loop back carries either into a block. The loop checks the budget
 *    before it enters a block too, and when
 *    the block does not fit it runs the block's first
 *    instruction alone instead (`one`, translated on first need, never
 *    chained, freed with its block; the interpreter when there is no
 *    memory for it), so a budget ends on the same instruction as in the
 *    interpreter (the machine's schedules run a CPU a counted number of
 *    instructions). Inside a block no stencil looks at the budget. The
 *    instructions on registers alone (pure[]: they cannot fault, call out
 *    or change anything the loop looks at) neither count themselves nor
 *    store the PC: the next stencil that can fault, call a handler or
 *    leave the block adds their count with its own (xh_count, filled in
 *    by fill_counts) and stores the PC, so icount and the PC are exact
 *    wherever an exception, a handler, a device or the loop can see them.
 *    Branches cannot fault (odd targets stay with the handler): a taken
 *    one counts, a branch not taken leaves its count to the next. The
 *    68030's memory stencils do the same: an access to RAM outside
 *    translated pages goes inline and leaves its count to the next; any
 *    other access first counts, stores ppc, ir and the PC, goes through
 *    the core (a device, a bus error, a store into translated code) and
 *    the block returns to the loop after the instruction. A
 *    stencil that can fault or call out ends its instruction as the
 *    interpreter's dispatch does (ppc, ir; on the 68000 its address-error
 *    state) and returns after it when something became pending or a store
 *    hit translated code, so exceptions, interrupts, traps and system
 *    calls fall on the same instruction boundaries. Cycle counting and
 *    tracing set `pending`, so they run in the interpreter. ppc, ir and
 *    the 68000's address-error state are read only by the exceptions of
 *    the instruction that set them; the stencils that cannot take one
 *    leave them as they were, and the memory stencils (68030 only) do not
 *    touch the address-error state, which only the 68000's address errors
 *    read. fill_counts gives every stencil that counts its xh_count.
 * 7. Code memory is libjit's (W^X, dual-mapped), one per process, created
 *    on first use; a block's code is freed when the block dies.
 * 8. Dead flags. drop_dead_flags walks a block backwards with the set of
 *    flag fields (x, n, nz, v, c) some later stencil may read before
 *    writing it: all of them at the block's end, and at every stencil
 *    other than pure[]'s (a handler, a memory access whose exception
 *    stacks the SR, a branch, whose taken exit leaves the block). An
 *    instruction on registers none of whose flags are in it gets the
 *    same operation without them (ADD.L as ADDA.L, CMP.L and TST as
 *    nothing...), one whose X alone is in it (ADD, SUB, ADDQ, SUBQ,
 *    ADDI, SUBI .L) the stencil storing X alone. Only stores that nothing
 *    reads are dropped, so the state at every exit and fault is the
 *    interpreter's. The 68030's memory stencils (note 11) have twins
 *    (_nf) that set their flags only when the instruction goes through the
 *    core (a device, a bus error, a store into translated code), where an
 *    exception or the loop (an interrupt taken after it) sees them; the
 *    twin is used where none of the flags the instruction writes is live
 *    after it; ADD's and SUB's have another (_x) setting X alone inline,
 *    used where X is the only one live after them (which it nearly always
 *    is: few instructions write X). Before it every flag is live when it
 *    reads memory first (a fault there stacks them), and otherwise every
 *    flag it does not write (the block returns after it when it goes
 *    through the core).
 * 9. Calls. On the 68030 a BSR or JSR to a known address (BSR, JSR abs.W,
 *    abs.L, (d16,PC); an even target) is xt_call: it pushes the return
 *    address inline when the stack is RAM outside translated pages and
 *    goes on at the target through a chained exit, counted like a taken
 *    branch; any other push runs the instruction's handler (a device, a
 *    bus error, a store into translated code, which invalidates), and the
 *    block returns to the loop after it. The block ends at the call.
 * 10. Returns. On the 68030 an RTS is xt_rts: it pops the return address
 *    inline when the stack is RAM and the address even (else the handler
 *    runs it, and the block returns to the loop), counts, sets the PC and
 *    looks the address up in the translator's return cache (jc, as QEMU's
 *    tb_jmp_cache and lookup_and_goto_ptr): a direct-mapped table from a
 *    block's PC to its entry, validated by comparing the PC, filled by the
 *    loop whenever it enters a block it found, and emptied in the slot of
 *    every block that dies (kill), so that it names live blocks only. A
 *    hit jumps straight to the block's entry, which checks the budget
 *    (note 6) as a chained exit's does; a miss returns
 *    to the loop with the PC, which looks the block up and fills the slot.
 *    Only the loop and kill write the cache, on the one host thread that
 *    steps every CPU sharing the translator (note 4; kill from the loop or
 *    from a store inside a stencil, which then returns to the loop), so no
 *    stencil reads a slot while it changes.
 * 11. Moves and indexes (68030). MOVE and MOVEA of every size between a
 *    register and (An), (An)+, -(An), (d16,An), (d8,An,Xi) with a brief
 *    extension word, abs.W, abs.L and (d16,PC) (an address known when
 *    translating), and between two of those, are one stencil per size and
 *    pair of operand kinds (xlat.h M68K_XLAT_MOVES), its operands in holes
 *    (mem_operand); an index is the register's offset in the CPU and two
 *    shifts, left then right arithmetic, that sign-extend (a word index)
 *    and scale it (index_holes). A full extension word without memory
 *    indirection is the same kinds (full_index): (bd,An,Xi) is (d8,An,Xi)'s
 *    with a 32-bit displacement, on xlat_zero (a register always 0) when
 *    the base is suppressed, and (bd,An) and (bd) are (d16,An)'s and
 *    abs.L's; a memory indirect one runs its handler. The stencil computes the
 *    operands in the interpreter's order (the source's address, (An)+
 *    stepped; the read; the destination's address; the flags; the store),
 *    so a bus error finds the same registers. OR, AND, SUB, ADD, CMP .L
 *    <ea>,Dn, ADDA, SUBA, CMPA .L <ea>,An, MULS.L, MULU.L <ea>,Dl (the
 *    operand's extension words after the MUL's own), OR, AND, SUB, ADD,
 *    EOR .B, .W, .L Dn,<ea> (read, operate, store) and TST.B, TST.L <ea>
 *    on the same memory operands are families of their own
 *    (M68K_XLAT_ALU_ER, _ALU_RE, _ALU_RE_BW, _TSTS), their operation
 *    folded in. A MOVE or
 *    one of these operations whose access cannot go inline leaves the
 *    instruction to the interpreter before it has changed anything (note
 *    17); the others (TST, the lazy CMP, a MOVE into Dn handing Dn on: note
 *    15) go through the core themselves, a read first storing the PC the
 *    interpreter has reached there (past the source's extension words:
 *    xh_spc), which a bus error's frame stacks.
 *    LEA (d8,An,Xi) reads no memory: it is on registers alone. A
 *    switch's JMP (d8,PC,Xi) to an even target goes on through the return
 *    cache as an RTS does (note 10); an odd one runs its handler.
 * 12. FPU (68030). FMOVE, FADD, FSUB, FMUL, FDIV, FCMP and FTST into FPn
 *    from FPm, from Dn (.L, .S), from an immediate or from memory (.L,
 *    .S, .D; the operand kinds of note 11) are one stencil per source kind
 *    and size (xt_fop*), the operation and registers in m68k__fpu_fast's
 *    `how`: the operand is read inline from RAM and the operation done by
 *    cpu-fpu.c's fast path (its note 11) in the FPCR's default mode on
 *    normal and zero operands, which can neither trap nor touch anything
 *    the loop looks at, so the stencil counts and goes on. Anything else
 *    (another mode, an infinity, a NaN, a denormal, an underflow or
 *    overflow, an operand outside RAM) finds the registers as they were
 *    and runs the handler, as xt_insn does.
 * 13. Lazy flags. A CMP.L (CMPA.L, CMPI.L) on registers or with a
 *    memory source (68030), an ADD.L or SUB.L on registers (ADDQ,
 *    SUBQ, ADDI, SUBI), a CMPI.B #imm,Dn (the bytes at the top of a long
 *    give CMP.B's flags) and a TST.L or TST.B on Dn or memory (68030; its
 *    flags are those of the value, its byte at the top, minus 0), whose
 *    flags some later instruction reads, is xt_lcmp_l, xt_lcmpi_l,
 *    xt_lcmpi_b, xt_er_lcmp_<kind>, xt_ladd*, xt_lsub*, xt_ltst*: it
 *    stores its operands (lz_d, lz_s) and lz_op (M68K_LZ_SUB, _ADD), and
 *    N, Z, V and C are then those of lz_d - lz_s (lz_d + lz_s), computed
 *    (m68k__lz_sync) only where something needs them in the split
 *    fields, as QEMU's cc_op does. X is never lazy: ADD and SUB store it
 *    as they go, and the sync leaves it. A Bcc after a compare or a SUB
 *    in the same block compares the operands as the host does (xt_lbcc:
 *    HI is d > s unsigned, GE is d >= s signed...; right after a CMP.L,
 *    CMPI.L, CMPI.B, SUB.L or SUBI.L on registers, a CMP.L <ea>,Rn
 *    from memory or a TST, xt_lbccr takes them in the registers of its
 *    arguments, where xt_lcmpr_l, xt_er_lcmpr_<kind>... leave them, as
 *    the fall-through into it keeps them), and a taken
 *    branch leaves the flags lazy into the next block, so that a loop's
 *    CMP and Bcc never compute them. The invariant: lz_op is 0 everywhere outside
 *    translated code and at every read of the split fields. It holds
 *    because (a) the loop syncs after every return from translated code;
 *    (b) a stencil's way into the core syncs first: begin() before a
 *    handler (which may read the flags or take an exception that stacks
 *    them), mem_out_at() before a device, bus error or store into
 *    translated code, and so before the instruction's own flags on that
 *    path (wr_flagged sets a store's flags after it); those paths are
 *    the only calls out of translated code, and an exception's longjmp
 *    leaves from inside them, after the sync; (c) inside a block,
 *    lazy_flags follows the state the translator knows (clean; lazy, of
 *    a SUB or of an ADD; unknown at the block's entry, which a chained
 *    exit may reach with lz_op set) and inserts xt_lz_clear before an
 *    instruction on registers that writes all four (lz_op = 0: nothing
 *    can read between), xt_lz_sync before any other stencil that reads
 *    or writes them inline (Scc, DBcc, a Bcc not right for xt_lbcc, a
 *    memory stencil setting them on its inline path, whose fault must
 *    stack the flags from before it), except a memory stencil setting all
 *    four after its access, which gets xt_lz_clear after it (a fault
 *    syncs in mem_out_at, before they are written). Stencils that touch
 *    none of them inline (moves to An, the flagless twins of note 8,
 *    BRA, calls, returns, MOVEM, PEA, the FPU's) keep the state; a
 *    handler's begin() leaves it clean. Inserted stencils are not instructions:
 *    they count nothing (fill_counts), and a block that would exceed
 *    JIT_CHAIN_MAX links with them is translated without lazy flags (one
 *    sync at most is then inserted).
 * 14. The store map. A stencil's store goes inline only to RAM outside
 *    translated pages (note 4); anything else goes through the core
 *    (m68k__wr), which invalidates. wrmap answers both questions with one
 *    load: a byte for every page (M68K_XLAT_PAGE bytes) of the 68030's
 *    4 GiB, indexed by the address itself, 16 MiB of address space mapped
 *    MAP_NORESERVE, of which only RAM's pages are ever written, so that
 *    the stencils need no bound check nor subtraction before the look.
 *    (RAM that does not start on a page leaves the map empty: every store
 *    then goes through the core.)
 *    M68K_XLAT_WR_BYTE: the page is wholly RAM and holds no translation;
 *    M68K_XLAT_WR_LONG: so does the next page, so a store of up to four
 *    bytes starting in the page (or MOVEM's sixty) is plain RAM. Every
 *    other byte is 0. The map follows pages[], which changes only through
 *    pages_set (translate, invalidate, flush): it recomputes the bytes of
 *    the pages it set and of the page before them.
 * 15. Values in host registers. The CPU struct holds every guest register,
 *    and a stencil loads what it reads and stores what it writes. Between
 *    two stencils that runs through memory: the next one's load waits for
 *    the store just made to be forwarded, some cycles each time, and a
 *    chain of operations on one register (a hash's shifts and adds) runs
 *    at that speed. So the long operations that set one register (xlat.h
 *    M68K_XLAT_ACC_*) come in variants: _o also passes the new value on
 *    as the next stencil's argument, in the host register the calling
 *    convention gives it, and _i takes its register's value from there
 *    instead of loading it (_io both). The fall-through from one stencil
 *    into the next keeps the register. pass_values, on a block's final
 *    links, pairs a stencil with the next one when the next reads the
 *    register (xh_reg) the first one sets; nothing else changes: every
 *    variant still stores the register, so the CPU holds it as it is at
 *    every exit, fault and call, and the passed value is only a copy. A
 *    compare or SUB handing its operands to its Bcc (note 13) takes its
 *    register this way too, and a MOVE (d8,As,Xi),Dn or a JMP (d8,PC,Xi)
 *    its index register (_x; a bytecode interpreter's dispatch, whose
 *    index the instruction before computes, then waits on no memory
 *    until its jump), the MOVE also handing Dn on (_o). A MOVE from
 *    memory into Dn hands Dn on as well, and a MOVE.L, MOVEA or LEA from
 *    Rs takes Rs's value (xlat.h M68K_XLAT_ACC_S: their `in` is xh_src).
 *    A MOVEM.L to -(Ar) or from (Ar)+ takes Ar and hands it on, and an
 *    RTS takes A7: a function's frame (LEA (d16,A7),A7 and MOVEM.L on the
 *    way in, MOVEM.L, LEA and RTS on the way out) keeps A7 in a host
 *    register from one to the next instead of waiting on its store.
 *    The reader need not be the very next link: every one-register
 *    operation has a pass-through twin (_p) that does its own work and
 *    hands on the value it was given untouched, so a value passes links
 *    that do not write its register (a MOVEQ setting a shift count
 *    between a hash's steps, an ADDA on another pointer); so have the
 *    stencils writing no register (xlat.h M68K_XLAT_NOREG: a compare, a
 *    test, the lazy flags' clearing between a jump table's load and its
 *    JMP).
 * 16. Known shift counts. A shift by a data register that a MOVEQ earlier
 *    in the block set, with no instruction between that could have
 *    written it (known_counts follows MOVEQs through the instructions on
 *    registers alone, which write their xh_reg at most, and forgets all
 *    at any other), is the shift by an immediate when the count mod 64
 *    is 1 to 31: same result, same flags, X included. GCC sets counts
 *    above 8 that way (MOVEQ #15,D6; LSL.L D6,D0). Counts 0 and 32 to 63
 *    keep the register shift, whose flags differ from any immediate's.
 * 17. Left to the interpreter. A stencil may return before its
 *    instruction has changed anything, with the PC at it, the
 *    instructions before it counted (xh_count less its own) and
 *    xlat_interp set; the loop then has the interpreter run that one
 *    instruction (interp_left), and goes on. The long operations with a
 *    memory operand (op.L Dn,<ea> and op.L <ea>,Rn) and MOVE do so when a
 *    read or a store cannot go inline, first stepping back an An their
 *    (An)+ or -(An) stepped: their stencils then call nothing at all, so
 *    no register is saved on their inline paths. The interpreter takes
 *    the access, its faults and the interrupts it raises exactly as it
 *    would have without the translator; the block's entry cannot loop on
 *    it, as the interpreter has run it before the loop looks for a block
 *    again.
 * 18. Pinned host registers. The stencils keep three values that do not
 *    change while a machine lives in callee-saved host registers, global
 *    register variables of xlat-templates.c: the RAM's host address less
 *    its guest base (r12), the store map (r13, note 14) and the guest
 *    base (r14). An access to RAM then loads nothing but its operand and
 *    the map's byte. The loop enters translated code only through
 *    m68k__xlat_enter, which saves the caller's three registers, sets
 *    them and restores them on the way out; stencils never write them,
 *    and the C functions they call keep them, as the ABI has them do.
 *    Frameless stencils use caller-saved registers only, so pinning
 *    callee-saved ones takes none from them.
 * 19. Loop register cache. A loop, a block whose branch goes back to its
 *    own start, keeps up to two guest registers in host registers while
 *    it runs (slots: rbx and r15, global register variables of
 *    xlat-templates.c as note 18's), so that what is carried round the
 *    loop in them (an address stepped each time, a counter, a pointer
 *    chase's index) goes through no store and load each time round; and
 *    icount too (rbp), which its branches count in (their _k twins). A
 *    block ends at its branch back, so that a loop is its whole block but
 *    the exits. loop_cache takes the block only when each of the loop's
 *    links (up to its last branch back) writes no register or the one its
 *    xh_reg names (lc_writes: anything else, a handler above all, rules
 *    the block out; a memory operand's (An)+ or -(An) writes the An at
 *    xh_src); of the registers written there only by stencils with cached
 *    variants (note 15's one-register operations and moves between
 *    registers, note 13's SUBs, MOVE (d8,As,Xi),Dn) and read by no link
 *    but through such a variant (lc_var: Rn, Rs, or Rn and its index, from
 *    a slot; any other register hole of a link's stencil counts as a read,
 *    which keeps a register a memory operand uses or steps in the CPU), it
 *    caches two (lc_assign): first those the loop carries round (read
 *    before it writes them: their chains through memory go), then by how
 *    often it writes them (their stores go); their readers and writers take
 *    the variants. A fill before the entry loads the slots and icount from
 *    the CPU and sets xlat_lc (which registers the slots hold); the loop's
 *    own branches go past it, to the entry's budget check, with the count
 *    they pass. A write goes to the slot alone, so the CPU's copy is stale
 *    while the loop runs, and every way out writes the slots and icount
 *    back first: the spill after the last branch back (xt_spill), one on
 *    each branch out of the loop, before its exit's jump (xt_spill_x,
 *    which holds the exit's jump site), any call into the core (mem_out_at:
 *    a read or store through the core, which may take an exception and
 *    leave by longjmp), the return that leaves an instruction to the
 *    interpreter (to_interp), and every return to the loop
 *    (m68k__xlat_enter hands back rbx, r15 and rbp, and enter() writes
 *    them where xlat_lc says and clears it). Why that is exact: inside the
 *    loop every read of a cached register or of icount is from its host
 *    register, and every write of it is to that register; they are loaded
 *    at every entry into the loop from outside it; and no code but the
 *    loop's own stencils runs between a fill and the next spill, as the
 *    loop's stencils call into nothing but the core (which spills first),
 *    an interrupt or a budget's end is seen only at the entry (which
 *    returns to the loop, spilling), and the CPUs sharing a translator run
 *    translated code on one host thread one at a time, each entering
 *    through its own fill and leaving through a spill. Not cached yet:
 *    registers stepped by (An)+ or -(An), memory operands' bases, and
 *    DBcc's counter.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "m68k-internal.h"
#include "machine.h"
#include "xlat.h"

#if M68K_XLAT_STENCILS
#include "jit.h"
#include "xl-stencils.h"
#endif

#define XLAT_INSNS 24      /* instructions per block at most */
#define XLAT_EXITS 4       /* branch exits per block at most, the fall-through's included */
#define XLAT_SPANS 3       /* runs of guest code per block: BRAs followed, plus one (note 2) */
#define XLAT_HASH 4096     /* block hash buckets (a power of 2) */
#define XLAT_HOT 4096      /* hotness counters (a power of 2) */
#define XLAT_CPUS 8        /* CPUs sharing one translator at most */
#define XLAT_MAX_BLOCKS 16384 /* the cache's bound (note 5) */
#define XLAT_RZERO 16 /* a register always 0 (xlat_zero): a suppressed base */
#define XLAT_WRMAP_SIZE ((size_t)1 << (32 - M68K_XLAT_PAGE_SHIFT)) /* note 14 */
#define XLAT_MIXED 8       /* stores that drop a page's translations before it is left
                              to the interpreter (note 4) */

typedef struct m68k__xlat_block block_t;

struct m68k__xlat_block {
  uint32_t pc; /* its entry */
  uint32_t lo[XLAT_SPANS], hi[XLAT_SPANS]; /* translated from guest bytes [lo, hi) (note 2) */
  unsigned nspans;
  uint32_t ninsn;
  m68k__xlat_entry_t entry;
  void *code; /* jit_code_t */
  block_t *hnext;             /* hash chain */
  block_t *prev, *next;       /* the live list, or `next` on the dead list */
  block_t *one;               /* its first instruction alone, for short budgets (note 6) */
  m68k__xlat_exit_t *in;      /* exits chained to this block */
  unsigned nexits;
  m68k__xlat_exit_t exits[XLAT_EXITS];
};

struct m68k__xlat {
  m68k__xlat_jc_t jc[M68K_XLAT_JC]; /* first: the stencils reach it (note 10) */
  m68k_cpu_t *cpus[XLAT_CPUS];
  unsigned ncpus;
  unsigned threshold;
  m68k_model_t model;
  const uint16_t *optab;
  uint8_t *ram;
  uint32_t ram_base, ram_size;
  uint8_t *pages;
  uint8_t *stores; /* per page: invalidations by stores so far (saturating) */
  uint32_t npages;
  uint8_t *wrmap;  /* note 14: XLAT_WRMAP_SIZE bytes */
  block_t *hash[XLAT_HASH];
  block_t *live;
  block_t *dead;
  size_t nlive, max_blocks;
  uint16_t hot[XLAT_HOT];
  m68k_jit_stats_t st;
};

static _Atomic unsigned default_threshold;
/* m68k_jit_set_listener's listener, or NULL. */
static _Atomic(const m68k_jit_listener_t *) listener;

void m68k_jit_set_listener(const m68k_jit_listener_t *l)
{
  atomic_store(&listener, l);
}
/* The counters of every translator freed so far (m68k_jit_totals). */
static pthread_mutex_t totals_lock = PTHREAD_MUTEX_INITIALIZER;
static m68k_jit_stats_t totals;

void m68k_jit_totals(m68k_jit_stats_t *st)
{
  pthread_mutex_lock(&totals_lock);
  *st = totals;
  pthread_mutex_unlock(&totals_lock);
}

void m68k_jit_set_default(unsigned threshold)
{
  atomic_store(&default_threshold, threshold);
}

unsigned m68k_jit_default(void)
{
  return atomic_load(&default_threshold);
}

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

_Static_assert(offsetof(struct m68k__xlat, jc) == 0, "xt_rts finds the return cache at xlat");

/* Note 10: the return cache's slot for pc, filled with b's entry (the
 * loop has just found b there), or emptied when b dies. */
static void jc_fill(struct m68k__xlat *x, const block_t *b)
{
  x->jc[M68K_XLAT_JC_HASH(b->pc)] = (m68k__xlat_jc_t){.pc = b->pc, .entry = b->entry};
}

static void jc_clear(struct m68k__xlat *x, const block_t *b)
{
  m68k__xlat_jc_t *j = &x->jc[M68K_XLAT_JC_HASH(b->pc)];
  if (j->pc == b->pc)
    *j = (m68k__xlat_jc_t){.pc = 1, .entry = NULL};
}

static unsigned hash_pc(uint32_t pc)
{
  return (pc >> 1) & (XLAT_HASH - 1);
}

static block_t *lookup(const struct m68k__xlat *x, uint32_t pc)
{
  for (block_t *b = x->hash[hash_pc(pc)]; b; b = b->hnext)
    if (b->pc == pc)
      return b;
  return NULL;
}

/* Note 3: points exit e's jump at `to`, an address in code memory; false
 * when that is out of its 32-bit displacement's reach. Written through the
 * code's read-write view, on the one host thread that runs the
 * translator's code (note 4): from the loop, or from a store inside a
 * stencil that then returns to the loop before it reaches any exit. */
static bool exit_jump(m68k__xlat_exit_t *e, uintptr_t to)
{
#if M68K_XLAT_STENCILS
  jit_code_t *code = e->from->code;
  uintptr_t field = (uintptr_t)jit_code_rx(code) + e->site;
  int64_t rel = (int64_t)(to - (field + 4));
  if (rel != (int32_t)rel)
    return false;
  int32_t r = (int32_t)rel;
  memcpy((char *)jit_code_rw(code) + e->site, &r, sizeof r);
  return true;
#else
  (void)e, (void)to;
  return false;
#endif
}

/* Note 4: takes b out of the hash and the live list, unlinks the exits
 * into and out of it, and puts it on the dead list. */
static void kill(struct m68k__xlat *x, block_t *b)
{
  jc_clear(x, b);
  for (block_t **p = &x->hash[hash_pc(b->pc)]; *p; p = &(*p)->hnext)
    if (*p == b) {
      *p = b->hnext;
      break;
    }
  if (b->prev)
    b->prev->next = b->next;
  else
    x->live = b->next;
  if (b->next)
    b->next->prev = b->prev;
  x->nlive--;
  for (m68k__xlat_exit_t *e = b->in; e; e = e->next_in) {
#if M68K_XLAT_STENCILS
    exit_jump(e, (uintptr_t)jit_code_rx(e->from->code) + e->home); /* its own code: in reach */
#endif
    e->to = NULL;
  }
  b->in = NULL;
  for (unsigned i = 0; i < b->nexits; i++) {
    m68k__xlat_exit_t *e = &b->exits[i];
    if (!e->to)
      continue;
    for (m68k__xlat_exit_t **p = &e->to->in; *p; p = &(*p)->next_in)
      if (*p == e) {
        *p = e->next_in;
        break;
      }
    e->to = NULL;
  }
  b->next = x->dead;
  x->dead = b;
  if (b->one) { /* never chained, in no list but its block's */
    b->one->next = x->dead;
    x->dead = b->one;
    b->one = NULL;
  }
  for (unsigned i = 0; i < x->ncpus; i++)
    x->cpus[i]->xlat_dirty = true;
}

/* Frees the dead blocks' code; only where no translated code runs. */
static void reclaim(struct m68k__xlat *x)
{
  while (x->dead) {
    block_t *b = x->dead;
    x->dead = b->next;
#if M68K_XLAT_STENCILS
    jit_code_free(b->code);
#endif
    free(b);
  }
}

/* Note 14: the store map's bytes for RAM pages [p0 - 1, p1] (by offset). */
static void wrmap_update(struct m68k__xlat *x, uint32_t p0, uint32_t p1)
{
  uint32_t whole = x->ram_size >> M68K_XLAT_PAGE_SHIFT; /* pages wholly RAM */
  uint8_t *map = x->wrmap + (x->ram_base >> M68K_XLAT_PAGE_SHIFT);
  if (x->ram_base & ((1u << M68K_XLAT_PAGE_SHIFT) - 1))
    return; /* the map stays empty */
  for (uint32_t p = p0 > 0 ? p0 - 1 : 0; p <= p1 && p < whole; p++) {
    bool here = !x->pages[p], next = p + 1 < whole && !x->pages[p + 1];
    map[p] = (uint8_t)((here ? M68K_XLAT_WR_BYTE : 0) | (here && next ? M68K_XLAT_WR_LONG : 0));
  }
}

/* Marks pages [p0, p1] as holding translations (on) or not, and the store
 * map with them: the only way pages[] changes after creation (note 14). */
static void pages_set(struct m68k__xlat *x, uint32_t p0, uint32_t p1, bool on)
{
  memset(x->pages + p0, on, p1 - p0 + 1);
  wrmap_update(x, p0, p1);
}

/* Kills every block overlapping RAM offsets [lo, hi] whose pages are marked. */
static void invalidate(struct m68k__xlat *x, uint32_t lo, uint32_t hi)
{
  uint32_t p0 = lo >> M68K_XLAT_PAGE_SHIFT, p1 = hi >> M68K_XLAT_PAGE_SHIFT;
  if (p1 >= x->npages)
    p1 = x->npages - 1;
  bool any = false;
  for (uint32_t p = p0; p <= p1 && !any; p++)
    any = x->pages[p] != 0;
  if (!any)
    return;
  uint32_t from = p0 << M68K_XLAT_PAGE_SHIFT, to = (p1 + 1) << M68K_XLAT_PAGE_SHIFT;
  for (block_t *b = x->live, *n; b; b = n) {
    n = b->next;
    for (unsigned k = 0; k < b->nspans; k++) {
      uint32_t s = b->lo[k] - x->ram_base, e = b->hi[k] - x->ram_base;
      if (s < to && e > from) {
        kill(x, b);
        x->st.invalidated++;
        break;
      }
    }
  }
  for (uint32_t p = p0; p <= p1; p++)
    if (x->pages[p] && x->stores[p] < UINT8_MAX)
      x->stores[p]++;
  pages_set(x, p0, p1, false);
}

void m68k__xlat_store(m68k_cpu_t *c, uint32_t off, int sz)
{
  invalidate(c->xlat, off, off + (uint32_t)sz - 1);
}

void m68k__xlat_wr(m68k_cpu_t *c, uint32_t a, int sz, uint32_t v)
{
  m68k__wr(c, a, sz, v);
}

void m68k_jit_invalidate(m68k_cpu_t *cpu, uint32_t addr, uint32_t len)
{
  struct m68k__xlat *x = cpu->xlat;
  if (!x || len == 0)
    return;
  uint32_t off = (addr & cpu->addr_mask) - x->ram_base;
  if (off >= x->ram_size)
    return;
  uint32_t last = len - 1 > x->ram_size - 1 - off ? x->ram_size - 1 : off + len - 1;
  invalidate(x, off, last);
}

/* Kills every block (the bound, or the translator's end) and frees them. */
static void flush(struct m68k__xlat *x)
{
  while (x->live)
    kill(x, x->live);
  reclaim(x);
  pages_set(x, 0, x->npages - 1, false);
}

#if M68K_XLAT_STENCILS

/* Note 7. */
static jit_codemem_t *codemem;
static int codemem_rc;
static pthread_once_t codemem_once = PTHREAD_ONCE_INIT;

static void codemem_init(void)
{
  /* The first chunk mapped now, so that mapping it is a start-up cost and
   * not the first translation's. */
  jit_codemem_options_t opts = {.reserve = 1u << 20};
  codemem_rc = jit_codemem_create(&opts, &codemem);
}

/* The guest word at RAM offset off (off + 2 <= ram_size). */
static uint32_t ram16(const struct m68k__xlat *x, uint32_t off)
{
  return ((uint32_t)x->ram[off] << 8) | x->ram[off + 1];
}

/* The core's functions the stencils' inlined memory accesses call. */
static void fill_functions(uint64_t *v)
{
  v[XL_HOLE_m68k__slow_rd] = (uint64_t)(uintptr_t)m68k__slow_rd;
  v[XL_HOLE_m68k__xlat_wr] = (uint64_t)(uintptr_t)m68k__xlat_wr;
  v[XL_HOLE_m68k__fpu_fast] = (uint64_t)(uintptr_t)m68k__fpu_fast;
}

/* What the translator makes of a handler, from its template's name. */
enum {
  TK_UNKNOWN = 0, /* not looked up yet */
  TK_OTHER,
  TK_LAST, /* the flow goes elsewhere after it (note 2): xt_last */
  TK_BSR, TK_JSR, /* TK_LAST but for a call to a known address on the 68030 (note 9) */
  TK_RTS,         /* TK_LAST but xt_rts on the 68030 (note 10) */
  TK_MOVEM_RM, TK_MOVEM_MR,
  TK_MOVEQ, TK_BRA, TK_BCC, TK_DBCC, TK_MOVE, TK_MOVEA, TK_ADDA, TK_ALU_ER, TK_ALU_RE,
  TK_ADDQ, TK_IMMOP, TK_LEA, TK_CLR, TK_TST, TK_SHIFT, TK_NEG, TK_SWAP, TK_EXT, TK_MULL, TK_SCC,
  TK_JMP, /* TK_LAST but xt_jmp_pcix for JMP (d8,PC,Xi) on the 68030 (note 11) */
  TK_FGEN, /* the FPU's general instructions (note 12) */
  TK_PEA,
};

static const struct {
  const char *tmpl;
  uint8_t kind;
} kind_names[] = {
    {"bsr", TK_BSR},      {"jmp", TK_JMP},       {"jsr", TK_JSR},       {"rts", TK_RTS} ,
    {"rte", TK_LAST},     {"rtd", TK_LAST},       {"rtr", TK_LAST},       {"trap", TK_LAST},
    {"stop", TK_LAST},    {"illegal", TK_LAST},   {"linea", TK_LAST},     {"linef", TK_LAST},
    {"reset", TK_LAST},   {"moveq", TK_MOVEQ},    {"bra", TK_BRA},        {"bcc", TK_BCC},
    {"dbcc", TK_DBCC},    {"move", TK_MOVE},      {"movea", TK_MOVEA},    {"adda", TK_ADDA},
    {"alu_er", TK_ALU_ER}, {"alu_re", TK_ALU_RE}, {"addq", TK_ADDQ},      {"immop", TK_IMMOP},
    {"movem_rm", TK_MOVEM_RM}, {"movem_mr", TK_MOVEM_MR}, {"lea", TK_LEA},      {"clr", TK_CLR},        {"tst", TK_TST},
    {"shift_reg", TK_SHIFT}, {"neg", TK_NEG},       {"swap", TK_SWAP},     {"ext", TK_EXT},
    {"mull", TK_MULL},    {"scc", TK_SCC},       {"fgen", TK_FGEN},     {"pea", TK_PEA},
};

/* The kind of handler idx, looked up once (every thread computes the same
 * value, so racing lookups store the same byte). */
static unsigned handler_kind(unsigned idx)
{
  static _Atomic uint8_t kinds[4096];
  unsigned k = idx < 4096 ? atomic_load_explicit(&kinds[idx], memory_order_relaxed) : 0;
  if (k != TK_UNKNOWN)
    return k;
  k = TK_OTHER;
  for (size_t i = 0; i < sizeof kind_names / sizeof kind_names[0]; i++)
    if (strcmp(m68k__handler_tmpl[idx], kind_names[i].tmpl) == 0)
      k = kind_names[i].kind;
  if (idx < 4096)
    atomic_store_explicit(&kinds[idx], (uint8_t)k, memory_order_relaxed);
  return k;
}

static const jit_stencil_t *const bcc_stencils[16] = {
    &xl_stencil_xt_bcc0,  &xl_stencil_xt_bcc1,  &xl_stencil_xt_bcc2,  &xl_stencil_xt_bcc3,
    &xl_stencil_xt_bcc4,  &xl_stencil_xt_bcc5,  &xl_stencil_xt_bcc6,  &xl_stencil_xt_bcc7,
    &xl_stencil_xt_bcc8,  &xl_stencil_xt_bcc9,  &xl_stencil_xt_bcc10, &xl_stencil_xt_bcc11,
    &xl_stencil_xt_bcc12, &xl_stencil_xt_bcc13, &xl_stencil_xt_bcc14, &xl_stencil_xt_bcc15,
};
/* MOVEM.L (Ar)+,list and list,-(Ar) of k registers: [store][k - 1]. */
#define XL_MOVEM(k) &xl_stencil_xt_movem_ld_pi##k,
#define XL_MOVEM_ST(k) &xl_stencil_xt_movem_st_pd##k,
#define XL_MOVEM_KS(X) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
static const jit_stencil_t *const movem_stencils[2][15] = {{XL_MOVEM_KS(XL_MOVEM)},
                                                           {XL_MOVEM_KS(XL_MOVEM_ST)}};
/* Their holes for the offsets of the list's registers, by position. */
static const int movem_holes[15] = {
    XL_HOLE_xh_m0, XL_HOLE_xh_m1,  XL_HOLE_xh_m2,  XL_HOLE_xh_m3,  XL_HOLE_xh_m4,
    XL_HOLE_xh_m5, XL_HOLE_xh_m6,  XL_HOLE_xh_m7,  XL_HOLE_xh_m8,  XL_HOLE_xh_m9,
    XL_HOLE_xh_m10, XL_HOLE_xh_m11, XL_HOLE_xh_m12, XL_HOLE_xh_m13, XL_HOLE_xh_m14,
};

static bool is_movem(const jit_stencil_t *s)
{
  for (unsigned k = 0; k < 15; k++)
    if (s == movem_stencils[0][k] || s == movem_stencils[1][k])
      return true;
  return false;
}

/* The 16 bits of w in reverse order. */
static uint32_t rev16(uint32_t w)
{
  uint32_t r = 0;
  for (unsigned i = 0; i < 16; i++)
    r |= ((w >> i) & 1u) << (15 - i);
  return r;
}

static const jit_stencil_t *const scc_stencils[16] = {
    &xl_stencil_xt_scc0,  &xl_stencil_xt_scc1,  &xl_stencil_xt_scc2,  &xl_stencil_xt_scc3,
    &xl_stencil_xt_scc4,  &xl_stencil_xt_scc5,  &xl_stencil_xt_scc6,  &xl_stencil_xt_scc7,
    &xl_stencil_xt_scc8,  &xl_stencil_xt_scc9,  &xl_stencil_xt_scc10, &xl_stencil_xt_scc11,
    &xl_stencil_xt_scc12, &xl_stencil_xt_scc13, &xl_stencil_xt_scc14, &xl_stencil_xt_scc15,
};
/* Bcc on the lazy flags of a compare or a SUB (note 13); none for BT and BF. */
static const jit_stencil_t *const lbcc_stencils[16] = {
    NULL,                  NULL,                  &xl_stencil_xt_lbcc2,  &xl_stencil_xt_lbcc3,
    &xl_stencil_xt_lbcc4,  &xl_stencil_xt_lbcc5,  &xl_stencil_xt_lbcc6,  &xl_stencil_xt_lbcc7,
    &xl_stencil_xt_lbcc8,  &xl_stencil_xt_lbcc9,  &xl_stencil_xt_lbcc10, &xl_stencil_xt_lbcc11,
    &xl_stencil_xt_lbcc12, &xl_stencil_xt_lbcc13, &xl_stencil_xt_lbcc14, &xl_stencil_xt_lbcc15,
};
/* The same after the compare or SUB right before them, its operands passed
 * in registers: xt_lcmpr_l... (note 13). */
static const jit_stencil_t *const lbccr_stencils[16] = {
    NULL,                   NULL,                   &xl_stencil_xt_lbccr2,  &xl_stencil_xt_lbccr3,
    &xl_stencil_xt_lbccr4,  &xl_stencil_xt_lbccr5,  &xl_stencil_xt_lbccr6,  &xl_stencil_xt_lbccr7,
    &xl_stencil_xt_lbccr8,  &xl_stencil_xt_lbccr9,  &xl_stencil_xt_lbccr10, &xl_stencil_xt_lbccr11,
    &xl_stencil_xt_lbccr12, &xl_stencil_xt_lbccr13, &xl_stencil_xt_lbccr14, &xl_stencil_xt_lbccr15,
};
/* Bcc's three kinds in a cached loop, counting in a host register (note
 * 19). */
#define XL_CC14(f) f(2) f(3) f(4) f(5) f(6) f(7) f(8) f(9) f(10) f(11) f(12) f(13) f(14) f(15)
#define XL_BCC_K(cc) [cc] = &xl_stencil_xt_bcc##cc##_k,
#define XL_LBCC_K(cc) [cc] = &xl_stencil_xt_lbcc##cc##_k,
#define XL_LBCCR_K(cc) [cc] = &xl_stencil_xt_lbccr##cc##_k,
static const jit_stencil_t *const bcc_k_stencils[16] = {XL_BCC_K(0) XL_BCC_K(1) XL_CC14(XL_BCC_K)};
static const jit_stencil_t *const lbcc_k_stencils[16] = {XL_CC14(XL_LBCC_K)};
static const jit_stencil_t *const lbccr_k_stencils[16] = {XL_CC14(XL_LBCCR_K)};
#undef XL_BCC_K
#undef XL_LBCC_K
#undef XL_LBCCR_K
#undef XL_CC14
static const jit_stencil_t *const dbcc_stencils[16] = {
    &xl_stencil_xt_dbcc0,  &xl_stencil_xt_dbcc1,  &xl_stencil_xt_dbcc2,  &xl_stencil_xt_dbcc3,
    &xl_stencil_xt_dbcc4,  &xl_stencil_xt_dbcc5,  &xl_stencil_xt_dbcc6,  &xl_stencil_xt_dbcc7,
    &xl_stencil_xt_dbcc8,  &xl_stencil_xt_dbcc9,  &xl_stencil_xt_dbcc10, &xl_stencil_xt_dbcc11,
    &xl_stencil_xt_dbcc12, &xl_stencil_xt_dbcc13, &xl_stencil_xt_dbcc14, &xl_stencil_xt_dbcc15,
};

static uint32_t sext16(uint32_t v)
{
  return (uint32_t)(int32_t)(int16_t)v;
}

/* The condition codes as the translator tracks them (note 8): the split
 * flags' fields (m68k-internal.h note 1). */
enum { F_X = 1, F_N = 2, F_Z = 4, F_V = 8, F_C = 16, F_NZVC = 30, F_ALL = 31 };

/* A memory stencil's flags (note 8): its twin that sets them only where
 * the core sees them (nf), the one that sets X alone inline (xo, or NULL),
 * the flags it writes (w), and whether it reads memory before setting
 * them (rd: a fault there stacks the flags before it). */
typedef struct {
  const jit_stencil_t *nf, *xo;
  uint8_t w;
  bool rd;
} memflags_t;

/* The MOVE family's stencils (note 11) by size (1, 2, 4 as 0, 1, 2), source
 * and destination kind. */
#define XL_MV(sz, sm, dm) [(sz) >> 1][XO_##sm][XO_##dm] = &xl_stencil_xt_mv##sz##_##sm##_##dm,
static const jit_stencil_t *const moves[3][XO_N][XO_N] = {M68K_XLAT_MOVES(XL_MV)};
#undef XL_MV
#define XL_MV(sz, sm, dm) [(sz) >> 1][XO_##sm][XO_##dm] = &xl_stencil_xt_mv##sz##_##sm##_##dm##_nf,
static const jit_stencil_t *const moves_nf[3][XO_N][XO_N] = {M68K_XLAT_MOVES(XL_MV)};
#undef XL_MV

/* The long operations' (note 11) by operation (XA_*) and operand kind, and
 * TST's by size (1, 4 as 0, 1). */
#define XL_ER(op, k) [XA_##op][XO_##k] = &xl_stencil_xt_er_##op##_##k,
#define XL_RE(op, k) [XA_##op][XO_##k] = &xl_stencil_xt_re_##op##_##k,
#define XL_TST(sz, k) [(sz) >> 2][XO_##k] = &xl_stencil_xt_tst##sz##_##k,
static const jit_stencil_t *const alu_er[XA_N][XO_N] = {M68K_XLAT_ALU_ER(XL_ER)};
static const jit_stencil_t *const alu_re[XA_N][XO_N] = {M68K_XLAT_ALU_RE(XL_RE)};
static const jit_stencil_t *const tsts[2][XO_N] = {M68K_XLAT_TSTS(XL_TST)};
#undef XL_ER
#undef XL_RE
#undef XL_TST
#define XL_ER(op, k) [XA_##op][XO_##k] = &xl_stencil_xt_er_##op##_##k##_nf,
#define XL_RE(op, k) [XA_##op][XO_##k] = &xl_stencil_xt_re_##op##_##k##_nf,
#define XL_TST(sz, k) [(sz) >> 2][XO_##k] = &xl_stencil_xt_tst##sz##_##k##_nf,
static const jit_stencil_t *const alu_er_nf[XA_N][XO_N] = {M68K_XLAT_ALU_ER(XL_ER)};
#undef XL_ER
#define XL_ER(op, sm) [XO_##sm] = &xl_stencil_xt_er_lcmp_##sm,
static const jit_stencil_t *const er_lcmp[XO_N] = {M68K_XLAT_MEM_KINDS(XL_ER, lcmp)};
#undef XL_ER
#define XL_ER(op, sm) [XO_##sm] = &xl_stencil_xt_er_lcmpr_##sm,
static const jit_stencil_t *const er_lcmpr[XO_N] = {M68K_XLAT_MEM_KINDS(XL_ER, lcmp)};
static const jit_stencil_t *const alu_re_nf[XA_N][XO_N] = {M68K_XLAT_ALU_RE(XL_RE)};
static const jit_stencil_t *const tsts_nf[2][XO_N] = {M68K_XLAT_TSTS(XL_TST)};
#undef XL_ER
#undef XL_RE
#undef XL_TST
/* The byte and word operations to memory by size (1, 2 as 0, 1). */
#define XL_RE(sz, op, k) [(sz) >> 1][XA_##op][XO_##k] = &xl_stencil_xt_re##sz##_##op##_##k,
static const jit_stencil_t *const alu_re_bw[2][XA_N][XO_N] = {M68K_XLAT_ALU_RE_BW(XL_RE)};
#undef XL_RE
#define XL_RE(sz, op, k) [(sz) >> 1][XA_##op][XO_##k] = &xl_stencil_xt_re##sz##_##op##_##k##_nf,
static const jit_stencil_t *const alu_re_bw_nf[2][XA_N][XO_N] = {M68K_XLAT_ALU_RE_BW(XL_RE)};
#undef XL_RE
/* ADD's and SUB's twins setting X alone (note 8). */
#define XL_ER(op, k) [XA_##op][XO_##k] = &xl_stencil_xt_er_##op##_##k##_x,
#define XL_RE(op, k) [XA_##op][XO_##k] = &xl_stencil_xt_re_##op##_##k##_x,
static const jit_stencil_t *const alu_er_x[XA_N][XO_N] = {M68K_XLAT_ALU_X(XL_ER)};
static const jit_stencil_t *const alu_re_x[XA_N][XO_N] = {M68K_XLAT_ALU_X(XL_RE)};
#undef XL_ER
#undef XL_RE
#define XL_RE(sz, op, k) [(sz) >> 1][XA_##op][XO_##k] = &xl_stencil_xt_re##sz##_##op##_##k##_x,
static const jit_stencil_t *const alu_re_bw_x[2][XA_N][XO_N] = {M68K_XLAT_ALU_RE_BW_X(XL_RE)};
#undef XL_RE
/* TST's with lazy flags (note 13), and those handing them to their Bcc. */
#define XL_TST(sz, k) [(sz) >> 2][XO_##k] = &xl_stencil_xt_ltst##sz##_##k,
static const jit_stencil_t *const ltsts[2][XO_N] = {M68K_XLAT_TSTS(XL_TST)};
#undef XL_TST
#define XL_TST(sz, k) [(sz) >> 2][XO_##k] = &xl_stencil_xt_ltstr##sz##_##k,
static const jit_stencil_t *const ltstrs[2][XO_N] = {M68K_XLAT_TSTS(XL_TST)};
#undef XL_TST

/* The holes of a source operand and of a destination (note 11). */
static const struct {
  int reg, disp, idx, xs, sc;
} opnd_holes[2] = {
    {XL_HOLE_xh_src, XL_HOLE_xh_sdisp, XL_HOLE_xh_sidx, XL_HOLE_xh_sxs, XL_HOLE_xh_ssc},
    {XL_HOLE_xh_reg, XL_HOLE_xh_ddisp, XL_HOLE_xh_didx, XL_HOLE_xh_dxs, XL_HOLE_xh_dsc},
};

/* A register's offset in the CPU: r[n], or for XLAT_RZERO xlat_zero. */
static uint64_t reg_offset(uint64_t n)
{
  return n == XLAT_RZERO ? offsetof(m68k_cpu_t, xlat_zero) : offsetof(m68k_cpu_t, r) + 4 * n;
}

/* The index of extension word ext (brief or full: the same fields). */
static void index_reg_holes(uint32_t ext, bool dst, uint64_t *v)
{
  v[opnd_holes[dst].idx] = offsetof(m68k_cpu_t, r) + 4 * ((ext >> 12) & 15);
  /* Sign-extended and scaled by two shifts: a word left by 16 and back
   * by 16 - scale, a long left by the scale (two operations, not three). */
  unsigned scale = (ext >> 9) & 3;
  v[opnd_holes[dst].xs] = (ext & 0x800) ? scale : 16;
  v[opnd_holes[dst].sc] = (ext & 0x800) ? 0 : 16 - scale;
}

/* A brief extension word's index (cpu-ops.c ea_index on the 68030) into
 * operand `dst`'s holes, and its d8 added to base into the displacement;
 * false for a full extension word (full_index's or the handler's). */
static bool index_holes(uint32_t ext, uint32_t base, bool dst, uint64_t *v)
{
  if (ext & 0x100)
    return false;
  index_reg_holes(ext, dst, v);
  v[opnd_holes[dst].disp] = base + (uint32_t)(int32_t)(int8_t)ext;
  return true;
}

/* A full extension word ext at RAM offset off (the 68030's full format:
 * M68000 Family Programmer's Reference Manual) without memory indirection: (bd,An,Xi)
 * as XO_ix, (bd,Xi) the same on XLAT_RZERO (the base suppressed), (bd,An)
 * and (bd) as XO_d16 and XO_abs (the index suppressed). Memory indirect
 * forms and reserved encodings are the handler's (false). */
static bool full_index(const struct m68k__xlat *x, uint32_t off, uint32_t ext, bool dst,
                       uint64_t *v, unsigned *kind, uint32_t *elen)
{
  unsigned bds = (ext >> 4) & 3; /* base displacement: 1 null, 2 word, 3 long */
  if ((ext & 0xf) != 0 || bds == 0)
    return false;
  uint32_t bd = bds == 2   ? sext16(ram16(x, off + 2))
                : bds == 3 ? (ram16(x, off + 2) << 16) | ram16(x, off + 4)
                           : 0;
  *elen = 2 + (bds == 2 ? 2 : bds == 3 ? 4 : 0);
  bool bs = ext & 0x80, is = ext & 0x40;
  if (bs)
    v[opnd_holes[dst].reg] = XLAT_RZERO;
  v[opnd_holes[dst].disp] = bd;
  if (is) {
    *kind = bs ? XO_abs : XO_d16;
    return true;
  }
  *kind = XO_ix;
  index_reg_holes(ext, dst, v);
  return true;
}

/* The memory operand of mode m, register r, sz bytes, whose extension
 * words are at guest address ea (RAM offset off; in RAM, as the
 * instruction is): its kind (XO_*) and holes, its extension's length in
 * *elen; false for any other (immediate, (d8,PC,Xi), a full extension
 * word), which the handler runs. */
static bool mem_operand(const struct m68k__xlat *x, uint32_t ea, uint32_t off, unsigned m,
                        unsigned r, int sz, bool dst, uint64_t *v, unsigned *kind, uint32_t *elen)
{
  uint32_t step = sz == 1 && r == 7 ? 2 : (uint32_t)sz;
  *elen = 0;
  v[opnd_holes[dst].reg] = 8 + r;
  switch (m) {
  case 2: *kind = XO_ai; return true;
  case 3: *kind = XO_pi; v[opnd_holes[dst].disp] = step; return true;
  case 4: *kind = XO_pd; v[opnd_holes[dst].disp] = (uint32_t)-step; return true;
  case 5:
    *kind = XO_d16;
    v[opnd_holes[dst].disp] = sext16(ram16(x, off));
    *elen = 2;
    return true;
  case 6: {
    uint32_t ext = ram16(x, off);
    *kind = XO_ix;
    *elen = 2;
    if ((ext & 0x100) && x->model == M68K_MODEL_68030)
      return full_index(x, off, ext, dst, v, kind, elen);
    return index_holes(ext, 0, dst, v);
  }
  case 7:
    *kind = XO_abs;
    if (r == 0 || (r == 2 && !dst)) { /* abs.W, (d16,PC) */
      v[opnd_holes[dst].disp] = (r == 2 ? ea : 0) + sext16(ram16(x, off));
      *elen = 2;
      return true;
    }
    if (r == 1) { /* abs.L */
      v[opnd_holes[dst].disp] = (ram16(x, off) << 16) | ram16(x, off + 2);
      *elen = 4;
      return true;
    }
    return false;
  default:
    return false;
  }
}

/* The long operations and TST on memory at guest address pc on the 68030
 * (note 11): the family's stencil with its holes, or NULL. The register
 * operand is Rn (rx), the memory one mode, ry; `kind` is the handler's. */
static const jit_stencil_t *alu_family(const struct m68k__xlat *x, uint32_t pc, uint32_t off,
                                       uint32_t op, unsigned kind, uint32_t len, uint64_t *v,
                                       memflags_t *mf)
{
  static const uint8_t by_line[16] = {[0x8] = XA_or, [0x9] = XA_sub, [0xb] = XA_cmp,
                                      [0xc] = XA_and, [0xd] = XA_add};
  unsigned mode = (op >> 3) & 7, ry = op & 7, rx = (op >> 9) & 7, opmode = (op >> 6) & 7;
  unsigned line = op >> 12, xa = by_line[line], k;
  uint32_t el = 0;
  const jit_stencil_t *const *tab, *const *nf, *const *xonly = NULL;
  unsigned xo = XA_N; /* the operation, for the flags it writes */
  if (mode < 2)
    return NULL;
  if (kind == TK_TST && (opmode & 3) != 1 && (opmode & 3) != 3) { /* TST.B, TST.L */
    if (!mem_operand(x, pc + 2, off + 2, mode, ry, opmode ? 4 : 1, false, v, &k, &el))
      return NULL;
    tab = tsts[opmode >> 1];
    nf = tsts_nf[opmode >> 1];
  } else if (kind == TK_ALU_ER && opmode == 2) {
    if (!mem_operand(x, pc + 2, off + 2, mode, ry, 4, false, v, &k, &el))
      return NULL;
    v[XL_HOLE_xh_reg] = rx;
    xo = xa;
    tab = alu_er[xo];
    nf = alu_er_nf[xo];
    xonly = alu_er_x[xo];
  } else if (kind == TK_ADDA && opmode == 7) { /* ADDA, SUBA, CMPA .L */
    if (!mem_operand(x, pc + 2, off + 2, mode, ry, 4, false, v, &k, &el))
      return NULL;
    v[XL_HOLE_xh_reg] = 8 + rx;
    xo = line == 0xd ? XA_adda : line == 0x9 ? XA_suba : XA_cmp;
    tab = alu_er[xo];
    nf = alu_er_nf[xo];
  } else if (kind == TK_MULL && len >= 4 && !(ram16(x, off + 2) & 0x400)) {
    /* MULS.L, MULU.L <ea>,Dl: the operand's extension after the MUL's own */
    uint32_t w1 = ram16(x, off + 2);
    if (!mem_operand(x, pc + 4, off + 4, mode, ry, 4, false, v, &k, &el))
      return NULL;
    v[XL_HOLE_xh_reg] = (w1 >> 12) & 7;
    xo = w1 & 0x800 ? XA_muls : XA_mulu;
    el += 2;
    tab = alu_er[xo];
    nf = alu_er_nf[xo];
  } else if (kind == TK_ALU_RE && opmode >= 4 && opmode <= 6) { /* .B .W .L */
    unsigned sz = opmode == 4 ? 1 : opmode == 5 ? 2 : 4;
    if (!mem_operand(x, pc + 2, off + 2, mode, ry, sz, true, v, &k, &el))
      return NULL;
    v[XL_HOLE_xh_src] = rx;
    xo = line == 0xb ? XA_eor : xa;
    tab = sz == 4 ? alu_re[xo] : alu_re_bw[sz >> 1][xo];
    nf = sz == 4 ? alu_re_nf[xo] : alu_re_bw_nf[sz >> 1][xo];
    xonly = sz == 4 ? alu_re_x[xo] : alu_re_bw_x[sz >> 1][xo];
  } else {
    return NULL;
  }
  if (2 + el != len)
    return NULL;
  /* Every one reads memory first; ADD and SUB write X too, ADDA and SUBA nothing. */
  mf->nf = nf[k];
  mf->xo = xonly ? xonly[k] : NULL;
  mf->w = xo == XA_add || xo == XA_sub ? F_ALL : xo == XA_adda || xo == XA_suba ? 0 : F_NZVC;
  mf->rd = true;
  return tab[k];
}

/* The FPU's stencils from memory (note 12) by size (4, 8 as 0, 1) and kind. */
#define XL_FOP(sz, k) [(sz) >> 3][XO_##k] = &xl_stencil_xt_fop##sz##_##k,
static const jit_stencil_t *const fops[2][XO_N] = {M68K_XLAT_FOPS(XL_FOP)};
#undef XL_FOP

/* An FPU general instruction at guest address pc on the 68030 (note 12):
 * its stencil with its holes, or NULL for the handler's. */
static const jit_stencil_t *fpu_family(const struct m68k__xlat *x, uint32_t pc, uint32_t off,
                                       uint32_t op, uint32_t len, uint64_t *v)
{
  uint32_t ext = ram16(x, off + 2), cmd = ext & 0x7f, fmt = (ext >> 10) & 7;
  unsigned mode = (op >> 3) & 7, ry = op & 7, k;
  uint32_t el = 0, how = cmd | ((ext >> 7) & 7) << 7;
  if (cmd != 0x00 && cmd != 0x20 && cmd != 0x22 && cmd != 0x23 && cmd != 0x28 && cmd != 0x38 &&
      cmd != 0x3a)
    return NULL; /* FMOVE FDIV FADD FMUL FSUB FCMP FTST */
  if (ext >> 13 == 0) { /* FPm,FPn */
    if (op != 0xf200 || len != 4)
      return NULL;
    v[XL_HOLE_xh_imm] = how | M68K_FPU_FAST_REG << 10;
    v[XL_HOLE_xh_sdisp] = fmt;
    return &xl_stencil_xt_fop_k;
  }
  if (ext >> 13 != 2 || (fmt != 0 && fmt != 1 && fmt != 5))
    return NULL; /* .L .S .D */
  int sz = fmt == 5 ? 8 : 4;
  v[XL_HOLE_xh_imm] = how | (fmt == 0   ? M68K_FPU_FAST_L
                             : fmt == 1 ? M68K_FPU_FAST_S
                                        : M68K_FPU_FAST_D) << 10;
  if (mode == 0) { /* Dn */
    if (sz != 4 || len != 4)
      return NULL;
    v[XL_HOLE_xh_src] = ry;
    return &xl_stencil_xt_fop_dn;
  }
  if (mode == 7 && ry == 4) { /* #imm */
    if (len != 4 + (uint32_t)sz)
      return NULL;
    uint64_t bits = (ram16(x, off + 4) << 16) | ram16(x, off + 6);
    if (sz == 8)
      bits = bits << 32 | (ram16(x, off + 8) << 16) | ram16(x, off + 10);
    v[XL_HOLE_xh_sdisp] = bits;
    return &xl_stencil_xt_fop_k;
  }
  if (!mem_operand(x, pc + 4, off + 4, mode, ry, sz, false, v, &k, &el) || 4 + el != len)
    return NULL;
  return fops[sz >> 3][k];
}

/* MOVE and MOVEA at guest address pc on the 68030 (note 11): the family's
 * stencil with its holes, or NULL. */
static const jit_stencil_t *move_family(const struct m68k__xlat *x, uint32_t pc, uint32_t off,
                                        uint32_t op, uint32_t len, uint64_t *v, memflags_t *mf)
{
  uint32_t line = op & 0xf000, mode = (op >> 3) & 7, dmode = (op >> 6) & 7;
  int sz = line == 0x1000 ? 1 : line == 0x3000 ? 2 : 4;
  unsigned sk, dk;
  uint32_t sl = 0, dl = 0;
  if (mode <= 1) {
    sk = XO_r;
    v[XL_HOLE_xh_src] = mode * 8 + (op & 7);
  } else if (!mem_operand(x, pc + 2, off + 2, mode, op & 7, sz, false, v, &sk, &sl)) {
    return NULL;
  }
  if (dmode <= 1) {
    dk = dmode ? XO_a : XO_d;
    v[XL_HOLE_xh_reg] = dmode * 8 + ((op >> 9) & 7);
  } else if (!mem_operand(x, pc + 2 + sl, off + 2 + sl, dmode, (op >> 9) & 7, sz, true, v, &dk,
                          &dl)) {
    return NULL;
  }
  if (2 + sl + dl != len || (sz == 1 && dk == XO_a))
    return NULL;
  v[XL_HOLE_xh_spc] = pc + 2 + sl;
  mf->nf = moves_nf[sz >> 1][sk][dk];
  mf->w = dk == XO_a ? 0 : F_NZVC;
  mf->rd = sk != XO_r;
  return moves[sz >> 1][sk][dk];
}

/* An instruction with a stencil of its own on registers and simple memory
 * modes (note 2): fills v's operand holes and returns the stencil, or NULL
 * for the handler's. `kind` is its handler's (TK_*), `len` its length;
 * the extension words are in RAM (off + len <= ram_size). Memory forms only
 * on the 68030, where no address error can happen. *leave is set for
 * them, Scc and the 64-bit MULS.L and MULU.L (they count only when they
 * leave the block: note 6). */
static const jit_stencil_t *special(const struct m68k__xlat *x, uint32_t pc, uint32_t off,
                                    uint32_t op, unsigned kind, uint32_t len, uint64_t *v,
                                    bool *leave, memflags_t *mf)
{
  uint32_t rx = (op >> 9) & 7, ry = op & 7, mode = (op >> 3) & 7, dmode = (op >> 6) & 7;
  uint32_t src = mode * 8 + ry; /* Dn or An as 0-15, when mode is 0 or 1 */
  bool reg = mode <= 1, imm = mode == 7 && ry == 4, m030 = x->model == M68K_MODEL_68030;
  uint32_t w1 = len >= 4 ? ram16(x, off + 2) : 0, l1 = len >= 6 ? (w1 << 16) | ram16(x, off + 4) : 0;
#define SET(r, s, i) (v[XL_HOLE_xh_reg] = (r), v[XL_HOLE_xh_src] = (s), v[XL_HOLE_xh_imm] = (i))
#define IS(k) (kind == (k))
  if ((op & 0xf000) == 0x2000 && (IS(TK_MOVE) || IS(TK_MOVEA))) { /* MOVE.L, MOVEA.L */
    if (reg && dmode <= 1 && len == 2)
      return SET(dmode * 8 + rx, src, 0), dmode ? &xl_stencil_xt_movea_l : &xl_stencil_xt_move_l;
    if (imm && dmode == 1 && len == 6)
      return SET(8 + rx, 0, l1), &xl_stencil_xt_seti;
  }
  if ((op & 0xf1c0) == 0x3040 && IS(TK_MOVEA) && reg && len == 2) /* MOVEA.W Rs,Ar */
    return SET(8 + rx, src, 0), &xl_stencil_xt_movea_w;
  if ((op & 0xf1ff) == 0x307c && IS(TK_MOVEA) && len == 4) /* MOVEA.W #imm,Ar */
    return SET(8 + rx, 0, sext16(w1)), &xl_stencil_xt_seti;
  if ((op & 0xf1ff) == 0x10bc && IS(TK_MOVE) && m030 && len == 4) /* MOVE.B #imm,(Ar) */
    return *leave = true, SET(8 + rx, 0, w1 & 0xff),
           *mf = (memflags_t){.nf = &xl_stencil_xt_move_b_imm_ai_nf, .w = F_NZVC},
           &xl_stencil_xt_move_b_imm_ai;
  if (IS(TK_FGEN) && m030 && len >= 4)
    return fpu_family(x, pc, off, op, len, v);
  if ((IS(TK_MOVE) || IS(TK_MOVEA)) && m030) {
    const jit_stencil_t *s = move_family(x, pc, off, op, len, v, mf);
    *leave = s != NULL;
    return s;
  }
  if (IS(TK_ADDA)) { /* ADDA, SUBA, CMPA: .L from a register or #imm, ADDA.W from a register */
    bool l = op & 0x100;
    uint32_t line = op & 0xf000;
    if (reg && len == 2)
      return SET(8 + rx, src, 0), !l ? (line == 0xd000 ? &xl_stencil_xt_adda_w : NULL)
                                      : line == 0xd000 ? &xl_stencil_xt_adda_l
                                      : line == 0x9000 ? &xl_stencil_xt_suba_l
                                                       : &xl_stencil_xt_cmp_l;
    if (imm && l && len == 6)
      return SET(8 + rx, 0, line == 0x9000 ? (uint32_t)-l1 : l1),
             line == 0xb000 ? &xl_stencil_xt_cmpi_l : &xl_stencil_xt_adda_i;
  }
  if (IS(TK_ALU_ER) && ((op >> 6) & 7) == 2) { /* OR, AND, SUB, ADD, CMP .L <ea>,Dr */
    uint32_t line = op & 0xf000;
    if (imm && len == 6 && line == 0xb000)
      return SET(rx, 0, l1), &xl_stencil_xt_cmpi_l;
    if (reg && len == 2 && !(mode == 1 && (line == 0x8000 || line == 0xc000)))
      return SET(rx, src, 0),
             line == 0x8000 ? &xl_stencil_xt_or_l : line == 0xc000 ? &xl_stencil_xt_and_l
           : line == 0x9000 ? &xl_stencil_xt_sub_l : line == 0xd000 ? &xl_stencil_xt_add_l
           : line == 0xb000 ? &xl_stencil_xt_cmp_l : NULL;
  }
  if ((op & 0xf1f8) == 0xb180 && IS(TK_ALU_RE) && len == 2) /* EOR.L Dx,Dy */
    return SET(ry, rx, 0), &xl_stencil_xt_eor_l;
  if ((op & 0xfff8) == 0x42a8 && IS(TK_CLR) && m030 && len == 4) /* CLR.L (d16,Ar) */
    return *leave = true, SET(8 + ry, 0, sext16(w1)),
           *mf = (memflags_t){.nf = &xl_stencil_xt_clr_l_d16_nf, .w = F_NZVC},
           &xl_stencil_xt_clr_l_d16;
  if (IS(TK_ADDQ) && len == 2 && (mode == 1 || (mode == 0 && ((op >> 6) & 3) == 2))) {
    uint32_t q = rx ? rx : 8, sub = op & 0x100;
    if (mode == 1) /* ADDQ/SUBQ #q,Ar: any size, no flags */
      return SET(8 + ry, 0, sub ? (uint32_t)-q : q), &xl_stencil_xt_adda_i;
    return SET(ry, 0, q), sub ? &xl_stencil_xt_subi_l : &xl_stencil_xt_addi_l;
  }
  if (IS(TK_IMMOP) && mode == 0) { /* ORI ANDI SUBI ADDI EORI CMPI .L, CMPI ADDI .B #imm,Dr */
    static const jit_stencil_t *const l[8] = {
        &xl_stencil_xt_or_i,  &xl_stencil_xt_and_i, &xl_stencil_xt_subi_l, &xl_stencil_xt_addi_l,
        NULL,                 &xl_stencil_xt_eor_i, &xl_stencil_xt_cmpi_l, NULL};
    unsigned t = (op >> 9) & 7, size = (op >> 6) & 3;
    if (size == 2 && len == 6)
      return SET(ry, 0, l1), l[t];
    if (size == 0 && len == 4 && (t == 3 || t == 6))
      return SET(ry, 0, w1 & 0xff), t == 3 ? &xl_stencil_xt_addi_b : &xl_stencil_xt_cmpi_b;
    return NULL;
  }
  if (IS(TK_SHIFT) && ((op >> 6) & 3) == 2 && len == 2) { /* LSL, LSR, ASR .L #q or Dx,Dy */
    unsigned t = (op >> 3) & 3, left = (op >> 8) & 1, byreg = (op >> 5) & 1;
    if (t > 1 || (t == 0 && left))
      return NULL;
    static const jit_stencil_t *const sh[2][3] = {
        {&xl_stencil_xt_lsl_l_i, &xl_stencil_xt_lsr_l_i, &xl_stencil_xt_asr_l_i},
        {&xl_stencil_xt_lsl_l_r, &xl_stencil_xt_lsr_l_r, &xl_stencil_xt_asr_l_r}};
    SET(ry, byreg ? rx : 0, byreg ? 0 : rx ? rx : 8);
    v[XL_HOLE_xh_sxs] = v[XL_HOLE_xh_imm]; /* the twins without flags' (xlat-templates.c) */
    return sh[byreg][t == 0 ? 2 : !left];
  }
  if (IS(TK_PEA) && m030 && ((mode == 2 && len == 2) || (mode == 5 && len == 4))) /* PEA */
    return *leave = true, SET(0, 8 + ry, mode == 5 ? sext16(w1) : 0), &xl_stencil_xt_pea;
  if (IS(TK_JMP) && op == 0x4efb && m030 && len == 4) /* JMP (d8,PC,Xi) */
    return index_holes(w1, pc + 2, false, v) ? &xl_stencil_xt_jmp_pcix : NULL;
  if (IS(TK_LEA)) { /* LEA (As), (d16,As), abs.W, abs.L */
    if (mode == 2 && len == 2)
      return SET(8 + rx, 8 + ry, 0), &xl_stencil_xt_lea_d16;
    if (mode == 5 && len == 4)
      return SET(8 + rx, 8 + ry, sext16(w1)), &xl_stencil_xt_lea_d16;
    if (mode == 7 && ry == 0 && len == 4)
      return SET(8 + rx, 0, sext16(w1)), &xl_stencil_xt_seti;
    if (mode == 7 && ry == 1 && len == 6)
      return SET(8 + rx, 0, l1), &xl_stencil_xt_seti;
    if (mode == 6 && len == 4 && m030) /* (d8,As,Xi) */
      return index_holes(w1, 0, false, v) ? (SET(8 + rx, 8 + ry, 0), &xl_stencil_xt_lea_ix)
                                          : NULL;
    return NULL;
  }
  if (m030 && len == 4 && w1 && !(w1 & (IS(TK_MOVEM_RM) ? 0x80u >> ry : 0x100u << ry))) {
    /* MOVEM.L list,-(Ar) and (Ar)+,list, Ar not in the list: k registers
     * (at most 15), by number (-(Ar)'s list is reversed: bit i is
     * register 15 - i). */
    bool st = (op & 0xfff8) == 0x48e0 && IS(TK_MOVEM_RM);
    if (st || ((op & 0xfff8) == 0x4cd8 && IS(TK_MOVEM_MR))) {
      uint32_t list = st ? rev16(w1) : w1;
      unsigned k = 0;
      for (unsigned r = 0; r < 16; r++)
        if (list & (1u << r))
          v[movem_holes[k++]] = offsetof(m68k_cpu_t, r) + 4 * r;
      return *leave = true, SET(8 + ry, 0, 0), movem_stencils[st][k - 1];
    }
  }
  if (len == 2 && ((op & 0xfff8) == 0x4480 && IS(TK_NEG))) /* NEG.L Dr */
    return SET(ry, 0, 0), &xl_stencil_xt_neg_l;
  if (len == 2 && IS(TK_SWAP))
    return SET(ry, 0, 0), &xl_stencil_xt_swap;
  if (len == 2 && IS(TK_EXT)) /* EXT.W, EXT.L, EXTB.L */
    return SET(ry, 0, 0), (op & 0xfff8) == 0x4880 ? &xl_stencil_xt_ext_w
                        : (op & 0xfff8) == 0x48c0 ? &xl_stencil_xt_ext_l
                                                  : &xl_stencil_xt_extb_l;
  if (IS(TK_MULL) && mode == 0 && len == 4 && !(w1 & 0x400)) /* MULS.L, MULU.L Ds,Dl */
    return SET((w1 >> 12) & 7, ry, 0),
           (w1 & 0x800) ? &xl_stencil_xt_muls_l_r : &xl_stencil_xt_mulu_l_r;
  if (IS(TK_MULL) && imm && len == 8 && !(w1 & 0x400)) /* MULS.L, MULU.L #imm,Dl */
    return SET((w1 >> 12) & 7, 0, (ram16(x, off + 4) << 16) | ram16(x, off + 6)),
           (w1 & 0x800) ? &xl_stencil_xt_muls_l_i : &xl_stencil_xt_mulu_l_i;
  if (IS(TK_MULL) && imm && len == 8 && (w1 & 0x400)) /* MULS.L, MULU.L #imm,Dh:Dl */
    return *leave = true, SET((w1 >> 12) & 7, w1 & 7, (ram16(x, off + 4) << 16) | ram16(x, off + 6)),
           (w1 & 0x800) ? &xl_stencil_xt_muls64_i : &xl_stencil_xt_mulu64_i;
  if (IS(TK_SCC) && mode == 0 && len == 2) /* Scc Dr */
    return *leave = true, SET(ry, 0, 0), scc_stencils[(op >> 8) & 15];
  if ((op & 0xfff8) == 0x4280 && IS(TK_CLR) && len == 2) /* CLR.L Dr */
    return SET(ry, 0, 0), &xl_stencil_xt_clr_l;
  if (((op & 0xfff8) == 0x4200 || (op & 0xfff8) == 0x4240) && IS(TK_CLR) && len == 2)
    return SET(ry, 0, op & 0x40 ? 0xffff0000u : 0xffffff00u), &xl_stencil_xt_clr_bw; /* CLR.B, .W Dr */
  if (IS(TK_TST) && len == 2) {
    if ((op & 0xfff8) == 0x4a80) /* TST.L Dr */
      return SET(ry, 0, 0), &xl_stencil_xt_tst_l;
    if ((op & 0xfff8) == 0x4a00) /* TST.B Dr */
      return SET(ry, 0, 0), &xl_stencil_xt_tst_b;
  }
  if (m030 && (IS(TK_TST) || IS(TK_ALU_ER) || IS(TK_ADDA) || IS(TK_ALU_RE) || IS(TK_MULL))) {
    const jit_stencil_t *s = alu_family(x, pc, off, op, kind, len, v, mf);
    *leave = s != NULL;
    return s;
  }
  return NULL;
#undef SET
#undef IS
}

/* The stencils of instructions on registers alone (note 6): they count
 * nothing themselves. `w` is the flags they write (each field whole), `nf`
 * the stencil doing the same without them (NULL: none; its immediate
 * negated when `neg`), `xo` the one writing X alone. */
static const struct {
  const jit_stencil_t *s;
  uint8_t w;
  bool neg;
  const jit_stencil_t *nf, *xo;
} pure[] = {
    {&xl_stencil_xt_moveq, F_NZVC, false, &xl_stencil_xt_seti, NULL},
    {&xl_stencil_xt_move_l, F_NZVC, false, &xl_stencil_xt_movea_l, NULL},
    {&xl_stencil_xt_and_l, F_NZVC, false, &xl_stencil_xt_and_l_nf, NULL},
    {&xl_stencil_xt_or_l, F_NZVC, false, &xl_stencil_xt_or_l_nf, NULL},
    {&xl_stencil_xt_eor_l, F_NZVC, false, &xl_stencil_xt_eor_l_nf, NULL},
    {&xl_stencil_xt_clr_l, F_NZVC, false, &xl_stencil_xt_seti, NULL},
    {&xl_stencil_xt_clr_bw, F_NZVC, false, &xl_stencil_xt_and_i_nf, NULL},
    {&xl_stencil_xt_tst_l, F_NZVC, false, &xl_stencil_xt_nop, NULL},
    {&xl_stencil_xt_tst_b, F_NZVC, false, &xl_stencil_xt_nop, NULL},
    {&xl_stencil_xt_cmp_l, F_NZVC, false, &xl_stencil_xt_nop, NULL},
    {&xl_stencil_xt_cmpi_l, F_NZVC, false, &xl_stencil_xt_nop, NULL},
    {&xl_stencil_xt_add_l, F_ALL, false, &xl_stencil_xt_adda_l, &xl_stencil_xt_add_l_x},
    {&xl_stencil_xt_sub_l, F_ALL, false, &xl_stencil_xt_suba_l, &xl_stencil_xt_sub_l_x},
    {&xl_stencil_xt_addi_l, F_ALL, false, &xl_stencil_xt_adda_i, &xl_stencil_xt_addi_l_x},
    {&xl_stencil_xt_subi_l, F_ALL, true, &xl_stencil_xt_adda_i, &xl_stencil_xt_subi_l_x},
    {&xl_stencil_xt_lsl_l_i, F_ALL, false, &xl_stencil_xt_lsl_l_i_nf, NULL},
    {&xl_stencil_xt_lsr_l_i, F_ALL, false, &xl_stencil_xt_lsr_l_i_nf, NULL},
    {&xl_stencil_xt_asr_l_i, F_ALL, false, &xl_stencil_xt_asr_l_i_nf, NULL},
    /* X only when the count is not 0: not in w, so it stays as live as
     * after them, and their twins without NZVC still set it. */
    {&xl_stencil_xt_lsl_l_r, F_NZVC, false, &xl_stencil_xt_lsl_l_r_nf, NULL},
    {&xl_stencil_xt_lsr_l_r, F_NZVC, false, &xl_stencil_xt_lsr_l_r_nf, NULL},
    {&xl_stencil_xt_asr_l_r, F_NZVC, false, &xl_stencil_xt_asr_l_r_nf, NULL},
    {&xl_stencil_xt_or_i, F_NZVC, false, &xl_stencil_xt_or_i_nf, NULL},
    {&xl_stencil_xt_and_i, F_NZVC, false, &xl_stencil_xt_and_i_nf, NULL},
    {&xl_stencil_xt_eor_i, F_NZVC, false, &xl_stencil_xt_eor_i_nf, NULL},
    {&xl_stencil_xt_cmpi_b, F_NZVC, false, &xl_stencil_xt_nop, NULL},
    {&xl_stencil_xt_addi_b, F_ALL, false, &xl_stencil_xt_addi_b_nf, NULL},
    {&xl_stencil_xt_neg_l, F_ALL, false, &xl_stencil_xt_neg_l_nf, NULL},
    {&xl_stencil_xt_swap, F_NZVC, false, &xl_stencil_xt_swap_nf, NULL},
    {&xl_stencil_xt_ext_w, F_NZVC, false, &xl_stencil_xt_ext_w_nf, NULL},
    {&xl_stencil_xt_ext_l, F_NZVC, false, &xl_stencil_xt_ext_l_nf, NULL},
    {&xl_stencil_xt_extb_l, F_NZVC, false, &xl_stencil_xt_extb_l_nf, NULL},
    {&xl_stencil_xt_muls_l_i, F_NZVC, false, &xl_stencil_xt_mul_l_i_nf, NULL},
    {&xl_stencil_xt_mulu_l_i, F_NZVC, false, &xl_stencil_xt_mul_l_i_nf, NULL},
    {&xl_stencil_xt_muls_l_r, F_NZVC, false, &xl_stencil_xt_mul_l_r_nf, NULL},
    {&xl_stencil_xt_mulu_l_r, F_NZVC, false, &xl_stencil_xt_mul_l_r_nf, NULL},
    {&xl_stencil_xt_movea_l, 0, false, NULL, NULL},
    {&xl_stencil_xt_movea_w, 0, false, NULL, NULL},
    {&xl_stencil_xt_adda_l, 0, false, NULL, NULL},
    {&xl_stencil_xt_suba_l, 0, false, NULL, NULL},
    {&xl_stencil_xt_adda_w, 0, false, NULL, NULL},
    {&xl_stencil_xt_adda_i, 0, false, NULL, NULL},
    {&xl_stencil_xt_lea_d16, 0, false, NULL, NULL},
    {&xl_stencil_xt_seti, 0, false, NULL, NULL},
    {&xl_stencil_xt_lea_ix, 0, false, NULL, NULL},
    {&xl_stencil_xt_lsl_l_i_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_lsr_l_i_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_asr_l_i_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_lsl_l_r_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_lsr_l_r_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_asr_l_r_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_or_i_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_and_i_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_eor_i_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_addi_b_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_neg_l_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_swap_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_ext_w_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_ext_l_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_extb_l_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_mul_l_i_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_mul_l_r_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_nop, 0, false, NULL, NULL},
    {&xl_stencil_xt_and_l_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_or_l_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_eor_l_nf, 0, false, NULL, NULL},
    {&xl_stencil_xt_add_l_x, 0, false, NULL, NULL}, /* these four write X: */
    {&xl_stencil_xt_sub_l_x, 0, false, NULL, NULL}, /* drop_dead_flags runs once, */
    {&xl_stencil_xt_addi_l_x, 0, false, NULL, NULL}, /* before any is chosen */
    {&xl_stencil_xt_subi_l_x, 0, false, NULL, NULL},
    /* Note 13's, chosen after drop_dead_flags. */
    {&xl_stencil_xt_lcmp_l, 0, false, NULL, NULL},
    {&xl_stencil_xt_lcmpi_l, 0, false, NULL, NULL},
    {&xl_stencil_xt_ladd_l, 0, false, NULL, NULL},
    {&xl_stencil_xt_laddi_l, 0, false, NULL, NULL},
    {&xl_stencil_xt_lsub_l, 0, false, NULL, NULL},
    {&xl_stencil_xt_lsubi_l, 0, false, NULL, NULL},
    {&xl_stencil_xt_lcmpi_b, 0, false, NULL, NULL},
    {&xl_stencil_xt_lcmpir_b, 0, false, NULL, NULL},
    {&xl_stencil_xt_ltst_l, 0, false, NULL, NULL},
    {&xl_stencil_xt_ltst_b, 0, false, NULL, NULL},
    {&xl_stencil_xt_ltstr_l, 0, false, NULL, NULL},
    {&xl_stencil_xt_ltstr_b, 0, false, NULL, NULL},
    {&xl_stencil_xt_lcmpr_l, 0, false, NULL, NULL},
    {&xl_stencil_xt_lcmpir_l, 0, false, NULL, NULL},
    {&xl_stencil_xt_lsubr_l, 0, false, NULL, NULL},
    {&xl_stencil_xt_lsubir_l, 0, false, NULL, NULL},
    {&xl_stencil_xt_lz_clear, 0, false, NULL, NULL},
    {&xl_stencil_xt_lz_sync, 0, false, NULL, NULL},
};

/* pure[]'s entry for stencil s, or -1 when s can fault, calls out or
 * branches. */
static int pure_index(const jit_stencil_t *s)
{
  for (size_t i = 0; i < sizeof pure / sizeof pure[0]; i++)
    if (pure[i].s == s)
      return (int)i;
  return -1;
}

/* Note 8: links [first, last) are a block's instructions in order; each
 * instruction on registers whose flags no later instruction of the block
 * reads before writing them again gets the stencil without them. Every
 * other stencil (a handler, a memory access that can fault, a branch, the
 * exits) reads them all. */
static void drop_dead_flags(jit_link_t *links, uint64_t (*vals)[XL_HOLE__COUNT],
                            const memflags_t *mf, unsigned first, unsigned last)
{
  unsigned live = F_ALL;
  for (unsigned i = last; i-- > first;) {
    if (mf[i].nf) {
      /* A memory stencil: when it goes through the core, the block
       * returns after it, so every flag it does not write is seen there,
       * and all of them when it reads first (a fault stacks them). */
      if ((live & mf[i].w) == 0)
        links[i].stencil = mf[i].nf;
      else if ((live & mf[i].w) == F_X && mf[i].xo)
        links[i].stencil = mf[i].xo;
      live = mf[i].rd ? F_ALL : F_ALL & ~mf[i].w;
      continue;
    }
    int p = pure_index(links[i].stencil);
    if (p < 0) {
      live = F_ALL;
      continue;
    }
    unsigned w = pure[p].w;
    if (w == 0)
      continue;
    if ((live & w) == 0 && pure[p].nf) {
      links[i].stencil = pure[p].nf;
      if (pure[p].neg)
        vals[i][XL_HOLE_xh_imm] = (uint32_t)-(uint32_t)vals[i][XL_HOLE_xh_imm];
    } else if ((live & w) == F_X && pure[p].xo) {
      links[i].stencil = pure[p].xo;
    }
    live &= ~w;
  }
}

/* Note 13: the state of the lazy flags before a link, as the translator
 * knows it. */
enum { LZ_CLEAN, LZ_LAZY, LZ_LAZY_ADD, LZ_UNKNOWN };

/* Stencils that neither read nor write N, Z, V or C inline (a handler
 * they call brings lazy flags in first: begin()), so lazy flags stay
 * lazy across them: BRA, calls, returns, MOVEM, PEA and the FPU's. */
static bool lz_through(const jit_stencil_t *s)
{
  if (s == &xl_stencil_xt_bra || s == &xl_stencil_xt_call || s == &xl_stencil_xt_rts ||
      s == &xl_stencil_xt_jmp_pcix || is_movem(s) || s == &xl_stencil_xt_fop_k ||
      s == &xl_stencil_xt_fop_dn || s == &xl_stencil_xt_pea)
    return true;
  for (unsigned k = 0; k < XO_N; k++)
    if (s == fops[0][k] || s == fops[1][k])
      return s != NULL;
  return false;
}

/* The stencil before link i (NULL: none), link i's own and the one after
 * it, for lazy flags in state *st (or none, !lazy); *st becomes the state
 * after. */
static const jit_stencil_t *lz_step(const jit_link_t *l, const memflags_t *mf, uint32_t op,
                                    bool lazy, int *st, const jit_stencil_t **own,
                                    const jit_stencil_t **after)
{
  const jit_stencil_t *s = l->stencil;
  *own = s;
  *after = NULL;
  for (unsigned k = 0; lazy && k < XO_N; k++) {
    if (er_lcmp[k] && s == alu_er[XA_cmp][k]) { /* CMP.L <ea>,Rn */
      *own = er_lcmp[k];
      *st = LZ_LAZY;
      return NULL;
    }
    for (unsigned sz = 0; sz < 2; sz++)
      if (tsts[sz][k] && s == tsts[sz][k]) { /* TST.B, TST.L <ea>, N Z V C read later */
        *own = ltsts[sz][k];
        *st = LZ_LAZY;
        return NULL;
      }
  }
  /* Instructions on registers whose N Z V C are read later: CMP, CMPI .L,
   * CMPI.B, TST.L, TST.B, SUB, SUBI .L (a SUB's flags), ADD, ADDI .L. */
  static const struct {
    const jit_stencil_t *s, *lazy;
    int st;
  } regs[] = {{&xl_stencil_xt_cmp_l, &xl_stencil_xt_lcmp_l, LZ_LAZY},
              {&xl_stencil_xt_cmpi_l, &xl_stencil_xt_lcmpi_l, LZ_LAZY},
              {&xl_stencil_xt_cmpi_b, &xl_stencil_xt_lcmpi_b, LZ_LAZY},
              {&xl_stencil_xt_tst_l, &xl_stencil_xt_ltst_l, LZ_LAZY},
              {&xl_stencil_xt_tst_b, &xl_stencil_xt_ltst_b, LZ_LAZY},
              {&xl_stencil_xt_sub_l, &xl_stencil_xt_lsub_l, LZ_LAZY},
              {&xl_stencil_xt_subi_l, &xl_stencil_xt_lsubi_l, LZ_LAZY},
              {&xl_stencil_xt_add_l, &xl_stencil_xt_ladd_l, LZ_LAZY_ADD},
              {&xl_stencil_xt_addi_l, &xl_stencil_xt_laddi_l, LZ_LAZY_ADD}};
  for (unsigned k = 0; lazy && k < sizeof regs / sizeof regs[0]; k++)
    if (s == regs[k].s) {
      *own = regs[k].lazy;
      *st = regs[k].st;
      return NULL;
    }
  if (*st == LZ_LAZY && s == bcc_stencils[(op >> 8) & 15] && lbcc_stencils[(op >> 8) & 15]) {
    *own = lbcc_stencils[(op >> 8) & 15];
    return NULL;
  }
  int p = pure_index(s);
  bool before = *st != LZ_CLEAN;
  if (p >= 0) {
    if (pure[p].w == 0)
      return NULL; /* writes none of them */
    *st = LZ_CLEAN;
    return before ? &xl_stencil_xt_lz_clear : NULL;
  }
  if ((mf->nf && (s == mf->nf || s == mf->xo || mf->w == 0)) || lz_through(s))
    return NULL; /* N Z V C only through the core, which brings lazy ones in first */
  if (mf->nf && (mf->w & F_NZVC) == F_NZVC) {
    /* Every one of them inline, after any fault (which brings lazy ones
     * in first): the lazy ones dropped after it. */
    *st = LZ_CLEAN;
    *after = before ? &xl_stencil_xt_lz_clear : NULL;
    return NULL;
  }
  if (s == &xl_stencil_xt_insn || s == &xl_stencil_xt_last) {
    *st = LZ_CLEAN; /* begin() brought them in */
    return NULL;
  }
  *st = LZ_CLEAN;
  return before ? &xl_stencil_xt_lz_sync : NULL;
}

/* Note 13: the twin of lazy stencil s that hands its operands to the Bcc
 * right after it in registers (xt_lbccr), or NULL. */
static const jit_stencil_t *lz_passing(const jit_stencil_t *s)
{
  static const struct {
    const jit_stencil_t *mem, *reg;
  } ds[] = {{&xl_stencil_xt_lcmp_l, &xl_stencil_xt_lcmpr_l},
            {&xl_stencil_xt_lcmpi_l, &xl_stencil_xt_lcmpir_l},
            {&xl_stencil_xt_lsub_l, &xl_stencil_xt_lsubr_l},
            {&xl_stencil_xt_lsubi_l, &xl_stencil_xt_lsubir_l},
            {&xl_stencil_xt_lcmpi_b, &xl_stencil_xt_lcmpir_b},
            {&xl_stencil_xt_ltst_l, &xl_stencil_xt_ltstr_l},
            {&xl_stencil_xt_ltst_b, &xl_stencil_xt_ltstr_b}};
  for (unsigned k = 0; k < sizeof ds / sizeof ds[0]; k++)
    if (s == ds[k].mem)
      return ds[k].reg;
  for (unsigned k = 0; k < XO_N; k++) {
    if (er_lcmp[k] && s == er_lcmp[k])
      return er_lcmpr[k];
    for (unsigned sz = 0; sz < 2; sz++)
      if (ltsts[sz][k] && s == ltsts[sz][k])
        return ltstrs[sz][k];
  }
  return NULL;
}

/* Note 13: lazy compare, ADD and SUB flags for links [1, *n) of a block;
 * the stencils that keep them right are inserted (at most `room` links in
 * all), and the arrays indexed by link (taken_link's values too) follow. */
static void lazy_flags(jit_link_t *links, uint64_t (*vals)[XL_HOLE__COUNT], bool *leave,
                       memflags_t *mf, unsigned *taken_link, unsigned ntaken, unsigned *n,
                       unsigned room)
{
  static const uint64_t none[XL_HOLE__COUNT];
  const jit_stencil_t *ins[JIT_CHAIN_MAX], *own[JIT_CHAIN_MAX], *post[JIT_CHAIN_MAX];
  unsigned extra = 0;
  for (int lazy = 1; lazy >= 0; lazy--) {
    int st = LZ_UNKNOWN;
    extra = 0;
    for (unsigned i = 1; i < *n; i++) {
      ins[i] = lz_step(&links[i], &mf[i], (uint32_t)vals[i][XL_HOLE_xh_op], lazy, &st, &own[i],
                       &post[i]);
      extra += (ins[i] != NULL) + (post[i] != NULL);
    }
    if (*n + extra <= room)
      break;
  }
  /* A compare, SUB or TST right before its Bcc hands its operands over in
   * registers (nothing is inserted between them). */
  for (unsigned i = 2; i < *n; i++) {
    unsigned cc = (vals[i][XL_HOLE_xh_op] >> 8) & 15;
    const jit_stencil_t *r;
    if (own[i] != lbcc_stencils[cc] || !lbcc_stencils[cc] || ins[i] || post[i - 1] ||
        !(r = lz_passing(own[i - 1])))
      continue;
    own[i - 1] = r;
    own[i] = lbccr_stencils[cc];
  }
  unsigned to[JIT_CHAIN_MAX];
  for (unsigned i = *n, j = *n + extra; i-- > 1;) {
    if (post[i]) {
      j--;
      links[j] = (jit_link_t){.stencil = post[i], .values = none, .next_hole = XL_HOLE_xh_next};
      leave[j] = false;
      mf[j] = (memflags_t){0};
    }
    j--;
    to[i] = j;
    if (j != i) {
      memcpy(vals[j], vals[i], sizeof vals[i]);
      links[j] = links[i];
      leave[j] = leave[i];
      mf[j] = mf[i];
    }
    links[j].values = vals[j];
    links[j].stencil = own[i];
    if (ins[i]) {
      j--;
      links[j] = (jit_link_t){.stencil = ins[i], .values = none, .next_hole = XL_HOLE_xh_next};
      leave[j] = false;
      mf[j] = (memflags_t){0};
    }
  }
  for (unsigned k = 0; k < ntaken; k++)
    taken_link[k] = to[taken_link[k]];
  *n += extra;
}

/* Note 15: the variants of the one-register operations by how the
 * register's value comes in and goes out, and the pass-through twin (p),
 * which hands on another register's value (NULL where there is none). */
#define XL_IN_A7 (-1)
/* What a stencil writes of the registers (note 19), a mask: the one at
 * xh_reg (LC_REG), with variants caching it (LC_CACHED), the one at
 * xh_src (LC_SRC: a memory operand's (An)+ or -(An)); or LC_ANY: more,
 * or what only its handler knows. */
enum { LC_NONE = 0, LC_REG = 1, LC_SRC = 2, LC_CACHED = 4 | LC_REG, LC_ANY = 8 };
static const struct {
  const jit_stencil_t *s, *o, *i, *io, *p;
  int in;     /* the hole naming the register whose value _i takes, or XL_IN_A7 */
  bool noreg; /* writes no register: a pass-through of any */
  uint8_t writes; /* LC_*, for s alone */
} acc[] = {
#define XL_ACC_RW(name)                                                                        \
  {&xl_stencil_xt_##name,      &xl_stencil_xt_##name##_o, &xl_stencil_xt_##name##_i,             \
   &xl_stencil_xt_##name##_io, &xl_stencil_xt_##name##_p, XL_HOLE_xh_reg, false, LC_CACHED},
#define XL_ACC_W(name)                                                                         \
  {&xl_stencil_xt_##name, &xl_stencil_xt_##name##_o, NULL, NULL, &xl_stencil_xt_##name##_p,      \
   XL_HOLE_xh_reg, false, LC_CACHED},
#define XL_ACC_S(name)                                                                         \
  {&xl_stencil_xt_##name,      &xl_stencil_xt_##name##_o, &xl_stencil_xt_##name##_i,             \
   &xl_stencil_xt_##name##_io, &xl_stencil_xt_##name##_p, XL_HOLE_xh_src, false, LC_CACHED},
/* The compares write none, the SUBs Rn (lc_writes). */
#define XL_ACC_IN(name)                                                                        \
  {&xl_stencil_xt_##name, NULL, &xl_stencil_xt_##name##_i, NULL, NULL, XL_HOLE_xh_reg, false,    \
   LC_NONE},
#define XL_ACC_IX(name, sz, nf)                                                                \
  {&xl_stencil_xt_##name,      &xl_stencil_xt_##name##_o, &xl_stencil_xt_##name##_x,             \
   &xl_stencil_xt_##name##_xo, NULL,                      XL_HOLE_xh_sidx,                       \
   false,                      LC_CACHED},
#define XL_ACC_MD(name, sz, sm, nf)                                                            \
  {&xl_stencil_xt_##name, &xl_stencil_xt_##name##_o, NULL, NULL, NULL, XL_HOLE_xh_reg, false,    \
   XO_##sm == XO_pi || XO_##sm == XO_pd ? LC_REG | LC_SRC : LC_REG},
    M68K_XLAT_ACC_RW(XL_ACC_RW) M68K_XLAT_ACC_W(XL_ACC_W) M68K_XLAT_ACC_S(XL_ACC_S)
    M68K_XLAT_ACC_IN(XL_ACC_IN) M68K_XLAT_ACC_IX(XL_ACC_IX) M68K_XLAT_ACC_MD(XL_ACC_MD)
    {&xl_stencil_xt_jmp_pcix, NULL, &xl_stencil_xt_jmp_pcix_x, NULL, NULL, XL_HOLE_xh_sidx,
     false, LC_ANY},
    /* MOVEM.L on Ar and RTS on A7 (XL_IN_A7: no hole names it). */
#define XL_ACC_MOVEM_DIR(name)                                                                 \
  {&xl_stencil_xt_##name, &xl_stencil_xt_##name##_o, &xl_stencil_xt_##name##_i,                  \
   &xl_stencil_xt_##name##_io, NULL, XL_HOLE_xh_reg, false, LC_ANY},
#define XL_ACC_MOVEM(k) XL_ACC_MOVEM_DIR(movem_st_pd##k) XL_ACC_MOVEM_DIR(movem_ld_pi##k)
    XL_MOVEM_KS(XL_ACC_MOVEM)
#undef XL_ACC_MOVEM
#undef XL_ACC_MOVEM_DIR
    {&xl_stencil_xt_rts, NULL, &xl_stencil_xt_rts_i, NULL, NULL, XL_IN_A7, false, LC_ANY},
#define XL_NOREG(name)                                                                         \
  {&xl_stencil_xt_##name, NULL, NULL, NULL, &xl_stencil_xt_##name##_p, 0, true, LC_NONE},
    M68K_XLAT_NOREG(XL_NOREG)
#undef XL_NOREG
#undef XL_ACC_RW
#undef XL_ACC_W
#undef XL_ACC_S
#undef XL_ACC_IN
#undef XL_ACC_IX
#undef XL_ACC_MD
};

static int acc_index(const jit_stencil_t *s)
{
  for (size_t k = 0; k < sizeof acc / sizeof acc[0]; k++)
    if (acc[k].s == s)
      return (int)k;
  return -1;
}

/* Note 15: links [first, last) in their final order; where one sets a
 * register a later one reads (as its operand, its source, or the index of
 * its (d8,An,Xi) operand), and every link between them can hand a value
 * on untouched (a pass-through twin) and does not write that register,
 * the value goes from the one to the other in a host register. */
static void pass_values(jit_link_t *links, unsigned first, unsigned last)
{
  enum { IN = 1, OUT = 2, THRU = 4 };
  uint8_t how[JIT_CHAIN_MAX] = {0};
  int k[JIT_CHAIN_MAX];
  for (unsigned i = first; i < last; i++)
    k[i] = acc_index(links[i].stencil);
  for (unsigned i = first; i < last; i++) {
    if (k[i] < 0 || how[i] == THRU || !((how[i] & IN) ? acc[k[i]].io : acc[k[i]].o))
      continue;
    uint64_t r = links[i].values[XL_HOLE_xh_reg];
    for (unsigned j = i + 1; j < last && k[j] >= 0; j++) {
      int in = acc[k[j]].in;
      uint64_t takes = in == XL_IN_A7 ? reg_offset(15) : links[j].values[in];
      if (acc[k[j]].i && takes == r) {
        how[i] |= OUT;
        how[j] = IN;
        for (unsigned m = i + 1; m < j; m++)
          how[m] = THRU;
        break;
      }
      if (!acc[k[j]].p || (!acc[k[j]].noreg && links[j].values[XL_HOLE_xh_reg] == r))
        break;
    }
  }
  for (unsigned i = first; i < last; i++) {
    if (!how[i])
      continue;
    const jit_stencil_t *v[8] = {NULL, acc[k[i]].i, acc[k[i]].o, acc[k[i]].io, acc[k[i]].p};
    links[i].stencil = v[how[i]];
  }
}

/* Note 19: a stencil's variants by where its registers are: v[r][j] for
 * the one at xh_reg in r and the one at xh_src in j, each 0 for the CPU,
 * 1 for slot 0 and 2 for slot 1 (v[0][0] is the stencil itself: NULL),
 * and x[k] for xh_reg and the index (xh_sidx), the same register, both
 * in slot k. NULL where there is no such variant. */
static const struct {
  const jit_stencil_t *s, *v[3][3], *x[2];
} lc_var[] = {
#define XL_V(name, suffix) &xl_stencil_xt_##name##suffix
#define XL_LC_CS(name)                                                                         \
  {XL_V(name, ),                                                                               \
   {{NULL, XL_V(name, _s0), XL_V(name, _s1)},                                                  \
    {XL_V(name, _c0), XL_V(name, _c0s0), XL_V(name, _c0s1)},                                   \
    {XL_V(name, _c1), XL_V(name, _c1s0), XL_V(name, _c1s1)}}},
#define XL_LC_C(name) {XL_V(name, ), {{NULL}, {XL_V(name, _c0)}, {XL_V(name, _c1)}}},
#define XL_LC_IX(name, sz, nf)                                                                 \
  {XL_V(name, ), {{NULL}, {XL_V(name, _d0)}, {XL_V(name, _d1)}}, {XL_V(name, _xd0), XL_V(name, _xd1)}},
    /* The first row of a stencil is the one found: those with a source
     * register before the rest of their lists. */
    M68K_XLAT_ACC_RS(XL_LC_CS) M68K_XLAT_ACC_S(XL_LC_CS) XL_LC_CS(lcmpr_l) XL_LC_CS(lsubr_l)
    M68K_XLAT_ACC_RW(XL_LC_C) M68K_XLAT_ACC_W(XL_LC_C) M68K_XLAT_ACC_IN(XL_LC_C)
    M68K_XLAT_ACC_IX(XL_LC_IX) XL_LC_C(move_b_imm_ai) XL_LC_C(move_b_imm_ai_nf)
#undef XL_LC_IX
#undef XL_LC_C
#undef XL_LC_CS
#undef XL_V
};

static int lc_var_index(const jit_stencil_t *s)
{
  for (size_t k = 0; k < sizeof lc_var / sizeof lc_var[0]; k++)
    if (lc_var[k].s == s)
      return (int)k;
  return -1;
}

/* Note 19: what stencil s writes of the registers (LC_*), and in *k its
 * row of acc[] (-1 where it has none). */
static int lc_writes(const jit_stencil_t *s, int *k)
{
  *k = acc_index(s);
  if (*k >= 0)
    return s == &xl_stencil_xt_lsubr_l || s == &xl_stencil_xt_lsubir_l ? LC_CACHED
                                                                         : acc[*k].writes;
  if (s == &xl_stencil_xt_addi_b || s == &xl_stencil_xt_addi_b_nf || s == &xl_stencil_xt_ext_w ||
      s == &xl_stencil_xt_ext_w_nf)
    return LC_REG;
  if (s == &xl_stencil_xt_bra || s == &xl_stencil_xt_cmp_l || s == &xl_stencil_xt_cmpi_l ||
      s == &xl_stencil_xt_move_b_imm_ai || s == &xl_stencil_xt_move_b_imm_ai_nf)
    return LC_NONE;
  for (unsigned cc = 0; cc < 16; cc++)
    if (s == bcc_stencils[cc] || s == lbcc_stencils[cc] || s == lbccr_stencils[cc])
      return LC_NONE;
  /* The memory families: a source's (An)+ or -(An) writes its An (at
   * xh_src); a MOVE's destination, its Rn or An (at xh_reg) when it is a
   * register or steps; an operation into Rn, Rn. */
#define LC_STEPS(m) ((m) == XO_pi || (m) == XO_pd ? LC_SRC : LC_NONE)
  for (unsigned m = 0; m < XO_N; m++) {
    for (unsigned z = 0; z < 3; z++)
      for (unsigned d = 0; d < XO_N; d++)
        if (s == moves[z][m][d] || s == moves_nf[z][m][d])
          return LC_STEPS(m) | (d == XO_d || d == XO_a || d == XO_pi || d == XO_pd ? LC_REG : 0);
    for (unsigned z = 0; z < 2; z++)
      if (s == tsts[z][m] || s == tsts_nf[z][m] || s == ltsts[z][m] || s == ltstrs[z][m])
        return LC_STEPS(m);
    if (s == er_lcmp[m] || s == er_lcmpr[m])
      return LC_STEPS(m);
    for (unsigned op = 0; op < XA_N; op++)
      if (s == alu_er[op][m] || s == alu_er_nf[op][m] || s == alu_er_x[op][m])
        return LC_STEPS(m) | (op == XA_cmp ? 0 : LC_REG);
  }
#undef LC_STEPS
  return LC_ANY;
}

/* Note 19: links [1, end), a loop, with up to two registers cached: those
 * written most of the candidates (bit r of `cand`). Each link whose
 * stencil has a variant for where its registers are takes it; a register
 * that a link still reads from the CPU is dropped from the candidates
 * (its bit set in *bad) and every link left as it was. Returns the number
 * of slots used, their registers in slot[]. */
static int lc_assign(jit_link_t *links, unsigned end, const unsigned *writes, uint32_t cand,
                     uint32_t *bad, int slot[2])
{
  slot[0] = slot[1] = -1;
  for (int r = 0; r < 16; r++) {
    if (!(cand >> r & 1))
      continue;
    if (slot[0] < 0 || writes[r] > writes[slot[0]]) {
      slot[1] = slot[0];
      slot[0] = r;
    } else if (slot[1] < 0 || writes[r] > writes[slot[1]]) {
      slot[1] = r;
    }
  }
  int used = (slot[0] >= 0) + (slot[1] >= 0);
  const jit_stencil_t *was[JIT_CHAIN_MAX];
  *bad = 0;
  for (unsigned i = 1; i < end; i++) {
    was[i] = links[i].stencil;
    const uint64_t *v = links[i].values;
    int lv = lc_var_index(links[i].stencil), r = 0, j = 0;
    bool x = false;
    if (lv >= 0) {
      for (int q = 0; q < used; q++) {
        r = v[XL_HOLE_xh_reg] == reg_offset((uint64_t)slot[q]) ? q + 1 : r;
        j = v[XL_HOLE_xh_src] == reg_offset((uint64_t)slot[q]) ? q + 1 : j;
      }
      x = r && lc_var[lv].x[0] && v[XL_HOLE_xh_sidx] == v[XL_HOLE_xh_reg];
      if (j && !lc_var[lv].v[r][j])
        j = 0; /* no variant for it: the source from the CPU */
      const jit_stencil_t *to = x ? lc_var[lv].x[r - 1] : lc_var[lv].v[r][j];
      if (to)
        links[i].stencil = to;
      else
        r = j = 0;
    }
    for (int q = 0; q < used; q++) {
      uint64_t o = reg_offset((uint64_t)slot[q]);
      const jit_stencil_t *st = links[i].stencil;
      for (uint32_t h = 0; h < st->nholes; h++) {
        unsigned id = st->holes[h].hole;
        bool from_slot = (id == XL_HOLE_xh_reg && r == q + 1) ||
                         (id == XL_HOLE_xh_src && j == q + 1) ||
                         (id == XL_HOLE_xh_sidx && x && r == q + 1);
        if ((id == XL_HOLE_xh_reg || id == XL_HOLE_xh_src || id == XL_HOLE_xh_sidx ||
             id == XL_HOLE_xh_didx) &&
            v[id] == o && !from_slot)
          *bad |= 1u << slot[q];
      }
    }
  }
  if (*bad) {
    for (unsigned i = 1; i < end; i++)
      links[i].stencil = was[i];
    return 0;
  }
  return used;
}

/* Note 19: a block whose branch goes back to its own start (a taken_target
 * of pc) keeps up to two registers in host registers, when no stencil of
 * the loop (the links up to its last branch back) writes what cannot be
 * known: of those written only by stencils with cached variants and read
 * only by such, the two written most. Their readers and writers become
 * the variants, a fill is put before the entry and a spill after the last
 * branch back (links shift up, taken_link with them). Returns the link
 * after the loop's last, which the branches out of it must pass through
 * a spill of their own to leave by (0 when nothing is cached: the entry
 * is then link 0, else link 1, past the fill, where the loop's own
 * branches go), with the slots' CPU offsets in off[]. */
static unsigned loop_cache(jit_link_t *links, uint64_t (*vals)[XL_HOLE__COUNT], unsigned *n,
                           const uint32_t *taken_target, unsigned *taken_link, unsigned ntaken,
                           uint32_t pc, bool open, unsigned room, uint64_t off[2])
{
  unsigned end = 0;
  for (unsigned i = 0; i < ntaken; i++)
    if (taken_target[i] == pc && taken_link[i] + 1 > end)
      end = taken_link[i] + 1;
  if (!end || *n + 2 + ntaken > room)
    return 0;
  unsigned writes[16] = {0};
  uint32_t uncached = 0;
  int k[JIT_CHAIN_MAX];
  for (unsigned i = 1; i < end; i++) {
    int how = lc_writes(links[i].stencil, &k[i]);
    if (how & LC_ANY)
      return 0;
    for (int w = LC_REG; w <= LC_SRC; w <<= 1) {
      if (!(how & w))
        continue;
      uint64_t o = links[i].values[w == LC_REG ? XL_HOLE_xh_reg : XL_HOLE_xh_src] - reg_offset(0);
      if (o >= 64 || o % 4)
        return 0; /* not a register of r[] */
      if (w == LC_REG && (how & LC_CACHED) == LC_CACHED)
        writes[o / 4]++;
      else
        uncached |= 1u << (o / 4);
    }
  }
  /* First the registers the loop carries round (read before they are
   * written), whose chains through memory the cache takes away, then the
   * others, whose stores it saves: by their writes. A link reads every
   * register a hole of its stencil names but the one the moves and
   * constants only write. */
  uint32_t seen = 0;
  for (unsigned i = 1; i < end; i++) {
    const jit_stencil_t *st = links[i].stencil;
    bool wo = st == &xl_stencil_xt_moveq || st == &xl_stencil_xt_seti ||
              st == &xl_stencil_xt_clr_l || (k[i] >= 0 && acc[k[i]].in == XL_HOLE_xh_src);
    uint32_t now = 0;
    for (uint32_t h = 0; h < st->nholes; h++) {
      unsigned id = st->holes[h].hole;
      if (id != XL_HOLE_xh_reg && id != XL_HOLE_xh_src && id != XL_HOLE_xh_sidx &&
          id != XL_HOLE_xh_didx)
        continue;
      uint64_t o = links[i].values[id] - reg_offset(0);
      if (o >= 64 || o % 4)
        continue;
      if (!(seen >> (o / 4) & 1) && !(wo && id == XL_HOLE_xh_reg) && writes[o / 4] &&
          writes[o / 4] < 1000)
        writes[o / 4] += 1000;
      now |= 1u << (o / 4);
    }
    seen |= now;
  }
  uint32_t cand = 0, bad = 0;
  for (int r = 0; r < 16; r++)
    if (writes[r] && !(uncached >> r & 1))
      cand |= 1u << r;
  int slot[2], used = 0;
  while (cand && !(used = lc_assign(links, end, writes, cand, &bad, slot)))
    cand &= ~bad;
  if (!used)
    return 0;
  /* The loop's branches count in xg_ic. */
  for (unsigned i = 1; i < end; i++) {
    const jit_stencil_t *st = links[i].stencil;
    if (st == &xl_stencil_xt_bra)
      links[i].stencil = &xl_stencil_xt_bra_k;
    for (unsigned cc = 0; cc < 16; cc++) {
      if (st == bcc_stencils[cc])
        links[i].stencil = bcc_k_stencils[cc];
      else if (st == lbcc_stencils[cc])
        links[i].stencil = lbcc_k_stencils[cc];
      else if (st == lbccr_stencils[cc])
        links[i].stencil = lbccr_k_stencils[cc];
    }
  }
  off[0] = reg_offset((uint64_t)slot[0]);
  off[1] = used > 1 ? reg_offset((uint64_t)slot[1]) : UINT64_MAX;
  /* The fill at 0, the spill after the loop's last link (end + 1 once
   * the fill is in), unless that is a BRA back that ends the block. */
  bool after = end < *n || open;
  memmove(&links[end + 1 + after], &links[end], (*n - end) * sizeof links[0]);
  memmove(&links[1], &links[0], end * sizeof links[0]);
  for (unsigned i = 0; i < ntaken; i++)
    taken_link[i] += 1 + (after && taken_link[i] >= end);
  for (int j = 0; j < 2; j++) {
    uint64_t *v = vals[*n + (unsigned)j];
    memset(v, 0, sizeof vals[0]);
    v[XL_HOLE_xh_reg] = off[0];
    v[XL_HOLE_xh_src] = used > 1 ? off[1] : 0;
    v[XL_HOLE_xh_imm] = (off[0] + 1) | (used > 1 ? (off[1] + 1) << 8 : 0) | 1u << 16;
  }
  links[0] = (jit_link_t){.stencil = used > 1 ? &xl_stencil_xt_fill2 : &xl_stencil_xt_fill1,
                          .values = vals[*n], .next_hole = XL_HOLE_xh_next};
  if (after)
    links[end + 1] = (jit_link_t){.stencil = used > 1 ? &xl_stencil_xt_spill2 : &xl_stencil_xt_spill1,
                                  .values = vals[*n + 1], .next_hole = XL_HOLE_xh_next};
  *n += 1 + after;
  return end + 1;
}

/* Note 6: fills each counting stencil's xh_count of links [first, last)
 * (a block's instructions) with the instructions since the last count, its
 * own included, and returns those left for the fall-through exit. leave[i]:
 * link i counts only when it leaves the block (a branch taken, a memory
 * access that goes through the core), leaving its count to the next
 * stencil otherwise. */
static uint64_t fill_counts(jit_link_t *links, uint64_t (*vals)[XL_HOLE__COUNT],
                            const bool *leave, unsigned first, unsigned last)
{
  uint64_t carry = 0;
  for (unsigned i = first; i < last; i++) {
    if (links[i].stencil == &xl_stencil_xt_lz_clear || links[i].stencil == &xl_stencil_xt_lz_sync)
      continue; /* not instructions (note 13) */
    carry++;
    if (pure_index(links[i].stencil) >= 0)
      continue;
    vals[i][XL_HOLE_xh_count] = carry;
    if (!leave[i])
      carry = 0;
  }
  return carry;
}

/* The target of a Bcc/BRA at RAM offset off with opcode op, and its length;
 * false when it cannot be decoded here (a long displacement on the 68000,
 * or one past the end of RAM). */
static bool branch(const struct m68k__xlat *x, uint32_t pc, uint32_t off, uint32_t op,
                   uint32_t *target, uint32_t *len)
{
  uint32_t d8 = op & 0xff;
  if (d8 == 0) {
    if (off + 4 > x->ram_size)
      return false;
    *target = pc + 2 + (uint32_t)(int32_t)(int16_t)ram16(x, off + 2);
    *len = 4;
  } else if (d8 == 0xff && x->model == M68K_MODEL_68030) {
    if (off + 6 > x->ram_size)
      return false;
    *target = pc + 2 + ((ram16(x, off + 2) << 16) | ram16(x, off + 4));
    *len = 6;
  } else {
    *target = pc + 2 + (uint32_t)(int32_t)(int8_t)d8;
    *len = 2;
  }
  return true;
}

/* The target of a BSR or JSR at pc (RAM offset off, opcode op, length
 * len) that calls a known address (note 9): BSR, JSR abs.W, abs.L,
 * (d16,PC); false for any other. */
static bool call_target(const struct m68k__xlat *x, uint32_t pc, uint32_t off, uint32_t op,
                        unsigned kind, uint32_t len, uint32_t *target)
{
  uint32_t blen = 0;
  if (kind == TK_BSR)
    return branch(x, pc, off, op, target, &blen) && blen == len;
  if (kind != TK_JSR || (op & 0xfff8) != 0x4eb8 || len < 4)
    return false;
  uint32_t w1 = ram16(x, off + 2);
  switch (op & 7) {
  case 0: /* abs.W */
    *target = sext16(w1);
    return len == 4;
  case 1: /* abs.L */
    *target = len == 6 ? (w1 << 16) | ram16(x, off + 4) : 0;
    return len == 6;
  case 2: /* (d16,PC) */
    *target = pc + 2 + sext16(w1);
    return len == 4;
  default:
    return false;
  }
}

/* Note 16: s, the stencil of an instruction with holes v (registers by
 * number), or its twin shifting by a constant where s shifts by a data
 * register that a MOVEQ earlier in the block set; *known and kval follow
 * the data registers set by MOVEQ through the instruction. */
static const jit_stencil_t *known_counts(const jit_stencil_t *s, uint64_t *v, unsigned *known,
                                         uint32_t *kval)
{
  static const struct {
    const jit_stencil_t *r, *i;
  } sh[] = {
      {&xl_stencil_xt_lsl_l_r, &xl_stencil_xt_lsl_l_i},
      {&xl_stencil_xt_lsr_l_r, &xl_stencil_xt_lsr_l_i},
      {&xl_stencil_xt_asr_l_r, &xl_stencil_xt_asr_l_i},
  };
  uint64_t rs = v[XL_HOLE_xh_src], rd = v[XL_HOLE_xh_reg];
  uint32_t n = rs < 8 && (*known >> rs & 1) ? kval[rs] & 63 : 0;
  for (size_t k = 0; k < sizeof sh / sizeof sh[0]; k++) {
    if (s == sh[k].r && n >= 1 && n <= 31) { /* 0 and 32 up are not the immediate's */
      s = sh[k].i;
      v[XL_HOLE_xh_src] = 0;
      v[XL_HOLE_xh_imm] = v[XL_HOLE_xh_sxs] = n;
    }
  }
  if (s == &xl_stencil_xt_moveq) {
    *known |= 1u << rd;
    kval[rd] = (uint32_t)v[XL_HOLE_xh_imm];
  } else if (pure_index(s) >= 0) { /* writes xh_reg at most */
    *known &= ~(1u << (rd & 15));
  } else {
    *known = 0;
  }
  return s;
}

/* Note 3: the offset, in code where stencil s has its entry at `at`, of
 * the 32-bit displacement of s's jump at xh_taken (a JMP or Jcc rel32 in
 * its text); 0 when s has none (a branch never taken: DBT, BF), UINT32_MAX
 * when it has more than one or another kind of reference to xh_taken. */
static uint32_t jump_site(const jit_stencil_t *s, uint32_t at)
{
  uint32_t site = 0;
  for (uint32_t k = 0; k < s->nholes; k++) {
    const jit_hole_t *h = &s->holes[k];
    if (h->hole != XL_HOLE_xh_taken)
      continue;
    if (site || (h->kind != JIT_HOLE_X86_64_PLT32 && h->kind != JIT_HOLE_X86_64_PC32) ||
        h->addend != -4 || h->offset + 4 > s->code_size)
      return UINT32_MAX;
    site = at - s->entry + h->offset;
  }
  return site;
}

/* Translates the block at c->pc (note 2) of at most `max` instructions
 * into *out; 0, or a negative m68k_err_t when there is nothing to
 * translate there or no memory. A block of XLAT_INSNS goes live (the
 * hash, the page map, the bound); a shorter one is its block's `one`. */
static int translate(struct m68k__xlat *x, m68k_cpu_t *c, unsigned max, block_t **out)
{
  uint64_t t0 = now_ns();
  uint32_t pc = c->pc;
  bool live = max == XLAT_INSNS;
  if (live && x->nlive >= x->max_blocks) {
    flush(x);
    x->st.flushes++;
  }
  block_t *b = calloc(1, sizeof *b);
  if (!b)
    return M68K_ENOMEM;
  jit_link_t links[JIT_CHAIN_MAX];
  uint64_t vals[JIT_CHAIN_MAX][XL_HOLE__COUNT];
  bool leave[JIT_CHAIN_MAX] = {false};
  memflags_t mf[JIT_CHAIN_MAX] = {{0}};
  /* The branch exits' targets and the links whose xh_taken go to them. */
  uint32_t taken_target[XLAT_EXITS];
  unsigned taken_link[XLAT_EXITS], ntaken = 0;
  unsigned n = 1, nspecial = 0; /* link 0: the entry (xt_enter) */
  uint32_t a = pc;
  bool open = true; /* the block falls through past its last instruction */
  bool loop_end = false;
  unsigned known = 0;  /* the data registers whose values kval holds (note 16) */
  uint32_t kval[8];
  b->lo[0] = pc;
  b->nspans = 1;
  while (b->ninsn < max) {
    uint32_t off = (a & c->addr_mask) - x->ram_base;
    if ((a & 1) || off >= x->ram_size || x->ram_size - off < 2)
      break;
    uint32_t op = ram16(x, off);
    unsigned idx = x->optab[op];
    unsigned kind = handler_kind(idx);
    uint32_t len = (uint32_t)m68k__insn_length(c, a);
    if (len < 2 || x->ram_size - off < len ||
        x->stores[off >> M68K_XLAT_PAGE_SHIFT] >= XLAT_MIXED ||
        x->stores[(off + len - 1) >> M68K_XLAT_PAGE_SHIFT] >= XLAT_MIXED)
      break;
    uint64_t *v = vals[n];
    memset(v, 0, sizeof vals[n]);
    v[XL_HOLE_xh_pc] = a;
    v[XL_HOLE_xh_op] = op;
    v[XL_HOLE_xh_handler] = (uint64_t)(uintptr_t)m68k__handler_fns[idx];
    fill_functions(v);
    const jit_stencil_t *s = &xl_stencil_xt_insn;
    uint32_t target = 0, blen = 0;
    bool is_db = kind == TK_DBCC;
    bool is_b = false;
    uint32_t ctarget = 0;
    bool is_call = x->model == M68K_MODEL_68030 &&
                   call_target(x, a, off, op, kind, len, &ctarget) && !(ctarget & 1);
    if (kind == TK_BRA || kind == TK_BCC) {
      is_b = branch(x, a, off, op, &target, &blen);
    } else if (is_db) {
      target = a + 2 + (uint32_t)(int32_t)(int16_t)ram16(x, off + 2);
      blen = 4;
      is_b = true;
    }
    uint32_t next = a + len;
    bool direct = is_b && blen == len && !(target & 1); /* to a known, even target */
    bool lv = false;
    memflags_t mfn = {0};
    const jit_stencil_t *sp = special(x, a, off, op, kind, len, v, &lv, &mfn);
    if (kind == TK_MOVEQ) {
      s = &xl_stencil_xt_moveq;
      v[XL_HOLE_xh_reg] = (op >> 9) & 7;
      v[XL_HOLE_xh_imm] = (uint32_t)(int32_t)(int8_t)(op & 0xff);
    } else if (sp) {
      s = sp;
      leave[n] = lv;
      mf[n] = mfn;
      open = kind != TK_JMP;
    } else if (direct && kind == TK_BRA && target != pc && b->nspans < XLAT_SPANS &&
               b->ninsn + 1 < max) {
      /* Followed (note 2): the block goes on at the target. */
      s = &xl_stencil_xt_nop;
      b->hi[b->nspans - 1] = next;
      b->lo[b->nspans++] = target;
      next = target;
    } else if (direct) {
      /* Room for its exit, and for the fall-through's after it. */
      bool bra = kind == TK_BRA;
      if (ntaken + (bra ? 1 : 2) > XLAT_EXITS)
        break;
      s = bra ? &xl_stencil_xt_bra : is_db ? dbcc_stencils[(op >> 8) & 15]
                                           : bcc_stencils[(op >> 8) & 15];
      v[XL_HOLE_xh_target] = target;
      v[XL_HOLE_xh_reg] = op & 7;
      taken_target[ntaken] = target;
      taken_link[ntaken++] = n;
      leave[n] = true;
      if (bra)
        open = false;
      /* A loop's block ends at its branch back (note 19). */
      loop_end = target == pc;
    } else if (is_call) {
      if (ntaken + 1 > XLAT_EXITS)
        break;
      s = &xl_stencil_xt_call;
      v[XL_HOLE_xh_target] = ctarget;
      taken_target[ntaken] = ctarget;
      taken_link[ntaken++] = n;
      open = false;
    } else if (kind == TK_RTS && x->model == M68K_MODEL_68030) {
      s = &xl_stencil_xt_rts;
      open = false;
    } else if (kind == TK_LAST || kind == TK_BSR || kind == TK_JSR || kind == TK_RTS ||
               kind == TK_JMP) {
      s = &xl_stencil_xt_last;
      open = false;
    }
    s = known_counts(s, v, &known, kval);
    /* The stencils address registers by their offset in the CPU. */
    v[XL_HOLE_xh_reg] = reg_offset(v[XL_HOLE_xh_reg]);
    v[XL_HOLE_xh_src] = reg_offset(v[XL_HOLE_xh_src]);
    nspecial += s != &xl_stencil_xt_insn && s != &xl_stencil_xt_last;
    a = next;
    v[XL_HOLE_xh_npc] = a;
    links[n] = (jit_link_t){.stencil = s, .values = v, .next_hole = XL_HOLE_xh_next};
    n++;
    b->ninsn++;
    if (!open || loop_end)
      break;
  }
  if (b->ninsn == 0) {
    free(b);
    return M68K_EINVAL;
  }
  b->pc = pc;
  b->hi[b->nspans - 1] = a;
  if (b->hi[b->nspans - 1] == b->lo[b->nspans - 1])
    b->nspans--; /* a BRA followed to code that could not be translated */
  memset(vals[0], 0, sizeof vals[0]);
  vals[0][XL_HOLE_xh_count] = b->ninsn;
  vals[0][XL_HOLE_xh_pc] = pc;
  links[0] = (jit_link_t){.stencil = &xl_stencil_xt_enter, .values = vals[0],
                          .next_hole = XL_HOLE_xh_next};
  drop_dead_flags(links, vals, mf, 1, n);
  lazy_flags(links, vals, leave, mf, taken_link, ntaken, &n,
             JIT_CHAIN_MAX - ntaken - (open ? 2 : 0));
  uint64_t rest = fill_counts(links, vals, leave, 1, n);
  /* The loop's registers kept in host registers (note 19): its links end
   * before lc_end, its entry is link `head`. */
  uint64_t lc_off[2] = {0, UINT64_MAX};
  unsigned lc_end = live ? loop_cache(links, vals, &n, taken_target, taken_link, ntaken, pc, open,
                                      JIT_CHAIN_MAX - ntaken - (open ? 2 : 0), lc_off)
                         : 0;
  unsigned head = lc_end != 0;
  pass_values(links, head + 1, n);
  /* The exits (note 3): the fall-through's first, right after the last
   * instruction, which falls into it (xt_exit, which counts and jumps);
   * then the taken branches', whose own stencils count and jump. Each jump
   * goes to its exit's xt_unchained until the exit is chained. */
  unsigned site_link[XLAT_EXITS];
  if (!open)
    links[n - 1].next_hole = -1;
  for (int i = open ? -1 : 0; i < (int)ntaken; i++) {
    unsigned jl = i < 0 ? n : taken_link[i]; /* the link with the exit's jump */
    if (i >= 0 && live && taken_target[i] == pc) {
      /* Back to the block's own start: straight into its entry (note 3). */
      jit_link_t *l = &links[jl];
      l->calls[l->ncalls].hole = XL_HOLE_xh_taken;
      l->calls[l->ncalls].link = (uint16_t)head;
      l->ncalls++;
      continue;
    }
    if (i < 0) {
      uint64_t *v = vals[n];
      memset(v, 0, sizeof vals[n]);
      v[XL_HOLE_xh_count] = rest;
      links[n] = (jit_link_t){.stencil = &xl_stencil_xt_exit, .values = v, .next_hole = -1};
      n++;
    } else if (jl < lc_end) {
      /* Out of the loop: its slots written back on the way (note 19). */
      uint64_t *v = vals[n];
      memset(v, 0, sizeof vals[n]);
      bool two = lc_off[1] != UINT64_MAX;
      v[XL_HOLE_xh_reg] = lc_off[0];
      v[XL_HOLE_xh_src] = two ? lc_off[1] : 0;
      links[n] = (jit_link_t){
          .stencil = two ? &xl_stencil_xt_spill2_x : &xl_stencil_xt_spill1_x,
          .values = v,
          .next_hole = -1};
      jit_link_t *l = &links[jl];
      l->calls[l->ncalls].hole = XL_HOLE_xh_taken;
      l->calls[l->ncalls].link = (uint16_t)n;
      l->ncalls++;
      jl = n++;
    }
    m68k__xlat_exit_t *e = &b->exits[b->nexits];
    site_link[b->nexits++] = jl;
    e->target = i < 0 ? a : taken_target[i];
    e->from = b;
    uint64_t *v = vals[n];
    memset(v, 0, sizeof vals[n]);
    v[XL_HOLE_xh_target] = e->target;
    v[XL_HOLE_xh_exit] = (uint64_t)(uintptr_t)e;
    links[n] = (jit_link_t){.stencil = &xl_stencil_xt_unchained, .values = v, .next_hole = -1};
    jit_link_t *l = &links[jl];
    l->calls[l->ncalls].hole = XL_HOLE_xh_taken;
    l->calls[l->ncalls].link = (uint16_t)n;
    l->ncalls++;
    n++;
  }
  size_t size = jit_chain_size(links, n), entry = 0, used = 0;
  jit_code_t *code = NULL;
  int rc = jit_code_alloc(codemem, size, &code);
  if (rc != JIT_OK) {
    free(b);
    return M68K_ENOMEM;
  }
  jit_emit_error_t err;
  jit_chain_map_t map = {0}; /* the links' entries (no rows), for the exits' jumps */
  rc = jit_emit_chain_mapped(jit_code_rw(code), (uint64_t)(uintptr_t)jit_code_rx(code), size,
                             links, n, &entry, &used, &err, &map);
  for (unsigned k = 0; rc == JIT_OK && k < b->nexits; k++) {
    m68k__xlat_exit_t *e = &b->exits[k];
    const jit_link_t *l = &links[site_link[k]];
    e->home = map.entry[l->calls[l->ncalls - 1].link];
    e->site = jump_site(l->stencil, map.entry[site_link[k]]);
    if (e->site == UINT32_MAX) {
      fprintf(stderr, "quamachine: translation at %08x failed: %s has no single jump at xh_taken\n",
              pc, l->stencil->name);
      jit_code_free(code);
      free(b);
      return M68K_EINVAL;
    }
  }
  if (rc != JIT_OK) {
    char msg[256];
    fprintf(stderr, "quamachine: translation at %08x failed: %s\n", pc,
            jit_emit_error_format(msg, sizeof msg, rc, &err));
    jit_code_free(code);
    free(b);
    return M68K_EINVAL;
  }
  jit_code_commit(code);
  const m68k_jit_listener_t *li = atomic_load(&listener);
  if (li != NULL)
    li->translated(li->ctx, pc, b->ninsn, jit_code_rx(code), map.text_end);
  b->code = code;
  b->entry = (m68k__xlat_entry_t)(uintptr_t)jit_fn((const char *)jit_code_rx(code) + entry);
  *out = b;
  x->st.translate_ns += now_ns() - t0;
  if (!live)
    return 0;
  unsigned h = hash_pc(pc);
  b->hnext = x->hash[h];
  x->hash[h] = b;
  b->next = x->live;
  if (x->live)
    x->live->prev = b;
  x->live = b;
  x->nlive++;
  for (unsigned k = 0; k < b->nspans; k++) {
    uint32_t s0 = (b->lo[k] & c->addr_mask) - x->ram_base;
    uint32_t s1 = (b->hi[k] & c->addr_mask) - x->ram_base - 1;
    if (s1 < s0 || s1 >= x->ram_size)
      s1 = x->ram_size - 1;
    pages_set(x, s0 >> M68K_XLAT_PAGE_SHIFT, s1 >> M68K_XLAT_PAGE_SHIFT, true);
  }
  x->st.translated++;
  x->st.followed += b->nspans - 1;
  x->st.cached += head;
  x->st.insns += b->ninsn;
  x->st.specialised += nspecial;
  return 0;
}

#endif /* M68K_XLAT_STENCILS */

/* Links the exit a block just left by to the block at its target (note 3). */
static void chain(struct m68k__xlat *x, m68k__xlat_exit_t *e, uint32_t pc)
{
  if (e->to || e->target != pc || !e->site)
    return;
  block_t *t = lookup(x, pc);
  if (!t || !exit_jump(e, (uintptr_t)t->entry))
    return;
  e->to = t;
  e->next_in = t->in;
  t->in = e;
  x->st.chained++;
}

#if M68K_XLAT_STENCILS
/* Note 18: calls translated code at `entry` with the RAM, the store map and
 * RAM's guest base in the host registers the stencils keep them in (r12,
 * r13, r14: callee-saved, so every C function the stencils call keeps
 * them too), and gives the caller its own values back, and those of rbx,
 * r15 and rbp, which hold a loop's cached registers and icount (note
 * 19): it returns what translated code left in them, ebx and r15d in
 * `slots` (low and high half), rbp in `icount`. */
typedef struct {
  uint64_t slots, icount;
} xlat_left_t;
xlat_left_t m68k__xlat_enter(m68k_cpu_t *c, uint64_t icount, m68k__xlat_entry_t entry,
                             uintptr_t ram_host, const uint8_t *wrmap, uint64_t ram_base);
__asm__(".text\n"
        "\t.p2align 4\n"
        "\t.globl m68k__xlat_enter\n"
        "\t.hidden m68k__xlat_enter\n"
        "\t.type m68k__xlat_enter, @function\n"
        "m68k__xlat_enter:\n"
        "\t.cfi_startproc\n"
        "\tpush %r12\n"
        "\t.cfi_adjust_cfa_offset 8\n"
        "\t.cfi_rel_offset %r12, 0\n"
        "\tpush %r13\n"
        "\t.cfi_adjust_cfa_offset 8\n"
        "\t.cfi_rel_offset %r13, 0\n"
        "\tpush %r14\n"
        "\t.cfi_adjust_cfa_offset 8\n"
        "\t.cfi_rel_offset %r14, 0\n"
        "\tpush %rbx\n" /* the loop register cache's (note 19) */
        "\t.cfi_adjust_cfa_offset 8\n"
        "\t.cfi_rel_offset %rbx, 0\n"
        "\tpush %r15\n"
        "\t.cfi_adjust_cfa_offset 8\n"
        "\t.cfi_rel_offset %r15, 0\n"
        "\tpush %rbp\n"
        "\t.cfi_adjust_cfa_offset 8\n"
        "\t.cfi_rel_offset %rbp, 0\n"
        "\tsub $8, %rsp\n"
        "\t.cfi_adjust_cfa_offset 8\n"
        "\tmov %rcx, %r12\n"
        "\tmov %r8, %r13\n"
        "\tmov %r9, %r14\n"
        "\tcall *%rdx\n" /* six pushes, eight bytes and the return address: aligned */
        "\tmov %r15d, %eax\n"
        "\tshl $32, %rax\n"
        "\tmov %ebx, %edx\n"
        "\tor %rdx, %rax\n"
        "\tmov %rbp, %rdx\n"
        "\tadd $8, %rsp\n"
        "\t.cfi_adjust_cfa_offset -8\n"
        "\tpop %rbp\n"
        "\t.cfi_adjust_cfa_offset -8\n"
        "\t.cfi_restore %rbp\n"
        "\tpop %r15\n"
        "\t.cfi_adjust_cfa_offset -8\n"
        "\t.cfi_restore %r15\n"
        "\tpop %rbx\n"
        "\t.cfi_adjust_cfa_offset -8\n"
        "\t.cfi_restore %rbx\n"
        "\tpop %r14\n"
        "\t.cfi_adjust_cfa_offset -8\n"
        "\t.cfi_restore %r14\n"
        "\tpop %r13\n"
        "\t.cfi_adjust_cfa_offset -8\n"
        "\t.cfi_restore %r13\n"
        "\tpop %r12\n"
        "\t.cfi_adjust_cfa_offset -8\n"
        "\t.cfi_restore %r12\n"
        "\tret\n"
        "\t.cfi_endproc\n"
        "\t.size m68k__xlat_enter, .-m68k__xlat_enter\n");

/* Runs translated code at entry, and writes back the registers a loop it
 * returned from had in host registers (note 19). */
static void enter(m68k_cpu_t *c, m68k__xlat_entry_t entry)
{
  xlat_left_t left =
      m68k__xlat_enter(c, c->icount, entry, c->ram_host, c->xlat_wrmap, c->ram_base);
  uint32_t lc = c->xlat_lc;
  if (lc) {
    if (lc & 0xff)
      *(uint32_t *)((char *)c + (lc & 0xff) - 1) = (uint32_t)left.slots;
    if (lc & 0xff00)
      *(uint32_t *)((char *)c + (lc >> 8 & 0xff) - 1) = (uint32_t)(left.slots >> 32);
    c->icount = left.icount;
    c->xlat_lc = 0;
  }
}
#endif

/* Note 17: the instruction a block returned before, run by the
 * interpreter. */
static void interp_left(m68k_cpu_t *c)
{
  if (c->xlat_interp) {
    c->xlat_interp = false;
    m68k__exec(c, c->icount + 1);
  }
}

void m68k__xlat_exec(m68k_cpu_t *c, uint64_t end)
{
  struct m68k__xlat *x = c->xlat;
  do {
    if (c->xlat_dirty) {
      reclaim(x);
      c->xlat_dirty = false;
    }
    c->xlat_end = end;
    block_t *b = lookup(x, c->pc);
    if (b && end - c->icount >= b->ninsn) { /* it fits in the budget (note 6) */
      jc_fill(x, b);
      c->xlat_last = NULL;
      enter(c, b->entry);
      m68k__lz_sync(c); /* nothing outside translated code sees lazy flags */
      if (c->xlat_last && !c->xlat_dirty)
        chain(x, c->xlat_last, c->pc);
      interp_left(c);
      continue;
    }
#if M68K_XLAT_STENCILS
    /* It does not fit: its first instruction alone, never chained. */
    if (b && (b->one || translate(x, c, 1, &b->one) == 0)) {
      enter(c, b->one->entry);
      m68k__lz_sync(c);
      c->xlat_last = NULL;
      interp_left(c);
      continue;
    }
#endif
    if (b) { /* no memory for it: the interpreter */
      m68k__exec(c, c->icount + 1);
      continue;
    }
#if M68K_XLAT_STENCILS
    uint16_t *hot = &x->hot[(c->pc >> 1) & (XLAT_HOT - 1)];
    uint32_t off = (c->pc & c->addr_mask) - x->ram_base;
    if (++*hot >= x->threshold && off < x->ram_size &&
        x->stores[off >> M68K_XLAT_PAGE_SHIFT] < XLAT_MIXED) {
      *hot = 0;
      block_t *nb;
      if (translate(x, c, XLAT_INSNS, &nb) == 0)
        continue;
    }
#endif
    m68k__exec(c, c->icount + 1);
  } while (!c->pending && c->icount < end);
}

int m68k_jit_enable(m68k_cpu_t *cpu, unsigned threshold, m68k_cpu_t *share)
{
#if !M68K_XLAT_STENCILS
  (void)cpu;
  (void)threshold;
  (void)share;
  return M68K_EINVAL;
#else
  if (!cpu || threshold == 0 || threshold > UINT16_MAX || !cpu->ram)
    return M68K_EINVAL;
  pthread_once(&codemem_once, codemem_init);
  if (codemem_rc != JIT_OK)
    return M68K_ENOMEM;
  struct m68k__xlat *x = share ? share->xlat : NULL;
  if (share && (!x || x->ram != cpu->ram || x->model != cpu->model || x->ncpus == XLAT_CPUS))
    return M68K_EINVAL;
  if (cpu->xlat == x && x)
    return 0;
  if (!x) {
    x = calloc(1, sizeof *x);
    if (!x)
      return M68K_ENOMEM;
    x->npages = (cpu->ram_size >> M68K_XLAT_PAGE_SHIFT) + 2;
    x->pages = calloc(x->npages, 1);
    x->stores = calloc(x->npages, 1);
    x->wrmap = mmap(NULL, XLAT_WRMAP_SIZE, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (!x->pages || !x->stores || x->wrmap == MAP_FAILED) {
      free(x->pages);
      free(x->stores);
      if (x->wrmap != MAP_FAILED)
        munmap(x->wrmap, XLAT_WRMAP_SIZE);
      free(x);
      return M68K_ENOMEM;
    }
    x->threshold = threshold;
    x->model = cpu->model;
    x->optab = cpu->optab;
    x->ram = cpu->ram;
    x->ram_base = cpu->ram_base;
    x->ram_size = cpu->ram_size;
    x->max_blocks = XLAT_MAX_BLOCKS;
    wrmap_update(x, 0, x->npages - 1);
    for (unsigned i = 0; i < M68K_XLAT_JC; i++)
      x->jc[i].pc = 1; /* empty (note 10) */
  }
  if (cpu->xlat)
    m68k__xlat_detach(cpu);
  x->threshold = threshold;
  x->cpus[x->ncpus++] = cpu;
  cpu->xlat = x;
  cpu->xlat_pages = x->pages;
  cpu->xlat_wrmap = x->wrmap;
  cpu->xlat_dirty = false;
  return 0;
#endif
}

void m68k__xlat_detach(m68k_cpu_t *c)
{
  struct m68k__xlat *x = c->xlat;
  if (!x)
    return;
  c->xlat = NULL;
  c->xlat_pages = NULL;
  c->xlat_wrmap = NULL;
  c->xlat_last = NULL;
  unsigned j = 0;
  for (unsigned i = 0; i < x->ncpus; i++)
    if (x->cpus[i] != c)
      x->cpus[j++] = x->cpus[i];
  x->ncpus = j;
  if (x->ncpus)
    return;
  pthread_mutex_lock(&totals_lock);
  totals.translated += x->st.translated;
  totals.insns += x->st.insns;
  totals.specialised += x->st.specialised;
  totals.chained += x->st.chained;
  totals.followed += x->st.followed;
  totals.cached += x->st.cached;
  totals.invalidated += x->st.invalidated;
  totals.flushes += x->st.flushes;
  totals.translate_ns += x->st.translate_ns;
  pthread_mutex_unlock(&totals_lock);
  flush(x);
  free(x->pages);
  free(x->stores);
  munmap(x->wrmap, XLAT_WRMAP_SIZE);
  free(x);
}

void m68k_jit_disable(m68k_cpu_t *cpu)
{
  m68k__xlat_detach(cpu);
}

void m68k_jit_stats(const m68k_cpu_t *cpu, m68k_jit_stats_t *st)
{
  memset(st, 0, sizeof *st);
  if (!cpu->xlat)
    return;
  *st = cpu->xlat->st;
  st->live = cpu->xlat->nlive;
}

int m68k_jit_set_limit(m68k_cpu_t *cpu, size_t max_blocks)
{
  if (!cpu->xlat || max_blocks == 0)
    return M68K_EINVAL;
  cpu->xlat->max_blocks = max_blocks;
  return 0;
}
