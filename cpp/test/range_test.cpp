// The tests of the adaptive binary range coder (include/ackwire_range.hpp), held to the Rust
// coder's cases, vectors/coder/range_coder_cases.txt (written from rt/src/range.rs by
// `ACKWIRE_WRITE_CASES=1 cargo test -p ackwire-rt --lib range`): every `ok` case encodes to its
// bytes and decodes back to its values, every `err` case is refused with its kind at its offset,
// and decoding allocates nothing. Then what the cases leave to the API: probabilities that never
// reach either end, values wider than their field, seeded round trips and hostile streams
// (refused, or the one stream the encoder writes for what was read; ASan watches every read),
// the stream's offset in errors. The same cases as the TypeScript runtime's test/range.test.ts.
// Run by ../test.sh.

#include "ackwire_range.hpp"

#include "check_faults.hpp"
#include "count_new.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#ifndef ACKWIRE_VECTORS_DIR
#error "test.sh defines ACKWIRE_VECTORS_DIR, the repository's vectors/ folder"
#endif

using ackwire::range::BitTree;
using ackwire::range::Prob;
using ackwire::range::RangeDecoder;
using ackwire::range::RangeEncoder;
using ackwire::rt::ErrorKind;
using Bytes = std::vector<uint8_t>;

namespace {

/// One op of a case: `aC=B`, `sC=B` or `tC:W=V` (the value left out in `err` cases).
struct Op {
    char kind;
    size_t context;
    unsigned width;
    uint64_t value;
};

bool operator==(const Op& a, const Op& b) {
    return a.kind == b.kind && a.context == b.context && a.width == b.width && a.value == b.value;
}

std::vector<std::string> split(const std::string& text, char by) {
    std::vector<std::string> out;
    std::string part;
    std::istringstream in(text);
    while (std::getline(in, part, by)) {
        out.push_back(part);
    }
    return out;
}

Op parse_op(const std::string& text) {
    const size_t eq = text.find('=');
    const std::string head = text.substr(0, eq);
    Op op{head[0], 0, 1, 0};
    const size_t colon = head.find(':');
    const size_t digits = colon == std::string::npos ? std::string::npos : colon - 1;
    op.context = std::stoul(head.substr(1, digits));
    if (colon != std::string::npos) {
        op.width = static_cast<unsigned>(std::stoul(head.substr(colon + 1)));
    }
    if (eq != std::string::npos) {
        op.value = std::stoull(text.substr(eq + 1));
    }
    return op;
}

Bytes unhex(const std::string& text) {
    Bytes out;
    if (text == "-") {
        return out;
    }
    for (size_t i = 0; i + 1 < text.size(); i += 2) {
        out.push_back(static_cast<uint8_t>(std::stoul(text.substr(i, 2), nullptr, 16)));
    }
    return out;
}

/// How a failed CHECK_EQ prints an op (found by argument-dependent lookup).
std::string show(const Op& op) {
    return std::string(1, op.kind) + std::to_string(op.context) + ":" + std::to_string(op.width)
        + "=" + std::to_string(op.value);
}

/// The contexts' probabilities, and a tree per context, made when it is first used with every
/// slot at its context's probability as it is then (as rt/src/range/tests.rs's model does). Its
/// storage is allocated up front, so that making a tree while decoding allocates nothing.
struct Model {
    std::vector<Prob> probs;
    std::vector<std::optional<BitTree>> trees;

    explicit Model(const std::vector<uint16_t>& starts) : trees(starts.size()) {
        for (const uint16_t p : starts) {
            probs.push_back(*Prob::of(p));
        }
    }

    BitTree& tree(size_t c) {
        if (!trees[c]) {
            trees[c].emplace(probs[c]);
        }
        return *trees[c];
    }
};

Bytes encode(const std::vector<uint16_t>& starts, const std::vector<Op>& ops) {
    Model m(starts);
    RangeEncoder e;
    for (const Op& op : ops) {
        switch (op.kind) {
            case 'a':
                e.bit(m.probs[op.context], op.value == 1);
                break;
            case 's':
                e.bit_static(m.probs[op.context], op.value == 1);
                break;
            default:
                CHECK(e.bits(m.tree(op.context), op.width, op.value));
        }
    }
    Bytes out;
    e.finish(out);
    return out;
}

/// The values of `shape` read from `bytes`, the stream then finished; none on an error, which
/// is then `*error`. `*allocations` counts those made while decoding.
std::optional<std::vector<Op>> decode(const std::vector<uint16_t>& starts,
    const std::vector<Op>& shape, const Bytes& bytes,
    std::optional<ackwire::rt::DecodeError>* error, size_t* allocations) {
    Model m(starts);
    std::vector<Op> out = shape;
    const size_t before = g_allocations;
    RangeDecoder d(bytes.data(), bytes.size(), 0);
    bool ok = d.start();
    for (size_t i = 0; ok && i < shape.size(); ++i) {
        const Op& op = shape[i];
        bool b = false;
        switch (op.kind) {
            case 'a':
                ok = d.bit(m.probs[op.context], b);
                out[i].value = b ? 1 : 0;
                break;
            case 's':
                ok = d.bit_static(m.probs[op.context], b);
                out[i].value = b ? 1 : 0;
                break;
            default:
                ok = d.bits(m.tree(op.context), op.width, out[i].value);
        }
    }
    size_t len = 0;
    ok = ok && d.finish(len);
    *allocations = g_allocations - before;
    if (!ok) {
        *error = d.error();
        return std::nullopt;
    }
    CHECK_EQ(len, bytes.size());
    return out;
}

}  // namespace

TEST(the_cases_of_the_rust_coder_give_the_same_bytes_and_errors) {
    std::ifstream file(ACKWIRE_VECTORS_DIR "/coder/range_coder_cases.txt");
    CHECK(file.good());
    std::string line;
    size_t cases = 0;
    while (std::getline(file, line)) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        const std::vector<std::string> f = split(line, ' ');
        if (!CHECK(f.size() >= 5)) {
            continue;
        }
        std::vector<uint16_t> starts;
        for (const std::string& p : split(f[2], ',')) {
            starts.push_back(static_cast<uint16_t>(std::stoul(p)));
        }
        std::vector<Op> ops;
        if (f[3] != "-") {
            for (const std::string& o : split(f[3], ',')) {
                ops.push_back(parse_op(o));
            }
        }
        const Bytes bytes = unhex(f[4]);
        std::optional<ackwire::rt::DecodeError> error;
        size_t allocations = 0;
        const auto back = decode(starts, ops, bytes, &error, &allocations);
        CHECK_EQ(allocations, size_t{0});
        if (f[0] == "ok") {
            CHECK_EQ(encode(starts, ops), bytes);
            CHECK(back.has_value());
            if (back) {
                CHECK_EQ(*back, ops);
            }
        } else {
            CHECK_EQ(f[0], std::string("err"));
            CHECK(!back.has_value());
            if (error && CHECK(f.size() == 7)) {
                CHECK_EQ(std::string(ackwire::rt::kind_name(error->kind)), f[5]);
                CHECK_EQ(error->offset, static_cast<size_t>(std::stoul(f[6])));
            }
        }
        ++cases;
    }
    CHECK(cases >= 30);
}

TEST(a_probability_never_reaches_either_end) {
    for (const int start : {1, 2, 15, 16, 17, 2048, 4079, 4080, 4094, 4095}) {
        for (const bool bit : {false, true}) {
            Prob p = *Prob::of(static_cast<uint16_t>(start));
            bool inside = true;
            for (int i = 0; i < 1000; ++i) {
                p.adapt(bit);
                inside = inside && Prob::of(p.get()).has_value();
            }
            CHECK(inside);
        }
    }
    CHECK(!Prob::of(0).has_value());
    CHECK(!Prob::of(4096).has_value());
    CHECK(Prob::of(4095) == Prob::MAX);
    CHECK(Prob::of(1) == Prob::MIN);
    CHECK_EQ(Prob::HALF.get(), uint16_t{2048});
}

TEST(a_value_wider_than_its_field_is_refused) {
    RangeEncoder e;
    BitTree t(Prob::HALF);
    CHECK(!e.bits(t, 3, 8));
    CHECK_EQ(e.error().kind, ErrorKind::over_width);
    CHECK(!e.bits(t, 65, 0));
    CHECK_EQ(e.error().kind, ErrorKind::over_width);
    CHECK(e.bits(t, 3, 7));
    CHECK(e.bits(t, 64, UINT64_MAX));
    const std::vector<Prob> three(3, Prob::HALF);
    CHECK(!BitTree::from_slots(three.data(), three.size()).has_value());
    const std::vector<Prob> trained(ackwire::range::TREE_SLOTS, Prob::MAX);
    const auto tree = BitTree::from_slots(trained.data(), trained.size());
    CHECK(tree.has_value() && tree->slots()[5] == Prob::MAX);
}

TEST(random_cases_round_trip_and_hostile_streams_are_refused_or_canonical) {
    // xorshift32: any fixed sequence will do.
    uint32_t s = 0x9E3779B9u;
    const auto below = [&s](uint64_t n) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        return s % n;
    };
    size_t accepted = 0;
    for (int n = 0; n < 400; ++n) {
        std::vector<uint16_t> starts;
        for (int c = 0; c < 3; ++c) {
            starts.push_back(static_cast<uint16_t>(1 + below(4095)));
        }
        std::vector<Op> ops(below(40));
        for (Op& op : ops) {
            op.kind = "ast"[below(3)];
            op.context = below(3);
            op.width = op.kind == 't' ? static_cast<unsigned>(below(65)) : 1;
            const uint64_t random = (below(uint64_t{1} << 32) << 32) | below(uint64_t{1} << 32);
            op.value = op.kind != 't' ? below(2)
                : op.width == 64      ? random
                                      : random & ((uint64_t{1} << op.width) - 1);
        }
        const Bytes bytes = encode(starts, ops);
        std::optional<ackwire::rt::DecodeError> error;
        size_t allocations = 0;
        const auto back = decode(starts, ops, bytes, &error, &allocations);
        CHECK(back.has_value() && *back == ops);
        // The stream cut short, lengthened, changed in a byte, or random bytes: read as this
        // case's fields, it is refused at an offset within it, or it is the one stream the
        // encoder writes for what was read.
        Bytes changed = bytes;
        if (!changed.empty()) {
            changed[below(changed.size())] ^= static_cast<uint8_t>(1u << below(8));
        }
        Bytes longer = bytes;
        longer.push_back(static_cast<uint8_t>(below(256)));
        Bytes random(below(24));
        for (uint8_t& b : random) {
            b = static_cast<uint8_t>(below(256));
        }
        const size_t cut = std::min(bytes.size(), static_cast<size_t>(1 + below(3)));
        for (const Bytes& h :
            {Bytes(bytes.begin(), bytes.end() - static_cast<std::ptrdiff_t>(cut)), longer, changed,
                random}) {
            std::optional<ackwire::rt::DecodeError> refused;
            const auto read = decode(starts, ops, h, &refused, &allocations);
            CHECK_EQ(allocations, size_t{0});
            if (read) {
                ++accepted;
                CHECK_EQ(encode(starts, *read), h);
            } else {
                CHECK(refused.has_value() && refused->offset <= h.size());
            }
        }
    }
    CHECK(accepted > 0);
}

TEST(errors_carry_the_stream_offset) {
    // The stream starts at byte 10 of its frame.
    const Bytes ff(4, 0xFF);
    RangeDecoder high(ff.data(), ff.size(), 10);
    CHECK(!high.start());
    CHECK_FAULT(high.error(), ErrorKind::non_canonical, 14, std::nullopt);
    RangeDecoder empty(nullptr, 0, 10);
    CHECK(empty.start());
    bool ok = true;
    for (int i = 0; ok && i < 8; ++i) {
        bool b = false;
        ok = empty.bit_static(Prob::MIN, b);
    }
    CHECK(!ok);
    CHECK_FAULT(empty.error(), ErrorKind::truncated, 10, std::nullopt);
}

int main() { return check::run_all(); }
