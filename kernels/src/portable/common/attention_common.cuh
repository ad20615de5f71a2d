// kernels/src/portable/common/attention_common.cuh — every part the fma-chain kernels
// share, in one include (the portable kernels of attention/ and sparse_mla/, and the
// sm90 tensor-core kernels, which take the policies, sequences and rounded operations
// from here). Each part is its own header, one concept each:
//   rounded_ops.cuh   add/sub/mul/div/fma rounded once, maxNum and its identity (§4, §7)
//   libm_policy.cuh   the libm policies as device functors: NvccExpLog, CrExpLog,
//                     NvccFastExpLog (§7)
//   tile_config.cuh   256 threads as 16 x 16, key tiles of B = 64 (§1), row strides,
//                     output columns, unroll factors
//   sequence.cuh      a block's packed sequence and its rows' list lengths (§1, §2)
//   tile_io.cuh       tile loads (widened exactly, §2), staged copies, shared reads
//   score_tile.cuh    the score tile: RM x 4 fma chains over d a thread (§4.1, §5.2)
//
// Vendor-neutral (rounded_ops.cuh says how): CUDA and HIP compile the same bodies.
#pragma once

#include "portable/common/libm_policy.cuh"
#include "portable/common/rounded_ops.cuh"
#include "portable/common/score_tile.cuh"
#include "portable/common/sequence.cuh"
#include "portable/common/tile_config.cuh"
#include "portable/common/tile_io.cuh"
#include "samebits/gpu/thread.hpp"
#include "samebits/kernels/dtype.hpp"
