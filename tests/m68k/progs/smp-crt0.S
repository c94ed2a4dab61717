| smp-crt0.S -- start-up of the freestanding two-CPU images: calls cpu_main(id), then sleeps.
|
| The machine starts every CPU here in supervisor mode with interrupts
| masked and its own stack; the CPU_ID register of the device page
| (0xFFFFF004) tells them apart. .bss is zeroed by the loader.
	.text
	.globl	_start
_start:
	move.l	0xFFFFF004, %d0
	move.l	%d0, -(%sp)
	jsr	cpu_main
	addq.l	#4, %sp
1:	stop	#0x2700
	bra.s	1b
	.section .note.GNU-stack,"",%progbits
