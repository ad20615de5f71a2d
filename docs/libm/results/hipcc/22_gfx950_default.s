; Debian clang version 22.1.8 (1~deb12u1)

k_expf:
	v_mov_b32_e32 v1, 0x3fb8aa3b
	v_mov_b32_e32 v2, 0x32a5705f
	v_mov_b32_e32 v5, 0x7f800000
	v_mov_b32_e32 v0, 0
	v_mul_f32_e32 v3, s2, v1
	v_rndne_f32_e32 v4, v3
	v_fma_f32 v1, s2, v1, -v3
	v_sub_f32_e32 v3, v3, v4
	v_fmac_f32_e32 v1, s2, v2
	v_add_f32_e32 v1, v3, v1
	v_cvt_i32_f32_e32 v2, v4
	v_exp_f32_e32 v1, v1
	v_mov_b32_e32 v3, 0xc2ce8ed0
	v_mov_b32_e32 v4, 0x42b17218
	v_cmp_nlt_f32_e32 vcc, s2, v3
	v_ldexp_f32 v1, v1, v2
	v_cndmask_b32_e32 v1, 0, v1, vcc
	v_cmp_ngt_f32_e32 vcc, s2, v4
	v_cndmask_b32_e32 v1, v5, v1, vcc

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
	v_mov_b32_e32 v1, 0x40549a78
	v_mov_b32_e32 v2, 0x33979a37
	v_mov_b32_e32 v5, 0x7f800000
	v_mov_b32_e32 v0, 0
	v_mul_f32_e32 v3, s2, v1
	v_rndne_f32_e32 v4, v3
	v_fma_f32 v1, s2, v1, -v3
	v_sub_f32_e32 v3, v3, v4
	v_fmac_f32_e32 v1, s2, v2
	v_add_f32_e32 v1, v3, v1
	v_cvt_i32_f32_e32 v2, v4
	v_exp_f32_e32 v1, v1
	v_mov_b32_e32 v3, 0xc23369f4
	v_mov_b32_e32 v4, 0x421a209b
	v_cmp_nlt_f32_e32 vcc, s2, v3
	v_ldexp_f32 v1, v1, v2
	v_cndmask_b32_e32 v1, 0, v1, vcc
	v_cmp_ngt_f32_e32 vcc, s2, v4
	v_cndmask_b32_e32 v1, v5, v1, vcc

k_logf:
	v_mov_b32_e32 v0, 0x800000
	v_mov_b32_e32 v1, 0x41b17218
	v_mov_b32_e32 v2, 0
	v_cmp_lt_f32_e32 vcc, s4, v0
	s_and_b64 s[2:3], vcc, exec
	s_cselect_b32 s2, 32, 0
	v_cndmask_b32_e32 v0, 0, v1, vcc
	v_mov_b32_e32 v1, s2
	v_ldexp_f32 v1, s4, v1
	v_log_f32_e32 v1, v1
	s_mov_b32 s2, 0x3f317217
	s_mov_b32 s3, 0x7f800000
	v_mul_f32_e32 v3, 0x3f317217, v1
	v_fma_f32 v4, v1, s2, -v3
	v_fmamk_f32 v4, v1, 0x3377d1cf, v4
	v_add_f32_e32 v3, v3, v4
	v_cmp_lt_f32_e64 vcc, |v1|, s3
	v_cndmask_b32_e32 v1, v1, v3, vcc
	v_sub_f32_e32 v0, v1, v0

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
	v_mov_b32_e32 v1, 0x411a209b
	v_mov_b32_e32 v2, 0
	v_cmp_lt_f32_e32 vcc, s4, v0
	s_and_b64 s[2:3], vcc, exec
	s_cselect_b32 s2, 32, 0
	v_cndmask_b32_e32 v0, 0, v1, vcc
	v_mov_b32_e32 v1, s2
	v_ldexp_f32 v1, s4, v1
	v_log_f32_e32 v1, v1
	s_mov_b32 s2, 0x3e9a209a
	s_mov_b32 s3, 0x7f800000
	v_mul_f32_e32 v3, 0x3e9a209a, v1
	v_fma_f32 v4, v1, s2, -v3
	v_fmamk_f32 v4, v1, 0x3284fbcf, v4
	v_add_f32_e32 v3, v3, v4
	v_cmp_lt_f32_e64 vcc, |v1|, s3
	v_cndmask_b32_e32 v1, v1, v3, vcc
	v_sub_f32_e32 v0, v1, v0
