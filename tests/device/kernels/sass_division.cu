// tests/device/kernels/sass_division.cu — one correctly rounded division: check_sass.py measures the
// .FTZ signature of ptxas's division routine from this kernel's SASS (--division-cubin).
__global__ void division(float* a) { a[0] = __fdiv_rn(a[1], a[2]); }
