// The tests of the coded values of kind 13's body (include/ackwire_coded.hpp), held to the Rust
// runtime's cases, vectors/coder/coded_cases.txt (written from rt/src/coded.rs). Then what the
// cases leave to the API: the model's slots against the spec's layout spelt out bit by bit, the
// floor, extrapolation's rounding and saturation, zigzag, seeded round trips (decoding
// allocating nothing), the floor's padding, and hostile bodies (refused with an offset inside
// them, or the one body the encoder writes for what was read; ASan watches every read). The same
// checks as the C# runtime's test/CodedTests.cs. Run by ../test.sh.

#include "ackwire_coded.hpp"

#include "check_faults.hpp"
#include "count_new.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#ifndef ACKWIRE_VECTORS_DIR
#error "test.sh defines ACKWIRE_VECTORS_DIR, the repository's vectors/ folder"
#endif

using ackwire::coded::CodedDecoder;
using ackwire::coded::CodedEncoder;
using ackwire::coded::extrapolate;
using ackwire::coded::floor_len;
using ackwire::coded::model_slots;
using ackwire::range::Prob;
using ackwire::range::RangeEncoder;
using ackwire::rt::DecodeError;
using ackwire::rt::ErrorKind;
using Bytes = std::vector<uint8_t>;
using Table = std::vector<Prob>;

namespace {

/// One value of a body, as the cases write it: `uAT:W=V` the unsigned V under the model of W
/// bits whose slots start at AT, `iAT:W=V` the signed V (its bits in `value`), coded as its
/// zigzag code.
struct Op {
    bool is_signed;
    size_t at;
    unsigned w;
    uint64_t value;

    /// The value into `sink`.
    bool put(ackwire::coded::CodedSink& sink) const {
        return is_signed ? sink.signed_value(at, w, ackwire::rt::to_signed(value))
                         : sink.value(at, w, value);
    }
};

bool operator==(const Op& a, const Op& b) {
    return a.is_signed == b.is_signed && a.at == b.at && a.w == b.w && a.value == b.value;
}

/// How a failed CHECK_EQ prints an op (found by argument-dependent lookup).
std::string show(const Op& op) {
    return std::string(op.is_signed ? "i" : "u") + std::to_string(op.at) + ":"
        + std::to_string(op.w) + "="
        + (op.is_signed ? std::to_string(ackwire::rt::to_signed(op.value))
                        : std::to_string(op.value));
}

/// xorshift64: any fixed sequence will do.
struct Rng {
    uint64_t s;

    uint64_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }

    size_t below(size_t n) { return static_cast<size_t>(next() % n); }
};

template <typename F>
Table table(size_t slots, F p) {
    Table t;
    for (size_t i = 0; i < slots; ++i) {
        t.push_back(*Prob::of(static_cast<uint16_t>(p(i))));
    }
    return t;
}

Table even(size_t slots) {
    return table(slots, [](size_t) { return 2048; });
}

uint8_t width(size_t w) { return static_cast<uint8_t>(w); }

/// The body (`u16 coded_len` and the stream) of `ops`, coded under a copy of `tables`.
Bytes encode(const Table& tables, const std::vector<Op>& ops, size_t changed_count) {
    Table probs = tables;
    CodedEncoder e(probs.data(), probs.size());
    for (const Op& op : ops) {
        CHECK(op.put(e));
    }
    Bytes out;
    CHECK(e.finish(changed_count, out));
    return out;
}

/// Reads the values of `shape` into `back` from the body at byte `offset` of `frame`, under
/// `probs` (which adapt), then finishes it; none on an error, which is then `*error`. Returns
/// the offset after the body.
std::optional<size_t> decode_into(Table& probs, const std::vector<Op>& shape, const Bytes& frame,
    size_t offset, size_t changed_count, std::vector<Op>& back, std::optional<DecodeError>* error) {
    ackwire::rt::Reader r(frame.data(), frame.size());
    // Not a CHECK, which allocates its text.
    const uint8_t* skipped = nullptr;
    if (!r.take(offset, skipped)) {
        *error = r.error();
        return std::nullopt;
    }
    CodedDecoder d(probs.data(), probs.size());
    bool ok = d.start(r, changed_count);
    for (size_t i = 0; ok && i < shape.size(); ++i) {
        if (shape[i].is_signed) {
            int64_t v = 0;
            ok = d.signed_value(shape[i].at, shape[i].w, v);
            back[i].value = static_cast<uint64_t>(v);
        } else {
            ok = d.value(shape[i].at, shape[i].w, back[i].value);
        }
    }
    ok = ok && d.finish();
    if (!ok) {
        *error = d.error();
        return std::nullopt;
    }
    return r.pos();
}

/// The values of `shape` read from `body` under a copy of `tables`, the body then finished and
/// its end checked; none on an error, which is then `*error`.
std::optional<std::vector<Op>> decode(const Table& tables, const std::vector<Op>& shape,
    const Bytes& body, size_t changed_count, std::optional<DecodeError>* error) {
    Table probs = tables;
    std::vector<Op> back = shape;
    const auto end = decode_into(probs, shape, body, 0, changed_count, back, error);
    if (!end) {
        return std::nullopt;
    }
    CHECK_EQ(*end, body.size());
    return back;
}

/// The error `body` is refused with, read as `shape`.
DecodeError refused(const Table& tables, const std::vector<Op>& shape, const Bytes& body,
    size_t changed_count) {
    std::optional<DecodeError> error;
    CHECK(!decode(tables, shape, body, changed_count, &error).has_value());
    return error.value_or(DecodeError(ErrorKind::truncated, 999999));
}

std::string hex(const Bytes& bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (const uint8_t b : bytes) {
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

/// The spec's layout of a model of `w` bits, slot by slot (CODE-8): the length tree's nodes,
/// then each length's tree and position slots, as names.
std::vector<std::string> layout(unsigned w) {
    unsigned k = 0;
    while ((w >> k) != 0) {
        ++k;
    }
    std::vector<std::string> slots;
    for (unsigned node = 1; node < (1u << k); ++node) {
        slots.push_back("len" + std::to_string(node));
    }
    for (unsigned l = 2; l <= w; ++l) {
        const unsigned t = std::min(l - 1, 3u);
        for (unsigned node = 1; node < (1u << t); ++node) {
            slots.push_back("L" + std::to_string(l) + ".tree" + std::to_string(node));
        }
        for (unsigned j = 0; j + 1 + t < l; ++j) {
            slots.push_back("L" + std::to_string(l) + ".pos" + std::to_string(j));
        }
    }
    return slots;
}

size_t index_of(const std::vector<std::string>& slots, const std::string& name) {
    const auto it = std::find(slots.begin(), slots.end(), name);
    CHECK(it != slots.end());
    return static_cast<size_t>(it - slots.begin());
}

/// The (slot, bit) pairs coding `v` as the spec says, bit by bit, with the spec's layout looked
/// up by name: what CodedEncoder codes.
std::vector<std::pair<size_t, bool>> spec_bits(size_t at, unsigned w, uint64_t v) {
    const std::vector<std::string> slots = layout(w);
    std::vector<std::pair<size_t, bool>> bits;
    unsigned k = 0;
    while ((w >> k) != 0) {
        ++k;
    }
    unsigned l = 0;
    while (l < 64 && (v >> l) != 0) {
        ++l;
    }
    unsigned m = 1;
    for (unsigned i = k; i-- > 0;) {
        const bool b = ((l >> i) & 1u) == 1;
        bits.emplace_back(at + index_of(slots, "len" + std::to_string(m)), b);
        m = 2 * m + (b ? 1 : 0);
    }
    if (l < 2) {
        return bits;
    }
    const unsigned t = std::min(l - 1, 3u);
    m = 1;
    // The L - 1 bits below the highest one bit, most significant first.
    for (unsigned i = 0; i + 1 < l; ++i) {
        const bool b = ((v >> (l - 2 - i)) & 1u) == 1;
        const std::string slot = "L" + std::to_string(l)
            + (i < t ? ".tree" + std::to_string(m) : ".pos" + std::to_string(i - t));
        bits.emplace_back(at + index_of(slots, slot), b);
        m = 2 * m + (b ? 1 : 0);
    }
    return bits;
}

/// A value of bit length `l` (at most 64), random below its highest one.
uint64_t of_len(Rng& rng, size_t l) {
    if (l == 0) {
        return 0;
    }
    const uint64_t top = uint64_t{1} << (l - 1);
    return top | (rng.next() & (top - 1));
}

/// A random body: values under random models of a random table, some signed.
std::vector<Op> random_ops(Rng& rng, size_t count, Table& tables) {
    const size_t models = 1 + rng.below(5);
    std::vector<unsigned> widths;
    std::vector<size_t> starts;
    size_t slots = 0;
    for (size_t m = 0; m < models; ++m) {
        widths.push_back(static_cast<unsigned>(rng.below(4) == 0 ? rng.below(65) : rng.below(17)));
        starts.push_back(slots);
        slots += model_slots(width(widths.back()));
    }
    const bool skew = rng.below(3) != 0;
    tables = table(std::max<size_t>(slots, 1),
        [skew](size_t i) { return skew ? 1 + (i * 2654435761u) % 4095 : 2048; });
    std::vector<Op> ops;
    for (size_t i = 0; i < count; ++i) {
        const size_t m = rng.below(models);
        const unsigned w = widths[m];
        // Mostly small values, as predicted ones are, sometimes any of the width.
        const size_t l = rng.below(3) == 0 ? rng.below(w + 1) : std::min<size_t>(w, rng.below(4));
        const bool is_signed = rng.below(2) == 0;
        const uint64_t v = of_len(rng, l);
        const auto bits = static_cast<uint64_t>(ackwire::coded::unzigzag(v));
        ops.push_back(Op{is_signed, starts[m], w, is_signed ? bits : v});
    }
    return ops;
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

Op parse_op(const std::string& text) {
    const size_t eq = text.find('=');
    const std::string head = text.substr(0, eq);
    const size_t colon = head.find(':');
    Op op{head[0] == 'i', std::stoul(head.substr(1, colon - 1)),
        static_cast<unsigned>(std::stoul(head.substr(colon + 1))), 0};
    CHECK(head[0] == 'i' || head[0] == 'u');
    if (eq != std::string::npos) {
        const std::string digits = text.substr(eq + 1);
        op.value = op.is_signed ? static_cast<uint64_t>(std::stoll(digits)) : std::stoull(digits);
    }
    return op;
}

std::vector<Op> parse_list(const std::string& text) {
    std::vector<Op> ops;
    if (text != "-") {
        for (const std::string& o : split(text, ',')) {
            ops.push_back(parse_op(o));
        }
    }
    return ops;
}

/// A case's tables: `SLOTS:P` every slot at P, then `,S=P` for each slot listed at another.
Table parse_table(const std::string& text) {
    const std::vector<std::string> parts = split(text, ',');
    const size_t colon = parts[0].find(':');
    const auto flat = static_cast<uint16_t>(std::stoul(parts[0].substr(colon + 1)));
    Table t = table(std::stoul(parts[0].substr(0, colon)), [flat](size_t) { return flat; });
    for (size_t i = 1; i < parts.size(); ++i) {
        const size_t eq = parts[i].find('=');
        t.at(std::stoul(parts[i].substr(0, eq))) =
            *Prob::of(static_cast<uint16_t>(std::stoul(parts[i].substr(eq + 1))));
    }
    return t;
}

/// The values of `shape` read from `bytes`, the whole input (a byte after the body is refused),
/// under a copy of `tables`; none on an error, which is then `*error`. `*allocations` counts
/// those made while decoding.
std::optional<std::vector<Op>> decode_whole(const Table& tables, const std::vector<Op>& shape,
    const Bytes& bytes, size_t changed_count, std::optional<DecodeError>* error,
    size_t* allocations) {
    Table probs = tables;
    std::vector<Op> back = shape;
    const size_t before = g_allocations;
    ackwire::rt::Reader r(bytes.data(), bytes.size());
    CodedDecoder d(probs.data(), probs.size());
    bool ok = d.start(r, changed_count);
    for (size_t i = 0; ok && i < shape.size(); ++i) {
        if (shape[i].is_signed) {
            int64_t v = 0;
            ok = d.signed_value(shape[i].at, shape[i].w, v);
            back[i].value = static_cast<uint64_t>(v);
        } else {
            ok = d.value(shape[i].at, shape[i].w, back[i].value);
        }
    }
    ok = ok && d.finish();
    if (ok && !r.finish()) {
        *error = r.error();
        return std::nullopt;
    }
    *allocations = g_allocations - before;
    if (!ok) {
        *error = d.error();
        return std::nullopt;
    }
    return back;
}

}  // namespace

TEST(the_cases_of_the_rust_runtime_give_the_same_bytes_and_errors) {
    std::ifstream file(ACKWIRE_VECTORS_DIR "/coder/coded_cases.txt");
    CHECK(file.good());
    std::string line;
    size_t seen[4] = {0, 0, 0, 0};
    while (std::getline(file, line)) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        const std::vector<std::string> f = split(line, ' ');
        if (!CHECK(f.size() >= 5)) {
            continue;
        }
        const std::string& name = f[1];
        if (f[0] == "ok" || f[0] == "err") {
            if (!CHECK(f.size() == (f[0] == "ok" ? 6u : 8u))) {
                continue;
            }
            const size_t count = std::stoul(f[2]);
            const Table tables = parse_table(f[3]);
            const std::vector<Op> ops = parse_list(f[4]);
            const Bytes bytes = unhex(f[5]);
            std::optional<DecodeError> error;
            size_t allocations = 0;
            const auto back = decode_whole(tables, ops, bytes, count, &error, &allocations);
            CHECK_EQ(allocations, size_t{0});
            if (f[0] == "ok") {
                if (!CHECK_EQ(hex(encode(tables, ops, count)), f[5])) {
                    std::fprintf(stderr, "  in case %s\n", name.c_str());
                }
                CHECK(back.has_value());
                if (back) {
                    CHECK_EQ(*back, ops);
                }
                ++seen[0];
            } else {
                CHECK(!back.has_value());
                if (error) {
                    if (!CHECK_EQ(std::string(ackwire::rt::kind_name(error->kind)), f[6])
                        || !CHECK_EQ(error->offset, static_cast<size_t>(std::stoul(f[7])))) {
                        std::fprintf(stderr, "  in case %s\n", name.c_str());
                    }
                    CHECK(!error->bit.has_value());
                }
                ++seen[1];
            }
        } else if (f[0] == "train") {
            ackwire::coded::SlotCounts counts(std::stoul(f[2]));
            for (const Op& op : parse_list(f[3])) {
                CHECK(op.put(counts));
            }
            std::string probs;
            for (const Prob p : counts.probs()) {
                probs += (probs.empty() ? "" : ",") + std::to_string(p.get());
            }
            CHECK_EQ(probs.empty() ? std::string("-") : probs, f[4]);
            ++seen[2];
        } else if (f[0] == "extrapolate" && CHECK(f.size() == 6)) {
            CHECK_EQ(std::to_string(extrapolate(std::stoll(f[2]),
                         static_cast<uint32_t>(std::stoul(f[3])),
                         static_cast<uint32_t>(std::stoul(f[4])))),
                f[5]);
            ++seen[3];
        } else {
            CHECK_EQ(f[0], std::string("a kind of line"));
        }
    }
    CHECK(seen[0] >= 25 && seen[1] >= 15 && seen[2] >= 3 && seen[3] >= 10);
}

TEST(model_slots_are_the_spec_layout) {
    for (unsigned w = 0; w <= 64; ++w) {
        CHECK_EQ(model_slots(width(w)), layout(w).size());
    }
    CHECK_EQ(model_slots(0), size_t{0});
    CHECK_EQ(model_slots(1), size_t{1});
    CHECK_EQ(model_slots(2), size_t{4});
    CHECK_EQ(model_slots(64), size_t{2388});
    static_assert(model_slots(64) == 2388, "model_slots is a constant expression");
}

TEST(bits_go_where_the_spec_says) {
    Rng rng{0xC0DED0C0DEu};
    for (size_t n = 0; n < 60; ++n) {
        std::vector<Op> ops;
        size_t slots = 3;
        const size_t count = 1 + rng.below(12);
        for (size_t i = 0; i < count; ++i) {
            const unsigned w = static_cast<unsigned>(rng.below(65));
            ops.push_back(Op{false, slots, w, of_len(rng, rng.below(w + 1))});
            slots += model_slots(width(w)) + rng.below(3);
        }
        const Table tables = table(slots, [n](size_t i) { return 1 + (i * 977 + n * 131) % 4095; });
        Table spec_probs = tables;
        RangeEncoder spec;
        for (const Op& op : ops) {
            for (const auto& [slot, b] : spec_bits(op.at, op.w, op.value)) {
                spec.bit(spec_probs.at(slot), b);
            }
        }
        Bytes stream;
        spec.finish(stream);
        const Bytes body = encode(tables, ops, 0);
        CHECK_EQ(Bytes(body.begin() + 2, body.end()), stream);
        CHECK_EQ(size_t{body[0]} | size_t{body[1]} << 8, stream.size());
    }
}

TEST(floor_len_is_twelve_bits_a_change) {
    CHECK_EQ(ackwire::coded::CODED_FLOOR_BITS, size_t{12});
    const size_t cases[][2] = {{0, 0}, {1, 2}, {2, 3}, {3, 5}, {4, 6}, {5, 8}, {8, 12},
        {43690, 65535}, {43691, 65537}, {65535, 98303}};
    for (const auto& c : cases) {
        CHECK_EQ(floor_len(c[0]), c[1]);
    }
    // Saturating, far past any frame.
    const size_t most = std::numeric_limits<size_t>::max();
    CHECK(floor_len(most) > most / 10);
    CHECK(floor_len(most / 10 + 1) >= floor_len(most / 10));
}

TEST(extrapolate_rounds_halves_away_from_zero_and_saturates) {
    const int64_t max = std::numeric_limits<int64_t>::max();
    const int64_t min = std::numeric_limits<int64_t>::min();
    const uint32_t umax = std::numeric_limits<uint32_t>::max();
    struct Case {
        int64_t v;
        uint32_t num;
        uint32_t den;
        int64_t want;
    };
    const Case cases[] = {
        {0, 5, 3, 0},
        {10, 1, 1, 10},
        {10, 3, 2, 15},
        {5, 1, 2, 3},
        {-5, 1, 2, -3},
        {7, 1, 2, 4},
        {-7, 1, 2, -4},
        {4, 1, 3, 1},
        {5, 1, 3, 2},
        {-4, 1, 3, -1},
        {-5, 1, 3, -2},
        {1, 1, 2, 1},
        {-1, 1, 2, -1},
        {1, 1, 3, 0},
        {100, 0, 7, 0},
        {9, 2, 0, 18},
        {-3, 65535, 255, -771},
        {int64_t{1} << 40, 65535, 1, 72056494526300160},
        {max, 2, 1, max},
        {min, 2, 1, min},
        {min, 1, 1, min},
        {max, 1, 1, max},
        {min, 1, 2, min / 2},
        {max, 1, 2, int64_t{1} << 62},
        {max, umax, umax, max},
        {min, umax, umax, min},
        {max, 3, 4, 6917529027641081855},
        {-(int64_t{1} << 62), 3, 2, -3 * (int64_t{1} << 61)},
        {int64_t{1} << 62, 3, 2, 3 * (int64_t{1} << 61)},
        {-(int64_t{1} << 62), 2, 1, min},
        {int64_t{1} << 62, 2, 1, max},
        {-(int64_t{1} << 62), 3, 1, min},
        {int64_t{1} << 62, 3, 1, max},
    };
    for (const Case& c : cases) {
        CHECK_EQ(extrapolate(c.v, c.num, c.den), c.want);
    }
    static_assert(extrapolate(5, 1, 2) == 3, "extrapolate is a constant expression");
    // Against exact rationals, where they fit an int64_t.
    Rng rng{77};
    for (int n = 0; n < 2000; ++n) {
        const int64_t v = static_cast<int64_t>(rng.next() % 2000001) - 1000000;
        const auto num = static_cast<uint32_t>(rng.below(65536));
        const auto den = static_cast<uint32_t>(1 + rng.below(255));
        const int64_t p = v * num;
        const int64_t a = p < 0 ? -p : p;
        const int64_t q = a / den + (2 * (a % den) >= den ? 1 : 0);
        CHECK_EQ(extrapolate(v, num, den), p < 0 ? -q : q);
    }
}

TEST(zigzag_is_the_runtimes) {
    using ackwire::coded::unzigzag;
    using ackwire::coded::zigzag;
    CHECK_EQ(zigzag(0), uint64_t{0});
    CHECK_EQ(zigzag(-1), uint64_t{1});
    CHECK_EQ(zigzag(1), uint64_t{2});
    CHECK_EQ(zigzag(std::numeric_limits<int64_t>::min()), ~uint64_t{0});
    CHECK_EQ(zigzag(std::numeric_limits<int64_t>::max()), ~uint64_t{0} - 1);
    for (const int64_t v : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{63}, int64_t{-64},
             std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}) {
        CHECK_EQ(unzigzag(zigzag(v)), v);
    }
}

TEST(a_value_over_its_width_or_past_the_tables_is_refused) {
    Table tables = even(model_slots(64) + 10);
    CodedEncoder e(tables.data(), tables.size());
    const auto over = [&e](bool ok) {
        CHECK(!ok);
        CHECK_EQ(e.error().kind, ErrorKind::over_width);
    };
    over(e.value(0, 3, 8));
    over(e.value(0, 0, 1));
    over(e.value(0, 65, 0));
    over(e.signed_value(0, 3, 4));
    over(e.signed_value(0, 3, -5));
    over(e.value(11, 64, 0));
    over(e.value(std::numeric_limits<size_t>::max(), 1, 0));
    // Nothing refused was coded: the encoder goes on as if none had been tried.
    CHECK(e.value(10, 64, ~uint64_t{0}));
    CHECK(e.signed_value(0, 3, -4));
    CHECK(e.value(0, 0, 0));
    Bytes body;
    CHECK(e.finish(0, body));
    CHECK_EQ(body,
        encode(even(tables.size()), {Op{false, 10, 64, ~uint64_t{0}}, Op{false, 0, 3, 7}}, 0));
    // A body longer than a u16 counts; `out` is left as it was.
    Table one = even(1);
    CodedEncoder big(one.data(), one.size());
    Bytes out{0xAA};
    CHECK(!big.finish(43691, out));
    CHECK_EQ(big.error().kind, ErrorKind::count_too_large);
    CHECK_EQ(out, Bytes{0xAA});
    CodedEncoder edge(one.data(), one.size());
    Bytes most;
    CHECK(edge.finish(43690, most));
    CHECK_EQ(most.size(), size_t{65537});
    CHECK_EQ(size_t{most[0]} | size_t{most[1]} << 8, size_t{0xFFFF});
    // No tables at all: only W = 0 fits.
    CodedEncoder none(nullptr, 5);
    CHECK(none.value(0, 0, 0));
    over(none.value(0, 1, 0));
}

TEST(round_trips_and_decoding_allocates_nothing) {
    Rng rng{0x5EED};
    for (size_t n = 0; n < 300; ++n) {
        Table tables;
        const std::vector<Op> ops = random_ops(rng, rng.below(30), tables);
        const size_t changed =
            rng.below(3) == 0 ? rng.below(ops.size() + 1) * 4 : rng.below(ops.size() + 1);
        const Bytes body = encode(tables, ops, changed);
        const size_t coded_len = size_t{body[0]} | size_t{body[1]} << 8;
        CHECK_EQ(coded_len, body.size() - 2);
        CHECK(coded_len >= floor_len(changed));
        // Inside a frame: three bytes before, the next field after.
        Bytes frame(3, 0x55);
        frame.insert(frame.end(), body.begin(), body.end());
        frame.insert(frame.end(), {1, 2, 3, 4});
        std::vector<Op> back = ops;
        Table probs = tables;
        std::optional<DecodeError> error;
        const size_t before = g_allocations;
        const auto end = decode_into(probs, ops, frame, 3, changed, back, &error);
        CHECK_EQ(g_allocations - before, size_t{0});
        CHECK_EQ(end, std::optional<size_t>(3 + body.size()));
        CHECK_EQ(back, ops);
        // The tables adapted alike on both sides: the caller's copy is what moved.
        Table enc_probs = tables;
        CodedEncoder e(enc_probs.data(), enc_probs.size());
        for (const Op& op : ops) {
            CHECK(op.put(e));
        }
        CHECK(enc_probs == probs);
    }
}

TEST(a_body_at_its_floor_is_zero_padded) {
    const Table tables = even(model_slots(8));
    const std::vector<Op> ops{Op{false, 0, 8, 200}, Op{false, 0, 8, 3}};
    const Bytes bare = encode(tables, ops, 0);
    const size_t stream = bare.size() - 2;
    CHECK(stream > 0);
    // A count whose floor is past the stream: zeros pad it, and the decoder takes them.
    const size_t changed = (stream + 6) * 8 / 12;
    const size_t least = floor_len(changed);
    CHECK(least > stream + 4);
    const Bytes padded = encode(tables, ops, changed);
    CHECK_EQ(padded.size(), least + 2);
    CHECK_EQ(Bytes(padded.begin() + 2, padded.begin() + 2 + static_cast<std::ptrdiff_t>(stream)),
        Bytes(bare.begin() + 2, bare.end()));
    CHECK(std::all_of(padded.begin() + 2 + static_cast<std::ptrdiff_t>(stream), padded.end(),
        [](uint8_t b) { return b == 0; }));
    std::optional<DecodeError> error;
    CHECK(decode(tables, ops, padded, changed, &error).has_value());
    // A padding byte that is not 0, where the decoder did not reach.
    Bytes dirty = padded;
    dirty.back() = 1;
    CHECK_FAULT(refused(tables, ops, dirty, changed), ErrorKind::trailing_bytes, padded.size() - 1,
        std::nullopt);
    // The same bytes counted above the floor: the stream's own rules, which refuse zeros the
    // encoder drops.
    const DecodeError above = refused(tables, ops, padded, changed - 1);
    CHECK(above.kind == ErrorKind::trailing_bytes || above.kind == ErrorKind::non_canonical);
    // A count whose floor is past coded_len.
    CHECK_FAULT(refused(tables, ops, padded, changed + 1), ErrorKind::count_too_large, 0,
        std::nullopt);
    // Every byte of the floor a zero: the body of what was read.
    Bytes zeros(14, 0);
    zeros[0] = 12;
    const std::vector<Op> many(8, Op{false, 0, 8, 0});
    const auto read = decode(tables, many, zeros, 8, &error);
    CHECK(read.has_value());
    if (read) {
        CHECK_EQ(encode(tables, *read, 8), zeros);
    }
}

TEST(the_head_is_refused_before_the_stream_is_read) {
    const Table tables = even(4);
    CHECK_FAULT(refused(tables, {}, Bytes{5}, 0), ErrorKind::truncated, 1, std::nullopt);
    CHECK_FAULT(refused(tables, {}, Bytes{5, 0, 1, 2}, 0), ErrorKind::truncated, 4, std::nullopt);
    CHECK_FAULT(refused(tables, {}, Bytes{0, 0}, 1), ErrorKind::count_too_large, 0, std::nullopt);
    // The floor refuses before the length is taken: a frame that also ends early.
    const Bytes frame{9, 9, 1, 0, 7};
    ackwire::rt::Reader r(frame.data(), frame.size());
    const uint8_t* skipped = nullptr;
    CHECK(r.take(2, skipped));
    Table probs = tables;
    CodedDecoder d(probs.data(), probs.size());
    CHECK(!d.start(r, 2));
    CHECK_FAULT(d.error(), ErrorKind::count_too_large, 2, std::nullopt);
    // Nothing else is read once the head is refused.
    uint64_t v = 7;
    CHECK(!d.value(0, 0, v));
    CHECK(!d.finish());
    CHECK_FAULT(d.error(), ErrorKind::count_too_large, 2, std::nullopt);
}

TEST(a_length_over_the_width_is_refused) {
    // W = 5 and W = 7 share their length tree (k = 3): a length of 7 coded under W = 7 is read
    // under W = 5 as a length over the width.
    const Table tables = even(model_slots(7));
    const Bytes body = encode(tables, {Op{false, 0, 7, 100}}, 1);
    const DecodeError e = refused(tables, {Op{false, 0, 5, 0}}, body, 1);
    CHECK_EQ(e.kind, ErrorKind::over_width);
    CHECK(e.offset >= 2 && e.offset <= body.size());
    CHECK(!e.bit.has_value());
    // A model past the tables is refused before a bit is read, where the decoder is.
    const Bytes frame{2, 0, 0x80, 0x00};
    ackwire::rt::Reader r(frame.data(), frame.size());
    Table three = even(3);
    CodedDecoder d(three.data(), three.size());
    CHECK(d.start(r, 0));
    for (const auto& [at, w] : {std::pair<size_t, unsigned>{0, 3}, {1, 2}, {4, 0}, {0, 65},
             {std::numeric_limits<size_t>::max(), 1}}) {
        uint64_t v = 0;
        CHECK(!d.value(at, w, v));
        CHECK_FAULT(d.error(), ErrorKind::over_width, 4, std::nullopt);
    }
}

TEST(hostile_bodies_are_refused_inside_or_canonical) {
    Rng rng{0xBAD5EED};
    size_t accepted = 0;
    size_t refusals = 0;
    for (size_t n = 0; n < 1500; ++n) {
        Table tables;
        const std::vector<Op> ops = random_ops(rng, rng.below(12), tables);
        const size_t changed = rng.below(ops.size() + 1);
        const Bytes good = encode(tables, ops, changed);
        Bytes h;
        switch (rng.below(4)) {
            case 0: {
                // Random bytes, a plausible coded_len first.
                h.resize(2 + rng.below(24));
                for (size_t i = 2; i < h.size(); ++i) {
                    h[i] = static_cast<uint8_t>(rng.below(256));
                }
                const size_t len =
                    rng.below(3) == 0 ? rng.below(65536) : h.size() - 2 - rng.below(2);
                h[0] = static_cast<uint8_t>(len & 0xFF);
                h[1] = static_cast<uint8_t>(len >> 8);
                break;
            }
            case 1:
                h = good;
                h[rng.below(h.size())] ^= static_cast<uint8_t>(1u << rng.below(8));
                break;
            case 2:
                h = good;
                h.push_back(static_cast<uint8_t>(rng.below(256)));
                ++h[0];
                break;
            default:
                h.assign(good.begin(),
                    good.begin() + static_cast<std::ptrdiff_t>(rng.below(good.size() + 1)));
        }
        // Exactly as long as it is, so that ASan sees a read past it.
        h.shrink_to_fit();
        // Read as this case's values: refused at an offset within the bytes, or the body the
        // encoder writes for what was read.
        Table probs = tables;
        std::vector<Op> read = ops;
        std::optional<DecodeError> error;
        const auto end = decode_into(probs, ops, h, 0, changed, read, &error);
        if (!end) {
            ++refusals;
            CHECK(error.has_value() && error->offset <= h.size());
            continue;
        }
        ++accepted;
        CHECK_EQ(encode(tables, read, changed),
            Bytes(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(*end)));
    }
    CHECK(accepted > 0 && refusals > 0);
}

TEST(slot_counts_walk_what_the_encoder_codes_and_train_by_the_formula) {
    using ackwire::coded::SlotCounts;
    // The formula over a range of counts, against its own terms, and at the ends of u64.
    for (uint64_t c0 = 0; c0 < 40; ++c0) {
        for (uint64_t c1 = 0; c1 < 40; ++c1) {
            CHECK_EQ(uint64_t{SlotCounts::trained(c0, c1)}, (c0 + 1) * 4096 / (c0 + c1 + 2));
        }
    }
    const uint64_t most = std::numeric_limits<uint64_t>::max();
    CHECK_EQ(SlotCounts::trained(most, most), uint16_t{2048});
    CHECK_EQ(SlotCounts::trained(most, 0), uint16_t{4095});
    CHECK_EQ(SlotCounts::trained(0, most), uint16_t{0});
    CHECK_EQ(SlotCounts::trained(3, 1), uint16_t{2730});
    CHECK_EQ(SlotCounts::trained(uint64_t{1} << 63, uint64_t{1} << 63), uint16_t{2048});
    static_assert(SlotCounts::trained(0, 0) == 2048, "trained is a constant expression");
    // Counting walks what the encoder codes: the slots the spec names, once a bit.
    Rng rng{11};
    for (size_t n = 0; n < 100; ++n) {
        Table tables;
        const std::vector<Op> ops = random_ops(rng, rng.below(20), tables);
        SlotCounts counts(tables.size());
        SlotCounts each(0);
        std::vector<std::array<uint64_t, 2>> want(tables.size(), {0, 0});
        for (const Op& op : ops) {
            CHECK(op.put(counts));
            SlotCounts one(tables.size());
            CHECK(op.put(one));
            each.add(one);
            const uint64_t v =
                op.is_signed ? ackwire::coded::zigzag(ackwire::rt::to_signed(op.value)) : op.value;
            for (const auto& [slot, b] : spec_bits(op.at, op.w, v)) {
                ++want.at(slot)[b ? 1 : 0];
            }
        }
        // Summed one value at a time, from no slots.
        each.add(SlotCounts(tables.size()));
        CHECK(counts.counts() == want);
        CHECK(each.counts() == want);
        const std::vector<Prob> trained = counts.probs();
        CHECK_EQ(trained.size(), tables.size());
        for (size_t i = 0; i < trained.size() && i < want.size(); ++i) {
            const uint16_t p = SlotCounts::trained(want[i][0], want[i][1]);
            CHECK_EQ(trained[i].get(), std::clamp<uint16_t>(p, 32, 4064));
        }
    }
    // A counted value is refused as the encoder refuses it, counting nothing.
    SlotCounts few(3);
    CHECK(!few.value(0, 3, 1));
    CHECK_EQ(few.error().kind, ErrorKind::over_width);
    CHECK(!few.value(0, 1, 2));
    CHECK(few.value(2, 1, 1));
    using Counts = std::vector<std::array<uint64_t, 2>>;
    CHECK(few.counts() == Counts({{0, 0}, {0, 0}, {0, 1}}));
    const SlotCounts copy = few;
    few.add(copy);
    CHECK(few.counts() == Counts({{0, 0}, {0, 0}, {0, 2}}));
    SlotCounts full(1);
    CHECK(full.value(0, 1, 1));
    for (int i = 0; i < 70; ++i) {
        const SlotCounts twice = full;
        full.add(twice);
    }
    CHECK(full.counts() == Counts({{0, most}}));
    CHECK(SlotCounts(0).probs().empty());
}

int main() { return check::run_all(); }
