# bcryptprimitives.dll for Wine 8 (Debian 12), which lacks it: Go programs since Go 1.22 load
# it at start for ProcessPrng, their source of random bytes, and die without it ("fatal error:
# bcryptprimitives.dll not found"). ProcessPrng(pbData, cbData) fills the buffer from
# BCryptGenRandom(NULL, pbData, cbData, BCRYPT_USE_SYSTEM_PREFERRED_RNG), which Wine has, and
# returns TRUE, as Windows' does. Assembled and linked with binutils-mingw-w64-x86-64 by
# .ci/wine/test.sh; only used to run the Windows test binaries under Wine in CI.
	.intel_syntax noprefix
	.text
	.globl ProcessPrng
ProcessPrng:
	sub rsp, 40               # shadow space for the callee, and 16-byte alignment
	mov r8, rdx               # cbData
	mov rdx, rcx              # pbData
	xor ecx, ecx              # hAlgorithm: NULL
	mov r9d, 2                # dwFlags: BCRYPT_USE_SYSTEM_PREFERRED_RNG
	call [rip + __imp_BCryptGenRandom]
	add rsp, 40
	mov eax, 1                # TRUE
	ret

	.globl DllMain
DllMain:
	mov eax, 1                # TRUE: loaded
	ret
