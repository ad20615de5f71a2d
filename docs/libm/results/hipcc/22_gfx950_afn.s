; Debian clang version 22.1.8 (1~deb12u1)

k_expf:
	v_mov_b32_e32 v0, 0xc2aeac50
	v_mov_b32_e32 v1, 0x42800000
	v_add_f32_e32 v1, s2, v1
	v_mov_b32_e32 v2, s2
	v_cmp_lt_f32_e32 vcc, s2, v0
	v_cndmask_b32_e32 v0, v2, v1, vcc
	v_mul_f32_e32 v0, 0x3fb8aa3b, v0
	v_exp_f32_e32 v0, v0
	v_mov_b32_e32 v1, 0
	v_mul_f32_e32 v2, 0x114b4ea4, v0
	v_cndmask_b32_e32 v0, v0, v2, vcc

k_exp2f:
	v_mov_b32_e32 v0, 0xc2fc0000
	v_mov_b32_e32 v1, 0x42800000
	v_cmp_lt_f32_e32 vcc, s2, v0
	v_cndmask_b32_e32 v0, 0, v1, vcc
	v_add_f32_e32 v0, s2, v0
	v_exp_f32_e32 v0, v0
	s_and_b64 s[2:3], vcc, exec
	s_cselect_b32 s2, 0xffffffc0, 0
	v_mov_b32_e32 v1, 0
	v_ldexp_f32 v0, v0, s2

k_exp10f:
	v_mov_b32_e32 v0, 0xc217b818
	v_mov_b32_e32 v1, 0x42000000
	v_add_f32_e32 v1, s2, v1
	v_mov_b32_e32 v2, s2
	v_cmp_lt_f32_e32 vcc, s2, v0
	v_cndmask_b32_e32 v0, v2, v1, vcc
	v_mul_f32_e32 v1, 0x3a2784bc, v0
	v_mul_f32_e32 v0, 0x40549000, v0
	v_exp_f32_e32 v1, v1
	v_exp_f32_e32 v0, v0
	v_mov_b32_e32 v2, 0
	v_mul_f32_e32 v0, v0, v1
	v_mul_f32_e32 v1, 0xa4fb11f, v0
	v_cndmask_b32_e32 v0, v0, v1, vcc

k_logf:
	v_mov_b32_e32 v0, 0x800000
	v_mov_b32_e32 v1, 0xc1b17218
	v_mov_b32_e32 v2, 0
	v_cmp_lt_f32_e32 vcc, s4, v0
	s_and_b64 s[2:3], vcc, exec
	s_cselect_b32 s2, 32, 0
	v_cndmask_b32_e32 v0, 0, v1, vcc
	v_mov_b32_e32 v1, s2
	v_ldexp_f32 v1, s4, v1
	v_log_f32_e32 v1, v1
	v_fmamk_f32 v0, v1, 0x3f317218, v0

k_log2f:
	v_mov_b32_e32 v0, 0x800000
	v_mov_b32_e32 v1, 0x42000000
	v_mov_b32_e32 v2, 0
	v_cmp_lt_f32_e32 vcc, s4, v0
	s_and_b64 s[2:3], vcc, exec
	s_cselect_b32 s2, 32, 0
	v_cndmask_b32_e32 v0, 0, v1, vcc
	v_mov_b32_e32 v1, s2
	v_ldexp_f32 v1, s4, v1
	v_log_f32_e32 v1, v1
	v_sub_f32_e32 v0, v1, v0

k_log10f:
	v_mov_b32_e32 v0, 0x800000
	v_mov_b32_e32 v1, 0xc11a209b
	v_mov_b32_e32 v2, 0
	v_cmp_lt_f32_e32 vcc, s4, v0
	s_and_b64 s[2:3], vcc, exec
	s_cselect_b32 s2, 32, 0
	v_cndmask_b32_e32 v0, 0, v1, vcc
	v_mov_b32_e32 v1, s2
	v_ldexp_f32 v1, s4, v1
	v_log_f32_e32 v1, v1
	v_fmamk_f32 v0, v1, 0x3e9a209b, v0
