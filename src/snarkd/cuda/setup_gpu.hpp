// The development setup (groth16/setup.hpp) with its fixed-base multiplications on a GPU: the
// scalars come from groth16::setup_scalars on the host's thread pool, the ~6 × num_vars points
// from FixedBaseStreamer (cuda/fixed_base.hpp). Same key, byte for byte, as
// groth16::setup_insecure: both produce canonical affine coordinates of the same points.
//
// Expected time for a PoRep-size key (2^27 domain, ≈130M variables), GPU part, from the
// operation count: G1 queries A, B, L, H ≈ 4 × 130M scalars × ≤ 32 mixed additions × 10 Fp
// products (8M + 2S) ≈ 170·10^9 products; G2 query B ≈ 130M × 32 × 28 Fp products (Fp2: 3 per
// product, 2 per square) ≈ 115·10^9; at the H200's ≈ 16.5·10^9 Fp products/s about 17 s, plus
// ≈ 5% for the affine conversion; additions, loads and divergence will likely make it 25–40 s.
// The 75 GiB of points cross PCIe and are copied out of pinned memory while the next chunk
// runs. Host part: setup_scalars (O(n) with one pass per thread over the column indices) and
// allocating the key's vectors, a few seconds to tens of seconds on 16 cores.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

#include "snarkd/ec/curve.hpp"
#include "snarkd/ff/fr.hpp"
#include "snarkd/groth16/keys.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::cuda {

// out[i] = scalars[i]·base on `device` (FixedBaseStreamer with chunks of `chunk` scalars; 0 =
// its default, capped at scalars.size()). For tests and tools; C = ec::G1Config or G2Config.
template <class C>
std::vector<ec::Affine<C>> fixed_base_mul_sync(int device, const ec::Affine<C>& base, std::span<const ff::Fr> scalars,
                                               size_t chunk = 0);

// groth16::setup_scalars, then every point on `device` (the generators' tables built there
// once). Byte-identical to groth16::setup_insecure(circuit, t); the same InvalidArgument errors,
// and cuda::Error on CUDA failures. Host memory: the key plus one query's scalars, plus
// setup_scalars' peak before the multiplications start.
groth16::ProvingKey setup_insecure_gpu(int device, const r1cs::Circuit& circuit, const groth16::ToxicWaste& t);

}  // namespace snarkd::cuda
