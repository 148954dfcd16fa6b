// Random seeds for tests: fresh each run, printed, pinned by SNARKD_TEST_SEED=<n>.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace snarkd::test {

// One seed per process; each test derives its own stream with a label so that pinning the
// process seed reproduces every test.
inline uint64_t process_seed() {
  static const uint64_t seed = [] {
    uint64_t s;
    if (const char* env = std::getenv("SNARKD_TEST_SEED")) {
      s = std::strtoull(env, nullptr, 0);
    } else {
      std::random_device rd;
      s = (uint64_t(rd()) << 32) ^ rd();
    }
    std::printf("[seed] SNARKD_TEST_SEED=%llu\n", static_cast<unsigned long long>(s));
    std::fflush(stdout);
    return s;
  }();
  return seed;
}

inline std::mt19937_64 rng(const std::string& label) {
  uint64_t h = process_seed();
  for (unsigned char c : label) h = (h ^ c) * 0x100000001b3ULL;  // FNV-style mix
  return std::mt19937_64(h);
}

// The running test's stream, labelled "<suite>.<test>" (a typed suite's name carries its type:
// "Fp2Test/1.FieldAxioms").
inline std::mt19937_64 current_test_rng() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return rng(std::string(info->test_suite_name()) + "." + info->name());
}

}  // namespace snarkd::test
