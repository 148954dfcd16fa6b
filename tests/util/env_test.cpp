// snarkd::env_u64: the fallback when unset or empty, the value in range, and InvalidArgument
// naming the variable for a typo, a sign, trailing text or a value out of range.
#include "snarkd/util/env.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

constexpr const char* kVar = "SNARKD_TEST_ENV_U64";

TEST(EnvU64, FallbackValueAndRefusals) {
  unsetenv(kVar);
  EXPECT_EQ(snarkd::env_u64(kVar, 7), 7u);
  setenv(kVar, "", 1);
  EXPECT_EQ(snarkd::env_u64(kVar, 7, 1, 9), 7u);
  setenv(kVar, "600", 1);
  EXPECT_EQ(snarkd::env_u64(kVar, 7), 600u);
  EXPECT_EQ(snarkd::env_u64(kVar, 7, 600, 600), 600u);
  for (const char* bad : {"6OO", "-1", " 5", "+5", "5 ", "12x", "601"}) {
    setenv(kVar, bad, 1);
    try {
      snarkd::env_u64(kVar, 7, 0, 600);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const snarkd::InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(kVar), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("[0, 600]"), std::string::npos) << e.what();
    }
  }
  unsetenv(kVar);
}

}  // namespace
