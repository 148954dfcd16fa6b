// The tests read their known-answer vector files with the library's JSON reader
// (src/snarkd/util/json.hpp), so there is one JSON parser in the project.
#pragma once
#include "snarkd/util/json.hpp"

namespace snarkd::test {

using Json = snarkd::Json;

}  // namespace snarkd::test
