// The tests of ackwire_runtime.hpp, on its own, without any generated codec: the error
// taxonomy and its messages, integers, zigzag and quantization, the byte Reader and Writer at
// every width and byte order, canonical varints, bit streams, bounds and count checks with the
// offsets their faults are reported at, hex, FNV-1a, and the JSON value, parser and
// conversions; and the session shape (ackwire_session.hpp) every half shares. Inputs live in std::vectors, whose unused capacity the sanitized build marks
// (_GLIBCXX_SANITIZE_VECTOR), so that under AddressSanitizer a read past the end of an input is
// a failure too. Run by ../test.sh.

#include "ackwire_runtime.hpp"
#include "ackwire_session.hpp"

#include "check_faults.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

using ackwire::rt::ErrorKind;
using Bytes = std::vector<uint8_t>;
namespace rt = ackwire::rt;
namespace session = ackwire::session;
namespace json = ackwire::json;

namespace {

constexpr uint64_t U64_MAX = std::numeric_limits<uint64_t>::max();
constexpr int64_t I64_MAX = std::numeric_limits<int64_t>::max();
constexpr int64_t I64_MIN = std::numeric_limits<int64_t>::min();

/// A deterministic source of test values (splitmix64), so that a failure can be replayed.
class Random {
public:
    explicit Random(uint64_t seed) : state_(seed) {}

    uint64_t next() {
        uint64_t z = (state_ += 0x9e3779b97f4a7c15u);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
        return z ^ (z >> 31);
    }

    /// A number in [lo, hi].
    unsigned between(unsigned lo, unsigned hi) {
        return lo + static_cast<unsigned>(next() % (hi - lo + 1));
    }

    /// A value of at most `bits` bits, often near its bounds, where mistakes live.
    uint64_t value(unsigned bits) {
        const uint64_t mask = bits >= 64 ? U64_MAX : (uint64_t{1} << bits) - 1;
        switch (next() % 4) {
            case 0:
                return mask;
            case 1:
                return (next() % 3) & mask;
            default:
                return next() & mask;
        }
    }

private:
    uint64_t state_;
};

/// `raw`'s low `width` bits, read as two's complement: computed by arithmetic, not bit tricks,
/// so that it checks rt::sign_extend independently.
int64_t twos_complement(uint64_t raw, unsigned width) {
    if (width == 64) {
        return raw > static_cast<uint64_t>(I64_MAX)
            ? -static_cast<int64_t>(U64_MAX - raw) - 1
            : static_cast<int64_t>(raw);
    }
    const uint64_t half = uint64_t{1} << (width - 1);
    return raw >= half ? -static_cast<int64_t>(half * 2 - raw) : static_cast<int64_t>(raw);
}

// The eight bytes 01 02 .. 08 read as an integer of 1 to 8 bytes, in each byte order.
constexpr std::array<uint64_t, 8> BIG = {0x01, 0x0102, 0x010203, 0x01020304, 0x0102030405,
    0x010203040506, 0x01020304050607, 0x0102030405060708};
constexpr std::array<uint64_t, 8> LITTLE = {0x01, 0x0201, 0x030201, 0x04030201, 0x0504030201,
    0x060504030201, 0x07060504030201, 0x0807060504030201};

}  // namespace

// ---- errors ----

TEST(every_error_kind_has_its_taxonomy_name) {
    // WIRE-23.
    const std::array<std::pair<ErrorKind, const char*>, 12> kinds = {{
        {ErrorKind::truncated, "truncated"},
        {ErrorKind::bad_constant, "bad_constant"},
        {ErrorKind::reserved_bit, "reserved_bit"},
        {ErrorKind::non_canonical_varint, "non_canonical_varint"},
        {ErrorKind::over_width, "over_width"},
        {ErrorKind::count_too_large, "count_too_large"},
        {ErrorKind::trailing_bytes, "trailing_bytes"},
        {ErrorKind::invalid_condition, "invalid_condition"},
        {ErrorKind::unknown_tag, "unknown_tag"},
        {ErrorKind::non_finite, "non_finite"},
        {ErrorKind::not_ascending, "not_ascending"},
        {ErrorKind::non_canonical, "non_canonical"},
    }};
    for (const auto& [kind, name] : kinds) {
        CHECK_EQ(rt::kind_name(kind), std::string_view(name));
    }
    static_assert(rt::kind_name(ErrorKind::truncated) == "truncated", "usable at compile time");
}

TEST(field_paths_are_built_from_the_leaf_outwards) {
    rt::FieldPath path;
    CHECK(path.empty());
    CHECK_EQ(path.str(), std::string());
    path.push_field("mask");
    CHECK(!path.empty());
    CHECK_EQ(path.str(), std::string("mask"));
    path.push_index(3);
    path.push_field("changes");
    CHECK_EQ(path.str(), std::string("changes[3].mask"));

    rt::FieldPath indexes;
    indexes.push_index(2);
    CHECK_EQ(indexes.str(), std::string("[2]"));
    indexes.push_index(1);
    indexes.push_field("grid");
    CHECK_EQ(indexes.str(), std::string("grid[1][2]"));
}

TEST(decode_errors_say_kind_byte_bit_and_field) {
    // WIRE-22.
    rt::DecodeError e(ErrorKind::truncated, 5);
    CHECK_FAULT(e, ErrorKind::truncated, 5, std::nullopt);
    CHECK_EQ(e.message(), std::string("truncated at byte 5"));
    e.path.push_field("tick");
    CHECK_EQ(e.path_string(), std::string("tick"));
    CHECK_EQ(e.message(), std::string("truncated at byte 5, field tick"));

    const rt::DecodeError b = rt::DecodeError::at_bit(ErrorKind::reserved_bit, 19);
    CHECK_FAULT(b, ErrorKind::reserved_bit, 2, size_t{19});
    CHECK_EQ(b.message(), std::string("reserved_bit at byte 2 (bit 19)"));
}

TEST(encode_errors_say_kind_and_field) {
    rt::EncodeError e(ErrorKind::over_width);
    CHECK_EQ(e.message(), std::string("cannot encode: over_width"));
    e.path.push_field("tick");
    e.path.push_index(0);
    e.path.push_field("changes");
    CHECK_EQ(e.message(), std::string("cannot encode: over_width in changes[0].tick"));
}

TEST(results_hold_a_value_or_an_error) {
    rt::Result<std::string> ok(std::string("pose"));
    CHECK(ok.ok());
    CHECK(static_cast<bool>(ok));
    CHECK_EQ(ok.value(), std::string("pose"));
    ok.value() += "s";
    CHECK_EQ(ok.value(), std::string("poses"));
    const std::string moved = std::move(ok).value();
    CHECK_EQ(moved, std::string("poses"));

    const rt::Result<int> bad(rt::DecodeError(ErrorKind::unknown_tag, 7));
    CHECK(!bad.ok());
    CHECK(!static_cast<bool>(bad));
    CHECK_FAULT(bad.error(), ErrorKind::unknown_tag, 7, std::nullopt);
}

// ---- integers ----

TEST(to_signed_reads_the_same_64_bits_as_twos_complement) {
    CHECK_EQ(rt::to_signed(0), int64_t{0});
    CHECK_EQ(rt::to_signed(static_cast<uint64_t>(I64_MAX)), I64_MAX);
    CHECK_EQ(rt::to_signed(uint64_t{1} << 63), I64_MIN);
    CHECK_EQ(rt::to_signed(U64_MAX), int64_t{-1});
    CHECK_EQ(rt::to_signed(U64_MAX - 1), int64_t{-2});
}

TEST(sign_extension_at_every_width) {
    CHECK_EQ(rt::sign_extend(0x7f, 8), int64_t{127});
    CHECK_EQ(rt::sign_extend(0x80, 8), int64_t{-128});
    CHECK_EQ(rt::sign_extend(0xff, 8), int64_t{-1});
    CHECK_EQ(rt::sign_extend(1, 1), int64_t{-1});
    CHECK_EQ(rt::sign_extend(0, 1), int64_t{0});
    CHECK_EQ(rt::sign_extend(0x2, 2), int64_t{-2});
    CHECK_EQ(rt::sign_extend(0x800, 12), int64_t{-2048});
    CHECK_EQ(rt::sign_extend(0x7ff, 12), int64_t{2047});
    CHECK_EQ(rt::sign_extend(U64_MAX, 64), int64_t{-1});
    for (unsigned width = 1; width <= 64; ++width) {
        const uint64_t top = uint64_t{1} << (width - 1);
        const uint64_t mask = width == 64 ? U64_MAX : (top << 1) - 1;
        for (const uint64_t raw : {uint64_t{0}, uint64_t{1}, top - 1, top, top + 1, mask}) {
            CHECK_EQ(rt::sign_extend(raw & mask, width), twos_complement(raw & mask, width));
        }
    }
}

TEST(zigzag_maps_small_magnitudes_to_small_numbers) {
    // WIRE-5.
    const std::array<std::pair<int64_t, uint64_t>, 9> pairs = {{
        {0, 0},
        {-1, 1},
        {1, 2},
        {-2, 3},
        {2, 4},
        {-64, 127},
        {64, 128},
        {I64_MAX, U64_MAX - 1},
        {I64_MIN, U64_MAX},
    }};
    for (const auto& [n, z] : pairs) {
        CHECK_EQ(rt::zigzag(n), z);
        CHECK_EQ(rt::unzigzag(z), n);
    }
    Random random(1);
    for (int i = 0; i < 2000; ++i) {
        const int64_t n = rt::to_signed(random.next());
        CHECK_EQ(rt::unzigzag(rt::zigzag(n)), n);
        const uint64_t z = random.next();
        CHECK_EQ(rt::zigzag(rt::unzigzag(z)), z);
    }
}

TEST(varint_lengths_step_every_7_bits) {
    CHECK_EQ(rt::varint_len(0), size_t{1});
    CHECK_EQ(rt::varint_len(U64_MAX), size_t{10});
    for (unsigned k = 1; k <= 9; ++k) {
        const uint64_t first_of_next = uint64_t{1} << (7 * k);
        CHECK_EQ(rt::varint_len(first_of_next - 1), size_t{k});
        CHECK_EQ(rt::varint_len(first_of_next), size_t{k + 1});
    }
}

TEST(fits_int_knows_each_widths_range) {
    CHECK(rt::fits_int(127, 8));
    CHECK(!rt::fits_int(128, 8));
    CHECK(rt::fits_int(-128, 8));
    CHECK(!rt::fits_int(-129, 8));
    CHECK(rt::fits_int(0, 1));
    CHECK(rt::fits_int(-1, 1));
    CHECK(!rt::fits_int(1, 1));
    CHECK(rt::fits_int(I64_MAX, 64));
    CHECK(rt::fits_int(I64_MIN, 64));
    for (unsigned width = 2; width < 64; ++width) {
        const int64_t max = (int64_t{1} << (width - 1)) - 1;
        CHECK(rt::fits_int(max, width));
        CHECK(rt::fits_int(-max - 1, width));
        CHECK(!rt::fits_int(max + 1, width));
        CHECK(!rt::fits_int(-max - 2, width));
    }
}

// ---- quantization ----

TEST(quantize_rounds_halves_away_from_zero_and_zeroes_non_finite_values) {
    // WIRE-8.
    CHECK_EQ(rt::quantize(2.0, 0.25), 8.0);
    CHECK_EQ(rt::quantize(1.25, 0.5), 3.0);
    CHECK_EQ(rt::quantize(-1.25, 0.5), -3.0);
    CHECK_EQ(rt::quantize(1.2, 0.5), 2.0);
    CHECK_EQ(rt::quantize(std::nan(""), 0.5), 0.0);
    CHECK_EQ(rt::quantize(std::numeric_limits<double>::infinity(), 0.5), 0.0);
    CHECK_EQ(rt::quantize(-std::numeric_limits<double>::infinity(), 0.5), 0.0);
}

TEST(saturating_conversions_match_rusts_as) {
    CHECK_EQ(rt::saturate_u64(std::nan("")), uint64_t{0});
    CHECK_EQ(rt::saturate_u64(-1.0), uint64_t{0});
    CHECK_EQ(rt::saturate_u64(0.9), uint64_t{0});
    CHECK_EQ(rt::saturate_u64(1.0), uint64_t{1});
    CHECK_EQ(rt::saturate_u64(7.9), uint64_t{7});
    CHECK_EQ(rt::saturate_u64(9223372036854775808.0), uint64_t{1} << 63);
    CHECK_EQ(rt::saturate_u64(18446744073709551616.0), U64_MAX);
    CHECK_EQ(rt::saturate_u64(1e30), U64_MAX);
    CHECK_EQ(rt::saturate_i64(std::nan("")), int64_t{0});
    CHECK_EQ(rt::saturate_i64(-3.7), int64_t{-3});
    CHECK_EQ(rt::saturate_i64(9223372036854775808.0), I64_MAX);
    CHECK_EQ(rt::saturate_i64(-9223372036854775808.0), I64_MIN);
    CHECK_EQ(rt::saturate_i64(-1e30), I64_MIN);
    CHECK_EQ(rt::saturate_i64(1e30), I64_MAX);
}

// ---- the byte reader ----

TEST(reader_reads_unsigned_integers_of_every_width_in_both_byte_orders) {
    // WIRE-1.
    const Bytes bytes{1, 2, 3, 4, 5, 6, 7, 8};
    for (size_t n = 1; n <= 8; ++n) {
        for (const bool big : {true, false}) {
            rt::Reader r(bytes.data(), n);
            uint64_t v = 0;
            CHECK(r.uint(n, big, v));
            CHECK_EQ(v, big ? BIG[n - 1] : LITTLE[n - 1]);
            CHECK_EQ(r.pos(), n);
            CHECK_EQ(r.remaining(), size_t{0});
            CHECK(r.finish());
        }
    }
    rt::Reader r(bytes.data(), bytes.size());
    uint8_t u8 = 0;
    uint16_t u16 = 0;
    uint32_t u24 = 0;
    uint16_t u16le = 0;
    CHECK(r.read_uint(1, true, u8));
    CHECK(r.read_uint(2, true, u16));
    CHECK(r.read_uint(3, false, u24));
    CHECK(r.read_uint(2, false, u16le));
    CHECK_EQ(u8, uint8_t{0x01});
    CHECK_EQ(u16, uint16_t{0x0203});
    CHECK_EQ(u24, uint32_t{0x060504});
    CHECK_EQ(u16le, uint16_t{0x0807});
    CHECK(r.finish());
}

TEST(reader_sign_extends_signed_integers_of_every_width) {
    for (size_t n = 1; n <= 8; ++n) {
        const int64_t min = n == 8 ? I64_MIN : -(int64_t{1} << (8 * n - 1));
        const int64_t max = n == 8 ? I64_MAX : (int64_t{1} << (8 * n - 1)) - 1;
        Bytes lowest(n, 0);
        lowest[0] = 0x80;  // big-endian: the sign bit first
        Bytes highest(n, 0xff);
        highest[0] = 0x7f;
        const Bytes minus_one(n, 0xff);
        int64_t v = 0;
        {
            rt::Reader r(lowest.data(), lowest.size());
            CHECK(r.read_int(n, true, v));
            CHECK_EQ(v, min);
        }
        {
            rt::Reader r(highest.data(), highest.size());
            CHECK(r.read_int(n, true, v));
            CHECK_EQ(v, max);
        }
        {
            rt::Reader r(minus_one.data(), minus_one.size());
            CHECK(r.read_int(n, false, v));
            CHECK_EQ(v, int64_t{-1});
        }
        {
            // Little-endian: the sign bit is in the last byte.
            const Bytes little(lowest.rbegin(), lowest.rend());
            rt::Reader r(little.data(), little.size());
            CHECK(r.read_int(n, false, v));
            CHECK_EQ(v, min);
        }
    }
    const Bytes bytes{0xff, 0x80, 0x00, 0xff, 0xff, 0x7f};
    rt::Reader r(bytes.data(), bytes.size());
    int8_t i8 = 0;
    int16_t i16 = 0;
    int32_t i24 = 0;
    CHECK(r.read_int(1, true, i8));
    CHECK(r.read_int(2, true, i16));
    CHECK(r.read_int(3, true, i24));
    CHECK_EQ(i8, int8_t{-1});
    CHECK_EQ(i16, int16_t{-32768});
    CHECK_EQ(i24, int32_t{0xffff7f - 0x1000000});
    CHECK(r.finish());
}

TEST(reader_reports_truncation_where_the_input_ends) {
    // WIRE-25.
    const Bytes bytes{1, 2, 3, 4, 5};
    for (size_t n = 1; n <= 8; ++n) {
        rt::Reader r(bytes.data(), bytes.size());
        uint64_t v = 0;
        CHECK(r.uint(2, true, v));
        CHECK_EQ(r.uint(n, true, v), n <= 3);
        if (n > 3) {
            CHECK_FAULT(r.error(), ErrorKind::truncated, 5, std::nullopt);
            CHECK_EQ(r.pos(), size_t{2});  // a failed read consumes nothing
        }
    }
    const Bytes none;
    rt::Reader empty(none.data(), 0);
    uint64_t v = 0;
    CHECK(!empty.uint(1, false, v));
    CHECK_FAULT(empty.error(), ErrorKind::truncated, 0, std::nullopt);
}

TEST(reader_treats_null_data_as_empty) {
    rt::Reader r(nullptr, 5);
    CHECK_EQ(r.remaining(), size_t{0});
    const uint8_t* p = nullptr;
    CHECK(r.take(0, p));
    CHECK(r.finish());
    uint8_t b = 0;
    CHECK(!r.read_uint(1, false, b));
    CHECK_FAULT(r.error(), ErrorKind::truncated, 0, std::nullopt);
}

TEST(reader_take_hands_out_checked_slices) {
    const Bytes bytes{10, 11, 12, 13};
    rt::Reader r(bytes.data(), bytes.size());
    const uint8_t* p = nullptr;
    CHECK(r.take(3, p));
    CHECK(p == bytes.data());
    CHECK(r.take(1, p));
    CHECK(p == bytes.data() + 3);
    CHECK_EQ(unsigned{*p}, 13u);
    CHECK(!r.take(1, p));
    CHECK_FAULT(r.error(), ErrorKind::truncated, 4, std::nullopt);
    rt::Reader huge(bytes.data(), bytes.size());
    CHECK(!huge.take(std::numeric_limits<size_t>::max(), p));
    CHECK_FAULT(huge.error(), ErrorKind::truncated, 4, std::nullopt);
}

TEST(reader_bools_are_0_or_1) {
    // WIRE-7.
    const Bytes bytes{0xaa, 0, 1, 2};
    rt::Reader r(bytes.data(), bytes.size());
    uint8_t skip = 0;
    bool b = true;
    CHECK(r.read_uint(1, false, skip));
    CHECK(r.read_bool(b));
    CHECK_EQ(b, false);
    CHECK(r.read_bool(b));
    CHECK_EQ(b, true);
    CHECK(!r.read_bool(b));
    CHECK_FAULT(r.error(), ErrorKind::over_width, 3, std::nullopt);
    rt::Reader end(bytes.data(), 0);
    CHECK(!end.read_bool(b));
    CHECK_FAULT(end.error(), ErrorKind::truncated, 0, std::nullopt);
}

TEST(reader_floats_refuse_nan_and_infinities_at_their_first_byte) {
    // WIRE-6.
    {
        const Bytes bytes{0x00, 0x3f, 0xc0, 0x00, 0x00, 0x00, 0x00, 0xc0, 0x3f};
        rt::Reader r(bytes.data(), bytes.size());
        uint8_t skip = 0;
        float f = 0.0f;
        CHECK(r.read_uint(1, false, skip));
        CHECK(r.read_f32(true, f));
        CHECK_EQ(f, 1.5f);
        CHECK(r.read_f32(false, f));
        CHECK_EQ(f, 1.5f);
        CHECK(r.finish());
    }
    {
        const Bytes bytes{0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0};
        rt::Reader r(bytes.data(), bytes.size());
        double d = 0.0;
        CHECK(r.read_f64(true, d));
        CHECK_EQ(d, 1.5);
        CHECK(r.read_f64(true, d));  // -0.0 is finite
        CHECK(std::signbit(d));
        CHECK(r.finish());
    }
    const std::array<Bytes, 3> singles = {{
        {0x7f, 0xc0, 0x00, 0x00},  // NaN
        {0x7f, 0x80, 0x00, 0x00},  // +inf
        {0xff, 0x80, 0x00, 0x00},  // -inf
    }};
    for (const Bytes& single : singles) {
        Bytes bytes{0xee, 0xee};
        bytes.insert(bytes.end(), single.begin(), single.end());
        rt::Reader r(bytes.data(), bytes.size());
        uint16_t skip = 0;
        float f = 0.0f;
        CHECK(r.read_uint(2, false, skip));
        CHECK(!r.read_f32(true, f));
        CHECK_FAULT(r.error(), ErrorKind::non_finite, 2, std::nullopt);
    }
    const std::array<Bytes, 3> doubles = {{
        {0x7f, 0xf8, 0, 0, 0, 0, 0, 0},
        {0x7f, 0xf0, 0, 0, 0, 0, 0, 0},
        {0xff, 0xf0, 0, 0, 0, 0, 0, 0},
    }};
    for (const Bytes& big : doubles) {
        const Bytes little(big.rbegin(), big.rend());
        Bytes bytes{0xee};
        bytes.insert(bytes.end(), little.begin(), little.end());
        rt::Reader r(bytes.data(), bytes.size());
        uint8_t skip = 0;
        double d = 0.0;
        CHECK(r.read_uint(1, false, skip));
        CHECK(!r.read_f64(false, d));
        CHECK_FAULT(r.error(), ErrorKind::non_finite, 1, std::nullopt);
    }
    const Bytes short_float{0x3f, 0xc0, 0x00};
    rt::Reader r(short_float.data(), short_float.size());
    float f = 0.0f;
    CHECK(!r.read_f32(true, f));
    CHECK_FAULT(r.error(), ErrorKind::truncated, 3, std::nullopt);
}

// ---- varints ----

TEST(varints_decode_leb128) {
    // WIRE-2.
    const std::array<std::pair<Bytes, uint64_t>, 8> cases = {{
        {{0x00}, 0},
        {{0x01}, 1},
        {{0x7f}, 127},
        {{0x80, 0x01}, 128},
        {{0xff, 0x7f}, 16383},
        {{0x80, 0x80, 0x01}, 16384},
        {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, (uint64_t{1} << 63) - 1},
        {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, U64_MAX},
    }};
    for (const auto& [bytes, value] : cases) {
        rt::Reader r(bytes.data(), bytes.size());
        uint64_t v = 0;
        CHECK(r.varint(64, v));
        CHECK_EQ(v, value);
        CHECK_EQ(r.pos(), bytes.size());
        CHECK_EQ(rt::varint_len(value), bytes.size());
    }
}

TEST(varints_longer_than_needed_are_refused_at_their_first_byte) {
    // WIRE-3.
    const std::array<Bytes, 5> overlong = {{
        {0x80, 0x00},
        {0x81, 0x00},
        {0xff, 0x80, 0x00},
        {0x80, 0x80, 0x80, 0x00},
        {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00},
    }};
    for (const Bytes& varint : overlong) {
        Bytes bytes{0xee, 0xee, 0xee};
        bytes.insert(bytes.end(), varint.begin(), varint.end());
        rt::Reader r(bytes.data(), bytes.size());
        const uint8_t* skip = nullptr;
        uint64_t v = 0;
        CHECK(r.take(3, skip));
        CHECK(!r.varint(64, v));
        CHECK_FAULT(r.error(), ErrorKind::non_canonical_varint, 3, std::nullopt);
    }
}

TEST(varints_of_more_than_10_bytes_or_over_64_bits_are_refused) {
    // WIRE-2.
    const std::array<Bytes, 4> too_long = {{
        // The tenth byte may hold bit 63 only.
        {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02},
        {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f},
        // An eleventh byte: the tenth has its continuation bit set.
        {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x00},
        {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
    }};
    for (const Bytes& varint : too_long) {
        Bytes bytes{0xee};
        bytes.insert(bytes.end(), varint.begin(), varint.end());
        rt::Reader r(bytes.data(), bytes.size());
        uint8_t skip = 0;
        uint64_t v = 0;
        CHECK(r.read_uint(1, false, skip));
        CHECK(!r.varint(64, v));
        CHECK_FAULT(r.error(), ErrorKind::over_width, 1, std::nullopt);
    }
    // Ten bytes of continuation with nothing after: the tenth is refused before the end is.
    const Bytes ten(10, 0x80);
    rt::Reader r(ten.data(), ten.size());
    uint64_t v = 0;
    CHECK(!r.varint(64, v));
    CHECK_FAULT(r.error(), ErrorKind::over_width, 0, std::nullopt);
}

TEST(varints_over_their_fields_width_are_refused) {
    // WIRE-4.
    for (unsigned bits = 1; bits < 64; ++bits) {
        const uint64_t max = (uint64_t{1} << bits) - 1;
        for (const uint64_t value : {max, max + 1}) {
            Bytes bytes{0xee};
            uint64_t rest = value;
            while (rest >= 0x80) {
                bytes.push_back(static_cast<uint8_t>((rest & 0x7f) | 0x80));
                rest >>= 7;
            }
            bytes.push_back(static_cast<uint8_t>(rest));
            rt::Reader r(bytes.data(), bytes.size());
            uint8_t skip = 0;
            uint64_t v = 0;
            CHECK(r.read_uint(1, false, skip));
            if (value == max) {
                CHECK(r.varint(bits, v));
                CHECK_EQ(v, max);
            } else {
                CHECK(!r.varint(bits, v));
                CHECK_FAULT(r.error(), ErrorKind::over_width, 1, std::nullopt);
            }
        }
    }
    const Bytes three{0x80, 0x02};  // 256
    rt::Reader r(three.data(), three.size());
    uint8_t narrow = 0;
    CHECK(!r.read_varint(8, narrow));
    CHECK_FAULT(r.error(), ErrorKind::over_width, 0, std::nullopt);
}

TEST(varints_cut_short_are_truncated_where_the_input_ends) {
    const std::array<Bytes, 3> cut = {{{0x80}, {0xff, 0xff}, {0xee, 0x80, 0x80, 0x80}}};
    for (const Bytes& bytes : cut) {
        rt::Reader r(bytes.data(), bytes.size());
        uint64_t v = 0;
        if (bytes[0] == 0xee) {
            uint8_t skip = 0;
            CHECK(r.read_uint(1, false, skip));
        }
        CHECK(!r.varint(64, v));
        CHECK_FAULT(r.error(), ErrorKind::truncated, bytes.size(), std::nullopt);
    }
}

TEST(zigzag_varints_read_signed_values) {
    // WIRE-5.
    const Bytes bytes{0x00, 0x01, 0x02, 0x03, 0xff, 0x01, 0x80, 0x02};
    rt::Reader r(bytes.data(), bytes.size());
    int8_t a = 9;
    int16_t b = 0;
    int32_t c = 0;
    int64_t d = 0;
    int8_t e = 0;
    CHECK(r.read_zigzag(8, a));
    CHECK_EQ(a, int8_t{0});
    CHECK(r.read_zigzag(16, b));
    CHECK_EQ(b, int16_t{-1});
    CHECK(r.read_zigzag(32, c));
    CHECK_EQ(c, int32_t{1});
    CHECK(r.read_zigzag(64, d));
    CHECK_EQ(d, int64_t{-2});
    CHECK(r.read_zigzag(8, e));  // 255: the most negative 8-bit value
    CHECK_EQ(e, int8_t{-128});
    CHECK(!r.read_zigzag(8, e));  // 256 needs 9 bits
    CHECK_FAULT(r.error(), ErrorKind::over_width, 6, std::nullopt);
}

// ---- counts, bytes, ascending lists, the end of a frame ----

TEST(counts_are_checked_against_the_remaining_bytes_before_allocation) {
    // WIRE-13.
    const Bytes bytes(10, 0);
    rt::Reader r(bytes.data(), bytes.size());
    const uint8_t* skip = nullptr;
    CHECK(r.take(4, skip));  // 6 remain
    size_t n = 0;
    CHECK(r.count(3, 2, 4, n));
    CHECK_EQ(n, size_t{3});
    CHECK(r.count(6, 0, 4, n));  // an element of 0 bytes counts as 1
    CHECK(r.count(0, 1000, 4, n));
    CHECK_EQ(n, size_t{0});
    CHECK(!r.count(7, 0, 9, n));
    CHECK_FAULT(r.error(), ErrorKind::count_too_large, 9, std::nullopt);
    CHECK(!r.count(4, 2, 4, n));
    CHECK_FAULT(r.error(), ErrorKind::count_too_large, 4, std::nullopt);
    // A product that would wrap around 64 bits is too large, not small.
    CHECK(!r.count(uint64_t{1} << 63, 4, 1, n));
    CHECK_FAULT(r.error(), ErrorKind::count_too_large, 1, std::nullopt);
    CHECK(!r.count(U64_MAX, U64_MAX, 2, n));
    CHECK_FAULT(r.error(), ErrorKind::count_too_large, 2, std::nullopt);
    CHECK_EQ(r.pos(), size_t{4});  // counting reads nothing
}

TEST(bytes_are_a_varint_length_then_the_bytes) {
    // WIRE-15.
    const Bytes bytes{0x03, 0xaa, 0xbb, 0xcc, 0x00, 0x01, 0x00, 0x03, 0xdd, 0xee};
    rt::Reader r(bytes.data(), bytes.size());
    Bytes a;
    Bytes b{1, 2};
    std::optional<Bytes> c = Bytes{};
    std::optional<Bytes> d;
    std::optional<Bytes> e;
    CHECK(r.read_bytes(a));
    CHECK_EQ(a, (Bytes{0xaa, 0xbb, 0xcc}));
    CHECK(r.read_bytes(b));
    CHECK_EQ(b, Bytes{});
    CHECK(r.read_opt_bytes(d));  // 01: present and empty
    CHECK_EQ(d, std::optional<Bytes>(Bytes{}));
    CHECK(r.read_opt_bytes(c));  // 00: absent
    CHECK_EQ(c, std::optional<Bytes>());
    CHECK(r.read_opt_bytes(e));  // 03: two bytes
    CHECK_EQ(e, std::optional<Bytes>(Bytes{0xdd, 0xee}));
    CHECK(r.finish());
}

TEST(bytes_too_long_for_the_input_are_refused_where_they_would_begin) {
    {
        const Bytes bytes{0xee, 0x04, 0xaa, 0xbb, 0xcc};
        rt::Reader r(bytes.data(), bytes.size());
        uint8_t skip = 0;
        Bytes out;
        CHECK(r.read_uint(1, false, skip));
        CHECK(!r.read_bytes(out));
        CHECK_FAULT(r.error(), ErrorKind::count_too_large, 2, std::nullopt);
    }
    {
        const Bytes bytes{0x05, 0xaa, 0xbb, 0xcc};
        rt::Reader r(bytes.data(), bytes.size());
        std::optional<Bytes> out;
        CHECK(!r.read_opt_bytes(out));
        CHECK_FAULT(r.error(), ErrorKind::count_too_large, 1, std::nullopt);
    }
    {
        // A length near 2^64 is refused before anything is allocated.
        const Bytes bytes{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
        rt::Reader r(bytes.data(), bytes.size());
        Bytes out;
        std::optional<Bytes> opt;
        CHECK(!r.read_bytes(out));
        CHECK_FAULT(r.error(), ErrorKind::count_too_large, 10, std::nullopt);
        rt::Reader again(bytes.data(), bytes.size());
        CHECK(!again.read_opt_bytes(opt));
        CHECK_FAULT(again.error(), ErrorKind::count_too_large, 10, std::nullopt);
    }
    {
        const Bytes bytes{0x80, 0x00};
        rt::Reader r(bytes.data(), bytes.size());
        Bytes out;
        CHECK(!r.read_bytes(out));
        CHECK_FAULT(r.error(), ErrorKind::non_canonical_varint, 0, std::nullopt);
    }
}

TEST(ascending_lists_add_deltas_of_at_least_1) {
    // WIRE-14.
    const Bytes none;
    rt::Reader r(none.data(), 0);
    std::optional<uint64_t> prev;
    uint16_t v = 0;
    CHECK(r.ascending(prev, 0, 16, 0, v));  // the first is absolute, and may be 0
    CHECK_EQ(v, uint16_t{0});
    CHECK(r.ascending(prev, 5, 16, 1, v));
    CHECK_EQ(v, uint16_t{5});
    CHECK(r.ascending(prev, 3, 16, 2, v));
    CHECK_EQ(v, uint16_t{8});
    CHECK_EQ(prev, std::optional<uint64_t>(8));
    CHECK(!r.ascending(prev, 0, 16, 3, v));
    CHECK_FAULT(r.error(), ErrorKind::not_ascending, 3, std::nullopt);

    // The sum must fit the element's width, not only the delta.
    std::optional<uint64_t> p4;
    uint8_t small = 0;
    CHECK(r.ascending(p4, 15, 4, 0, small));
    CHECK(!r.ascending(p4, 1, 4, 7, small));
    CHECK_FAULT(r.error(), ErrorKind::over_width, 7, std::nullopt);
    std::optional<uint64_t> first;
    CHECK(!r.ascending(first, 16, 4, 5, small));
    CHECK_FAULT(r.error(), ErrorKind::over_width, 5, std::nullopt);

    // At 64 bits a sum past 2^64 - 1 is over the width, not wrapped around.
    std::optional<uint64_t> wide = U64_MAX - 1;
    uint64_t big = 0;
    CHECK(r.ascending(wide, 1, 64, 0, big));
    CHECK_EQ(big, U64_MAX);
    CHECK(!r.ascending(wide, 1, 64, 9, big));
    CHECK_FAULT(r.error(), ErrorKind::over_width, 9, std::nullopt);
}

TEST(a_frame_ends_where_its_bytes_end) {
    // WIRE-17.
    const Bytes bytes{1, 2, 3};
    rt::Reader r(bytes.data(), bytes.size());
    uint8_t b = 0;
    CHECK(r.read_uint(1, false, b));
    CHECK(!r.finish());
    CHECK_FAULT(r.error(), ErrorKind::trailing_bytes, 1, std::nullopt);
    CHECK(r.read_uint(1, false, b));
    CHECK(r.read_uint(1, false, b));
    CHECK(r.finish());
}

TEST(reader_errors_collect_their_field_path_on_the_way_out) {
    const Bytes bytes{0x01};
    rt::Reader r(bytes.data(), bytes.size());
    uint32_t v = 0;
    CHECK(!r.read_uint(4, true, v));
    CHECK_EQ(r.in("mask"), false);
    CHECK_EQ(r.index(3).in("changes"), false);
    CHECK_EQ(r.error().path_string(), std::string("changes[3].mask"));
    const rt::DecodeError e = r.take_error();
    CHECK_FAULT(e, ErrorKind::truncated, 1, std::nullopt);
    CHECK_EQ(e.message(), std::string("truncated at byte 1, field changes[3].mask"));
    CHECK_EQ(r.fail(ErrorKind::bad_constant, 0), false);
    CHECK_FAULT(r.error(), ErrorKind::bad_constant, 0, std::nullopt);
    CHECK(r.error().path.empty());  // a new fault starts a new path
}

// ---- bit streams ----

TEST(bit_streams_read_least_significant_bit_first) {
    // WIRE-18.
    // 0xb4 = 1011 0100: bits 0-2 are 100 (4), bits 3-7 are 10110 (22); bit 8 is 1.
    const Bytes bytes{0xb4, 0x01};
    rt::Reader r(bytes.data(), bytes.size());
    uint8_t three = 0;
    uint8_t five = 0;
    bool flag = false;
    CHECK(r.packed([&](rt::BitReader& bits) {
        CHECK_EQ(bits.bit_pos(), size_t{0});
        CHECK_EQ(bits.remaining(), size_t{16});
        const bool ok = bits.read_uint(3, three) && bits.read_uint(5, five) && bits.read_bool(flag);
        CHECK_EQ(bits.bit_pos(), size_t{9});
        return ok;
    }));
    CHECK_EQ(three, uint8_t{4});
    CHECK_EQ(five, uint8_t{22});
    CHECK_EQ(flag, true);
    CHECK_EQ(r.pos(), size_t{2});  // the body and its padding
    CHECK(r.finish());
}

TEST(bit_fields_cross_byte_boundaries_and_sign_extend) {
    const Bytes bytes{0xab, 0x7d, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    rt::Reader r(bytes.data(), bytes.size());
    uint16_t twelve = 0;
    int8_t low = 0;
    int8_t high = 0;
    int64_t all = 0;
    CHECK(r.packed([&](rt::BitReader& bits) {
        return bits.read_uint(12, twelve) && bits.read_int(2, low) && bits.read_int(2, high)
            && bits.read_int(64, all);
    }));
    CHECK_EQ(twelve, uint16_t{0xdab});  // 0xab, then the low nibble of 0x7d
    CHECK_EQ(low, int8_t{-1});          // bits 12-13 of 0x7d: 11
    CHECK_EQ(high, int8_t{1});          // bits 14-15: 01
    CHECK_EQ(all, int64_t{-1});
    CHECK(r.finish());
}

TEST(bit_streams_report_truncation_at_the_bit_where_the_input_ends) {
    const Bytes bytes{0xee, 0xee, 0xff};
    rt::Reader r(bytes.data(), bytes.size());
    const uint8_t* skip = nullptr;
    CHECK(r.take(2, skip));
    uint16_t v = 0;
    CHECK(!r.packed([&](rt::BitReader& bits) {
        uint8_t first = 0;
        return bits.read_uint(3, first) && (bits.read_uint(9, v) || bits.in("wide"));
    }));
    CHECK_FAULT(r.error(), ErrorKind::truncated, 3, size_t{24});
    CHECK_EQ(r.error().path_string(), std::string("wide"));
    CHECK_EQ(r.pos(), size_t{2});  // a failed body moves the reader nowhere
}

TEST(bit_stream_padding_must_be_zero) {
    // WIRE-18.
    for (unsigned used = 1; used <= 8; ++used) {
        for (unsigned pad = used; pad < 8; ++pad) {
            const Bytes bytes{0xee, static_cast<uint8_t>(1u << pad)};
            rt::Reader r(bytes.data(), bytes.size());
            uint8_t skip = 0;
            CHECK(r.read_uint(1, false, skip));
            CHECK(!r.packed([&](rt::BitReader& bits) {
                uint8_t field = 0;
                return bits.read_uint(used, field);
            }));
            CHECK_FAULT(r.error(), ErrorKind::reserved_bit, 1, size_t{8 + pad});
        }
    }
    // The first set padding bit is the one reported.
    const Bytes bytes{0x00, 0xc0};
    rt::Reader r(bytes.data(), bytes.size());
    CHECK(!r.packed([&](rt::BitReader& bits) {
        uint16_t field = 0;
        return bits.read_uint(10, field);
    }));
    CHECK_FAULT(r.error(), ErrorKind::reserved_bit, 1, size_t{14});
    // An empty body takes no bytes.
    rt::Reader empty(bytes.data(), bytes.size());
    CHECK(empty.packed([](rt::BitReader&) { return true; }));
    CHECK_EQ(empty.pos(), size_t{0});
}

TEST(bit_stream_floats_and_counts) {
    // 1.5f is 0x3fc00000, written least significant bit first: 00 00 c0 3f.
    const Bytes bytes{0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0xc0, 0x7f};
    rt::Reader r(bytes.data(), bytes.size());
    CHECK(!r.packed([&](rt::BitReader& bits) {
        float f = 0.0f;
        CHECK(bits.read_f32(f));
        CHECK_EQ(f, 1.5f);
        size_t n = 0;
        CHECK(bits.count(4, 8, 32, n));  // 32 bits remain
        CHECK_EQ(n, size_t{4});
        CHECK(bits.count(32, 0, 32, n));
        CHECK(!bits.count(5, 8, 33, n));
        CHECK_FAULT(r.error(), ErrorKind::count_too_large, 4, size_t{33});
        CHECK(!bits.count(uint64_t{1} << 62, 8, 32, n));
        return bits.read_f32(f);  // 0x7fc00000: NaN
    }));
    CHECK_FAULT(r.error(), ErrorKind::non_finite, 4, size_t{32});

    Bytes doubles(16, 0);
    doubles[6] = 0xf8;
    doubles[7] = 0x3f;  // 1.5
    doubles[14] = 0xf0;
    doubles[15] = 0xff;  // -inf
    rt::Reader d(doubles.data(), doubles.size());
    CHECK(!d.packed([&](rt::BitReader& bits) {
        double v = 0.0;
        CHECK(bits.read_f64(v));
        CHECK_EQ(v, 1.5);
        return bits.read_f64(v);
    }));
    CHECK_FAULT(d.error(), ErrorKind::non_finite, 8, size_t{64});
}

// ---- the writer ----

TEST(writer_writes_unsigned_integers_of_every_width_in_both_byte_orders) {
    for (size_t n = 1; n <= 8; ++n) {
        Bytes big;
        Bytes little;
        rt::Writer wb(big);
        rt::Writer wl(little);
        CHECK(wb.write_uint(n, true, BIG[n - 1]));
        CHECK(wl.write_uint(n, false, LITTLE[n - 1]));
        Bytes expected;
        for (size_t i = 1; i <= n; ++i) {
            expected.push_back(static_cast<uint8_t>(i));
        }
        CHECK_EQ(big, expected);
        CHECK_EQ(little, expected);
    }
}

TEST(writer_refuses_values_over_their_width_and_writes_nothing) {
    // WIRE-4.
    for (size_t n = 1; n < 8; ++n) {
        Bytes out;
        rt::Writer w(out);
        const uint64_t max = (uint64_t{1} << (8 * n)) - 1;
        CHECK(w.write_uint(n, true, max));
        CHECK_EQ(out.size(), n);
        CHECK(!w.write_uint(n, true, max + 1));
        CHECK_EQ(w.error().kind, ErrorKind::over_width);
        CHECK_EQ(out.size(), n);
        const int64_t imax = (int64_t{1} << (8 * n - 1)) - 1;
        CHECK(w.write_int(n, false, imax));
        CHECK(w.write_int(n, false, -imax - 1));
        CHECK(!w.write_int(n, false, imax + 1));
        CHECK(!w.write_int(n, false, -imax - 2));
        CHECK_EQ(out.size(), 3 * n);
    }
    Bytes out;
    rt::Writer w(out);
    CHECK(w.write_uint(8, false, U64_MAX));
    CHECK(w.write_int(8, true, I64_MIN));
    CHECK_EQ(out,
        (Bytes{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(writer_signed_integers_are_twos_complement) {
    Bytes out;
    rt::Writer w(out);
    CHECK(w.write_int(1, true, -128));
    CHECK(w.write_int(2, true, -2));
    CHECK(w.write_int(3, false, -2));
    CHECK(w.write_int(2, false, 0x1234));
    CHECK_EQ(out, (Bytes{0x80, 0xff, 0xfe, 0xfe, 0xff, 0xff, 0x34, 0x12}));
}

TEST(writer_made_with_an_expected_length_leaves_exactly_what_was_written) {
    // Exactly the length, as the generated encode() gives it: nothing more, nothing less.
    Bytes out{0xee};
    {
        rt::Writer w(out, 3);
        CHECK_EQ(out.size(), size_t{4});  // grown at once
        CHECK(w.write_uint(2, false, 0x1234));
        w.write_bool(true);
    }
    CHECK_EQ(out, (Bytes{0xee, 0x34, 0x12, 1}));
    // More than is written: the rest is dropped.
    {
        rt::Writer w(out, 16);
        CHECK(w.write_varint(64, 300));
    }
    CHECK_EQ(out, (Bytes{0xee, 0x34, 0x12, 1, 0xac, 0x02}));
    // Less than is written: the writer grows as it goes.
    {
        rt::Writer w(out, 1);
        CHECK(w.write_uint(4, true, 0x01020304));
        CHECK(w.write_f32(false, 1.5f));
        w.append(Bytes{9, 8});
    }
    CHECK_EQ(out, (Bytes{0xee, 0x34, 0x12, 1, 0xac, 0x02, 1, 2, 3, 4, 0, 0, 0xc0, 0x3f, 9, 8}));
    // A write that fails writes nothing; what came before it stays.
    out.clear();
    {
        rt::Writer w(out, 8);
        CHECK(w.write_uint(1, false, 7));
        CHECK(!w.write_uint(1, false, 256));
        CHECK(!w.write_f64(true, std::numeric_limits<double>::infinity()));
    }
    CHECK_EQ(out, (Bytes{7}));
    // A bit-packed body reaches the parent at finish().
    {
        rt::Writer w(out, 2);
        rt::BitWriter bits(w);
        CHECK(bits.write_uint(4, 5));
        bits.finish();
        CHECK(w.write_uint(1, false, 6));
    }
    CHECK_EQ(out, (Bytes{7, 5, 6}));
}

TEST(writer_bools_floats_and_non_finite_values) {
    Bytes out;
    rt::Writer w(out);
    w.write_bool(true);
    w.write_bool(false);
    CHECK(w.write_f32(true, 1.5f));
    CHECK(w.write_f64(false, 1.5));
    CHECK_EQ(out, (Bytes{1, 0, 0x3f, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f}));
    const size_t before = out.size();
    CHECK(!w.write_f32(true, std::numeric_limits<float>::quiet_NaN()));
    CHECK_EQ(w.error().kind, ErrorKind::non_finite);
    CHECK(!w.write_f32(false, -std::numeric_limits<float>::infinity()));
    CHECK(!w.write_f64(true, std::numeric_limits<double>::infinity()));
    CHECK(!w.write_f64(true, std::nan("")));
    CHECK_EQ(w.error().kind, ErrorKind::non_finite);
    CHECK_EQ(out.size(), before);
}

TEST(writer_varints_are_canonical_and_within_their_width) {
    // WIRE-3, WIRE-4.
    const std::array<std::pair<uint64_t, Bytes>, 5> cases = {{
        {0, {0x00}},
        {127, {0x7f}},
        {128, {0x80, 0x01}},
        {16384, {0x80, 0x80, 0x01}},
        {U64_MAX, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
    }};
    for (const auto& [value, bytes] : cases) {
        Bytes out;
        rt::Writer w(out);
        CHECK(w.write_varint(64, value));
        CHECK_EQ(out, bytes);
    }
    Bytes out;
    rt::Writer w(out);
    CHECK(w.write_varint(8, 255));
    CHECK(!w.write_varint(8, 256));
    CHECK_EQ(w.error().kind, ErrorKind::over_width);
    CHECK(w.write_zigzag(8, -128));
    CHECK(w.write_zigzag(8, 127));
    CHECK(!w.write_zigzag(8, 128));
    CHECK(!w.write_zigzag(8, -129));
    CHECK(w.write_zigzag(64, I64_MIN));
    CHECK_EQ(out, (Bytes{0xff, 0x01, 0xff, 0x01, 0xfe, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0x01}));
}

TEST(writer_bytes_and_their_lengths) {
    Bytes out;
    rt::Writer w(out);
    const Bytes three{0xaa, 0xbb, 0xcc};
    CHECK(w.write_bytes(three));
    CHECK(w.write_bytes(Bytes{}));
    CHECK(w.write_opt_bytes(std::nullopt));
    CHECK(w.write_opt_bytes(Bytes{}));
    CHECK(w.write_opt_bytes(Bytes{0xdd}));
    CHECK_EQ(out, (Bytes{0x03, 0xaa, 0xbb, 0xcc, 0x00, 0x00, 0x01, 0x02, 0xdd}));

    CHECK_EQ(rt::bytes_len(Bytes{}), size_t{1});
    CHECK_EQ(rt::bytes_len(three), size_t{4});
    CHECK_EQ(rt::opt_bytes_len(std::nullopt), size_t{1});
    CHECK_EQ(rt::opt_bytes_len(Bytes{}), size_t{1});
    for (const size_t n : {size_t{126}, size_t{127}, size_t{128}, size_t{16383}, size_t{16384}}) {
        const Bytes data(n, 0x5a);
        Bytes a;
        Bytes b;
        rt::Writer wa(a);
        rt::Writer wb(b);
        CHECK(wa.write_bytes(data));
        CHECK(wb.write_opt_bytes(data));
        CHECK_EQ(rt::bytes_len(data), a.size());
        CHECK_EQ(rt::opt_bytes_len(data), b.size());
        rt::Reader ra(a.data(), a.size());
        Bytes back;
        CHECK(ra.read_bytes(back) && ra.finish());
        CHECK(back == data);
        rt::Reader rb(b.data(), b.size());
        std::optional<Bytes> opt;
        CHECK(rb.read_opt_bytes(opt) && rb.finish());
        CHECK(opt == std::optional<Bytes>(data));
    }
}

TEST(writer_checks_that_only_refuse_values) {
    Bytes out;
    rt::Writer w(out);
    CHECK(w.presence(true, true));
    CHECK(w.presence(false, false));
    CHECK(!w.presence(true, false));
    CHECK_EQ(w.error().kind, ErrorKind::invalid_condition);
    CHECK(!w.presence(false, true));

    int64_t i = 0;
    CHECK(w.quantize_int(1.0, 0.5, -8, 7, i));
    CHECK_EQ(i, int64_t{2});
    CHECK(w.quantize_int(-4.0, 0.5, -8, 7, i));
    CHECK_EQ(i, int64_t{-8});
    CHECK(!w.quantize_int(4.0, 0.5, -8, 7, i));
    CHECK_EQ(w.error().kind, ErrorKind::over_width);
    CHECK(!w.quantize_int(-4.25, 0.5, -8, 7, i));  // -8.5 rounds away from zero, to -9
    CHECK(w.quantize_int(std::nan(""), 0.5, -8, 7, i));  // a non-finite value quantizes to 0
    CHECK_EQ(i, int64_t{0});
    CHECK(!w.quantize_int(1e300, 1.0, I64_MIN, I64_MAX, i));
    CHECK(!w.quantize_int(9223372036854775808.0, 1.0, I64_MIN, I64_MAX, i));
    CHECK(w.quantize_int(-9223372036854775808.0, 1.0, I64_MIN, I64_MAX, i));
    CHECK_EQ(i, I64_MIN);

    uint64_t u = 0;
    CHECK(w.quantize_uint(127.5, 0.5, 255, u));
    CHECK_EQ(u, uint64_t{255});
    CHECK(!w.quantize_uint(128.0, 0.5, 255, u));
    CHECK(!w.quantize_uint(-1.0, 1.0, 255, u));
    CHECK(w.quantize_uint(-0.4, 1.0, 255, u));  // rounds to -0.0, which is 0
    CHECK_EQ(u, uint64_t{0});
    CHECK(!w.quantize_uint(18446744073709551616.0, 1.0, U64_MAX, u));
    CHECK_EQ(w.error().kind, ErrorKind::over_width);

    std::optional<uint64_t> prev;
    uint64_t delta = 0;
    CHECK(w.ascending(prev, 5, 16, delta));
    CHECK_EQ(delta, uint64_t{5});
    CHECK(w.ascending(prev, 8, 16, delta));
    CHECK_EQ(delta, uint64_t{3});
    CHECK(!w.ascending(prev, 8, 16, delta));
    CHECK_EQ(w.error().kind, ErrorKind::not_ascending);
    CHECK(!w.ascending(prev, 7, 16, delta));
    CHECK(!w.ascending(prev, 1u << 16, 16, delta));
    CHECK_EQ(w.error().kind, ErrorKind::over_width);
    CHECK(out.empty());
}

TEST(ascending_lengths_match_what_is_written) {
    const std::vector<uint32_t> items{1, 200, 201, 20000, 1u << 30};
    std::optional<uint64_t> prev;
    Bytes out;
    rt::Writer w(out);
    for (const uint32_t item : items) {
        uint64_t delta = 0;
        CHECK(w.ascending(prev, item, 32, delta) && w.write_varint(64, delta));
    }
    CHECK_EQ(rt::ascending_varints_len(items), out.size());
    CHECK_EQ(out.size(), size_t{1 + 2 + 1 + 3 + 5});
    rt::Reader r(out.data(), out.size());
    std::optional<uint64_t> back;
    for (const uint32_t item : items) {
        const size_t at = r.pos();
        uint64_t delta = 0;
        uint32_t v = 0;
        CHECK(r.varint(64, delta) && r.ascending(back, delta, 32, at, v));
        CHECK_EQ(v, item);
    }
    CHECK(r.finish());
    std::optional<uint64_t> p;
    CHECK_EQ(rt::ascending_step(p, 10), uint64_t{10});
    CHECK_EQ(rt::ascending_step(p, 12), uint64_t{2});
    CHECK_EQ(rt::ascending_step(p, 12), uint64_t{12});  // does not ascend: the value itself
}

TEST(writer_errors_collect_their_field_path_on_the_way_out) {
    Bytes out;
    rt::Writer w(out);
    CHECK(!w.write_uint(1, false, 256));
    CHECK_EQ(w.in("tick"), false);
    CHECK_EQ(w.index(2).in("changes"), false);
    CHECK_EQ(w.error().message(), std::string("cannot encode: over_width in changes[2].tick"));
    const rt::EncodeError e = w.take_error();
    CHECK_EQ(e.kind, ErrorKind::over_width);
    CHECK_EQ(w.fail(ErrorKind::unknown_tag), false);
    CHECK_EQ(w.error().message(), std::string("cannot encode: unknown_tag"));
}

TEST(bit_writer_packs_least_significant_bit_first) {
    Bytes out{0xee};
    rt::Writer w(out);
    {
        rt::BitWriter bits(w);
        CHECK(bits.write_uint(3, 4));
        CHECK(bits.write_uint(5, 22));
        bits.write_bool(true);
        CHECK_EQ(bits.bit_len(), size_t{9});
        CHECK(out.size() == 1);  // nothing reaches the parent before finish()
        bits.finish();
    }
    CHECK_EQ(out, (Bytes{0xee, 0xb4, 0x01}));
    rt::BitWriter more(w);
    CHECK(more.write_int(4, -8));
    CHECK(more.write_int(4, 7));
    CHECK(more.write_f32(1.5f));
    CHECK_EQ(more.bit_len(), size_t{40});
    more.finish();
    CHECK_EQ(out, (Bytes{0xee, 0xb4, 0x01, 0x78, 0x00, 0x00, 0xc0, 0x3f}));
}

TEST(bit_writer_errors_go_to_its_parent) {
    Bytes out;
    rt::Writer w(out);
    rt::BitWriter bits(w);
    CHECK(bits.write_uint(64, U64_MAX));
    CHECK(bits.write_int(64, I64_MIN));
    CHECK(!bits.write_uint(3, 8));
    CHECK_EQ(w.error().kind, ErrorKind::over_width);
    CHECK(!bits.write_int(4, 8));
    CHECK(!bits.write_int(4, -9));
    CHECK(!bits.write_f32(std::numeric_limits<float>::infinity()));
    CHECK_EQ(w.error().kind, ErrorKind::non_finite);
    CHECK(!bits.write_f64(std::nan("")));
    CHECK_EQ(bits.bit_len(), size_t{128});  // the refused values wrote nothing
    CHECK_EQ(bits.in("x"), false);
    CHECK_EQ(w.error().path.str(), std::string("x"));
}

// ---- round trips ----

TEST(random_integers_round_trip_at_every_width) {
    Random random(2);
    for (int i = 0; i < 3000; ++i) {
        const size_t n = random.between(1, 8);
        const bool big = random.next() % 2 == 0;
        const uint64_t u = random.value(static_cast<unsigned>(8 * n));
        const int64_t s = twos_complement(random.value(static_cast<unsigned>(8 * n)),
            static_cast<unsigned>(8 * n));
        Bytes out;
        rt::Writer w(out);
        CHECK(w.write_uint(n, big, u) && w.write_int(n, big, s));
        CHECK_EQ(out.size(), 2 * n);
        rt::Reader r(out.data(), out.size());
        uint64_t u2 = 0;
        int64_t s2 = 0;
        CHECK(r.uint(n, big, u2) && r.read_int(n, big, s2) && r.finish());
        CHECK_EQ(u2, u);
        CHECK_EQ(s2, s);
    }
}

TEST(random_varints_round_trip_and_fail_one_bit_narrower) {
    Random random(3);
    for (int i = 0; i < 3000; ++i) {
        const unsigned bits = random.between(1, 64);
        const uint64_t v = random.value(bits);
        const int64_t z = twos_complement(random.value(bits), bits);
        Bytes out;
        rt::Writer w(out);
        CHECK(w.write_varint(bits, v));
        CHECK_EQ(out.size(), rt::varint_len(v));
        const size_t varint_end = out.size();
        CHECK(w.write_zigzag(bits, z));
        rt::Reader r(out.data(), out.size());
        uint64_t v2 = 0;
        int64_t z2 = 0;
        CHECK(r.varint(bits, v2) && r.read_zigzag(bits, z2) && r.finish());
        CHECK_EQ(v2, v);
        CHECK_EQ(z2, z);
        if (bits > 1 && (v >> (bits - 1)) != 0) {
            rt::Reader narrow(out.data(), varint_end);
            CHECK(!narrow.varint(bits - 1, v2));
            CHECK_FAULT(narrow.error(), ErrorKind::over_width, 0, std::nullopt);
        }
        // Cut anywhere inside the varint, it is truncated where the cut is.
        for (size_t cut = 0; cut < varint_end; ++cut) {
            rt::Reader short_input(out.data(), cut);
            CHECK(!short_input.varint(bits, v2));
            CHECK_FAULT(short_input.error(), ErrorKind::truncated, cut, std::nullopt);
        }
    }
}

TEST(random_bit_streams_round_trip_and_fail_when_cut) {
    Random random(4);
    for (int i = 0; i < 500; ++i) {
        struct Field {
            unsigned width;
            bool is_signed;
            uint64_t u;
            int64_t s;
        };
        std::vector<Field> fields;
        const unsigned count = random.between(1, 12);
        for (unsigned k = 0; k < count; ++k) {
            Field f{random.between(2, 64), random.next() % 2 == 0, 0, 0};
            f.u = random.value(f.width);
            f.s = twos_complement(random.value(f.width), f.width);
            fields.push_back(f);
        }
        const size_t prefix = random.between(0, 3);
        Bytes out(prefix, 0xee);
        rt::Writer w(out);
        size_t total = 0;
        {
            rt::BitWriter bits(w);
            for (const Field& f : fields) {
                CHECK(f.is_signed ? bits.write_int(f.width, f.s) : bits.write_uint(f.width, f.u));
                total += f.width;
            }
            CHECK_EQ(bits.bit_len(), total);
            bits.finish();
        }
        CHECK_EQ(out.size(), prefix + (total + 7) / 8);

        const auto read_all = [&](rt::BitReader& bits) {
            for (const Field& f : fields) {
                uint64_t u = 0;
                int64_t s = 0;
                if (f.is_signed ? !bits.read_int(f.width, s) : !bits.read_uint(f.width, u)) {
                    return false;
                }
                CHECK(f.is_signed ? s == f.s : u == f.u);
            }
            return true;
        };
        {
            rt::Reader r(out.data(), out.size());
            const uint8_t* skip = nullptr;
            CHECK(r.take(prefix, skip) && r.packed(read_all) && r.finish());
        }
        {
            // The last byte holds at least one field bit: without it, a field is cut short.
            rt::Reader r(out.data(), out.size() - 1);
            const uint8_t* skip = nullptr;
            CHECK(r.take(prefix, skip));
            CHECK(!r.packed(read_all));
            CHECK_FAULT(r.error(), ErrorKind::truncated, out.size() - 1, (out.size() - 1) * 8);
        }
        if (total % 8 != 0) {
            // Any padding bit set is a reserved bit, reported at its own position.
            const unsigned pad = random.between(static_cast<unsigned>(total % 8), 7);
            Bytes bad = out;
            bad.back() = static_cast<uint8_t>(bad.back() | (1u << pad));
            rt::Reader r(bad.data(), bad.size());
            const uint8_t* skip = nullptr;
            CHECK(r.take(prefix, skip));
            CHECK(!r.packed(read_all));
            const size_t bit = (bad.size() - 1) * 8 + pad;
            CHECK_FAULT(r.error(), ErrorKind::reserved_bit, bad.size() - 1, bit);
        }
    }
}

TEST(a_cut_anywhere_in_a_frame_is_truncated_at_the_cut) {
    Bytes out;
    rt::Writer w(out);
    CHECK(w.write_uint(4, true, 0xdeadbeef) && w.write_varint(64, 300)
        && w.write_bytes(Bytes{1, 2, 3}) && w.write_int(2, false, -5) && w.write_f64(true, 2.5));
    const auto read = [](rt::Reader& r) {
        uint32_t a = 0;
        uint64_t b = 0;
        Bytes c;
        int16_t d = 0;
        double e = 0;
        return r.read_uint(4, true, a) && r.varint(64, b) && r.read_bytes(c)
            && r.read_int(2, false, d) && r.read_f64(true, e) && r.finish();
    };
    rt::Reader whole(out.data(), out.size());
    CHECK(read(whole));
    for (size_t cut = 0; cut < out.size(); ++cut) {
        const Bytes part(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(cut));
        rt::Reader r(part.data(), part.size());
        CHECK(!read(r));
        // The bytes' length (3, at byte 6) is checked against what remains, so a cut inside
        // the bytes is a count too large, reported where they would begin (byte 7).
        if (cut >= 7 && cut <= 9) {
            CHECK_FAULT(r.error(), ErrorKind::count_too_large, 7, std::nullopt);
        } else {
            CHECK_FAULT(r.error(), ErrorKind::truncated, cut, std::nullopt);
        }
    }
}

// ---- hex, FNV-1a ----

TEST(hex_both_ways) {
    CHECK_EQ(rt::to_hex(Bytes{0x00, 0xab, 0xff, 0x10}), std::string("00abff10"));
    CHECK_EQ(rt::to_hex(Bytes{}), std::string());
    Bytes out;
    std::string why;
    CHECK(rt::from_hex("00 AB\n\tff10", out, why));
    CHECK_EQ(out, (Bytes{0x00, 0xab, 0xff, 0x10}));
    CHECK(rt::from_hex("", out, why));
    CHECK(out.empty());
    CHECK(!rt::from_hex("abc", out, why));
    CHECK_EQ(why, std::string("odd number of hex digits (3)"));
    CHECK(!rt::from_hex("0g", out, why));
    CHECK_EQ(why, std::string("`g` at character 1 is not a hex digit"));
    CHECK(!rt::from_hex(std::string_view("\x01", 1), out, why));
    CHECK_EQ(why, std::string("byte 1 at character 0 is not a hex digit"));
}

TEST(fnv1a_matches_the_published_test_vectors) {
    // CHECK-1.
    const auto hash = [](std::string_view s, uint32_t basis = 2166136261u) {
        return rt::fnv1a32(reinterpret_cast<const uint8_t*>(s.data()), s.size(), basis);
    };
    CHECK_EQ(hash(""), uint32_t{0x811c9dc5});
    CHECK_EQ(hash("a"), uint32_t{0xe40c292c});
    CHECK_EQ(hash("foobar"), uint32_t{0xbf9cf968});
    CHECK_EQ(hash("bar", hash("foo")), hash("foobar"));
}

// ---- the session shape ----

TEST(an_outbox_hands_frames_out_in_order_once) {
    session::Outbox o;
    o.push({"ack", Bytes{1}, false});
    o.push({"spawn", Bytes{2}, true});
    CHECK_EQ(o.poll()->bytes, Bytes{1});
    CHECK_EQ(o.poll()->frame, std::string("spawn"));
    CHECK(!o.poll().has_value());
}

TEST(an_outbox_holds_at_most_max_queued_dropping_the_oldest_unreliable_frame) {
    // GEN-8.
    session::Outbox o;
    o.push({"spawn", Bytes{0}, true});
    for (size_t i = 1; i <= session::MAX_QUEUED + 10; ++i) {
        o.push({"ack", Bytes{static_cast<uint8_t>(i & 0xFF)}, false});
    }
    CHECK_EQ(o.size(), session::MAX_QUEUED);
    CHECK(o.poll()->reliable);  // a reliable frame is never dropped
    // 1 reliable and 1,034 unreliable pushed into 1,024 places: the 11 oldest unreliable go.
    CHECK_EQ(o.poll()->bytes, Bytes{12});
}

TEST(ticks_past_u32_and_unexpected_frames_are_refused) {
    CHECK_EQ(session::tick32(0xFFFFFFFFu).value(), uint32_t{0xFFFFFFFFu});
    CHECK(session::tick32(uint64_t{1} << 32).error().kind == session::SessionError::Kind::tick_range);
    CHECK(!session::expect_frame("ack", "ack").has_value());
    CHECK(session::expect_frame("ack", "acked")->kind ==
          session::SessionError::Kind::unexpected_frame);
}

// ---- JSON ----

TEST(utf8_sequences_are_well_formed_or_refused) {
    const std::array<std::pair<std::string_view, size_t>, 10> cases = {{
        {"a", 1},
        {"\xc3\xa9", 2},             // é
        {"\xe2\x82\xac", 3},         // €
        {"\xf0\x9f\x98\x80", 4},     // U+1F600
        {"\xc0\x80", 0},             // overlong
        {"\xe0\x80\x80", 0},         // overlong
        {"\xed\xa0\x80", 0},         // a surrogate
        {"\xf4\x90\x80\x80", 0},     // above U+10FFFF
        {"\xe2\x82", 0},             // cut short
        {"\x80", 0},                 // a continuation byte alone
    }};
    for (const auto& [text, len] : cases) {
        CHECK_EQ(json::utf8_sequence(text, 0), len);
    }
}

TEST(json_error_paths_are_built_from_the_leaf_outwards) {
    json::Error e;
    CHECK_EQ(e.fail("bad"), false);
    CHECK_EQ(e.text(), std::string("bad"));
    CHECK_EQ(e.in("b"), false);
    CHECK_EQ(e.at(2), false);
    CHECK_EQ(e.in("a"), false);
    CHECK_EQ(e.path(), std::string("a[2].b"));
    CHECK_EQ(e.message(), std::string("bad"));
    CHECK_EQ(e.text(), std::string("a[2].b: bad"));
    e.fail("again");
    CHECK_EQ(e.path(), std::string());
    e.at(1);
    e.at(0);
    CHECK_EQ(e.path(), std::string("[0][1]"));
}

TEST(json_values_print_compactly) {
    json::Value o = json::Value::object();
    o.set("n", json::Value());
    o.set("t", json::Value::from_bool(true));
    o.set("u", json::Value::from_u64(U64_MAX));
    o.set("i", json::Value::from_i64(I64_MIN));
    o.set("d", json::Value::from_f64(1.0));
    o.set("e", json::Value::from_f64(0.1));
    o.set("f", json::Value::from_f32(0.1f));
    o.set("nan", json::Value::from_f64(std::nan("")));
    json::Value a = json::Value::array();
    a.push(json::Value::from_string("q\"b\\\n\r\t\x01\x7f"));
    a.push(json::Value::from_string("\xc3\xa9\xff"));
    o.set("a", std::move(a));
    CHECK_EQ(o.dump(),
        std::string("{\"n\":null,\"t\":true,\"u\":18446744073709551615,"
                    "\"i\":-9223372036854775808,\"d\":1.0,\"e\":0.1,\"f\":0.1,\"nan\":null,"
                    "\"a\":[\"q\\\"b\\\\\\n\\r\\t\\u0001\x7f\",\"\xc3\xa9\\ufffd\"]}"));
    CHECK_EQ(o.keys().size(), size_t{9});
    CHECK(o.find("t") != nullptr && o.find("t")->as_bool());
    CHECK(o.find("missing") == nullptr);
}

TEST(json_documents_parse) {
    const std::string text = " {\"a\": [1, -2.5e3, true, false, null, \"x\\u00e9\\ud83d\\ude00\"],"
                             " \"b\": {}, \"c\": []} ";
    const auto parsed = json::parse(text);
    CHECK(parsed.ok());
    if (!parsed.ok()) {
        return;
    }
    const json::Value& v = parsed.value();
    CHECK_EQ(v.kind(), json::Value::Kind::object);
    CHECK_EQ(v.dump(),
        std::string("{\"a\":[1,-2.5e3,true,false,null,\"x\xc3\xa9\xf0\x9f\x98\x80\"],"
                    "\"b\":{},\"c\":[]}"));
    const json::Value* a = v.find("a");
    CHECK(a != nullptr && a->items().size() == 6);
    if (a != nullptr && a->items().size() == 6) {
        CHECK_EQ(a->items()[1].text(), std::string("-2.5e3"));  // numbers keep their text
        CHECK_EQ(a->items()[1].kind(), json::Value::Kind::number);
    }
}

TEST(json_syntax_errors_say_what_and_where) {
    const std::array<std::pair<std::string_view, const char*>, 17> cases = {{
        {"", "unexpected end of input at character 0"},
        {"[1,]", "expected a value at character 3"},
        {"01", "trailing characters at character 1"},
        {"1.", "expected a digit after the decimal point at character 2"},
        {"1e", "expected a digit in the exponent at character 2"},
        {"-", "expected a digit at character 1"},
        {"[1 2]", "expected `,` or `]` at character 4"},
        {"[1", "unterminated array at character 2"},
        {"{1:2}", "expected a member name at character 1"},
        {"{\"a\" 1}", "expected `:` at character 5"},
        {"{\"a\":1", "unterminated object at character 6"},
        {"\"ab", "unterminated string at character 3"},
        {"\"\\x\"", "invalid escape at character 3"},
        {"\"\\udc00\"", "lone trailing surrogate at character 7"},
        {"\"\\ud83d\"", "lone leading surrogate at character 7"},
        {"\"a\x01\"", "control character in a string at character 3"},
        {"\"\xff\"", "invalid UTF-8 at character 1"},
    }};
    for (const auto& [text, message] : cases) {
        const auto parsed = json::parse(text);
        CHECK(!parsed.ok());
        if (!parsed.ok()) {
            CHECK_EQ(parsed.error().text(), std::string(message));
        }
    }
}

TEST(json_nesting_is_limited) {
    const auto nested = [](size_t depth) {
        return std::string(depth, '[') + std::string(depth, ']');
    };
    CHECK(json::parse(nested(json::Parser::MAX_DEPTH)).ok());
    const auto deep = json::parse(nested(json::Parser::MAX_DEPTH + 1));
    CHECK(!deep.ok());
    if (!deep.ok()) {
        CHECK_EQ(deep.error().text(), std::string("recursion limit exceeded at character 128"));
    }
    // Far deeper input fails the same way instead of exhausting the stack.
    CHECK(!json::parse(nested(100000)).ok());
}

namespace {

json::Value number(std::string_view text) { return json::parse(text).value(); }

}  // namespace

TEST(json_integers_are_checked_against_their_type) {
    json::Error error;
    uint8_t u8 = 0;
    CHECK(json::get_uint(number("255"), u8, error));
    CHECK_EQ(u8, uint8_t{255});
    CHECK(json::get_uint(number("-0"), u8, error));
    CHECK_EQ(u8, uint8_t{0});
    CHECK(!json::get_uint(number("256"), u8, error));
    CHECK_EQ(error.text(), std::string("invalid value: 256 is out of range"));
    CHECK(!json::get_uint(number("-1"), u8, error));
    CHECK_EQ(error.text(),
        std::string("invalid value: a negative integer, expected an unsigned integer"));
    CHECK(!json::get_uint(number("1.0"), u8, error));
    CHECK_EQ(error.text(), std::string("invalid type, expected an unsigned integer"));
    CHECK(!json::get_uint(json::Value::from_string("5"), u8, error));

    uint64_t u64 = 0;
    CHECK(json::get_uint(number("18446744073709551615"), u64, error));
    CHECK_EQ(u64, U64_MAX);
    CHECK(!json::get_uint(number("18446744073709551616"), u64, error));
    CHECK(json::get_big_uint(json::Value::from_string("18446744073709551615"), u64, error));
    CHECK_EQ(u64, U64_MAX);
    CHECK(json::get_big_uint(json::Value::from_string("+5"), u64, error));
    CHECK_EQ(u64, uint64_t{5});
    CHECK(!json::get_big_uint(json::Value::from_string("-5"), u64, error));
    CHECK_EQ(error.text(), std::string("`-5` is not an unsigned integer"));
    CHECK(json::get_big_uint(number("7"), u64, error));

    int8_t i8 = 0;
    CHECK(json::get_int(number("-128"), i8, error));
    CHECK_EQ(i8, int8_t{-128});
    CHECK(json::get_int(number("127"), i8, error));
    CHECK(!json::get_int(number("128"), i8, error));
    CHECK_EQ(error.text(), std::string("invalid value: an integer out of range"));
    CHECK(!json::get_int(number("-129"), i8, error));
    int64_t i64 = 0;
    CHECK(json::get_int(number("-9223372036854775808"), i64, error));
    CHECK_EQ(i64, I64_MIN);
    CHECK(!json::get_int(number("9223372036854775808"), i64, error));
    CHECK(json::get_big_int(json::Value::from_string("-9223372036854775808"), i64, error));
    CHECK_EQ(i64, I64_MIN);
    CHECK(!json::get_big_int(json::Value::from_string("12a"), i64, error));
    CHECK_EQ(error.text(), std::string("`12a` is not an integer"));
}

TEST(json_numbers_as_floats_and_other_values) {
    json::Error error;
    double d = 0;
    CHECK(json::get_f64(number("-2.5e3"), d, error));
    CHECK_EQ(d, -2500.0);
    CHECK(json::get_f64(number("-9223372036854775808"), d, error));
    CHECK_EQ(d, -9223372036854775808.0);
    CHECK(json::get_f64(number("1e-400"), d, error));  // an underflow reads as 0
    CHECK_EQ(d, 0.0);
    CHECK(!json::get_f64(number("1e400"), d, error));
    CHECK_EQ(error.text(), std::string("number out of range"));
    CHECK(!json::get_f64(json::Value::from_string("1"), d, error));
    CHECK_EQ(error.text(), std::string("invalid type, expected a number"));

    float f = 0;
    CHECK(json::get_f32(number("16777217"), f, error));  // to the nearest single at once
    CHECK_EQ(f, 16777216.0f);
    CHECK(json::get_f32(number("0.1"), f, error));
    CHECK_EQ(f, 0.1f);
    CHECK(json::get_f32(number("1e39"), f, error));
    CHECK(std::isinf(f) && f > 0);
    CHECK(json::get_f32(number("-1e39"), f, error));
    CHECK(std::isinf(f) && f < 0);

    bool b = false;
    CHECK(json::get_bool(json::Value::from_bool(true), b, error));
    CHECK_EQ(b, true);
    CHECK(!json::get_bool(number("1"), b, error));
    CHECK_EQ(error.text(), std::string("invalid type, expected a boolean"));

    Bytes bytes;
    CHECK(json::get_hex(json::Value::from_string("0aFF"), bytes, error));
    CHECK_EQ(bytes, (Bytes{0x0a, 0xff}));
    CHECK(!json::get_hex(json::Value::from_string("0"), bytes, error));
    CHECK_EQ(error.text(), std::string("odd number of hex digits (1)"));
    std::optional<Bytes> opt = Bytes{1};
    CHECK(json::get_opt_hex(json::Value(), opt, error));
    CHECK(!opt.has_value());
    CHECK(json::get_byte_list(number("[1, 2, 255]"), bytes, error));
    CHECK_EQ(bytes, (Bytes{1, 2, 255}));
    CHECK(!json::get_byte_list(number("[1, 2, 300]"), bytes, error));
    CHECK_EQ(error.text(), std::string("[2]: invalid value: 300 is out of range"));
    CHECK(json::get_opt_byte_list(json::Value(), opt, error));
    CHECK(!opt.has_value());
}

TEST(json_conversions_of_values_to_json) {
    CHECK_EQ(json::big_uint((uint64_t{1} << 53) - 1).dump(), std::string("9007199254740991"));
    CHECK_EQ(json::big_uint(uint64_t{1} << 53).dump(), std::string("\"9007199254740992\""));
    CHECK_EQ(json::big_int(-((int64_t{1} << 53) - 1)).dump(), std::string("-9007199254740991"));
    CHECK_EQ(json::big_int(I64_MIN).dump(), std::string("\"-9223372036854775808\""));
    CHECK_EQ(json::hex(Bytes{0xab, 0x01}).dump(), std::string("\"ab01\""));
    CHECK_EQ(json::opt_hex(std::nullopt).dump(), std::string("null"));
    CHECK_EQ(json::byte_list(Bytes{1, 2}).dump(), std::string("[1,2]"));
    const std::vector<std::vector<uint16_t>> grid{{1, 2}, {}, {3}};
    CHECK_EQ(json::list(grid, json::list_of(json::uint_number)).dump(),
        std::string("[[1,2],[],[3]]"));
    std::vector<std::vector<uint16_t>> back;
    json::Error error;
    CHECK(json::get_list(number("[[1,2],[],[3]]"), back, error, json::get_list_of(json::get_uint)));
    CHECK(back == grid);
    CHECK(!json::get_list(number("[[1],[2,-1]]"), back, error, json::get_list_of(json::get_uint)));
    CHECK_EQ(error.path(), std::string("[1][1]"));
}

TEST(json_bit_sets_are_lists_of_names) {
    // WIRE-28.
    const std::array<rt::BitName, 2> names = {{{"KEYFRAME", 0}, {"CHECK", 3}}};
    CHECK_EQ(json::bit_names(names, 0b1001).dump(), std::string("[\"KEYFRAME\",\"CHECK\"]"));
    CHECK_EQ(json::bit_names(names, 0).dump(), std::string("[]"));
    json::Error error;
    uint8_t bits = 0;
    CHECK(json::get_bits(number("[\"CHECK\", \"KEYFRAME\"]"), names, bits, error));
    CHECK_EQ(bits, uint8_t{0b1001});
    CHECK(!json::get_bits(number("[\"CHECK\", \"NOPE\"]"), names, bits, error));
    CHECK_EQ(error.text(),
        std::string("[1]: unknown bit \"NOPE\", expected one of KEYFRAME, CHECK"));
    CHECK(!json::get_bits(number("3"), names, bits, error));
    CHECK_EQ(error.text(), std::string("invalid type, expected a list of bit names"));
}

TEST(json_objects_and_unions_are_checked) {
    json::Error error;
    CHECK(json::check_object(number("{\"a\":1,\"b\":2}"), {"a", "b"}, error));
    CHECK(!json::check_object(number("{\"c\":1}"), {"a", "b"}, error));
    CHECK_EQ(error.text(), std::string("unknown field `c`, expected one of `a`, `b`"));
    CHECK(!json::check_object(number("{\"c\":1}"), {}, error));
    CHECK_EQ(error.text(), std::string("unknown field `c`, expected none"));
    CHECK(!json::check_object(number("{\"a\":1,\"a\":2}"), {"a"}, error));
    CHECK_EQ(error.text(), std::string("duplicate field `a`"));
    CHECK(!json::check_object(number("[]"), {"a"}, error));
    CHECK_EQ(error.text(), std::string("invalid type, expected an object"));

    const json::Value o = number("{\"a\":1,\"n\":null}");
    const json::Value* m = nullptr;
    CHECK(json::required_member(o, "a", m, error));
    CHECK(m != nullptr && m->text() == "1");
    CHECK(!json::required_member(o, "b", m, error));
    CHECK_EQ(error.text(), std::string("missing field `b`"));
    CHECK(json::optional_member(o, "a", m));
    CHECK(!json::optional_member(o, "n", m));
    CHECK(!json::optional_member(o, "b", m));

    // The variant's name and value point into the union's JSON, which must outlive them.
    const json::Value shot = number("{\"shot\":{}}");
    std::string_view variant;
    CHECK(json::union_member(shot, variant, m, error));
    CHECK(m == &shot.items()[0]);
    CHECK_EQ(variant, std::string_view("shot"));
    CHECK(!json::union_member(number("{}"), variant, m, error));
    CHECK_EQ(error.text(),
        std::string("invalid type, expected an object with one member, the variant"));
    CHECK(!json::unknown_variant("x", {"shot", "blast"}, error));
    CHECK_EQ(error.text(), std::string("unknown variant `x`, expected one of `shot`, `blast`"));
}

// ---- frames by name ----

namespace ping {

// A one-field frame written by hand the way generated codecs are, for the helpers that find a
// frame's functions by argument-dependent lookup.
struct Ping {
    uint16_t seq = 0;
};

inline json::Value to_json(const Ping& p) {
    json::Value o = json::Value::object();
    o.set("seq", json::uint_number(p.seq));
    return o;
}

inline bool from_json(const json::Value& j, Ping& out, json::Error& error) {
    const json::Value* m = nullptr;
    if (!json::check_object(j, {"seq"}, error) || !json::required_member(j, "seq", m, error)) {
        return false;
    }
    return json::get_uint(*m, out.seq, error) || error.in("seq");
}

inline rt::EncodeStatus encode(const Ping& p, std::vector<uint8_t>& out) {
    rt::Writer w(out);
    if (!w.write_uint(2, true, p.seq)) {
        w.in("seq");
        return w.take_error();
    }
    return std::nullopt;
}

inline rt::Result<Ping> decode_ping(const uint8_t* data, size_t len) {
    rt::Reader r(data, len);
    Ping p;
    if (!r.read_uint(2, true, p.seq)) {
        r.in("seq");
        return r.take_error();
    }
    if (!r.finish()) {
        return r.take_error();
    }
    return p;
}

}  // namespace ping

TEST(frames_by_name_convert_between_bytes_and_json) {
    const Bytes bytes{0x01, 0x02};
    const auto decoded = rt::decoded_json(ping::decode_ping(bytes.data(), bytes.size()));
    CHECK(decoded.ok());
    if (decoded.ok()) {
        CHECK_EQ(decoded.value().dump(), std::string("{\"seq\":258}"));
    }
    const Bytes cut{0x01};
    const auto failed = rt::decoded_json(ping::decode_ping(cut.data(), cut.size()));
    CHECK(!failed.ok());
    if (!failed.ok()) {
        CHECK(failed.error().kind == rt::FrameError::Kind::decode);
        CHECK_EQ(failed.error().message, std::string("truncated at byte 1, field seq"));
        CHECK(failed.error().decode_error.has_value());
    }

    const auto encoded = rt::encode_json<ping::Ping>(number("{\"seq\":258}"));
    CHECK(encoded.ok());
    if (encoded.ok()) {
        CHECK_EQ(encoded.value(), bytes);
    }
    const auto bad = rt::encode_json<ping::Ping>(number("{\"seq\":70000}"));
    CHECK(!bad.ok());
    if (!bad.ok()) {
        CHECK(bad.error().kind == rt::FrameError::Kind::bad_json);
        CHECK_EQ(bad.error().message, std::string("seq: invalid value: 70000 is out of range"));
    }
    const rt::FrameError unknown = rt::FrameError::unknown_frame("pong");
    CHECK(unknown.kind == rt::FrameError::Kind::unknown_frame);
    CHECK_EQ(unknown.message, std::string("unknown frame `pong`"));
    const rt::FrameError enc = rt::FrameError::encode(rt::EncodeError(ErrorKind::over_width));
    CHECK(enc.kind == rt::FrameError::Kind::encode);
    CHECK_EQ(enc.message, std::string("cannot encode: over_width"));
    CHECK(enc.encode_error.has_value());
}

int main() { return check::run_all(); }
