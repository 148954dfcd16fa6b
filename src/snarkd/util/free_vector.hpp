// Gives a vector's memory back at once (clear() keeps the capacity): the setup and the .params
// writer drop multi-GB sections this way as soon as they are done with them.
#pragma once
#include <vector>

namespace snarkd {

template <class T>
void free_vector(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

}  // namespace snarkd
