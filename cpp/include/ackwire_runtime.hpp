// ackwire_runtime.hpp: the C++ runtime of ackwire, a header-only C++17 library. This file is
// its source (cpp/include/ in the ackwire repository, tested by
// cpp/test.sh); `ackwire gen --lang cpp` writes it unchanged beside every
// protocol.hpp it generates, which includes it as "ackwire_runtime.hpp".
//
// The runtime every generated ackwire C++ codec calls: the shared error taxonomy, a small
// result type, a checked reader and a writer, LEB128 varints and zigzag, bit streams for packed
// bodies (with their bucket codes and smallest-three quaternions), FNV-1a, and a minimal JSON
// value with a parser and a printer for the JSON form of frames (conformance/PROTOCOL.md). It is
// the same for every spec.
//
// It mirrors the Rust runtime (rt/src/lib.rs). Nothing here throws on bad input. Every read
// is bounds-checked; integers are assembled from bytes with shifts on unsigned types (no
// misaligned reads, no signed overflow); a count is checked against the remaining bytes before
// anything is allocated for it; a float is range-checked before it is converted to an integer.
//
// Every decoding and encoding step returns true when it succeeded. When one fails it records
// the error in its Reader or Writer (the first fault found, at the byte or bit where it was
// found) and returns false; each caller then adds its field to the error's path on the way out
// (`if (!r.read_uint(4, false, out.tick)) return r.in("tick");`), so a failed decode names the
// kind, the offset and the path (`changes[3].mask`) as every ackwire codec does.

#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

// ACKWIRE_RT_INLINE marks the byte reads and writes every field of a frame goes through, so that
// they are inlined where they are called: there the width and the byte order are constants and
// the loop over the bytes folds into a load or a store. Called from hundreds of places, they are
// otherwise left out of line by g++ -O2, a call and a loop over the bytes for every field
// (cpp/bench measures the generated codec beside a hand-written one).
#if defined(__GNUC__)
#define ACKWIRE_RT_INLINE __attribute__((always_inline)) inline
#else
#define ACKWIRE_RT_INLINE inline
#endif

namespace ackwire {

/// A unit quaternion as smallest three, the model value of a `quat(B)` field (LANGUAGE.md):
/// the integers, not floats, so that every language agrees bit for bit. `largest` is the
/// component dropped (0 = x, 1 = y, 2 = z, 3 = w), `rest` the other three in x, y, z, w order,
/// each within [-R, R] with R = 2^(B-1) - 1; a component is `q * (1/sqrt 2) / R`.
/// rt::from_xyzw and rt::to_xyzw convert from and to four floats. The default is the identity.
struct SmallestThree {
    /// The component dropped: 0 = x, 1 = y, 2 = z, 3 = w.
    std::uint8_t largest = 3;
    /// The three components sent, in x, y, z, w order without the dropped one.
    std::array<std::int16_t, 3> rest{};
};

/// Two values with the same integers.
inline bool operator==(const SmallestThree& a, const SmallestThree& b) {
    return a.largest == b.largest && a.rest == b.rest;
}

/// Two values that differ in an integer.
inline bool operator!=(const SmallestThree& a, const SmallestThree& b) { return !(a == b); }

namespace rt {

// ---- errors ----

/// What went wrong, from the taxonomy every ackwire codec shares (WIRE-23; codec/src/error.rs).
enum class ErrorKind {
    /// The input ended inside a field.
    truncated,
    /// A constant field (a kind, a version) holds another value.
    bad_constant,
    /// A reserved bit of a bit set, or a padding bit of a packed body, is set.
    reserved_bit,
    /// A varint is longer than its value needs.
    non_canonical_varint,
    /// A value does not fit its field's width.
    over_width,
    /// A count is larger than the remaining bytes can hold.
    count_too_large,
    /// Bytes remain after the frame.
    trailing_bytes,
    /// A field's presence contradicts its condition, or a bit is set without the bit it
    /// requires.
    invalid_condition,
    /// A union's tag names no variant.
    unknown_tag,
    /// A float is NaN or infinite.
    non_finite,
    /// An ascending list does not ascend (a difference of 0).
    not_ascending,
    /// A value has another encoding its encoder writes instead (a smallest-three quaternion
    /// whose dropped component is not the largest).
    non_canonical,
};

/// The kind's name in the shared taxonomy (`truncated`, `bad_constant`, ...): what vectors and
/// the conformance protocol carry.
inline constexpr std::string_view kind_name(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::truncated:
            return "truncated";
        case ErrorKind::bad_constant:
            return "bad_constant";
        case ErrorKind::reserved_bit:
            return "reserved_bit";
        case ErrorKind::non_canonical_varint:
            return "non_canonical_varint";
        case ErrorKind::over_width:
            return "over_width";
        case ErrorKind::count_too_large:
            return "count_too_large";
        case ErrorKind::trailing_bytes:
            return "trailing_bytes";
        case ErrorKind::invalid_condition:
            return "invalid_condition";
        case ErrorKind::unknown_tag:
            return "unknown_tag";
        case ErrorKind::non_finite:
            return "non_finite";
        case ErrorKind::not_ascending:
            return "not_ascending";
        case ErrorKind::non_canonical:
            return "non_canonical";
    }
    return "unknown";
}

/// A field path such as `changes[3].mask`, built from the leaf outwards as an error travels up
/// through the decoders (nothing is spent on it while decoding succeeds).
class FieldPath {
public:
    /// Adds the field `name` (a string literal: only the pointer is kept) outside the path.
    void push_field(const char* name) { reversed_.push_back(Segment{name, 0}); }

    /// Adds the list element `index` outside the path.
    void push_index(size_t index) { reversed_.push_back(Segment{nullptr, index}); }

    /// Whether the path names nothing (the frame as a whole).
    bool empty() const { return reversed_.empty(); }

    /// The path as text, outermost first (`changes[3].mask`).
    std::string str() const {
        std::string out;
        for (size_t i = reversed_.size(); i-- > 0;) {
            const Segment& s = reversed_[i];
            if (s.name != nullptr) {
                if (!out.empty()) {
                    out += '.';
                }
                out += s.name;
            } else {
                out += '[';
                out += std::to_string(s.index);
                out += ']';
            }
        }
        return out;
    }

private:
    struct Segment {
        const char* name;  // null for a list index
        size_t index;
    };
    std::vector<Segment> reversed_;  // innermost first
};

/// Why a frame could not be decoded, and where.
struct DecodeError {
    /// What went wrong.
    ErrorKind kind;
    /// Byte offset of the fault from the start of the frame.
    size_t offset;
    /// Inside a bit-packed body: the bit offset of the fault from the start of the frame.
    std::optional<size_t> bit;
    /// The field being read.
    FieldPath path;

    /// An error of `error_kind` at byte `byte_offset`, with no path yet.
    DecodeError(ErrorKind error_kind, size_t byte_offset) : kind(error_kind), offset(byte_offset) {}

    /// An error of `error_kind` at bit `bit_offset` of the frame.
    static DecodeError at_bit(ErrorKind error_kind, size_t bit_offset) {
        DecodeError e(error_kind, bit_offset / 8);
        e.bit = bit_offset;
        return e;
    }

    /// The field path as text (`changes[3].mask`).
    std::string path_string() const { return path.str(); }

    /// `kind at byte N (bit B), field PATH`, as the Rust codec prints it.
    std::string message() const {
        std::string out(kind_name(kind));
        out += " at byte " + std::to_string(offset);
        if (bit) {
            out += " (bit " + std::to_string(*bit) + ")";
        }
        if (!path.empty()) {
            out += ", field " + path.str();
        }
        return out;
    }
};

/// Why a value could not be encoded: it is not one the canonical decoder would accept.
struct EncodeError {
    /// What is wrong with the value.
    ErrorKind kind;
    /// The field at fault.
    FieldPath path;

    /// An error of `error_kind`, with no path yet.
    explicit EncodeError(ErrorKind error_kind) : kind(error_kind) {}

    /// `cannot encode: kind in PATH`.
    std::string message() const {
        std::string out = "cannot encode: ";
        out += kind_name(kind);
        if (!path.empty()) {
            out += " in " + path.str();
        }
        return out;
    }
};

/// The outcome of encoding a frame: std::nullopt on success, else the error.
using EncodeStatus = std::optional<EncodeError>;

/// A value of `T`, or the error `E` that prevented it.
template <typename T, typename E = DecodeError>
class [[nodiscard]] Result {
public:
    /// A success.
    Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}

    /// A failure.
    Result(E error) : v_(std::in_place_index<1>, std::move(error)) {}

    /// Whether this holds a value.
    bool ok() const { return v_.index() == 0; }

    /// Whether this holds a value.
    explicit operator bool() const { return ok(); }

    /// The value (only when ok()).
    const T& value() const& { return std::get<0>(v_); }

    /// The value (only when ok()).
    T& value() & { return std::get<0>(v_); }

    /// The value (only when ok()).
    T&& value() && { return std::get<0>(std::move(v_)); }

    /// The error (only when !ok()).
    const E& error() const { return std::get<1>(v_); }

private:
    std::variant<T, E> v_;
};

// ---- integers ----

/// `v` as two's complement: the signed value with the same 64 bits.
inline constexpr int64_t to_signed(uint64_t v) {
    return v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
        ? static_cast<int64_t>(v)
        : -static_cast<int64_t>(~v) - 1;
}

/// The low `width` bits of `raw` (1 to 64) as a two's complement value, sign-extended.
inline constexpr int64_t sign_extend(uint64_t raw, unsigned width) {
    if (width < 64 && ((raw >> (width - 1)) & 1u) != 0) {
        raw |= ~uint64_t{0} << width;
    }
    return to_signed(raw);
}

/// Maps a signed value onto an unsigned one: (n << 1) ^ (n >> 63).
/// Whether integer `v` lies within [min, max], compared exactly whatever its type (WIRE-29).
template <typename T>
inline constexpr bool within(T v, int64_t min, int64_t max) {
    if constexpr (std::is_signed_v<T>) {
        return static_cast<int64_t>(v) >= min && static_cast<int64_t>(v) <= max;
    } else {
        const auto u = static_cast<uint64_t>(v);
        if (max < 0 || u > static_cast<uint64_t>(max)) {
            return false;
        }
        return min <= 0 || u >= static_cast<uint64_t>(min);
    }
}

inline constexpr uint64_t zigzag(int64_t n) {
    return (static_cast<uint64_t>(n) << 1) ^ (n < 0 ? ~uint64_t{0} : uint64_t{0});
}

/// The inverse of zigzag().
inline constexpr int64_t unzigzag(uint64_t n) {
    return to_signed((n >> 1) ^ (uint64_t{0} - (n & 1u)));
}

/// How many bytes the LEB128 form of `v` takes.
inline constexpr size_t varint_len(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}

/// Whether a signed value fits `width` bits of two's complement.
inline constexpr bool fits_int(int64_t v, unsigned width) {
    if (width >= 64) {
        return true;
    }
    const int64_t max = (int64_t{1} << (width - 1)) - 1;
    return v >= -max - 1 && v <= max;
}

// ---- bucket codes ----
//
// `bucket(w1, ..., wk)` (LANGUAGE.md): bucket i holds [base_i, base_i + 2^w_i), base_0 = 0,
// base_{i+1} = base_i + 2^w_i, so that every value has one code and no code is redundant; the
// code is the bucket index in unary (i one bits and a zero, the last bucket's k - 1 ones without
// one), then the value less the base in w_i bits. The widths are the layout's, which the
// validator holds to 1 to 8 of them, strictly increasing, with the sum of 2^w_i at most 2^64:
// no base computed here overflows.

/// 2^w as a bucket's size, for w below 64 (a width of 64 is only ever the one bucket).
inline constexpr uint64_t bucket_size(unsigned w) { return w >= 64 ? 0 : uint64_t{1} << w; }

/// The bucket of `v` among the buckets of `widths`, and its base; `widths.size()` when `v` is
/// past the last bucket.
inline size_t bucket_of(std::initializer_list<unsigned> widths, uint64_t v, uint64_t& base) {
    base = 0;
    size_t i = 0;
    for (const unsigned w : widths) {
        // A width of 64 holds every value from its base on.
        if (w >= 64 || v - base < bucket_size(w)) {
            return i;
        }
        base += bucket_size(w);
        ++i;
    }
    return i;
}

/// The bits of the code of `v` (a value past the last bucket counts as the last bucket's code:
/// its encoder refuses it anyway).
inline size_t bucket_len(std::initializer_list<unsigned> widths, uint64_t v) {
    uint64_t base = 0;
    const size_t k = widths.size();
    size_t i = bucket_of(widths, v, base);
    if (i >= k) {
        i = k - 1;
    }
    return (i + 1 < k ? i + 1 : i) + widths.begin()[i];
}

// ---- smallest-three quaternions ----

/// R = 2^(bits-1) - 1: the largest magnitude of a sent component of `quat(bits)` (bits 2 to 16).
inline constexpr int32_t quat_range(unsigned bits) { return (int32_t{1} << (bits - 1)) - 1; }

/// The canonical rules of a `quat(bits)` value, in integers only, so that every language
/// agrees (LANGUAGE.md), in the order they are checked:
/// 1. `largest` is any of 0..=3 (2 bits on the wire: a decoded value always is);
/// 2. every `rest[i]` lies in [-R, R]: the raw value -2^(B-1) is `over_width`;
/// 3. with S the sum of their squares and D = 2 R^2 - S (the dropped component squared, in the
///    same units), a sent component before the dropped one in x, y, z, w order has
///    rest[i]^2 < D, one after it rest[i]^2 <= D: "the dropped component is the one of largest
///    magnitude, the lowest index on a tie", else `non_canonical`.
/// Returns the kind of the first rule broken, or nothing. Every quantity fits an int64_t.
inline std::optional<ErrorKind> smallest_three_fault(const SmallestThree& s, unsigned bits) {
    const int64_t r = quat_range(bits);
    if (s.largest > 3) {
        return ErrorKind::over_width;
    }
    int64_t sum = 0;
    for (const int16_t c : s.rest) {
        if (c < -r || c > r) {
            return ErrorKind::over_width;
        }
        sum += int64_t{c} * c;
    }
    const int64_t d = 2 * r * r - sum;
    for (size_t i = 0; i < 3; ++i) {
        const int64_t sq = int64_t{s.rest[i]} * s.rest[i];
        // rest[i] is component i below the dropped one, component i + 1 from it on.
        const bool before = i < s.largest;
        if (before ? !(sq < d) : !(sq <= d)) {
            return ErrorKind::non_canonical;
        }
    }
    return std::nullopt;
}

/// The smallest three of `q` (x, y, z, w) at `bits` bits a component, in doubles, as every
/// ackwire runtime computes it: normalised (a zero or non-finite norm gives the identity
/// (0, 0, 0, 1)); `largest` the index of the largest magnitude, the lowest on a tie; when that
/// component is negative all four are negated; each sent component
/// `round_half_away_from_zero(c * sqrt 2 * R)` (the factor computed once), clamped to [-R, R];
/// then, while one breaks rule 3 of smallest_three_fault (rounding can make a sent one larger
/// than the dropped one), the failing component of largest magnitude (the lowest index on a
/// tie) moves one step toward zero. The result always passes the rules.
inline SmallestThree from_xyzw(const std::array<float, 4>& q, unsigned bits) {
    const int64_t r = quat_range(bits);
    std::array<double, 4> c{};
    for (size_t i = 0; i < 4; ++i) {
        c[i] = static_cast<double>(q[i]);
    }
    const double norm = std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3]);
    if (norm == 0.0 || !std::isfinite(norm)) {
        c = {0.0, 0.0, 0.0, 1.0};
    } else {
        for (double& v : c) {
            v /= norm;
        }
    }
    size_t largest = 0;
    for (size_t i = 1; i < 4; ++i) {
        if (std::fabs(c[i]) > std::fabs(c[largest])) {
            largest = i;
        }
    }
    if (c[largest] < 0.0) {
        for (double& v : c) {
            v = -v;
        }
    }
    const double factor = 1.4142135623730951 * static_cast<double>(r);
    std::array<int64_t, 3> rest{};
    size_t n = 0;
    for (size_t i = 0; i < 4; ++i) {
        if (i != largest) {
            // Within [-R, R] before the conversion: a clamped double converts exactly.
            const double v = std::round(c[i] * factor);
            const double bound = static_cast<double>(r);
            rest[n++] = static_cast<int64_t>(std::min(bound, std::max(-bound, v)));
        }
    }
    for (;;) {
        const int64_t d = 2 * r * r - (rest[0] * rest[0] + rest[1] * rest[1] + rest[2] * rest[2]);
        size_t worst = 3;
        for (size_t i = 0; i < 3; ++i) {
            const int64_t sq = rest[i] * rest[i];
            const bool fails = i < largest ? !(sq < d) : !(sq <= d);
            if (fails && (worst == 3 || std::llabs(rest[i]) > std::llabs(rest[worst]))) {
                worst = i;
            }
        }
        if (worst == 3) {
            break;
        }
        // Never 0: were every failing component 0, the others would pass with v^2 <= D, so
        // D >= 0, all would be 0, D = 2 R^2 > 0, and 0 would pass too.
        rest[worst] -= rest[worst] > 0 ? 1 : -1;
    }
    SmallestThree out;
    out.largest = static_cast<uint8_t>(largest);
    for (size_t i = 0; i < 3; ++i) {
        out.rest[i] = static_cast<int16_t>(rest[i]);
    }
    return out;
}

/// The four floats (x, y, z, w) of `s` at `bits` bits a component: each sent component is
/// rest[i] * (FRAC_1_SQRT_2 / R) (the factor computed once, as a double), the dropped one
/// sqrt(max(0, 1 - the sum of their squares)), each then rounded to a single.
inline std::array<float, 4> to_xyzw(const SmallestThree& s, unsigned bits) {
    const double factor = 0.7071067811865476 / static_cast<double>(quat_range(bits));
    std::array<double, 3> sent{};
    for (size_t i = 0; i < 3; ++i) {
        sent[i] = static_cast<double>(s.rest[i]) * factor;
    }
    const double dropped =
        std::sqrt(std::max(0.0, 1.0 - (sent[0] * sent[0] + sent[1] * sent[1] + sent[2] * sent[2])));
    std::array<float, 4> out{};
    size_t n = 0;
    for (size_t i = 0; i < 4; ++i) {
        // `% 3` keeps a `largest` past 3 (refused by every encoder) within the array.
        out[i] = static_cast<float>(i == s.largest ? dropped : sent[n++ % 3]);
    }
    return out;
}

// ---- quantization ----

/// The wire integer of a quantized value, as a double: round(value / scale), halves away from zero,
/// a non-finite value as 0 (WIRE-8, DG-5).
inline double quantize(double value, double scale) {
    return std::isfinite(value) ? std::round(value / scale) : 0.0;
}

/// `v` converted as Rust's `v as u64` does: NaN and negatives to 0, too large to the maximum.
inline uint64_t saturate_u64(double v) {
    if (!(v >= 1.0)) {
        return 0;
    }
    if (v >= 18446744073709551616.0) {
        return std::numeric_limits<uint64_t>::max();
    }
    return static_cast<uint64_t>(v);
}

/// `v` converted as Rust's `v as i64` does: NaN to 0, out of range to the nearest bound.
inline int64_t saturate_i64(double v) {
    if (std::isnan(v)) {
        return 0;
    }
    if (v >= 9223372036854775808.0) {
        return std::numeric_limits<int64_t>::max();
    }
    if (v < -9223372036854775808.0) {
        return std::numeric_limits<int64_t>::min();
    }
    return static_cast<int64_t>(v);
}

// ---- reading ----

/// What Reader and BitReader share: the error a read stopped at, which the decoders' callers
/// extend with their fields on the way out.
class ReadErrors {
public:
    /// The error the failed read stopped at (meaningful after a read returned false).
    const DecodeError& error() const { return *slot_; }

    /// Adds field `name` outside the error's path. Returns false, so that a decoder bails out
    /// with `return r.in("tick");`.
    bool in(const char* name) {
        slot_->path.push_field(name);
        return false;
    }

    /// Adds list element `i` outside the error's path (`return r.index(i).in("changes");`).
    ReadErrors& index(size_t i) {
        slot_->path.push_index(i);
        return *this;
    }

protected:
    explicit ReadErrors(DecodeError* slot) : slot_(slot) {}

    DecodeError* slot_;
};

class BitReader;

/// A cursor over a frame's bytes that only hands out checked reads. Not copyable: it owns the
/// error its reads stop at.
class Reader : public ReadErrors {
public:
    /// A reader at the start of the `len` bytes at `data` (which may be null when `len` is 0).
    Reader(const uint8_t* data, size_t len)
        : ReadErrors(&error_),
        data_(data != nullptr ? data : empty()),
        len_(data != nullptr ? len : 0) {}

    Reader(const Reader&) = delete;
    Reader& operator=(const Reader&) = delete;

    /// Bytes read so far: the offset of the next byte.
    size_t pos() const { return pos_; }

    /// Bytes not read yet.
    size_t remaining() const { return len_ - pos_; }

    /// Records an error of `kind` at byte `at`. Returns false.
    bool fail(ErrorKind kind, size_t at) {
        error_ = DecodeError(kind, at);
        return false;
    }

    /// The error, moved out (meaningful after a read returned false).
    DecodeError take_error() { return std::move(error_); }

    /// Consumes `n` bytes; `out` points at them. The input ending first is reported at its end.
    ACKWIRE_RT_INLINE bool take(size_t n, const uint8_t*& out) {
        if (n > remaining()) {
            return fail(ErrorKind::truncated, len_);
        }
        out = data_ + pos_;
        pos_ += n;
        return true;
    }

    /// An unsigned integer of `bytes` bytes (1 to 8) in the given byte order.
    ACKWIRE_RT_INLINE bool uint(size_t bytes, bool big_endian, uint64_t& out) {
        const uint8_t* p = nullptr;
        if (!take(bytes, p)) {
            return false;
        }
        uint64_t v = 0;
        for (size_t i = 0; i < bytes; ++i) {
            v = (v << 8) | p[big_endian ? i : bytes - 1 - i];
        }
        out = v;
        return true;
    }

    /// An unsigned integer of `bytes` bytes into `out`, whose type is that wide.
    template <typename T>
    ACKWIRE_RT_INLINE bool read_uint(size_t bytes, bool big_endian, T& out) {
        static_assert(std::is_unsigned_v<T>, "read_uint reads unsigned integers");
        uint64_t raw = 0;
        if (!uint(bytes, big_endian, raw)) {
            return false;
        }
        out = static_cast<T>(raw);
        return true;
    }

    /// A two's complement integer of `bytes` bytes into `out`, whose type is that wide.
    template <typename T>
    ACKWIRE_RT_INLINE bool read_int(size_t bytes, bool big_endian, T& out) {
        static_assert(std::is_signed_v<T>, "read_int reads signed integers");
        uint64_t raw = 0;
        if (!uint(bytes, big_endian, raw)) {
            return false;
        }
        out = static_cast<T>(sign_extend(raw, static_cast<unsigned>(bytes * 8)));
        return true;
    }

    /// A ranged integer of `bytes` bytes into `out`, whose type is that wide: a value outside
    /// [min, max] is over its width, at its first byte (WIRE-29).
    template <typename T>
    bool read_ranged(size_t bytes, bool big_endian, int64_t min, int64_t max, T& out) {
        const size_t at = pos_;
        T v{};
        bool ok = false;
        if constexpr (std::is_signed_v<T>) {
            ok = read_int(bytes, big_endian, v);
        } else {
            ok = read_uint(bytes, big_endian, v);
        }
        if (!ok) {
            return false;
        }
        if (!within(v, min, max)) {
            return fail(ErrorKind::over_width, at);
        }
        out = v;
        return true;
    }

    /// A `bool` byte: 0 or 1, anything else is over its width (WIRE-7).
    bool read_bool(bool& out) {
        const size_t at = pos_;
        uint64_t raw = 0;
        if (!uint(1, false, raw)) {
            return false;
        }
        if (raw > 1) {
            return fail(ErrorKind::over_width, at);
        }
        out = raw == 1;
        return true;
    }

    /// An IEEE 754 single; NaN and infinities are refused, as no canonical encoder writes them
    /// (WIRE-6).
    ACKWIRE_RT_INLINE bool read_f32(bool big_endian, float& out) {
        const size_t at = pos_;
        uint64_t raw = 0;
        if (!uint(4, big_endian, raw)) {
            return false;
        }
        const uint32_t bits = static_cast<uint32_t>(raw);
        float v = 0.0f;
        std::memcpy(&v, &bits, sizeof v);
        if (!std::isfinite(v)) {
            return fail(ErrorKind::non_finite, at);
        }
        out = v;
        return true;
    }

    /// An IEEE 754 double; NaN and infinities are refused (WIRE-6).
    ACKWIRE_RT_INLINE bool read_f64(bool big_endian, double& out) {
        const size_t at = pos_;
        uint64_t raw = 0;
        if (!uint(8, big_endian, raw)) {
            return false;
        }
        double v = 0.0;
        std::memcpy(&v, &raw, sizeof v);
        if (!std::isfinite(v)) {
            return fail(ErrorKind::non_finite, at);
        }
        out = v;
        return true;
    }

    /// An unsigned LEB128 varint of a value of at most `bits` bits.
    ///
    /// WIRE-2: unsigned LEB128, at most 10 bytes. WIRE-3: a varint longer than needed (a last byte
    /// of 0 after the first) is non-canonical. WIRE-4: a value over `bits` bits is over its width.
    bool varint(unsigned bits, uint64_t& out) {
        const size_t start = pos_;
        uint64_t value = 0;
        for (unsigned i = 0; i < 10; ++i) {
            uint64_t byte = 0;
            if (!uint(1, false, byte)) {
                return false;
            }
            if (i == 9 && byte > 1) {
                // The tenth byte holds bit 63 only; like every varint fault, it is reported at
                // the varint's first byte.
                return fail(ErrorKind::over_width, start);
            }
            value |= (byte & 0x7f) << (7 * i);
            if ((byte & 0x80) == 0) {
                if (i > 0 && byte == 0) {
                    return fail(ErrorKind::non_canonical_varint, start);
                }
                if (bits < 64 && (value >> bits) != 0) {
                    return fail(ErrorKind::over_width, start);
                }
                out = value;
                return true;
            }
        }
        // Not reached: the tenth byte either ends the varint or is refused above.
        return fail(ErrorKind::over_width, start);
    }

    /// A varint of at most `bits` bits into `out`, whose type holds that many.
    template <typename T>
    bool read_varint(unsigned bits, T& out) {
        static_assert(std::is_unsigned_v<T>, "read_varint reads unsigned integers");
        uint64_t raw = 0;
        if (!varint(bits, raw)) {
            return false;
        }
        out = static_cast<T>(raw);
        return true;
    }

    /// A zigzag varint of a signed value of at most `bits` bits into `out` (WIRE-5).
    template <typename T>
    bool read_zigzag(unsigned bits, T& out) {
        static_assert(std::is_signed_v<T>, "read_zigzag reads signed integers");
        uint64_t raw = 0;
        if (!varint(bits, raw)) {
            return false;
        }
        out = static_cast<T>(unzigzag(raw));
        return true;
    }

    /// Checks that `count` elements of at least `min_bytes` bytes each can fit in what remains,
    /// before anything is allocated for them (WIRE-13); `out` is the count as a size_t. Too many is
    /// reported at `at`.
    bool count(uint64_t count, uint64_t min_bytes, size_t at, size_t& out) {
        const uint64_t each = min_bytes > 0 ? min_bytes : 1;
        if (count > std::numeric_limits<uint64_t>::max() / each
            || count * each > static_cast<uint64_t>(remaining())) {
            return fail(ErrorKind::count_too_large, at);
        }
        out = static_cast<size_t>(count);
        return true;
    }

    /// `bytes` (WIRE-15): a varint length, then that many bytes. Like a list's count, a length too
    /// large is reported where the bytes would begin.
    bool read_bytes(std::vector<uint8_t>& out) {
        uint64_t len = 0;
        size_t n = 0;
        const uint8_t* p = nullptr;
        if (!varint(64, len) || !count(len, 1, pos_, n) || !take(n, p)) {
            return false;
        }
        out.assign(p, p + n);
        return true;
    }

    /// `bytes?` (WIRE-15): a varint (length + 1), then that many bytes; 0 means absent.
    bool read_opt_bytes(std::optional<std::vector<uint8_t>>& out) {
        uint64_t len = 0;
        if (!varint(64, len)) {
            return false;
        }
        if (len == 0) {
            out.reset();
            return true;
        }
        size_t n = 0;
        const uint8_t* p = nullptr;
        if (!count(len - 1, 1, pos_, n) || !take(n, p)) {
            return false;
        }
        out.emplace(p, p + n);
        return true;
    }

    /// An element of an ascending list from its `delta` (WIRE-14; the first is absolute): at least
    /// 1 after the first, and the sum must stay within `bits` bits; faults are reported at `at`,
    /// where the delta starts. Moves `prev` on.
    template <typename T>
    bool ascending(
        std::optional<uint64_t>& prev, uint64_t delta, unsigned bits, size_t at, T& out) {
        uint64_t v = delta;
        if (prev) {
            if (delta == 0) {
                return fail(ErrorKind::not_ascending, at);
            }
            if (delta > std::numeric_limits<uint64_t>::max() - *prev) {
                return fail(ErrorKind::over_width, at);
            }
            v = *prev + delta;
        }
        if (bits < 64 && (v >> bits) != 0) {
            return fail(ErrorKind::over_width, at);
        }
        prev = v;
        out = static_cast<T>(v);
        return true;
    }

    /// Ends a frame: every byte must have been read (WIRE-17).
    bool finish() {
        if (remaining() != 0) {
            return fail(ErrorKind::trailing_bytes, pos_);
        }
        return true;
    }

    /// Reads a bit-packed body from here: `read` decodes it from a BitReader, whose zero
    /// padding to the next byte is then checked, and the reader moves past it.
    template <typename F>
    bool packed(F&& read);

private:
    static const uint8_t* empty() {
        static const uint8_t none[1] = {0};
        return none;
    }

    DecodeError error_{ErrorKind::truncated, 0};
    const uint8_t* data_;
    size_t len_;
    size_t pos_ = 0;
};

/// A bit stream over the bytes of a packed body: fields are read least significant bit first,
/// starting at the least significant bit of each byte (WIRE-18). Made by Reader::packed, whose
/// error it records.
class BitReader : public ReadErrors {
public:
    /// A reader over the `len` bytes at `data`, which start at byte `base` of the frame; its
    /// errors go to `errors`.
    BitReader(const uint8_t* data, size_t len, size_t base, DecodeError& errors)
        : ReadErrors(&errors),
        data_(data),
        bits_(std::min(len, std::numeric_limits<size_t>::max() / 8) * 8),
        base_(base) {}

    BitReader(const BitReader&) = delete;
    BitReader& operator=(const BitReader&) = delete;

    /// The bit offset of the next bit, from the start of the frame.
    size_t bit_pos() const { return base_ * 8 + pos_; }

    /// Bits not read yet.
    size_t remaining() const { return bits_ - pos_; }

    /// Records an error of `kind` at bit `bit` of the frame. Returns false.
    bool fail(ErrorKind kind, size_t bit) {
        *slot_ = DecodeError::at_bit(kind, bit);
        return false;
    }

    /// An unsigned field of `width` bits (1 to 64). As in the byte reader, the input ending
    /// inside it is reported where the input ends.
    bool uint(unsigned width, uint64_t& out) {
        if (width > remaining()) {
            return fail(ErrorKind::truncated, base_ * 8 + bits_);
        }
        uint64_t v = 0;
        for (unsigned i = 0; i < width; ++i) {
            const size_t p = pos_ + i;
            v |= ((static_cast<uint64_t>(data_[p / 8]) >> (p % 8)) & 1u) << i;
        }
        pos_ += width;
        out = v;
        return true;
    }

    /// An unsigned field of `width` bits into `out`, whose type holds that many.
    template <typename T>
    bool read_uint(unsigned width, T& out) {
        static_assert(std::is_unsigned_v<T>, "read_uint reads unsigned integers");
        uint64_t raw = 0;
        if (!uint(width, raw)) {
            return false;
        }
        out = static_cast<T>(raw);
        return true;
    }

    /// A two's complement field of `width` bits (2 to 64), sign-extended into `out`.
    template <typename T>
    bool read_int(unsigned width, T& out) {
        static_assert(std::is_signed_v<T>, "read_int reads signed integers");
        uint64_t raw = 0;
        if (!uint(width, raw)) {
            return false;
        }
        out = static_cast<T>(sign_extend(raw, width));
        return true;
    }

    /// A ranged integer of a packed record into `out`: the value less `min` in `width` bits; a
    /// value past `max` is over its width, at the field's first bit (WIRE-29).
    template <typename T>
    bool read_ranged(unsigned width, int64_t min, int64_t max, T& out) {
        const size_t at = bit_pos();
        uint64_t raw = 0;
        if (!uint(width, raw)) {
            return false;
        }
        // max - min and min + raw in two's complement: exact, as max >= min.
        if (raw > static_cast<uint64_t>(max) - static_cast<uint64_t>(min)) {
            return fail(ErrorKind::over_width, at);
        }
        out = static_cast<T>(static_cast<uint64_t>(min) + raw);
        return true;
    }

    /// One bit.
    bool read_bool(bool& out) {
        uint64_t raw = 0;
        if (!uint(1, raw)) {
            return false;
        }
        out = raw == 1;
        return true;
    }

    /// A finite IEEE 754 single of 32 bits.
    bool read_f32(float& out) {
        const size_t at = bit_pos();
        uint64_t raw = 0;
        if (!uint(32, raw)) {
            return false;
        }
        const uint32_t bits = static_cast<uint32_t>(raw);
        float v = 0.0f;
        std::memcpy(&v, &bits, sizeof v);
        if (!std::isfinite(v)) {
            return fail(ErrorKind::non_finite, at);
        }
        out = v;
        return true;
    }

    /// A finite IEEE 754 double of 64 bits.
    bool read_f64(double& out) {
        const size_t at = bit_pos();
        uint64_t raw = 0;
        if (!uint(64, raw)) {
            return false;
        }
        double v = 0.0;
        std::memcpy(&v, &raw, sizeof v);
        if (!std::isfinite(v)) {
            return fail(ErrorKind::non_finite, at);
        }
        out = v;
        return true;
    }

    /// A `bucket(widths)` code (WIRE-19): the bucket index in unary (at most k - 1 bits are read,
    /// so ones end at the last bucket, never past it), then the value less the bucket's base in its
    /// width. Every code is a value: only the end of the input is an error.
    bool bucket(std::initializer_list<unsigned> widths, uint64_t& out) {
        const unsigned* w = widths.begin();
        const size_t k = widths.size();
        uint64_t base = 0;
        size_t i = 0;
        while (i + 1 < k) {
            uint64_t bit = 0;
            if (!uint(1, bit)) {
                return false;
            }
            if (bit == 0) {
                break;
            }
            base += bucket_size(w[i]);
            ++i;
        }
        uint64_t v = 0;
        if (!uint(w[i], v)) {
            return false;
        }
        out = base + v;
        return true;
    }

    /// An unsigned `bucket(widths)` value into `out`, whose type holds its largest.
    template <typename T>
    bool read_bucket(std::initializer_list<unsigned> widths, T& out) {
        static_assert(std::is_unsigned_v<T>, "read_bucket reads unsigned integers");
        uint64_t raw = 0;
        if (!bucket(widths, raw)) {
            return false;
        }
        out = static_cast<T>(raw);
        return true;
    }

    /// A signed `zbucket(widths)` value: a bucket code, zigzag-decoded.
    template <typename T>
    bool read_zbucket(std::initializer_list<unsigned> widths, T& out) {
        static_assert(std::is_signed_v<T>, "read_zbucket reads signed integers");
        uint64_t raw = 0;
        if (!bucket(widths, raw)) {
            return false;
        }
        out = static_cast<T>(unzigzag(raw));
        return true;
    }

    /// A `quat(bits)` value (WIRE-20): `largest` in 2 bits, then the three sent components, each a
    /// signed `bits`-bit field; then its canonical rules (smallest_three_fault), a fault reported
    /// at the field's first bit: `over_width` for a component of -2^(bits-1), `non_canonical` for a
    /// sent component larger than the dropped one.
    bool read_quat(unsigned bits, SmallestThree& out) {
        const size_t at = bit_pos();
        SmallestThree v;
        if (!read_uint(2, v.largest)) {
            return false;
        }
        for (int16_t& c : v.rest) {
            if (!read_int(bits, c)) {
                return false;
            }
        }
        if (const auto fault = smallest_three_fault(v, bits)) {
            return fail(*fault, at);
        }
        out = v;
        return true;
    }

    /// An element of an ascending list in a packed body from its `delta` (the first is
    /// absolute): at least 1 after the first, and the sum at most `max` (the largest value of
    /// the element's type: of its `uN`, or of its `bucket(...)`); faults are reported at bit
    /// `at`, where the delta starts. Moves `prev` on.
    template <typename T>
    bool ascending_to(
        std::optional<uint64_t>& prev, uint64_t delta, uint64_t max, size_t at, T& out) {
        uint64_t v = delta;
        if (prev) {
            if (delta == 0) {
                return fail(ErrorKind::not_ascending, at);
            }
            if (delta > std::numeric_limits<uint64_t>::max() - *prev) {
                return fail(ErrorKind::over_width, at);
            }
            v = *prev + delta;
        }
        if (v > max) {
            return fail(ErrorKind::over_width, at);
        }
        prev = v;
        out = static_cast<T>(v);
        return true;
    }

    /// Checks that `count` elements of at least `min_bits` bits each can fit in what remains;
    /// too many is reported at bit `at`.
    bool count(uint64_t count, uint64_t min_bits, size_t at, size_t& out) {
        const uint64_t each = min_bits > 0 ? min_bits : 1;
        if (count > std::numeric_limits<uint64_t>::max() / each
            || count * each > static_cast<uint64_t>(remaining())) {
            return fail(ErrorKind::count_too_large, at);
        }
        out = static_cast<size_t>(count);
        return true;
    }

    /// Ends the body: the bits up to the next byte boundary are padding and must be zero (WIRE-18).
    /// `used` is the whole bytes the body took.
    bool finish(size_t& used) {
        const size_t end = (pos_ + 7) / 8 * 8;
        for (size_t p = pos_; p < end; ++p) {
            if (((static_cast<unsigned>(data_[p / 8]) >> (p % 8)) & 1u) != 0) {
                return fail(ErrorKind::reserved_bit, base_ * 8 + p);
            }
        }
        used = end / 8;
        return true;
    }

private:
    const uint8_t* data_;
    size_t bits_;
    size_t base_;
    size_t pos_ = 0;
};

template <typename F>
bool Reader::packed(F&& read) {
    BitReader bits(data_ + pos_, remaining(), pos_, error_);
    size_t used = 0;
    if (!read(bits) || !bits.finish(used)) {
        return false;
    }
    pos_ += used;
    return true;
}

// ---- writing ----

/// What Writer and BitWriter share: the error a write stopped at, extended by the encoders'
/// callers with their fields, and the checks that only refuse values.
class WriteErrors {
public:
    /// The error the failed write stopped at (meaningful after a write returned false).
    const EncodeError& error() const { return *slot_; }

    /// Records an error of `kind`. Returns false.
    bool fail(ErrorKind kind) {
        *slot_ = EncodeError(kind);
        return false;
    }

    /// Records `error`, found by another writer (a coded body's sink), with its path. Returns
    /// false.
    bool fail(const EncodeError& error) {
        *slot_ = error;
        return false;
    }

    /// Adds field `name` outside the error's path. Returns false, so that an encoder bails out
    /// with `return w.in("tick");`.
    bool in(const char* name) {
        slot_->path.push_field(name);
        return false;
    }

    /// Adds list element `i` outside the error's path (`return w.index(i).in("changes");`).
    WriteErrors& index(size_t i) {
        slot_->path.push_index(i);
        return *this;
    }

    /// Refuses a ranged integer outside [min, max] as over its width (WIRE-29).
    template <typename T>
    bool in_range(T v, int64_t min, int64_t max) {
        return within(v, min, max) || fail(ErrorKind::over_width);
    }

    /// Refuses a value whose presence contradicts its condition.
    bool presence(bool present, bool cond) {
        return present == cond || fail(ErrorKind::invalid_condition);
    }

    /// A quantized value as a signed wire integer within [min, max], compared exactly (not
    /// as doubles, where `max` may round up): the double is range-checked before it is
    /// converted.
    bool quantize_int(double value, double scale, int64_t min, int64_t max, int64_t& out) {
        const double q = quantize(value, scale);
        // A whole number in [-2^63, 2^63) converts exactly.
        if (!(q >= -9223372036854775808.0 && q < 9223372036854775808.0)) {
            return fail(ErrorKind::over_width);
        }
        const int64_t i = static_cast<int64_t>(q);
        if (i < min || i > max) {
            return fail(ErrorKind::over_width);
        }
        out = i;
        return true;
    }

    /// A quantized value as an unsigned wire integer at most `max`.
    bool quantize_uint(double value, double scale, uint64_t max, uint64_t& out) {
        const double q = quantize(value, scale);
        // `max` as a double rounds 2^64 - 1 up to 2^64, which `q` must stay below.
        if (q < 0.0 || q > static_cast<double>(max) || q >= 18446744073709551616.0) {
            return fail(ErrorKind::over_width);
        }
        out = saturate_u64(q);
        return true;
    }

    /// The delta an ascending list's element `v` of at most `bits` bits is written as (the
    /// first is absolute). The element itself must fit, not only its delta, as the decoder
    /// checks the sum; a value not above the previous one does not ascend. Moves `prev` on.
    bool ascending(std::optional<uint64_t>& prev, uint64_t v, unsigned bits, uint64_t& delta) {
        return ascending_to(prev, v, bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1, delta);
    }

    /// ascending() of an element whose largest value is `max` (a `bucket(...)`'s, in a packed
    /// body).
    bool ascending_to(std::optional<uint64_t>& prev, uint64_t v, uint64_t max, uint64_t& delta) {
        if (v > max) {
            return fail(ErrorKind::over_width);
        }
        if (!prev) {
            delta = v;
        } else if (v > *prev) {
            delta = v - *prev;
        } else {
            return fail(ErrorKind::not_ascending);
        }
        prev = v;
        return true;
    }

protected:
    explicit WriteErrors(EncodeError* slot) : slot_(slot) {}

    bool finite(double v) { return std::isfinite(v) || fail(ErrorKind::non_finite); }

    bool check_int(int64_t v, unsigned width) {
        return fits_int(v, width) || fail(ErrorKind::over_width);
    }

    EncodeError* slot_;
};

/// Byte-aligned writes appended to a byte vector. Not copyable: it owns the error its writes
/// stop at.
///
/// Each write fills bytes in place at the end of what is written (room()), so that a field costs
/// one bounds check, not one push_back per byte. Made with the frame's expected length (its
/// encoded_len, as the generated encode() does), the writer grows `out` once by that many zero
/// bytes, which the writes then fill; until the writer is gone `out` may end with some of them
/// not written yet, and its destructor drops those (when a write failed, or the length was more
/// than was written). Made without, it grows `out` by each write's bytes, so that `out` ends
/// with exactly what was written after every write.
class Writer : public WriteErrors {
public:
    /// A writer appending to `out`.
    explicit Writer(std::vector<uint8_t>& out)
        : WriteErrors(&error_), out_(out), cur_(out.data() + out.size()), end_(cur_) {}

    /// A writer appending to `out` about `expected` bytes (a frame's encoded_len): `out` is grown
    /// by them at once.
    Writer(std::vector<uint8_t>& out, size_t expected) : Writer(out) { grow(expected); }

    /// Drops the bytes grown for but not written.
    ~Writer() { out_.resize(written()); }

    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;

    /// The error, moved out (meaningful after a write returned false).
    EncodeError take_error() { return std::move(error_); }

    /// An unsigned integer of `bytes` bytes in the given byte order; a value that needs more
    /// bytes is over its width.
    ACKWIRE_RT_INLINE bool write_uint(size_t bytes, bool big_endian, uint64_t v) {
        if (bytes < 8 && (v >> (bytes * 8)) != 0) {
            return fail(ErrorKind::over_width);
        }
        uint8_t* p = room(bytes);
        for (size_t i = 0; i < bytes; ++i) {
            p[i] = static_cast<uint8_t>(v >> (8 * (big_endian ? bytes - 1 - i : i)));
        }
        return true;
    }

    /// A signed integer of `bytes` bytes, two's complement.
    ACKWIRE_RT_INLINE bool write_int(size_t bytes, bool big_endian, int64_t v) {
        const unsigned width = static_cast<unsigned>(bytes * 8);
        if (!check_int(v, width)) {
            return false;
        }
        const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
        return write_uint(bytes, big_endian, static_cast<uint64_t>(v) & mask);
    }

    /// A `bool` byte, 0 or 1.
    void write_bool(bool v) { *room(1) = v ? 1 : 0; }

    /// An unsigned LEB128 varint of a value of at most `bits` bits.
    bool write_varint(unsigned bits, uint64_t v) {
        if (bits < 64 && (v >> bits) != 0) {
            return fail(ErrorKind::over_width);
        }
        uint8_t bytes[10];
        size_t n = 0;
        while (v >= 0x80) {
            bytes[n++] = static_cast<uint8_t>((v & 0x7f) | 0x80);
            v >>= 7;
        }
        bytes[n++] = static_cast<uint8_t>(v);
        std::memcpy(room(n), bytes, n);
        return true;
    }

    /// A zigzag varint of a signed value of at most `bits` bits.
    bool write_zigzag(unsigned bits, int64_t v) {
        return check_int(v, bits) && write_varint(64, zigzag(v));
    }

    /// A finite single.
    ACKWIRE_RT_INLINE bool write_f32(bool big_endian, float v) {
        uint32_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        return finite(static_cast<double>(v)) && write_uint(4, big_endian, bits);
    }

    /// A finite double.
    ACKWIRE_RT_INLINE bool write_f64(bool big_endian, double v) {
        uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        return finite(v) && write_uint(8, big_endian, bits);
    }

    /// `bytes`: a varint length, then the bytes.
    bool write_bytes(const std::vector<uint8_t>& v) {
        write_varint(64, v.size());
        append(v);
        return true;
    }

    /// `bytes?`: a varint (length + 1), then the bytes; 0 when absent.
    bool write_opt_bytes(const std::optional<std::vector<uint8_t>>& v) {
        if (!v) {
            return write_varint(64, 0);
        }
        write_varint(64, uint64_t{v->size()} + 1);
        append(*v);
        return true;
    }

    /// Appends raw bytes.
    void append(const std::vector<uint8_t>& bytes) {
        if (!bytes.empty()) {
            std::memcpy(room(bytes.size()), bytes.data(), bytes.size());
        }
    }

private:
    /// The `n` bytes after those written, to be filled in now; `out` grows when fewer remain.
    ACKWIRE_RT_INLINE uint8_t* room(size_t n) {
        if (static_cast<size_t>(end_ - cur_) < n) {
            grow(n);
        }
        uint8_t* p = cur_;
        cur_ += n;
        return p;
    }

    /// Makes `out` end `n` bytes after those written.
    void grow(size_t n) {
        const size_t at = written();
        out_.resize(at + n);
        cur_ = out_.data() + at;
        end_ = out_.data() + out_.size();
    }

    /// The bytes of `out`, those before the writer's included, that are written.
    size_t written() const { return static_cast<size_t>(cur_ - out_.data()); }

    EncodeError error_{ErrorKind::over_width};
    std::vector<uint8_t>& out_;
    uint8_t* cur_;
    uint8_t* end_;

    friend class BitWriter;
};

/// Writes a bit-packed body: fields least significant bit first, padded with zero bits to a
/// byte by finish(), which appends it to the Writer it was made for (whose error it records).
class BitWriter : public WriteErrors {
public:
    /// A body to be appended to `parent`.
    explicit BitWriter(Writer& parent) : WriteErrors(&parent.error_), parent_(parent) {}

    BitWriter(const BitWriter&) = delete;
    BitWriter& operator=(const BitWriter&) = delete;

    /// An unsigned field of `width` bits; a value that needs more bits is over its width.
    bool write_uint(unsigned width, uint64_t v) {
        if (width < 64 && (v >> width) != 0) {
            return fail(ErrorKind::over_width);
        }
        for (unsigned i = 0; i < width; ++i) {
            write_bool(((v >> i) & 1u) != 0);
        }
        return true;
    }

    /// A two's complement field of `width` bits.
    bool write_int(unsigned width, int64_t v) {
        if (!check_int(v, width)) {
            return false;
        }
        const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
        return write_uint(width, static_cast<uint64_t>(v) & mask);
    }

    /// A ranged integer: the value less `min` in `width` bits; a value outside [min, max] is
    /// over its width (WIRE-29).
    template <typename T>
    bool write_ranged(unsigned width, int64_t min, int64_t max, T v) {
        if (!in_range(v, min, max)) {
            return false;
        }
        return write_uint(width, static_cast<uint64_t>(v) - static_cast<uint64_t>(min));
    }

    /// One bit.
    void write_bool(bool v) {
        if (bits_ % 8 == 0) {
            bytes_.push_back(0);
        }
        if (v) {
            bytes_.back() = static_cast<uint8_t>(bytes_.back() | (1u << (bits_ % 8)));
        }
        ++bits_;
    }

    /// A finite single.
    bool write_f32(float v) {
        uint32_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        return finite(static_cast<double>(v)) && write_uint(32, bits);
    }

    /// An unsigned `bucket(widths)` value: its bucket index in unary, then the value less the
    /// bucket's base in the bucket's width; a value past the last bucket is over its width.
    bool write_bucket(std::initializer_list<unsigned> widths, uint64_t v) {
        uint64_t base = 0;
        const size_t k = widths.size();
        const size_t i = bucket_of(widths, v, base);
        if (i >= k) {
            return fail(ErrorKind::over_width);
        }
        for (size_t j = 0; j < i; ++j) {
            write_bool(true);
        }
        if (i + 1 < k) {
            write_bool(false);
        }
        return write_uint(widths.begin()[i], v - base);
    }

    /// A signed `zbucket(widths)` value: zigzag-mapped, then a bucket code.
    bool write_zbucket(std::initializer_list<unsigned> widths, int64_t v) {
        return write_bucket(widths, zigzag(v));
    }

    /// A `quat(bits)` value: `largest` in 2 bits, then the three sent components in `bits` bits
    /// each; a value its decoder would refuse is refused first (smallest_three_fault):
    /// `over_width` (a `largest` past 3, a component outside [-R, R]), `non_canonical`.
    bool write_quat(unsigned bits, const SmallestThree& v) {
        if (const auto fault = smallest_three_fault(v, bits)) {
            return fail(*fault);
        }
        write_uint(2, v.largest);
        for (const int16_t c : v.rest) {
            write_int(bits, c);
        }
        return true;
    }

    /// A finite double.
    bool write_f64(double v) {
        uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        return finite(v) && write_uint(64, bits);
    }

    /// Bits written so far.
    size_t bit_len() const { return bits_; }

    /// Appends the body, padded with zero bits to a byte, to the parent writer.
    void finish() { parent_.append(bytes_); }

private:
    Writer& parent_;
    std::vector<uint8_t> bytes_;
    size_t bits_ = 0;
};

/// The encoded length of `bytes`.
inline size_t bytes_len(const std::vector<uint8_t>& v) { return varint_len(v.size()) + v.size(); }

/// The encoded length of `bytes?`.
inline size_t opt_bytes_len(const std::optional<std::vector<uint8_t>>& v) {
    return v ? varint_len(uint64_t{v->size()} + 1) + v->size() : 1;
}

/// The delta an ascending element is written as (the value itself when it does not ascend:
/// encoding then fails, so only the length is asked), moving `prev` on.
inline uint64_t ascending_step(std::optional<uint64_t>& prev, uint64_t v) {
    const uint64_t d = prev && v > *prev ? v - *prev : v;
    prev = v;
    return d;
}

/// The encoded length of an ascending list of varints.
template <typename T>
size_t ascending_varints_len(const std::vector<T>& items) {
    std::optional<uint64_t> prev;
    size_t n = 0;
    for (const T& item : items) {
        n += varint_len(ascending_step(prev, item));
    }
    return n;
}

/// The bits of an ascending list of `bucket(widths)` values in a packed body: the first
/// value's code, then each difference's.
template <typename T>
size_t ascending_buckets_len(std::initializer_list<unsigned> widths, const std::vector<T>& items) {
    std::optional<uint64_t> prev;
    size_t n = 0;
    for (const T& item : items) {
        n += bucket_len(widths, ascending_step(prev, item));
    }
    return n;
}

// ---- bit sets, hex, FNV-1a ----

/// A named bit of a bit set.
struct BitName {
    /// The bit's name in the spec.
    const char* name;
    /// Its index, 0 being the least significant.
    unsigned index;
};

/// Lower-case hex of the `len` bytes at `bytes`.
inline std::string to_hex(const uint8_t* bytes, size_t len) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(len * 2);
    for (size_t i = 0; i < len; ++i) {
        out += digits[bytes[i] >> 4];
        out += digits[bytes[i] & 0x0f];
    }
    return out;
}

/// Lower-case hex of `bytes`.
inline std::string to_hex(const std::vector<uint8_t>& bytes) {
    return to_hex(bytes.data(), bytes.size());
}

/// Bytes from hex (either case); white space anywhere between digits is ignored. On failure
/// `why` says what is wrong and false is returned.
inline bool from_hex(std::string_view text, std::vector<uint8_t>& out, std::string& why) {
    out.clear();
    int high = -1;
    size_t digits = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            continue;
        }
        int d = -1;
        if (c >= '0' && c <= '9') {
            d = c - '0';
        } else if (c >= 'a' && c <= 'f') {
            d = c - 'a' + 10;
        } else if (c >= 'A' && c <= 'F') {
            d = c - 'A' + 10;
        }
        if (d < 0) {
            const unsigned char u = static_cast<unsigned char>(c);
            const std::string shown = u >= 0x20 && u < 0x7f
                ? "`" + std::string(1, c) + "`"
                : "byte " + std::to_string(u);
            why = shown + " at character " + std::to_string(i) + " is not a hex digit";
            return false;
        }
        ++digits;
        if (high < 0) {
            high = d;
        } else {
            out.push_back(static_cast<uint8_t>(high * 16 + d));
            high = -1;
        }
    }
    if (high >= 0) {
        why = "odd number of hex digits (" + std::to_string(digits) + ")";
        return false;
    }
    return true;
}

/// 32-bit FNV-1a (offset basis 2166136261, prime 16777619), CHECK-1; pass the previous result as
/// `hash` to continue a hash.
inline uint32_t fnv1a32(const uint8_t* bytes, size_t len, uint32_t hash = 2166136261u) {
    for (size_t i = 0; i < len; ++i) {
        hash = (hash ^ bytes[i]) * 16777619u;
    }
    return hash;
}

}  // namespace rt

// ---- JSON ----

namespace json {

/// The length of the well-formed UTF-8 sequence starting at `s[i]` (RFC 3629: no overlong
/// forms, no surrogates, nothing above U+10FFFF), or 0 when there is none.
inline size_t utf8_sequence(std::string_view s, size_t i) {
    const auto at = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char lead = at(i);
    if (lead < 0x80) {
        return 1;
    }
    size_t len = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
        len = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        len = 3;
        lo = lead == 0xe0 ? 0xa0 : 0x80;
        hi = lead == 0xed ? 0x9f : 0xbf;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        len = 4;
        lo = lead == 0xf0 ? 0x90 : 0x80;
        hi = lead == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if (s.size() - i < len || at(i + 1) < lo || at(i + 1) > hi) {
        return 0;
    }
    for (size_t k = 2; k < len; ++k) {
        if (at(i + k) < 0x80 || at(i + k) > 0xbf) {
            return 0;
        }
    }
    return len;
}

/// Why a JSON text or value is not what was expected: a message, and where (`changes[2].mask`).
/// Conversions take one by reference, fill it when they fail and return false.
class Error {
public:
    /// What is wrong.
    const std::string& message() const { return message_; }

    /// Where, outermost first; empty for the value as a whole.
    const std::string& path() const { return path_; }

    /// `path: message`.
    std::string text() const { return path_.empty() ? message_ : path_ + ": " + message_; }

    /// Records that `why` is wrong, with no path yet. Returns false.
    bool fail(std::string why) {
        message_ = std::move(why);
        path_.clear();
        return false;
    }

    /// Adds member `name` outside the path. Returns false (`return error.in("tick");`).
    bool in(std::string_view name) {
        std::string outer(name);
        if (!path_.empty() && path_[0] != '[') {
            outer += '.';
        }
        path_ = outer + path_;
        return false;
    }

    /// Adds list element `i` outside the path. Returns false.
    bool at(size_t i) {
        std::string outer = "[" + std::to_string(i) + "]";
        if (!path_.empty() && path_[0] != '[') {
            outer += '.';
        }
        path_ = outer + path_;
        return false;
    }

private:
    std::string message_;
    std::string path_;
};

/// A JSON value. Numbers keep their text, so 64-bit integers lose nothing; objects keep their
/// members in order.
class Value {
public:
    /// What a value is.
    enum class Kind { null, boolean, number, string, array, object };

    /// null.
    Value() = default;

    /// true or false.
    static Value from_bool(bool b) {
        Value v;
        v.kind_ = Kind::boolean;
        v.bool_ = b;
        return v;
    }

    /// An unsigned integer.
    static Value from_u64(uint64_t n) { return number_text(std::to_string(n)); }

    /// A signed integer.
    static Value from_i64(int64_t n) { return number_text(std::to_string(n)); }

    /// A double, in the shortest form that reads back as the same double (null when not
    /// finite, as serde_json writes it).
    static Value from_f64(double d) {
        if (!std::isfinite(d)) {
            return Value();
        }
        char buf[64];
        const auto res = std::to_chars(buf, buf + sizeof buf, d);
        return number_text(float_text(std::string(buf, res.ptr)));
    }

    /// A single, in the shortest form that reads back as the same single.
    static Value from_f32(float f) {
        if (!std::isfinite(f)) {
            return Value();
        }
        char buf[64];
        const auto res = std::to_chars(buf, buf + sizeof buf, f);
        return number_text(float_text(std::string(buf, res.ptr)));
    }

    /// A string.
    static Value from_string(std::string s) {
        Value v;
        v.kind_ = Kind::string;
        v.text_ = std::move(s);
        return v;
    }

    /// A number from its JSON text (which the caller has checked).
    static Value number_text(std::string text) {
        Value v;
        v.kind_ = Kind::number;
        v.text_ = std::move(text);
        return v;
    }

    /// An empty array.
    static Value array() {
        Value v;
        v.kind_ = Kind::array;
        return v;
    }

    /// An empty object.
    static Value object() {
        Value v;
        v.kind_ = Kind::object;
        return v;
    }

    /// What this value is.
    Kind kind() const { return kind_; }

    /// Whether this is null.
    bool is_null() const { return kind_ == Kind::null; }

    /// The boolean (false unless this is true).
    bool as_bool() const { return kind_ == Kind::boolean && bool_; }

    /// A string's contents, or a number's JSON text.
    const std::string& text() const { return text_; }

    /// An array's elements, or an object's member values.
    const std::vector<Value>& items() const { return items_; }

    /// An object's member names, in order.
    const std::vector<std::string>& keys() const { return keys_; }

    /// Appends an element to an array.
    void push(Value v) { items_.push_back(std::move(v)); }

    /// Appends a member to an object (the caller keeps names unique).
    void set(std::string key, Value v) {
        keys_.push_back(std::move(key));
        items_.push_back(std::move(v));
    }

    /// The first member named `key` of an object, or null.
    const Value* find(std::string_view key) const {
        for (size_t i = 0; i < keys_.size(); ++i) {
            if (keys_[i] == key) {
                return &items_[i];
            }
        }
        return nullptr;
    }

    /// The value as compact JSON text.
    std::string dump() const {
        std::string out;
        dump_to(out);
        return out;
    }

    /// Appends the value as compact JSON text to `out`.
    void dump_to(std::string& out) const {
        switch (kind_) {
            case Kind::null:
                out += "null";
                break;
            case Kind::boolean:
                out += bool_ ? "true" : "false";
                break;
            case Kind::number:
                out += text_;
                break;
            case Kind::string:
                quote(text_, out);
                break;
            case Kind::array:
                out += '[';
                for (size_t i = 0; i < items_.size(); ++i) {
                    if (i > 0) {
                        out += ',';
                    }
                    items_[i].dump_to(out);
                }
                out += ']';
                break;
            case Kind::object:
                out += '{';
                for (size_t i = 0; i < items_.size(); ++i) {
                    if (i > 0) {
                        out += ',';
                    }
                    quote(keys_[i], out);
                    out += ':';
                    items_[i].dump_to(out);
                }
                out += '}';
                break;
        }
    }

private:
    static std::string float_text(std::string s) {
        if (s.find_first_of(".eEn") == std::string::npos) {
            s += ".0";
        }
        return s;
    }

    // Quotes `s`; what is not UTF-8 becomes U+FFFD, so that the text always is.
    static void quote(const std::string& s, std::string& out) {
        static const char digits[] = "0123456789abcdef";
        out += '"';
        for (size_t i = 0; i < s.size(); ++i) {
            const char c = s[i];
            const unsigned char u = static_cast<unsigned char>(c);
            if (u >= 0x80) {
                const size_t len = utf8_sequence(s, i);
                if (len == 0) {
                    out += "\\ufffd";
                } else {
                    out.append(s, i, len);
                    i += len - 1;
                }
            } else if (c == '"' || c == '\\') {
                out += '\\';
                out += c;
            } else if (c == '\n') {
                out += "\\n";
            } else if (c == '\r') {
                out += "\\r";
            } else if (c == '\t') {
                out += "\\t";
            } else if (u < 0x20) {
                out += "\\u00";
                out += digits[u >> 4];
                out += digits[u & 0x0f];
            } else {
                out += c;
            }
        }
        out += '"';
    }

    Kind kind_ = Kind::null;
    bool bool_ = false;
    std::string text_;
    std::vector<Value> items_;
    std::vector<std::string> keys_;
};

/// A recursive-descent JSON parser (RFC 8259) with a nesting limit, so that no input can
/// exhaust the stack.
class Parser {
public:
    /// How deeply arrays and objects may nest (serde_json's limit).
    static constexpr unsigned MAX_DEPTH = 128;

    /// A parser of `text`.
    explicit Parser(std::string_view text) : text_(text) {}

    /// The one value `text` holds, with nothing but white space around it.
    rt::Result<Value, Error> document() {
        Value v;
        skip_ws();
        if (!value(v, 0)) {
            return error_;
        }
        skip_ws();
        if (pos_ != text_.size()) {
            fail("trailing characters");
            return error_;
        }
        return v;
    }

private:
    bool fail(const std::string& what) {
        return error_.fail(what + " at character " + std::to_string(pos_));
    }

    void skip_ws() {
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            ++pos_;
        }
    }

    bool literal(std::string_view word) {
        if (text_.substr(pos_, word.size()) == word) {
            pos_ += word.size();
            return true;
        }
        return false;
    }

    bool digit() const { return pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9'; }

    bool value(Value& out, unsigned depth) {
        if (pos_ >= text_.size()) {
            return fail("unexpected end of input");
        }
        const char c = text_[pos_];
        if (c == 'n' && literal("null")) {
            out = Value();
            return true;
        }
        if (c == 't' && literal("true")) {
            out = Value::from_bool(true);
            return true;
        }
        if (c == 'f' && literal("false")) {
            out = Value::from_bool(false);
            return true;
        }
        if (c == '"') {
            std::string s;
            if (!string(s)) {
                return false;
            }
            out = Value::from_string(std::move(s));
            return true;
        }
        if (c == '-' || digit()) {
            return number(out);
        }
        if (c == '[' || c == '{') {
            if (depth >= MAX_DEPTH) {
                return fail("recursion limit exceeded");
            }
            return c == '[' ? array(out, depth + 1) : object(out, depth + 1);
        }
        return fail("expected a value");
    }

    bool number(Value& out) {
        const size_t start = pos_;
        if (text_[pos_] == '-') {
            ++pos_;
        }
        if (pos_ < text_.size() && text_[pos_] == '0') {
            ++pos_;
        } else if (digit()) {
            while (digit()) {
                ++pos_;
            }
        } else {
            return fail("expected a digit");
        }
        if (pos_ < text_.size() && text_[pos_] == '.') {
            ++pos_;
            if (!digit()) {
                return fail("expected a digit after the decimal point");
            }
            while (digit()) {
                ++pos_;
            }
        }
        if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
            ++pos_;
            if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
                ++pos_;
            }
            if (!digit()) {
                return fail("expected a digit in the exponent");
            }
            while (digit()) {
                ++pos_;
            }
        }
        out = Value::number_text(std::string(text_.substr(start, pos_ - start)));
        return true;
    }

    bool code_unit(uint32_t& out) {
        if (text_.size() - pos_ < 4) {
            return fail("unexpected end of input in a \\u escape");
        }
        uint32_t v = 0;
        for (size_t i = 0; i < 4; ++i) {
            const char c = text_[pos_ + i];
            uint32_t d = 0;
            if (c >= '0' && c <= '9') {
                d = static_cast<uint32_t>(c - '0');
            } else if (c >= 'a' && c <= 'f') {
                d = static_cast<uint32_t>(c - 'a' + 10);
            } else if (c >= 'A' && c <= 'F') {
                d = static_cast<uint32_t>(c - 'A' + 10);
            } else {
                return fail("expected a hex digit in a \\u escape");
            }
            v = v * 16 + d;
        }
        pos_ += 4;
        out = v;
        return true;
    }

    static void utf8(uint32_t cp, std::string& out) {
        const auto byte = [&out](uint32_t b) {
            out += static_cast<char>(static_cast<unsigned char>(b));
        };
        if (cp < 0x80) {
            byte(cp);
        } else if (cp < 0x800) {
            byte(0xc0 | (cp >> 6));
            byte(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            byte(0xe0 | (cp >> 12));
            byte(0x80 | ((cp >> 6) & 0x3f));
            byte(0x80 | (cp & 0x3f));
        } else {
            byte(0xf0 | (cp >> 18));
            byte(0x80 | ((cp >> 12) & 0x3f));
            byte(0x80 | ((cp >> 6) & 0x3f));
            byte(0x80 | (cp & 0x3f));
        }
    }

    bool escape(std::string& out) {
        if (pos_ >= text_.size()) {
            return fail("unterminated escape");
        }
        const char esc = text_[pos_++];
        switch (esc) {
            case '"':
            case '\\':
            case '/':
                out += esc;
                return true;
            case 'b':
                out += '\b';
                return true;
            case 'f':
                out += '\f';
                return true;
            case 'n':
                out += '\n';
                return true;
            case 'r':
                out += '\r';
                return true;
            case 't':
                out += '\t';
                return true;
            case 'u':
                break;
            default:
                return fail("invalid escape");
        }
        uint32_t cp = 0;
        if (!code_unit(cp)) {
            return false;
        }
        if (cp >= 0xdc00 && cp <= 0xdfff) {
            return fail("lone trailing surrogate");
        }
        if (cp >= 0xd800 && cp <= 0xdbff) {
            uint32_t low = 0;
            if (!literal("\\u") || !code_unit(low) || low < 0xdc00 || low > 0xdfff) {
                return fail("lone leading surrogate");
            }
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        }
        utf8(cp, out);
        return true;
    }

    bool string(std::string& out) {
        ++pos_;  // the opening quote
        while (true) {
            if (pos_ >= text_.size()) {
                return fail("unterminated string");
            }
            const char c = text_[pos_++];
            if (c == '"') {
                return true;
            }
            if (static_cast<unsigned char>(c) < 0x20) {
                return fail("control character in a string");
            }
            if (static_cast<unsigned char>(c) >= 0x80) {
                const size_t len = utf8_sequence(text_, pos_ - 1);
                if (len == 0) {
                    --pos_;
                    return fail("invalid UTF-8");
                }
                out.append(text_.substr(pos_ - 1, len));
                pos_ += len - 1;
            } else if (c != '\\') {
                out += c;
            } else if (!escape(out)) {
                return false;
            }
        }
    }

    bool array(Value& out, unsigned depth) {
        ++pos_;  // [
        out = Value::array();
        skip_ws();
        if (pos_ < text_.size() && text_[pos_] == ']') {
            ++pos_;
            return true;
        }
        while (true) {
            Value item;
            skip_ws();
            if (!value(item, depth)) {
                return false;
            }
            out.push(std::move(item));
            skip_ws();
            if (pos_ >= text_.size()) {
                return fail("unterminated array");
            }
            const char c = text_[pos_++];
            if (c == ']') {
                return true;
            }
            if (c != ',') {
                return fail("expected `,` or `]`");
            }
        }
    }

    bool object(Value& out, unsigned depth) {
        ++pos_;  // {
        out = Value::object();
        skip_ws();
        if (pos_ < text_.size() && text_[pos_] == '}') {
            ++pos_;
            return true;
        }
        while (true) {
            skip_ws();
            if (pos_ >= text_.size() || text_[pos_] != '"') {
                return fail("expected a member name");
            }
            std::string key;
            if (!string(key)) {
                return false;
            }
            skip_ws();
            if (pos_ >= text_.size() || text_[pos_] != ':') {
                return fail("expected `:`");
            }
            ++pos_;
            skip_ws();
            Value item;
            if (!value(item, depth)) {
                return false;
            }
            out.set(std::move(key), std::move(item));
            skip_ws();
            if (pos_ >= text_.size()) {
                return fail("unterminated object");
            }
            const char c = text_[pos_++];
            if (c == '}') {
                return true;
            }
            if (c != ',') {
                return fail("expected `,` or `}`");
            }
        }
    }

    std::string_view text_;
    size_t pos_ = 0;
    Error error_;
};

/// Parses one JSON document.
inline rt::Result<Value, Error> parse(std::string_view text) { return Parser(text).document(); }

// ---- the JSON form of frames (conformance/PROTOCOL.md) ----
//
// The conversions of one value are function objects, so that a list can name the conversion
// of its elements: `json::list(v.removed, json::uint_number)`,
// `json::get_list(*m, out.removed, error, json::get_uint)`.

/// Integers up to this are JSON numbers; larger 64-bit ones are decimal strings.
inline constexpr uint64_t SAFE_INTEGER = (uint64_t{1} << 53) - 1;

namespace convert {

struct UintNumber {
    Value operator()(uint64_t v) const { return Value::from_u64(v); }
};

struct IntNumber {
    Value operator()(int64_t v) const { return Value::from_i64(v); }
};

struct BigUint {
    Value operator()(uint64_t v) const {
        return v <= SAFE_INTEGER ? Value::from_u64(v) : Value::from_string(std::to_string(v));
    }
};

struct BigInt {
    Value operator()(int64_t v) const {
        const uint64_t u = static_cast<uint64_t>(v);
        const uint64_t magnitude = v < 0 ? uint64_t{0} - u : u;
        if (magnitude <= SAFE_INTEGER) {
            return Value::from_i64(v);
        }
        return Value::from_string(std::to_string(v));
    }
};

struct F32Number {
    Value operator()(float v) const { return Value::from_f32(v); }
};

struct F64Number {
    Value operator()(double v) const { return Value::from_f64(v); }
};

struct Boolean {
    Value operator()(bool v) const { return Value::from_bool(v); }
};

struct Hex {
    Value operator()(const std::vector<uint8_t>& v) const {
        return Value::from_string(rt::to_hex(v));
    }
};

struct OptHex {
    Value operator()(const std::optional<std::vector<uint8_t>>& v) const {
        return v ? Hex{}(*v) : Value();
    }
};

struct ByteList {
    Value operator()(const std::vector<uint8_t>& v) const {
        Value out = Value::array();
        for (const uint8_t b : v) {
            out.push(Value::from_u64(b));
        }
        return out;
    }
};

struct OptByteList {
    Value operator()(const std::optional<std::vector<uint8_t>>& v) const {
        return v ? ByteList{}(*v) : Value();
    }
};

struct Quat {
    Value operator()(const SmallestThree& v) const {
        Value rest = Value::array();
        for (const int16_t c : v.rest) {
            rest.push(Value::from_i64(c));
        }
        Value out = Value::object();
        out.set("largest", Value::from_u64(v.largest));
        out.set("rest", std::move(rest));
        return out;
    }
};

struct Named {
    template <typename T>
    Value operator()(const T& v) const {
        return to_json(v);  // the spec type's, found by argument-dependent lookup
    }
};

}  // namespace convert

/// An unsigned integer as a number.
inline constexpr convert::UintNumber uint_number{};
/// A signed integer as a number.
inline constexpr convert::IntNumber int_number{};
/// A 64-bit unsigned integer: a number up to 2^53 - 1, a decimal string beyond.
inline constexpr convert::BigUint big_uint{};
/// A 64-bit signed integer: a number when its magnitude is at most 2^53 - 1, else a string.
inline constexpr convert::BigInt big_int{};
/// A single, in its shortest form.
inline constexpr convert::F32Number f32_number{};
/// A double, in its shortest form.
inline constexpr convert::F64Number f64_number{};
/// true or false.
inline constexpr convert::Boolean boolean{};
/// Bytes as a lower-case hex string.
inline constexpr convert::Hex hex{};
/// Optional bytes as a hex string, or null.
inline constexpr convert::OptHex opt_hex{};
/// Bytes as a list of numbers (how the Rust codec writes bytes inside lists).
inline constexpr convert::ByteList byte_list{};
/// Optional bytes as a list of numbers, or null.
inline constexpr convert::OptByteList opt_byte_list{};
/// A smallest-three quaternion as its integers: `{"largest": 2, "rest": [12, -4, 255]}`.
inline constexpr convert::Quat quat{};
/// A bit set, record or union of the spec, by its `to_json`.
inline constexpr convert::Named named{};

/// A list, each element converted by `convert`.
template <typename T, typename F>
Value list(const std::vector<T>& items, const F& convert) {
    Value out = Value::array();
    for (const auto& item : items) {
        out.push(convert(item));
    }
    return out;
}

/// The conversion of a list whose elements `convert` converts (for lists of lists).
template <typename F>
auto list_of(F convert) {
    return [convert](const auto& items) { return list(items, convert); };
}

/// A bit set as the list of its set bits' names (`["KEYFRAME", "CHECK"]`).
template <size_t N>
Value bit_names(const std::array<rt::BitName, N>& names, uint64_t bits) {
    Value out = Value::array();
    for (const rt::BitName& n : names) {
        if (((bits >> n.index) & 1u) != 0) {
            out.push(Value::from_string(n.name));
        }
    }
    return out;
}

/// Checks that `j` is an object whose members are among `fields`, each at most once.
inline bool check_object(
    const Value& j, std::initializer_list<std::string_view> fields, Error& error) {
    if (j.kind() != Value::Kind::object) {
        return error.fail("invalid type, expected an object");
    }
    const std::vector<std::string>& keys = j.keys();
    for (size_t i = 0; i < keys.size(); ++i) {
        bool known = false;
        for (const std::string_view f : fields) {
            known = known || keys[i] == f;
        }
        if (!known) {
            std::string expected;
            for (const std::string_view f : fields) {
                expected += expected.empty() ? "`" : ", `";
                expected += f;
                expected += '`';
            }
            return error.fail("unknown field `" + keys[i] + "`, expected "
                + (expected.empty() ? std::string("none") : "one of " + expected));
        }
        for (size_t k = 0; k < i; ++k) {
            if (keys[k] == keys[i]) {
                return error.fail("duplicate field `" + keys[i] + "`");
            }
        }
    }
    return true;
}

/// The member `name` of object `j`, which must be there.
inline bool required_member(const Value& j, const char* name, const Value*& out, Error& error) {
    out = j.find(name);
    return out != nullptr || error.fail(std::string("missing field `") + name + "`");
}

/// The member `name` of object `j`: false when it is absent or null.
inline bool optional_member(const Value& j, const char* name, const Value*& out) {
    out = j.find(name);
    return out != nullptr && !out->is_null();
}

/// A union: an object with one member, the variant's name in snake_case.
inline bool union_member(const Value& j, std::string_view& name, const Value*& out, Error& error) {
    if (j.kind() != Value::Kind::object || j.keys().size() != 1) {
        return error.fail("invalid type, expected an object with one member, the variant");
    }
    name = j.keys()[0];
    out = &j.items()[0];
    return true;
}

/// An unknown variant `name`; `known` lists the union's.
inline bool unknown_variant(
    std::string_view name, std::initializer_list<std::string_view> known, Error& error) {
    std::string expected;
    for (const std::string_view k : known) {
        expected += expected.empty() ? "`" : ", `";
        expected += k;
        expected += '`';
    }
    return error.fail("unknown variant `" + std::string(name) + "`, expected one of " + expected);
}

namespace detail {

inline bool integer_text(const std::string& t) {
    return t.find_first_of(".eE") == std::string::npos;
}

/// An integer from its text: an optional `-` (or `+` when `allow_plus`), then digits only.
inline bool parse_integer(
    std::string_view t, bool allow_plus, bool& negative, uint64_t& magnitude) {
    negative = false;
    if (!t.empty() && (t[0] == '-' || (allow_plus && t[0] == '+'))) {
        negative = t[0] == '-';
        t.remove_prefix(1);
    }
    if (t.empty()) {
        return false;
    }
    for (const char c : t) {
        if (c < '0' || c > '9') {
            return false;
        }
    }
    const auto res = std::from_chars(t.data(), t.data() + t.size(), magnitude);
    return res.ec == std::errc() && res.ptr == t.data() + t.size();
}

template <typename T>
bool unsigned_from(bool negative, uint64_t magnitude, T& out, Error& error) {
    if (negative && magnitude != 0) {
        return error.fail("invalid value: a negative integer, expected an unsigned integer");
    }
    if (magnitude > std::numeric_limits<T>::max()) {
        return error.fail("invalid value: " + std::to_string(magnitude) + " is out of range");
    }
    out = static_cast<T>(magnitude);
    return true;
}

template <typename T>
bool signed_from(bool negative, uint64_t magnitude, T& out, Error& error) {
    const uint64_t limit = negative
        ? uint64_t{0} - static_cast<uint64_t>(int64_t{std::numeric_limits<T>::min()})
        : static_cast<uint64_t>(int64_t{std::numeric_limits<T>::max()});
    if (magnitude > limit) {
        return error.fail("invalid value: an integer out of range");
    }
    // -magnitude, computed without overflow even for the most negative value.
    out = static_cast<T>(negative ? -rt::to_signed(magnitude - 1) - 1 : rt::to_signed(magnitude));
    return true;
}

/// A JSON number as a double, as serde_json reads it: an integer that fits 64 bits is
/// converted once, anything else is parsed correctly rounded; an overflow is an error.
inline bool number_as_double(const Value& j, double& out, Error& error) {
    if (j.kind() != Value::Kind::number) {
        return error.fail("invalid type, expected a number");
    }
    const std::string& t = j.text();
    bool negative = false;
    uint64_t magnitude = 0;
    if (integer_text(t) && parse_integer(t, false, negative, magnitude)
        && (!negative || magnitude <= uint64_t{1} << 63)) {
        const double d = static_cast<double>(magnitude);
        out = negative ? -d : d;
        return true;
    }
    const auto res = std::from_chars(t.data(), t.data() + t.size(), out);
    if (res.ec == std::errc() && res.ptr == t.data() + t.size()) {
        return true;
    }
    // Out of range: an underflow reads as its (tiny or zero) value, an overflow is refused.
    const double v = std::strtod(t.c_str(), nullptr);
    if (std::isinf(v)) {
        return error.fail("number out of range");
    }
    out = v;
    return true;
}

}  // namespace detail

namespace convert {

struct GetUint {
    template <typename T>
    bool operator()(const Value& j, T& out, Error& error) const {
        static_assert(std::is_unsigned_v<T>, "get_uint reads unsigned integers");
        bool negative = false;
        uint64_t magnitude = 0;
        if (j.kind() != Value::Kind::number || !detail::integer_text(j.text())
            || !detail::parse_integer(j.text(), false, negative, magnitude)) {
            return error.fail("invalid type, expected an unsigned integer");
        }
        return detail::unsigned_from(negative, magnitude, out, error);
    }
};

struct GetBigUint {
    template <typename T>
    bool operator()(const Value& j, T& out, Error& error) const {
        if (j.kind() != Value::Kind::string) {
            return GetUint{}(j, out, error);
        }
        bool negative = false;
        uint64_t magnitude = 0;
        if (!detail::parse_integer(j.text(), true, negative, magnitude) || negative) {
            return error.fail("`" + j.text() + "` is not an unsigned integer");
        }
        return detail::unsigned_from(false, magnitude, out, error);
    }
};

struct GetInt {
    template <typename T>
    bool operator()(const Value& j, T& out, Error& error) const {
        static_assert(std::is_signed_v<T>, "get_int reads signed integers");
        bool negative = false;
        uint64_t magnitude = 0;
        if (j.kind() != Value::Kind::number || !detail::integer_text(j.text())
            || !detail::parse_integer(j.text(), false, negative, magnitude)) {
            return error.fail("invalid type, expected an integer");
        }
        return detail::signed_from(negative, magnitude, out, error);
    }
};

struct GetBigInt {
    template <typename T>
    bool operator()(const Value& j, T& out, Error& error) const {
        if (j.kind() != Value::Kind::string) {
            return GetInt{}(j, out, error);
        }
        bool negative = false;
        uint64_t magnitude = 0;
        if (!detail::parse_integer(j.text(), true, negative, magnitude)) {
            return error.fail("`" + j.text() + "` is not an integer");
        }
        return detail::signed_from(negative, magnitude, out, error);
    }
};

struct GetF32 {
    bool operator()(const Value& j, float& out, Error& error) const {
        bool negative = false;
        uint64_t magnitude = 0;
        if (j.kind() == Value::Kind::number && detail::integer_text(j.text())
            && detail::parse_integer(j.text(), false, negative, magnitude)
            && (!negative || magnitude <= uint64_t{1} << 63)) {
            // An integer converts to the nearest single at once, as serde converts it.
            const float f = static_cast<float>(magnitude);
            out = negative ? -f : f;
            return true;
        }
        double d = 0.0;
        if (!detail::number_as_double(j, d, error)) {
            return false;
        }
        // A double at or beyond the midpoint between the largest single and 2^128 rounds to
        // infinity (which the encoder then refuses); below it the conversion is defined.
        constexpr double overflow = 340282356779733661637539395458142568448.0;
        if (std::fabs(d) >= overflow) {
            const float inf = std::numeric_limits<float>::infinity();
            out = d < 0 ? -inf : inf;
        } else {
            out = static_cast<float>(d);
        }
        return true;
    }
};

struct GetF64 {
    bool operator()(const Value& j, double& out, Error& error) const {
        return detail::number_as_double(j, out, error);
    }
};

struct GetBool {
    bool operator()(const Value& j, bool& out, Error& error) const {
        if (j.kind() != Value::Kind::boolean) {
            return error.fail("invalid type, expected a boolean");
        }
        out = j.as_bool();
        return true;
    }
};

struct GetHex {
    bool operator()(const Value& j, std::vector<uint8_t>& out, Error& error) const {
        if (j.kind() != Value::Kind::string) {
            return error.fail("invalid type, expected a hex string");
        }
        std::string why;
        return rt::from_hex(j.text(), out, why) || error.fail(why);
    }
};

struct GetOptHex {
    bool operator()(const Value& j, std::optional<std::vector<uint8_t>>& out, Error& error) const {
        if (j.is_null()) {
            out.reset();
            return true;
        }
        return GetHex{}(j, out.emplace(), error);
    }
};

struct GetNamed {
    template <typename T>
    bool operator()(const Value& j, T& out, Error& error) const {
        return from_json(j, out, error);  // the spec type's, found by argument-dependent lookup
    }
};

struct GetQuat {
    /// Exactly the members `largest` (a u8) and `rest` (three i16); the canonical rules are
    /// the encoder's to check, as the Rust codec's JSON reader leaves them.
    bool operator()(const Value& j, SmallestThree& out, Error& error) const;
};

}  // namespace convert

/// A list, each element read by `read(element, item, error)`.
template <typename T, typename F>
bool get_list(const Value& j, std::vector<T>& out, Error& error, const F& read) {
    if (j.kind() != Value::Kind::array) {
        return error.fail("invalid type, expected a list");
    }
    out.clear();
    out.reserve(j.items().size());
    for (size_t i = 0; i < j.items().size(); ++i) {
        T item{};
        if (!read(j.items()[i], item, error)) {
            return error.at(i);
        }
        out.push_back(std::move(item));
    }
    return true;
}

/// The reading of a list whose elements `read` reads (for lists of lists).
template <typename F>
auto get_list_of(F read) {
    return [read](const Value& j, auto& out, Error& error) {
        return get_list(j, out, error, read);
    };
}

namespace convert {

struct GetByteList {
    bool operator()(const Value& j, std::vector<uint8_t>& out, Error& error) const {
        return get_list(j, out, error, GetUint{});
    }
};

struct GetOptByteList {
    bool operator()(const Value& j, std::optional<std::vector<uint8_t>>& out, Error& error) const {
        if (j.is_null()) {
            out.reset();
            return true;
        }
        return GetByteList{}(j, out.emplace(), error);
    }
};

}  // namespace convert

/// An unsigned integer that must be a number.
inline constexpr convert::GetUint get_uint{};
/// A 64-bit unsigned integer: a number or a decimal string.
inline constexpr convert::GetBigUint get_big_uint{};
/// A signed integer that must be a number.
inline constexpr convert::GetInt get_int{};
/// A 64-bit signed integer: a number or a decimal string.
inline constexpr convert::GetBigInt get_big_int{};
/// A single, read as serde reads an f32 (beyond its range, an infinity).
inline constexpr convert::GetF32 get_f32{};
/// A double.
inline constexpr convert::GetF64 get_f64{};
/// true or false.
inline constexpr convert::GetBool get_bool{};
/// Bytes from a hex string.
inline constexpr convert::GetHex get_hex{};
/// Optional bytes from a hex string or null.
inline constexpr convert::GetOptHex get_opt_hex{};
/// Bytes from a list of numbers.
inline constexpr convert::GetByteList get_byte_list{};
/// Optional bytes from a list of numbers or null.
inline constexpr convert::GetOptByteList get_opt_byte_list{};
/// A bit set, record or union of the spec, by its `from_json`.
inline constexpr convert::GetNamed get_named{};
/// A smallest-three quaternion from its integers.
inline constexpr convert::GetQuat get_quat{};

inline bool convert::GetQuat::operator()(const Value& j, SmallestThree& out, Error& error) const {
    const Value* largest = nullptr;
    const Value* rest = nullptr;
    if (!check_object(j, {"largest", "rest"}, error)) {
        return false;
    }
    if (!required_member(j, "largest", largest, error)) {
        return false;
    }
    if (!get_uint(*largest, out.largest, error)) {
        return error.in("largest");
    }
    if (!required_member(j, "rest", rest, error)) {
        return false;
    }
    if (rest->kind() != Value::Kind::array || rest->items().size() != 3) {
        error.fail("invalid length, expected rest as a list of three integers");
        return error.in("rest");
    }
    for (size_t i = 0; i < 3; ++i) {
        if (!get_int(rest->items()[i], out.rest[i], error)) {
            error.at(i);
            return error.in("rest");
        }
    }
    return true;
}

/// A bit set from the list of its bits' names; an unknown name is an error.
template <size_t N, typename T>
bool get_bits(const Value& j, const std::array<rt::BitName, N>& names, T& out, Error& error) {
    if (j.kind() != Value::Kind::array) {
        return error.fail("invalid type, expected a list of bit names");
    }
    uint64_t bits = 0;
    for (size_t i = 0; i < j.items().size(); ++i) {
        const Value& item = j.items()[i];
        bool found = false;
        for (const rt::BitName& n : names) {
            if (item.kind() == Value::Kind::string && item.text() == n.name) {
                bits |= uint64_t{1} << n.index;
                found = true;
            }
        }
        if (!found) {
            std::string known;
            for (const rt::BitName& n : names) {
                known += known.empty() ? "" : ", ";
                known += n.name;
            }
            error.fail("unknown bit " + item.dump() + ", expected one of " + known);
            return error.at(i);
        }
    }
    out = static_cast<T>(bits);
    return true;
}

}  // namespace json

namespace rt {

/// Why a frame chosen by name at run time could not be decoded or encoded.
struct FrameError {
    /// Which of the reasons it is.
    enum class Kind {
        /// No frame of the spec has the name.
        unknown_frame,
        /// The JSON is not a value of the frame (`message` says why).
        bad_json,
        /// The bytes are not a valid frame (`decode_error`).
        decode,
        /// The value is not one the encoder accepts (`encode_error`).
        encode,
    };

    /// Which reason.
    Kind kind = Kind::unknown_frame;
    /// What is wrong, as text.
    std::string message;
    /// For Kind::decode.
    std::optional<DecodeError> decode_error;
    /// For Kind::encode.
    std::optional<EncodeError> encode_error;

    /// No frame is named `name`.
    static FrameError unknown_frame(std::string_view name) {
        FrameError f;
        f.message = "unknown frame `" + std::string(name) + "`";
        return f;
    }

    /// The JSON is not a value of the frame.
    static FrameError bad_json(const json::Error& e) {
        FrameError f;
        f.kind = Kind::bad_json;
        f.message = e.text();
        return f;
    }

    /// The bytes did not decode.
    static FrameError decode(DecodeError e) {
        FrameError f;
        f.kind = Kind::decode;
        f.message = e.message();
        f.decode_error = std::move(e);
        return f;
    }

    /// The value did not encode.
    static FrameError encode(EncodeError e) {
        FrameError f;
        f.kind = Kind::encode;
        f.message = e.message();
        f.encode_error = std::move(e);
        return f;
    }
};

/// The frame type `T`, as visit_frame hands it to its visitor.
template <typename T>
struct FrameType {
    /// The frame type.
    using type = T;
};

/// A decoded frame in its JSON form (the frame's `to_json`, found by argument-dependent
/// lookup).
template <typename T>
Result<json::Value, FrameError> decoded_json(Result<T> decoded) {
    if (!decoded.ok()) {
        return FrameError::decode(decoded.error());
    }
    return to_json(decoded.value());
}

/// The bytes of the frame of type `T` whose JSON form is `value` (the frame's `from_json` and
/// `encode`, found by argument-dependent lookup).
template <typename T>
Result<std::vector<uint8_t>, FrameError> encode_json(const json::Value& value) {
    T frame{};
    json::Error error;
    if (!from_json(value, frame, error)) {
        return FrameError::bad_json(error);
    }
    std::vector<uint8_t> out;
    if (auto e = encode(frame, out)) {
        return FrameError::encode(std::move(*e));
    }
    return out;
}

}  // namespace rt
}  // namespace ackwire
