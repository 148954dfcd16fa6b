// RAII wrappers over the CUDA runtime, and the error check every CUDA call goes through.
//
// Rules these types encode (lessons of cuzk's GPU-lock story, docs/ARCHITECTURE.md):
//   - the device index is explicit: DeviceGuard sets it and restores the previous one;
//   - streams are non-blocking (never implicitly synchronised with the legacy default stream);
//   - allocation happens in constructors only (set-up time); the stream-ordered kernels of this
//     backend take caller-provided buffers and never allocate, free or synchronise the device.
// Every failure throws snarkd::cuda::Error carrying file:line, the call and CUDA's error string.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace snarkd::cuda {

class Error : public std::runtime_error {
 public:
  Error(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

// Throws Error("file:line: call: cudaErrorName: description") unless code == cudaSuccess.
void check(cudaError_t code, const char* call, const char* file, int line);

// Number of visible devices; 0 (not an error) when there is no driver or no GPU, so tests can
// skip cleanly on GPU-less CI machines.
int device_count();

}  // namespace snarkd::cuda

#define SNARKD_CUDA_CHECK(call) ::snarkd::cuda::check((call), #call, __FILE__, __LINE__)
// After a kernel launch: reports launch-configuration errors at the launch site. It does not
// synchronise (cudaGetLastError only reads the host-side launch status).
#define SNARKD_CUDA_CHECK_LAUNCH() SNARKD_CUDA_CHECK(cudaGetLastError())

namespace snarkd::cuda {

// Makes `device` current for the guard's lifetime, restoring the previous device after.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    SNARKD_CUDA_CHECK(cudaGetDevice(&previous_));
    SNARKD_CUDA_CHECK(cudaSetDevice(device));
  }
  ~DeviceGuard() { cudaSetDevice(previous_); }  // no throw from a destructor
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
};

// A non-blocking stream on the current device.
class Stream {
 public:
  Stream() { SNARKD_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (s_) cudaStreamDestroy(s_);
  }
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept {
    std::swap(s_, o.s_);
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const { return s_; }
  operator cudaStream_t() const { return s_; }
  // Blocks the calling host thread until this stream's work is done (this stream only).
  void synchronize() const { SNARKD_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

// An event; timing is off unless asked for (timing events cost more to record).
class Event {
 public:
  explicit Event(bool timing = false) {
    SNARKD_CUDA_CHECK(cudaEventCreateWithFlags(&e_, timing ? cudaEventDefault : cudaEventDisableTiming));
  }
  // An event whose synchronize() sleeps instead of spinning: for host threads that wait
  // seconds for a partition's kernels (several workers spinning would each burn a core).
  static Event blocking() {
    Event e(0u);
    SNARKD_CUDA_CHECK(cudaEventCreateWithFlags(&e.e_, cudaEventDisableTiming | cudaEventBlockingSync));
    return e;
  }
  ~Event() {
    if (e_) cudaEventDestroy(e_);
  }
  Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Event& operator=(Event&& o) noexcept {
    std::swap(e_, o.e_);
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) { SNARKD_CUDA_CHECK(cudaEventRecord(e_, s)); }
  // Makes stream s wait for this event on the device (no host block).
  void wait_in(cudaStream_t s) const { SNARKD_CUDA_CHECK(cudaStreamWaitEvent(s, e_, 0)); }
  void synchronize() const { SNARKD_CUDA_CHECK(cudaEventSynchronize(e_)); }
  // Milliseconds from `start` to this event; both must be timing events and complete.
  float elapsed_ms_since(const Event& start) const {
    float ms = 0;
    SNARKD_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  explicit Event(unsigned) {}  // empty, for the factories
  cudaEvent_t e_ = nullptr;
};

// n elements of T in device memory on the current device (cudaMalloc: set-up time only).
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t n) : n_(n) {
    if (n) SNARKD_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)));
  }
  ~DeviceBuffer() {
    if (p_) cudaFree(p_);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() const { return p_; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(T); }

  // Stream-ordered copies of `count` elements (count ≤ size()); the host side must stay valid
  // until the stream reaches the copy (pinned memory makes them truly asynchronous).
  void upload(const T* host, size_t count, cudaStream_t s) {
    SNARKD_CUDA_CHECK(cudaMemcpyAsync(p_, host, count * sizeof(T), cudaMemcpyHostToDevice, s));
  }
  void download(T* host, size_t count, cudaStream_t s) const {
    SNARKD_CUDA_CHECK(cudaMemcpyAsync(host, p_, count * sizeof(T), cudaMemcpyDeviceToHost, s));
  }
  // Byte fill, e.g. 0xFF to poison outputs in tests.
  void fill_bytes(int value, cudaStream_t s) { SNARKD_CUDA_CHECK(cudaMemsetAsync(p_, value, bytes(), s)); }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};

// n elements of T in page-locked host memory (fast, truly asynchronous transfers).
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(size_t n) : n_(n) {
    if (n) SNARKD_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&p_), n * sizeof(T)));
  }
  ~PinnedBuffer() {
    if (p_) cudaFreeHost(p_);
  }
  PinnedBuffer(PinnedBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  T* data() const { return p_; }
  size_t size() const { return n_; }
  T& operator[](size_t i) const { return p_[i]; }
  T* begin() const { return p_; }
  T* end() const { return p_ + n_; }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};

}  // namespace snarkd::cuda
