// common/parallel.h — a tiny parallel-for for the CPU side (input generation, references, checks).
// The GPU machine has 16 cores; at 2^28 elements a single-threaded check would dominate the tests.
#pragma once
#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace course {

inline unsigned cpu_threads() {
    unsigned t = std::thread::hardware_concurrency();
    return t == 0 ? 1 : std::min(t, 32u);
}

// Calls body(begin, end, chunk_index) on contiguous chunks of [0, n), one chunk per thread.
// Small n runs inline so that tiny cases do not pay for thread start-up.
template <class Body> void parallel_chunks(size_t n, Body body, size_t min_per_thread = size_t(1) << 16) {
    unsigned threads = unsigned(std::min<size_t>(cpu_threads(), n / min_per_thread + 1));
    if (threads <= 1) {
        body(size_t(0), n, 0u);
        return;
    }
    std::vector<std::thread> pool;
    size_t per = (n + threads - 1) / threads;
    for (unsigned t = 0; t < threads; ++t) {
        size_t b = std::min(n, size_t(t) * per), e = std::min(n, b + per);
        pool.emplace_back([=] { body(b, e, t); });
    }
    for (auto& th : pool) th.join();
}

template <class Body> void parallel_for(size_t n, Body body) {
    parallel_chunks(n, [&](size_t b, size_t e, unsigned) {
        for (size_t i = b; i < e; ++i) body(i);
    });
}

}   // namespace course
