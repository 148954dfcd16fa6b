// Version, errors and field-element formats of the C API.
#include <cstdlib>
#include <new>

#include "snarkd/capi/internal.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::capi {
namespace {

thread_local std::string t_last_error;

}  // namespace

void set_last_error(const std::string& message) noexcept {
  try {
    t_last_error = message;
  } catch (...) {
    t_last_error.clear();  // out of memory for the message: the status still says what happened
  }
}

snarkd_status status_of_current_exception() noexcept {
  snarkd_status s = SNARKD_ERR_INTERNAL;
  try {
    throw;
  } catch (const ApiError& e) {
    s = e.status();
    set_last_error(e.what());
  } catch (const engine::Busy& e) {
    s = SNARKD_ERR_BUSY;
    set_last_error(e.what());
  } catch (const std::invalid_argument& e) {  // InvalidArgument, UnsatisfiedWitness
    s = SNARKD_ERR_INVALID_ARGUMENT;
    set_last_error(e.what());
  } catch (const DecodeError& e) {
    s = SNARKD_ERR_FILE;
    set_last_error(e.what());
  } catch (const std::bad_alloc&) {
    s = SNARKD_ERR_NO_MEMORY;
    set_last_error("out of memory");
  } catch (const std::exception& e) {
    set_last_error(std::string("internal error: ") + e.what());
  } catch (...) {
    set_last_error("internal error: unknown exception");
  }
  return s;
}

void require_format(int32_t format, const std::string& what) {
  require(format == SNARKD_FR_MONTGOMERY || format == SNARKD_FR_CANONICAL_LE,
          what + " is " + std::to_string(format) + " (SNARKD_FR_MONTGOMERY or SNARKD_FR_CANONICAL_LE)");
}

engine::Engine& engine_of(snarkd_engine* e) {
  require(e != nullptr && e->engine != nullptr, "engine is a null pointer");
  return *e->engine;
}

}  // namespace snarkd::capi

using namespace snarkd::capi;  // NOLINT: C entry points

extern "C" {

uint32_t snarkd_api_version(void) { return SNARKD_API_VERSION; }

const char* snarkd_version_string(void) { return SNARKD_VERSION_STRING; }

const char* snarkd_last_error(void) { return t_last_error.c_str(); }

const char* snarkd_status_name(snarkd_status status) {
  switch (status) {
    case SNARKD_OK: return "SNARKD_OK";
    case SNARKD_ERR_INVALID_ARGUMENT: return "SNARKD_ERR_INVALID_ARGUMENT";
    case SNARKD_ERR_NOT_FOUND: return "SNARKD_ERR_NOT_FOUND";
    case SNARKD_ERR_FILE: return "SNARKD_ERR_FILE";
    case SNARKD_ERR_BUSY: return "SNARKD_ERR_BUSY";
    case SNARKD_ERR_TIMEOUT: return "SNARKD_ERR_TIMEOUT";
    case SNARKD_ERR_UNSUPPORTED: return "SNARKD_ERR_UNSUPPORTED";
    case SNARKD_ERR_NO_MEMORY: return "SNARKD_ERR_NO_MEMORY";
    case SNARKD_ERR_INTERNAL: return "SNARKD_ERR_INTERNAL";
  }
  return "unknown status";
}

void snarkd_free(void* p) { std::free(p); }

}  // extern "C"
