// The C++ AckedDecoder's whole delivery (ackwire_acked.hpp over reference.hpp, the binding
// `ackwire gen --lang cpp` writes for the reference protocol's `state Reference`): the cube
// scene's acked frames that `cargo bench -p ackwire-bench --bench deliver` replays through the
// Rust AckedDecoder (bench/benches/deliver.rs: seed 1, no loss, the join's keyframe first,
// then two POSE_REFRESH cycles), replayed through a fresh C++ decoder: decoding each frame,
// applying it onto its base, the report against the last frame shown and the check, the work
// the Rust bench times. Built and run by run.sh, which writes the frames with
// `cargo run -p ackwire-bench --example deliver_bench_frames`.
//
//   deliver FRAMES [--samples N] [--ms M]
//
// FRAMES holds one frame a line, in hex. The bench first checks, and fails loudly otherwise,
// that a fresh decoder shows every frame (none stale, undecodable, inapplicable or onto an
// unknown base) and that every check the frames carry matches. Then a sample is as many
// replays (a fresh decoder taking every frame) as take about M ms (20 by default), N samples
// (15 by default); it prints the median and the range in nanoseconds per entity of the world
// per frame (the entities are the join keyframe's changes: 901 for the cubes), the unit of
// the Rust bench (1e9 over criterion's `thrpt`).

#include "reference.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

using Decoder = ackwire::acked::AckedDecoder<ackwire::reference::Reference>;
using Kind = ackwire::acked::Delivery<ackwire::protocol::Event>::Kind;

[[noreturn]] void die(const std::string& why) {
    std::fprintf(stderr, "deliver: %s\n", why.c_str());
    std::exit(1);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// A fresh decoder takes every frame; returns how many it showed (the compiler cannot drop it).
size_t deliver_all(const std::vector<std::vector<uint8_t>>& frames) {
    Decoder decoder;
    size_t shown = 0;
    for (const auto& f : frames) {
        shown += decoder.deliver(f).kind == Kind::shown ? 1u : 0u;
    }
    return shown;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        die("usage: deliver FRAMES [--samples N] [--ms M]");
    }
    size_t samples = 15;
    double sample_ms = 20.0;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--samples") == 0) {
            samples = static_cast<size_t>(std::max(1L, std::strtol(argv[i + 1], nullptr, 10)));
        } else if (std::strcmp(argv[i], "--ms") == 0) {
            sample_ms = std::max(1.0, std::strtod(argv[i + 1], nullptr));
        } else {
            die(std::string("unknown argument ") + argv[i]);
        }
    }
    std::ifstream in(argv[1]);
    if (!in) {
        die(std::string("cannot read ") + argv[1]);
    }
    std::vector<std::vector<uint8_t>> frames;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) {
            continue;
        }
        std::vector<uint8_t> bytes;
        std::string why;
        if (!ackwire::rt::from_hex(line, bytes, why)) {
            die("a frame is not hex: " + why);
        }
        frames.push_back(std::move(bytes));
    }
    if (frames.empty()) {
        die("no frames");
    }
    // The checks: every frame shown, every check matched.
    size_t entities = 0;
    {
        Decoder decoder;
        for (size_t i = 0; i < frames.size(); ++i) {
            const auto d = decoder.deliver(frames[i]);
            if (d.kind != Kind::shown) {
                die("frame " + std::to_string(i) + " is not shown");
            }
            if (i == 0) {
                entities = d.report->changed.size();
            }
        }
        if (decoder.counters().checks_failed != 0 || decoder.counters().checks_passed == 0) {
            die("the checks do not all match");
        }
        std::printf("%zu frames, %zu entities, %llu checks matched, state hash %08x\n",
            frames.size(), entities,
            static_cast<unsigned long long>(decoder.counters().checks_passed),
            decoder.state_hash());
    }
    using Clock = std::chrono::steady_clock;
    const auto time_ns = [&](size_t passes) {
        const auto start = Clock::now();
        size_t acc = 0;
        for (size_t p = 0; p < passes; ++p) {
            acc += deliver_all(frames);
        }
        const auto ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
        if (acc != passes * frames.size()) {
            die("a replay did not show every frame");
        }
        return ns;
    };
    (void)time_ns(1);
    size_t passes = 1;
    double ns = time_ns(passes);
    while (ns < sample_ms * 1e5 && passes < (size_t{1} << 20)) {
        passes *= 4;
        ns = time_ns(passes);
    }
    passes = std::max<size_t>(
        1, static_cast<size_t>(static_cast<double>(passes) * sample_ms * 1e6 / ns));
    std::vector<double> per;
    for (size_t k = 0; k < samples; ++k) {
        per.push_back(time_ns(passes) / static_cast<double>(passes)
            / static_cast<double>(frames.size()) / static_cast<double>(entities));
    }
    const auto [lo, hi] = std::minmax_element(per.begin(), per.end());
    std::printf("C++ AckedDecoder delivery: %.2f ns per entity per frame (median of %zu samples "
                "of %zu replays; range %.2f to %.2f)\n",
        median(per), samples, passes, *lo, *hi);
    return 0;
}
