#include "snarkd/groth16/snarkjs_json.hpp"

#include <cctype>

#include "snarkd/groth16/verifier.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::groth16 {

namespace {

constexpr const char* kProtocol = "groth16";

// ---- writing ----

template <class F>
Json dec(const F& x) {
  return Json::string(to_decimal(x));
}
template <class Fp2>
Json fp2_json(const Fp2& x) {
  return Json::array({dec(x.c0), dec(x.c1)});
}

template <class E>
Json g1_json(const typename E::G1Affine& p) {
  using Fp = typename E::Fp;
  if (p.is_infinity()) return Json::array({dec(Fp::zero()), dec(Fp::one()), dec(Fp::zero())});
  return Json::array({dec(p.x), dec(p.y), dec(Fp::one())});
}
template <class E>
Json g2_json(const typename E::G2Affine& p) {
  const auto zero = E::Fp2::zero(), one = E::Fp2::one();
  if (p.is_infinity()) return Json::array({fp2_json(zero), fp2_json(one), fp2_json(zero)});
  return Json::array({fp2_json(p.x), fp2_json(p.y), fp2_json(one)});
}
template <class Fp6>
Json fp6_json(const Fp6& x) {
  return Json::array({fp2_json(x.c0), fp2_json(x.c1), fp2_json(x.c2)});
}
template <class Fp12>
Json gt_json(const Fp12& x) {
  return Json::array({fp6_json(x.c0), fp6_json(x.c1)});
}

// ---- reading: a JSON value with its name for messages ("<path>: pi_b[1][0]") ----

class Node {
 public:
  Node(const Json& j, std::string path, std::string field) : j_(j), path_(std::move(path)), field_(std::move(field)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw DecodeError(path_ + ": " + (field_.empty() ? "" : field_ + ": ") + what);
  }
  const Json& json() const { return j_; }
  bool has(const char* key) const { return j_.find(key) != nullptr; }
  Node member(const char* key) const {
    if (!j_.is_object()) fail(std::string("expected an object, found ") + json_kind_name(j_.kind()));
    const Json* v = j_.find(key);
    if (!v) fail(std::string("missing field \"") + key + "\"");
    return Node(*v, path_, field_.empty() ? key : field_ + "." + key);
  }
  Node element(size_t i) const { return Node(j_[i], path_, field_ + "[" + std::to_string(i) + "]"); }
  // This value must be an array of exactly n elements.
  const Node& array(size_t n) const {
    if (!j_.is_array()) fail(std::string("expected an array, found ") + json_kind_name(j_.kind()));
    if (j_.size() != n)
      fail("expected an array of " + std::to_string(n) + " elements, found " + std::to_string(j_.size()));
    return *this;
  }
  const std::string& string() const {
    if (!j_.is_string()) fail(std::string("expected a decimal string, found ") + json_kind_name(j_.kind()));
    return j_.str();
  }
  template <class F>
  F field(const char* name) const {
    try {
      return field_from_decimal<F>(string(), name);
    } catch (const DecodeError& e) {
      if (j_.is_string()) fail(e.what());
      throw;
    }
  }
  void expect_string(const char* want) const {
    if (string() != want) fail("is \"" + string() + "\", expected \"" + want + "\"");
  }

 private:
  const Json& j_;
  std::string path_, field_;
};

template <class E>
typename E::Fp fp_node(const Node& n) {
  return n.field<typename E::Fp>("Fp");
}
template <class E>
typename E::Fp2 fp2_node(const Node& n) {
  n.array(2);
  return {fp_node<E>(n.element(0)), fp_node<E>(n.element(1))};
}

// Shared by G1 and G2: z = 1 gives (x, y), z = 0 with (x, y) = (0, 1) gives infinity.
template <class E, class Point, class Coord>
Point point_node(const Node& n, Coord (*coord)(const Node&)) {
  n.array(3);
  const Coord x = coord(n.element(0)), y = coord(n.element(1)), z = coord(n.element(2));
  if (z == Coord::zero()) {
    if (x != Coord::zero() || y != Coord::one()) n.fail("point at infinity must be written as (0, 1, 0)");
    return Point::infinity();
  }
  if (z != Coord::one()) n.fail("z coordinate must be 1 (affine) or 0 (infinity)");
  const Point p{x, y};
  if (p.is_infinity() || !p.is_on_curve()) n.fail("point is not on the curve");
  if (!E::in_subgroup(p)) n.fail("point is not in the prime-order subgroup");
  return p;
}
template <class E>
typename E::G1Affine g1_node(const Node& n) {
  return point_node<E, typename E::G1Affine>(n, &fp_node<E>);
}
template <class E>
typename E::G2Affine g2_node(const Node& n) {
  return point_node<E, typename E::G2Affine>(n, &fp2_node<E>);
}

template <class E>
typename E::Fp6 fp6_node(const Node& n) {
  n.array(3);
  return {fp2_node<E>(n.element(0)), fp2_node<E>(n.element(1)), fp2_node<E>(n.element(2))};
}
template <class E>
typename E::Fp12 gt_node(const Node& n) {
  n.array(2);
  return {fp6_node<E>(n.element(0)), fp6_node<E>(n.element(1))};
}

// A curve name as snarkjs's getCurveFromName compares them: letters and digits only, any case.
std::string normalized_curve_name(const std::string& s) {
  std::string out;
  for (char ch : s)
    if (std::isalnum(static_cast<unsigned char>(ch))) out += char(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

// Whether `name` names E in snarkjs's spelling or one of the others it accepts.
template <class E>
bool names_curve(const std::string& name) {
  const std::string n = normalized_curve_name(name);
  for (const char* alias : E::kSnarkjsAliases)
    if (n == alias) return true;
  return false;
}

template <class E>
void check_tags(const Node& root, bool required) {
  if (required || root.has("protocol")) root.member("protocol").expect_string(kProtocol);
  if (required || root.has("curve")) {
    const Node curve = root.member("curve");
    if (!names_curve<E>(curve.string())) curve.expect_string(E::kSnarkjsName);
  }
}

}  // namespace

template <class E>
Json proof_to_snarkjs_json(const ProofT<E>& proof) {
  return Json::object({{"pi_a", g1_json<E>(proof.a)},
                       {"pi_b", g2_json<E>(proof.b)},
                       {"pi_c", g1_json<E>(proof.c)},
                       {"protocol", Json::string(kProtocol)},
                       {"curve", Json::string(E::kSnarkjsName)}});
}

template <class E>
Json public_to_snarkjs_json(r1cs::Values<typename E::Fr> inputs) {
  Json a = Json::array();
  for (const auto& x : inputs) a.push_back(Json::string(to_decimal(x)));
  return a;
}

template <class E>
Json vk_to_snarkjs_json(const VerifyingKeyT<E>& vk) {
  if (vk.ic.empty()) throw InvalidArgument("vk_to_snarkjs_json: ic is empty (it needs the ONE point)");
  Json ic = Json::array();
  for (const auto& p : vk.ic) ic.push_back(g1_json<E>(p));
  return Json::object({{"protocol", Json::string(kProtocol)},
                       {"curve", Json::string(E::kSnarkjsName)},
                       {"nPublic", Json::number(vk.num_public())},
                       {"vk_alpha_1", g1_json<E>(vk.alpha_g1)},
                       {"vk_beta_2", g2_json<E>(vk.beta_g2)},
                       {"vk_gamma_2", g2_json<E>(vk.gamma_g2)},
                       {"vk_delta_2", g2_json<E>(vk.delta_g2)},
                       {"vk_alphabeta_12", gt_json(E::pair(vk.alpha_g1, vk.beta_g2))},
                       {"IC", std::move(ic)}});
}

template <class E>
ProofT<E> proof_from_snarkjs_json(const Json& j, const std::string& where) {
  const Node root(j, where, "");
  check_tags<E>(root, false);
  return {g1_node<E>(root.member("pi_a")), g2_node<E>(root.member("pi_b")), g1_node<E>(root.member("pi_c"))};
}

template <class E>
std::vector<typename E::Fr> public_from_snarkjs_json(const Json& j, const std::string& where) {
  const Node root(j, where, "public inputs");
  if (!j.is_array()) root.fail(std::string("expected an array, found ") + json_kind_name(j.kind()));
  std::vector<typename E::Fr> out;
  out.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    std::string name = "[";  // built by appends: "[" + to_string(i) trips a GCC 12 -Wrestrict false positive
    name += std::to_string(i);
    name += ']';
    out.push_back(Node(j[i], where, name).field<typename E::Fr>("Fr"));
  }
  return out;
}

template <class E>
VerifyingKeyT<E> vk_from_snarkjs_json(const Json& j, const std::string& where) {
  const Node root(j, where, "");
  check_tags<E>(root, true);
  VerifyingKeyT<E> vk;
  vk.alpha_g1 = g1_node<E>(root.member("vk_alpha_1"));
  vk.beta_g2 = g2_node<E>(root.member("vk_beta_2"));
  vk.gamma_g2 = g2_node<E>(root.member("vk_gamma_2"));
  vk.delta_g2 = g2_node<E>(root.member("vk_delta_2"));
  const Node ic = root.member("IC");
  if (!ic.json().is_array() || ic.json().size() == 0) ic.fail("expected a non-empty array of G1 points");
  const Node n_public = root.member("nPublic");
  uint64_t np = 0;
  try {
    np = n_public.json().as_u64();
  } catch (const DecodeError& e) {
    n_public.fail(e.what());
  }
  if (np + 1 != ic.json().size())
    n_public.fail(std::to_string(np) + " does not match IC, which has " + std::to_string(ic.json().size()) +
                  " points (nPublic + 1 expected)");
  for (size_t i = 0; i < ic.json().size(); ++i) vk.ic.push_back(g1_node<E>(ic.element(i)));
  if (root.has("vk_alphabeta_12")) {
    const Node ab = root.member("vk_alphabeta_12");
    if (gt_node<E>(ab) != E::pair(vk.alpha_g1, vk.beta_g2)) ab.fail("is not e(vk_alpha_1, vk_beta_2)");
  }
  if (const std::string d = find_vk_defect(vk); !d.empty()) root.fail("degenerate verifying key: " + d);
  return vk;
}

CurveId snarkjs_json_curve(const Json& j, const std::string& where) {
  const Node curve = Node(j, where, "").member("curve");
  const std::string& name = curve.string();
  if (const auto id = find_curve([&](auto e) { return names_curve<decltype(e)>(name); })) return *id;
  curve.fail("is \"" + name + "\", not a curve snarkd proves over (\"bls12381\" or \"bn128\")");
}

template <class E>
void write_snarkjs_proof(const std::string& path, const ProofT<E>& proof) {
  proof_to_snarkjs_json(proof).save(path);
}
template <class E>
void write_snarkjs_public(const std::string& path, r1cs::Values<typename E::Fr> inputs) {
  public_to_snarkjs_json<E>(inputs).save(path);
}
template <class E>
void write_snarkjs_vk(const std::string& path, const VerifyingKeyT<E>& vk) {
  vk_to_snarkjs_json(vk).save(path);
}

template <class E>
ProofT<E> read_snarkjs_proof(const std::string& path) {
  return proof_from_snarkjs_json<E>(Json::load(path), path);
}
template <class E>
std::vector<typename E::Fr> read_snarkjs_public(const std::string& path) {
  return public_from_snarkjs_json<E>(Json::load(path), path);
}
template <class E>
VerifyingKeyT<E> read_snarkjs_vk(const std::string& path) {
  return vk_from_snarkjs_json<E>(Json::load(path), path);
}

#define SNARKD_SNARKJS_JSON_INSTANTIATE(E)                                                          \
  template Json proof_to_snarkjs_json<E>(const ProofT<E>&);                                         \
  template Json public_to_snarkjs_json<E>(r1cs::Values<typename E::Fr>);                            \
  template Json vk_to_snarkjs_json<E>(const VerifyingKeyT<E>&);                                     \
  template ProofT<E> proof_from_snarkjs_json<E>(const Json&, const std::string&);                   \
  template std::vector<typename E::Fr> public_from_snarkjs_json<E>(const Json&, const std::string&); \
  template VerifyingKeyT<E> vk_from_snarkjs_json<E>(const Json&, const std::string&);               \
  template void write_snarkjs_proof<E>(const std::string&, const ProofT<E>&);                       \
  template void write_snarkjs_public<E>(const std::string&, r1cs::Values<typename E::Fr>);          \
  template void write_snarkjs_vk<E>(const std::string&, const VerifyingKeyT<E>&);                   \
  template ProofT<E> read_snarkjs_proof<E>(const std::string&);                                     \
  template std::vector<typename E::Fr> read_snarkjs_public<E>(const std::string&);                  \
  template VerifyingKeyT<E> read_snarkjs_vk<E>(const std::string&);
SNARKD_SNARKJS_JSON_INSTANTIATE(Bls12_381)
SNARKD_SNARKJS_JSON_INSTANTIATE(Bn254)
#undef SNARKD_SNARKJS_JSON_INSTANTIATE

}  // namespace snarkd::groth16
