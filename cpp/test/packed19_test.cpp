// The tests of what packed bodies gained in issue 19 (ackwire_runtime.hpp): bucket codes
// (`bucket`, `zbucket`) read and written on the bit streams, smallest-three quaternions (`quat`)
// with their canonical rules, their conversions from and to four floats and their JSON form, the
// error kind `non_canonical`, and ascending lists read from bits. The same cases as the
// TypeScript runtime's test/packed19.test.ts, so that both hold to one set of bytes. Run by
// ../test.sh.

#include "ackwire_runtime.hpp"

#include "check_faults.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#ifndef ACKWIRE_RUNTIME_DIR
#error "test.sh defines ACKWIRE_RUNTIME_DIR, the folder of smallest_three_cases.txt"
#endif

using ackwire::SmallestThree;
using ackwire::rt::ErrorKind;
using Bytes = std::vector<uint8_t>;
namespace rt = ackwire::rt;
namespace json = ackwire::json;

namespace ackwire {
// How a failed CHECK_EQ prints a quaternion (found by argument-dependent lookup).
inline std::string show(const SmallestThree& s) {
    return "{" + std::to_string(s.largest) + ", [" + std::to_string(s.rest[0]) + ", "
        + std::to_string(s.rest[1]) + ", " + std::to_string(s.rest[2]) + "]}";
}
}  // namespace ackwire

namespace {

/// The body `write` writes to a BitWriter, padded to a byte; empty when a write fails.
template <typename F>
Bytes body(F write) {
    Bytes out;
    {
        // The writer drops what it grew for but did not write when it goes, before `out` is
        // handed out.
        rt::Writer w(out);
        rt::BitWriter b(w);
        if (!write(b)) {
            return {};
        }
        b.finish();
    }
    return out;
}

/// The error kind a write into a fresh BitWriter fails with, if it fails.
template <typename F>
std::optional<ErrorKind> encode_fault(F write) {
    Bytes out;
    rt::Writer w(out);
    rt::BitWriter b(w);
    if (write(b)) {
        return std::nullopt;
    }
    return w.error().kind;
}

SmallestThree quat(uint8_t largest, int16_t a, int16_t b, int16_t c) {
    SmallestThree s;
    s.largest = largest;
    s.rest = {a, b, c};
    return s;
}

/// xorshift32, as the TypeScript test draws its quaternions: deterministic, so that a failure
/// repeats.
class Random {
public:
    double next() {
        state_ ^= state_ << 13;
        state_ ^= state_ >> 17;
        state_ ^= state_ << 5;
        return static_cast<double>(state_) / 4294967296.0;
    }

private:
    uint32_t state_ = 0x9e3779b9u;
};

}  // namespace

// ---- bucket codes ----

TEST(bucket_codes_cost_1_6_and_10_bits_in_bucket_0_4_8) {
    CHECK_EQ(rt::bucket_len({0, 4, 8}, 0), size_t{1});
    CHECK_EQ(rt::bucket_len({0, 4, 8}, 1), size_t{6});
    CHECK_EQ(rt::bucket_len({0, 4, 8}, 16), size_t{6});
    CHECK_EQ(rt::bucket_len({0, 4, 8}, 17), size_t{10});
    CHECK_EQ(rt::bucket_len({0, 4, 8}, 272), size_t{10});
    CHECK_EQ(rt::bucket_len({64}, ~uint64_t{0}), size_t{64});
}

TEST(bucket_codes_are_the_index_in_unary_then_the_offset) {
    // WIRE-19.
    CHECK_EQ(body([](rt::BitWriter& b) { return b.write_bucket({0, 4, 8}, 0); }), Bytes{0x00});
    // 5: bucket 1 (base 1): `1 0`, then 4 in four bits.
    CHECK_EQ(body([](rt::BitWriter& b) { return b.write_bucket({0, 4, 8}, 5); }), Bytes{0x11});
    // 17: the last bucket (base 17) has no zero after its ones.
    CHECK_EQ(body([](rt::BitWriter& b) { return b.write_bucket({0, 4, 8}, 17); }),
        (Bytes{0x03, 0x00}));
    CHECK_EQ(body([](rt::BitWriter& b) { return b.write_bucket({0, 4, 8}, 272); }),
        (Bytes{0xff, 0x03}));
}

TEST(bucket_codes_read_back_every_value_in_sequence) {
    Bytes out;
    rt::Writer w(out);
    rt::BitWriter b(w);
    size_t bits = 0;
    for (uint64_t v = 0; v <= 272; ++v) {
        CHECK(b.write_bucket({0, 4, 8}, v));
        bits += rt::bucket_len({0, 4, 8}, v);
    }
    CHECK_EQ(b.bit_len(), bits);
    b.finish();
    CHECK_EQ(out.size(), (bits + 7) / 8);
    rt::DecodeError error(ErrorKind::truncated, 0);
    rt::BitReader r(out.data(), out.size(), 0, error);
    for (uint64_t v = 0; v <= 272; ++v) {
        uint16_t got = 0;
        CHECK(r.read_bucket({0, 4, 8}, got));
        CHECK_EQ(uint64_t{got}, v);
    }
    size_t used = 0;
    CHECK(r.finish(used));
    CHECK_EQ(used, out.size());
}

TEST(bucket_codes_refuse_a_value_past_the_last_bucket) {
    // WIRE-19.
    CHECK_EQ(encode_fault([](rt::BitWriter& b) { return b.write_bucket({0, 4, 8}, 273); }),
        std::optional<ErrorKind>(ErrorKind::over_width));
    CHECK_EQ(encode_fault([](rt::BitWriter& b) { return b.write_zbucket({2, 5, 9}, 274); }),
        std::optional<ErrorKind>(ErrorKind::over_width));
    CHECK_EQ(encode_fault([](rt::BitWriter& b) { return b.write_zbucket({2, 5, 9}, -274); }),
        std::nullopt);
}

TEST(bucket_codes_read_at_most_k_minus_1_unary_bits) {
    const Bytes data{0xff, 0x03};
    rt::DecodeError error(ErrorKind::truncated, 0);
    rt::BitReader r(data.data(), data.size(), 0, error);
    uint16_t v = 0;
    CHECK(r.read_bucket({0, 4, 8}, v));
    CHECK_EQ(v, uint16_t{272});
    CHECK_EQ(r.bit_pos(), size_t{10});
}

TEST(bucket_codes_fail_only_as_truncated_where_the_input_ends) {
    const Bytes ones{0xff};
    rt::DecodeError error(ErrorKind::over_width, 0);
    rt::BitReader r(ones.data(), ones.size(), 3, error);
    uint64_t v = 0;
    // Nine buckets: eight unary bits would be needed, the byte runs out after 8 ones... and
    // the value's 1 bit after them.
    CHECK(!r.bucket({0, 1, 2, 3, 4, 5, 6, 7, 8}, v));
    CHECK_FAULT(error, ErrorKind::truncated, 4, size_t{32});
    const Bytes cut{0x03};
    rt::DecodeError e2(ErrorKind::over_width, 0);
    rt::BitReader r2(cut.data(), cut.size(), 0, e2);
    CHECK(!r2.bucket({0, 4, 8}, v));
    CHECK_FAULT(e2, ErrorKind::truncated, 1, size_t{8});
}

TEST(zbucket_codes_zigzag_first) {
    // WIRE-19.
    CHECK_EQ(body([](rt::BitWriter& b) { return b.write_zbucket({2, 5, 9}, -3); }), Bytes{0x05});
    const std::vector<int64_t> values{0, -1, 1, -2, 2, 17, -18, 273, -274};
    Bytes out;
    rt::Writer w(out);
    rt::BitWriter b(w);
    for (const int64_t v : values) {
        CHECK(b.write_zbucket({2, 5, 9}, v));
    }
    b.finish();
    rt::DecodeError error(ErrorKind::truncated, 0);
    rt::BitReader r(out.data(), out.size(), 0, error);
    for (const int64_t v : values) {
        int16_t got = 0;
        CHECK(r.read_zbucket({2, 5, 9}, got));
        CHECK_EQ(int64_t{got}, v);
    }
}

TEST(bucket_codes_carry_64_bit_values) {
    const uint64_t max = uint64_t{1} << 63;  // bucket(0, 63): 1 + 2^63 values
    Bytes out;
    rt::Writer w(out);
    rt::BitWriter b(w);
    CHECK(b.write_bucket({0, 63}, 0));
    CHECK(b.write_bucket({0, 63}, max));
    CHECK(!b.write_bucket({0, 63}, max + 1));
    CHECK(b.write_zbucket({64}, std::numeric_limits<int64_t>::min()));
    CHECK(b.write_bucket({64}, ~uint64_t{0}));
    b.finish();
    rt::DecodeError error(ErrorKind::truncated, 0);
    rt::BitReader r(out.data(), out.size(), 0, error);
    uint64_t u = 1;
    int64_t i = 0;
    CHECK(r.read_bucket({0, 63}, u));
    CHECK_EQ(u, uint64_t{0});
    CHECK(r.read_bucket({0, 63}, u));
    CHECK_EQ(u, max);
    CHECK(r.read_zbucket({64}, i));
    CHECK_EQ(i, std::numeric_limits<int64_t>::min());
    CHECK(r.read_bucket({64}, u));
    CHECK_EQ(u, ~uint64_t{0});
}

// ---- smallest-three quaternions ----

TEST(quaternions_are_largest_then_three_components) {
    // WIRE-20.
    const SmallestThree q = quat(2, 12, -4, 250);
    const Bytes data = body([&](rt::BitWriter& b) { return b.write_quat(9, q); });
    // 2 | 12 << 2 | (512 - 4) << 11 | 250 << 20, in 29 bits.
    CHECK_EQ(data, (Bytes{0x32, 0xe0, 0xaf, 0x0f}));
    rt::DecodeError error(ErrorKind::truncated, 0);
    rt::BitReader r(data.data(), data.size(), 0, error);
    SmallestThree got;
    CHECK(r.read_quat(9, got));
    CHECK_EQ(got, q);
    CHECK_EQ(r.bit_pos(), size_t{29});
}

TEST(quaternions_refuse_over_width_and_non_canonical_at_the_fields_bit) {
    // WIRE-20.
    // 3 bits of something else, then largest 3 and a raw -256.
    const Bytes over = body([](rt::BitWriter& b) {
        return b.write_uint(3, 0) && b.write_uint(2, 3) && b.write_uint(9, 256)
            && b.write_uint(9, 0) && b.write_uint(9, 0);
    });
    rt::DecodeError error(ErrorKind::truncated, 0);
    rt::BitReader r(over.data(), over.size(), 0, error);
    uint8_t skip = 0;
    SmallestThree got;
    CHECK(r.read_uint(3, skip));
    CHECK(!r.read_quat(9, got));
    CHECK_FAULT(error, ErrorKind::over_width, 0, size_t{3});
    // largest 3 (w), x = R: a tie that x, before w, wins: x should have been dropped.
    const Bytes tie = body([](rt::BitWriter& b) {
        return b.write_uint(9, 0) && b.write_uint(2, 3) && b.write_int(9, 255)
            && b.write_int(9, 0) && b.write_int(9, 0);
    });
    rt::DecodeError e2(ErrorKind::truncated, 0);
    rt::BitReader t(tie.data(), tie.size(), 0, e2);
    uint16_t skip9 = 0;
    CHECK(t.read_uint(9, skip9));
    CHECK(!t.read_quat(9, got));
    CHECK_FAULT(e2, ErrorKind::non_canonical, 1, size_t{9});
    CHECK_EQ(encode_fault([](rt::BitWriter& b) { return b.write_quat(9, quat(3, 255, 0, 0)); }),
        std::optional<ErrorKind>(ErrorKind::non_canonical));
    CHECK_EQ(encode_fault([](rt::BitWriter& b) { return b.write_quat(9, quat(3, -256, 0, 0)); }),
        std::optional<ErrorKind>(ErrorKind::over_width));
    CHECK_EQ(encode_fault([](rt::BitWriter& b) { return b.write_quat(9, quat(4, 0, 0, 0)); }),
        std::optional<ErrorKind>(ErrorKind::over_width));
    const Bytes four{0, 0, 0, 0};
    rt::DecodeError e3(ErrorKind::over_width, 0);
    rt::BitReader cut(four.data() + 1, 3, 1, e3);
    CHECK(!cut.read_quat(9, got));
    CHECK_FAULT(e3, ErrorKind::truncated, 4, size_t{32});
}

TEST(quaternion_ties_go_to_the_lowest_index) {
    // WIRE-20.
    using F = std::optional<ErrorKind>;
    CHECK_EQ(rt::smallest_three_fault(quat(0, 0, 0, 255), 9), F());
    CHECK_EQ(rt::smallest_three_fault(quat(3, 255, 0, 0), 9), F(ErrorKind::non_canonical));
    CHECK_EQ(rt::smallest_three_fault(quat(1, 200, 200, 200), 9), F(ErrorKind::non_canonical));
    CHECK_EQ(rt::smallest_three_fault(quat(1, 100, -100, 100), 9), F());
    // The largest R of all, at 16 bits: the squares stay within int64_t.
    CHECK_EQ(rt::smallest_three_fault(quat(3, 32767, 32767, 32767), 16),
        F(ErrorKind::non_canonical));
    CHECK_EQ(rt::smallest_three_fault(quat(3, -32768, 0, 0), 16), F(ErrorKind::over_width));
}

TEST(quaternion_rules_at_2_bits_are_dropping_the_largest_magnitude) {
    size_t canonical = 0;
    for (uint8_t largest = 0; largest < 4; ++largest) {
        for (int16_t a = -2; a <= 1; ++a) {
            for (int16_t b = -2; b <= 1; ++b) {
                for (int16_t c = -2; c <= 1; ++c) {
                    const auto f = rt::smallest_three_fault(quat(largest, a, b, c), 2);
                    if (a == -2 || b == -2 || c == -2) {
                        CHECK_EQ(f, std::optional<ErrorKind>(ErrorKind::over_width));
                        continue;
                    }
                    std::vector<int> squares{a * a, b * b, c * c};
                    squares.insert(squares.begin() + largest, 2 - (a * a + b * b + c * c));
                    size_t first = 0;
                    for (size_t i = 1; i < 4; ++i) {
                        if (squares[i] > squares[first]) {
                            first = i;
                        }
                    }
                    CHECK_EQ(!f.has_value(), first == largest);
                    canonical += f.has_value() ? 0u : 1u;
                }
            }
        }
    }
    CHECK(canonical > 0);
}

TEST(quaternions_come_from_four_floats) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    CHECK_EQ(rt::from_xyzw({0, 0, 0, 1}, 9), quat(3, 0, 0, 0));
    CHECK_EQ(rt::from_xyzw({0, 0, 0, -1}, 9), quat(3, 0, 0, 0));
    CHECK_EQ(rt::from_xyzw({0, 0, 0, 0}, 9), quat(3, 0, 0, 0));
    CHECK_EQ(rt::from_xyzw({nan, 0, 0, 1}, 9), quat(3, 0, 0, 0));
    CHECK_EQ(rt::from_xyzw({inf, 0, 0, 1}, 9), quat(3, 0, 0, 0));
    CHECK_EQ(rt::from_xyzw({0, -2, 0, 0}, 9), quat(1, 0, 0, 0));
    const float h = 0.70710678f;
    CHECK_EQ(rt::from_xyzw({h, 0, 0, h}, 9), quat(0, 0, 0, 255));
    CHECK_EQ(rt::from_xyzw({-0.5f, 0.5f, -0.5f, 0.5f}, 9), quat(0, -180, 180, -180));
}

TEST(quaternions_agree_with_the_values_rt_works_by_hand) {
    CHECK_EQ(rt::from_xyzw({0.5f, 0.5f, 0.5f, 0.5f}, 9), quat(0, 180, 180, 180));
    CHECK_EQ(rt::from_xyzw({0.0f, 0.0f, 0.6f, 0.8f}, 9), quat(3, 0, 0, 216));
    CHECK_EQ(rt::from_xyzw({0.0f, -0.8f, 0.6f, 0.0f}, 9), quat(1, 0, -216, 0));
    // 23170 each breaks rule 3 at 16 bits (D = 536805878 < 23170^2): the lowest steps once.
    CHECK_EQ(rt::from_xyzw({0.5f, 0.5f, 0.5f, 0.5f}, 16), quat(0, 23169, 23170, 23170));
    CHECK_EQ(rt::smallest_three_fault(quat(0, 23170, 23170, 23170), 16),
        std::optional<ErrorKind>(ErrorKind::non_canonical));
}

TEST(quaternions_from_floats_always_pass_and_come_back) {
    Random random;
    for (const unsigned bits : {2u, 5u, 9u, 12u, 16u}) {
        const double r = rt::quat_range(bits);
        for (int n = 0; n < 2000; ++n) {
            std::array<float, 4> q{};
            for (float& v : q) {
                v = static_cast<float>(random.next() * 2 - 1);
            }
            const SmallestThree s = rt::from_xyzw(q, bits);
            CHECK_EQ(rt::smallest_three_fault(s, bits), std::optional<ErrorKind>());
            const std::array<float, 4> back = rt::to_xyzw(s, bits);
            double norm = 0;
            for (const float v : q) {
                norm += static_cast<double>(v) * static_cast<double>(v);
            }
            norm = std::sqrt(norm);
            double dot = 0;
            for (size_t i = 0; i < 4; ++i) {
                dot += static_cast<double>(back[i]) * (static_cast<double>(q[i]) / norm);
            }
            CHECK(std::fabs(dot) > 1 - 4 / (r * r) - 1e-6);
            if (bits >= 5) {
                CHECK_EQ(rt::from_xyzw(back, bits), s);
            }
        }
    }
}

TEST(quaternions_are_what_the_rust_runtime_makes_of_the_same_floats) {
    // vectors/quat/smallest_three_cases.txt, written from rt/src/quat.rs by
    // rt/tests/smallest_three_cases.rs.
    std::ifstream file(ACKWIRE_RUNTIME_DIR "/smallest_three_cases.txt");
    CHECK(file.good());
    const auto single = [](const std::string& hex) {
        const auto bits = static_cast<uint32_t>(std::stoul(hex, nullptr, 16));
        float f = 0;
        std::memcpy(&f, &bits, sizeof f);
        return f;
    };
    const auto bits_of = [](float f) {
        uint32_t bits = 0;
        std::memcpy(&bits, &f, sizeof bits);
        char text[9];
        std::snprintf(text, sizeof text, "%08x", static_cast<unsigned>(bits));
        return std::string(text);
    };
    size_t cases = 0;
    std::string line;
    while (std::getline(file, line)) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        std::istringstream in(line);
        unsigned bits = 0;
        int largest = 0;
        int rest[3] = {0, 0, 0};
        std::string x, y, z, w;
        std::array<std::string, 4> back;
        in >> bits >> x >> y >> z >> w >> largest >> rest[0] >> rest[1] >> rest[2] >> back[0]
            >> back[1] >> back[2] >> back[3];
        CHECK(!in.fail());
        const SmallestThree s = rt::from_xyzw({single(x), single(y), single(z), single(w)}, bits);
        CHECK_EQ(s, quat(static_cast<uint8_t>(largest), static_cast<int16_t>(rest[0]),
                        static_cast<int16_t>(rest[1]), static_cast<int16_t>(rest[2])));
        const std::array<float, 4> got = rt::to_xyzw(s, bits);
        for (size_t i = 0; i < 4; ++i) {
            CHECK_EQ(bits_of(got[i]), back[i]);
        }
        ++cases;
    }
    CHECK(cases > 1000);
}

TEST(quaternions_turn_into_singles) {
    const std::array<float, 4> back = rt::to_xyzw(quat(2, 12, -4, 250), 9);
    const double f = 0.7071067811865476 / 255.0;
    const double x = 12 * f;
    const double y = -4 * f;
    const double w = 250 * f;
    CHECK_EQ(back[0], static_cast<float>(x));
    CHECK_EQ(back[1], static_cast<float>(y));
    CHECK_EQ(back[2], static_cast<float>(std::sqrt(1 - (x * x + y * y + w * w))));
    CHECK_EQ(back[3], static_cast<float>(w));
}

TEST(quaternions_have_a_json_form_of_their_integers) {
    CHECK_EQ(json::quat(quat(2, 12, -4, 255)).dump(),
        std::string("{\"largest\":2,\"rest\":[12,-4,255]}"));
    const auto read = [](const char* text, SmallestThree& out) {
        json::Error error;
        const auto parsed = json::parse(text);
        if (!parsed.ok()) {
            return std::string("unparsed");
        }
        return json::get_quat(parsed.value(), out, error) ? std::string() : error.text();
    };
    SmallestThree q;
    CHECK_EQ(read("{\"largest\":2,\"rest\":[12,-4,255]}", q), std::string());
    CHECK_EQ(q, quat(2, 12, -4, 255));
    CHECK_EQ(read("{\"largest\":2,\"rest\":[1,2]}", q),
        std::string("rest: invalid length, expected rest as a list of three integers"));
    CHECK_EQ(read("{\"largest\":2,\"rest\":[1,2,40000]}", q),
        std::string("rest[2]: invalid value: an integer out of range"));
    CHECK_EQ(read("{\"largest\":256,\"rest\":[1,2,3]}", q),
        std::string("largest: invalid value: 256 is out of range"));
    CHECK_EQ(read("{\"rest\":[1,2,3]}", q), std::string("missing field `largest`"));
    CHECK_EQ(read("{\"largest\":0,\"rest\":[1,2,3],\"w\":1}", q),
        std::string("unknown field `w`, expected one of `largest`, `rest`"));
}

// ---- ascending lists of bits ----

TEST(ascending_bit_lists_carry_differences_and_refuse_0_at_the_elements_bit) {
    // WIRE-14.
    const std::vector<uint16_t> values{3, 4, 20, 272};
    CHECK_EQ(rt::ascending_buckets_len({0, 4, 8}, values), size_t{28});
    Bytes out;
    {
        rt::Writer w(out);
        rt::BitWriter b(w);
        std::optional<uint64_t> prev;
        for (const uint16_t v : values) {
            uint64_t d = 0;
            CHECK(b.ascending_to(prev, v, 272, d));
            CHECK(b.write_bucket({0, 4, 8}, d));
        }
        uint64_t d = 0;
        CHECK(!b.ascending_to(prev, 272, 272, d));
        CHECK_EQ(w.error().kind, ErrorKind::not_ascending);
        CHECK(!b.ascending_to(prev, 273, 272, d));
        CHECK_EQ(w.error().kind, ErrorKind::over_width);
        b.finish();
    }
    CHECK_EQ(out.size(), size_t{4});
    rt::DecodeError error(ErrorKind::truncated, 0);
    rt::BitReader r(out.data(), out.size(), 0, error);
    std::optional<uint64_t> prev;
    for (const uint16_t v : values) {
        const size_t at = r.bit_pos();
        uint64_t d = 0;
        uint16_t got = 0;
        CHECK(r.bucket({0, 4, 8}, d));
        CHECK(r.ascending_to(prev, d, 272, at, got));
        CHECK_EQ(got, v);
    }
    // A difference of 0 (at bit 28), then one past the bucket's largest (at bit 30).
    std::optional<uint64_t> last = 272;
    uint16_t got = 0;
    CHECK(!r.ascending_to(last, 0, 272, 28, got));
    CHECK_FAULT(error, ErrorKind::not_ascending, 3, size_t{28});
    last = 272;
    CHECK(!r.ascending_to(last, 1, 272, 30, got));
    CHECK_FAULT(error, ErrorKind::over_width, 3, size_t{30});
    last = ~uint64_t{0};
    CHECK(!r.ascending_to(last, 1, ~uint64_t{0}, 30, got));
    CHECK_FAULT(error, ErrorKind::over_width, 3, size_t{30});
}

int main() { return check::run_all(); }
