// Runs f and returns the message of the DecodeError it throws; fails the test when f throws
// nothing (a reader that accepts bad input must not pass a "names the field" check).
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "snarkd/util/error.hpp"

namespace snarkd::test {

template <class F>
std::string decode_error(F f) {
  try {
    f();
  } catch (const DecodeError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no DecodeError";
  return "";
}

}  // namespace snarkd::test
