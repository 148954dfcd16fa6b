#include "snarkd/groth16/key_check.hpp"

#include <atomic>
#include <span>

#include "snarkd/util/thread_pool.hpp"

namespace snarkd::groth16 {
namespace {

template <class E, class Point>
bool valid(const Point& p, bool subgroups) {
  return p.is_on_curve() && (!subgroups || E::in_subgroup(p));
}

// The lowest index of an invalid point of the query, if any.
template <class E, class Point>
std::optional<std::string> check_query(const char* name, std::span<const Point> points, bool subgroups) {
  std::atomic<uint64_t> first{UINT64_MAX};
  parallel_for(points.size(), [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end && i < first.load(std::memory_order_relaxed); ++i)
      if (!valid<E>(points[i], subgroups)) {
        uint64_t cur = first.load();
        while (i < cur && !first.compare_exchange_weak(cur, i)) {}
        return;
      }
  });
  const uint64_t i = first.load();
  if (i == UINT64_MAX) return std::nullopt;
  const bool on_curve = points[i].is_on_curve();
  return std::string(name) + " point " + std::to_string(i) +
         (on_curve ? " is not in the prime-order subgroup" : " is not on the curve");
}

}  // namespace

template <class E>
std::optional<std::string> find_invalid_key_point(const ProvingKeyT<E>& pk, bool subgroups) {
  using G1Affine = typename E::G1Affine;
  using G2Affine = typename E::G2Affine;
  const VerifyingKeyT<E>& vk = pk.vk;
  const std::pair<const char*, const G1Affine*> vk1[] = {
      {"vk alpha (G1)", &vk.alpha_g1}, {"vk beta (G1)", &vk.beta_g1}, {"vk delta (G1)", &vk.delta_g1}};
  for (auto [name, p] : vk1)
    if (!valid<E>(*p, true)) return std::string(name) + " is not a valid G1 point";
  const std::pair<const char*, const G2Affine*> vk2[] = {
      {"vk beta (G2)", &vk.beta_g2}, {"vk gamma (G2)", &vk.gamma_g2}, {"vk delta (G2)", &vk.delta_g2}};
  for (auto [name, p] : vk2)
    if (!valid<E>(*p, true)) return std::string(name) + " is not a valid G2 point";
  for (auto [name, q] : {std::pair{"IC", &vk.ic}, std::pair{"A", &pk.a}, std::pair{"B1", &pk.b_g1}})
    if (auto bad = check_query<E, G1Affine>(name, *q, subgroups)) return bad;
  if (auto bad = check_query<E, G2Affine>("B2", pk.b_g2, subgroups)) return bad;
  for (auto [name, q] : {std::pair{"L", &pk.l}, std::pair{"H", &pk.h}})
    if (auto bad = check_query<E, G1Affine>(name, *q, subgroups)) return bad;
  return std::nullopt;
}

template std::optional<std::string> find_invalid_key_point<Bls12_381>(const ProvingKeyT<Bls12_381>&, bool);
template std::optional<std::string> find_invalid_key_point<Bn254>(const ProvingKeyT<Bn254>&, bool);

}  // namespace snarkd::groth16
