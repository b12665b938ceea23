/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fake_vmlinux.S - a stand-in vmlinux: an ELF linked at the kernel's
 * text address with _stext and two functions, for --vmlinux tests.
 */
	.text
	.globl _stext
_stext:
	.globl _start
_start:
	nop
	.globl do_syscall_64
	.type do_syscall_64, @function
do_syscall_64:
	.fill 64, 1, 0x90
	ret
	.size do_syscall_64, . - do_syscall_64
	.globl __x64_sys_getpid
	.type __x64_sys_getpid, @function
__x64_sys_getpid:
	.fill 32, 1, 0x90
	ret
	.size __x64_sys_getpid, . - __x64_sys_getpid
