// What the bindings `ackwire gen --lang cpp` writes for a `state` (spec/LANGUAGE.md, "Replicated
// state") call: the parts of an acked frame that are ACK-2's and the same for every state (its
// header kept into an AckedFrame, the first code of a packed body past its byte-aligned field's
// range), and the arithmetic every group's fields share (a step from the base's value, a
// coarser integer, a float's whole units, a quaternion's bits), each refusing what LANGUAGE.md's
// rule refuses. The generated code spells out each state's own fields; the rules live here once.
//
// The arithmetic is on the compiler's checked builtins (`__builtin_add_overflow` and its
// siblings, g++ and clang), so a step or a product past its field's type is a refusal, never a
// wrapped value or undefined behaviour, whatever a peer sends.

#pragma once

#include "ackwire_acked.hpp"
#include "ackwire_runtime.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

namespace ackwire {
namespace state {

// ---- a float's bits, as a staged change keeps them ----

/// The bits of an f32.
inline uint32_t f32_bits(float v) {
    uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    return bits;
}

/// The f32 of its bits.
inline float f32_of(uint32_t bits) {
    float v = 0.0f;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

/// The bits of an f64.
inline uint64_t f64_bits(double v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    return bits;
}

/// The f64 of its bits.
inline double f64_of(uint64_t bits) {
    double v = 0.0;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

/// The bits of the f32 of `v` units of `unit` (a power of two, so that the product is exact; the
/// f32 holds it exactly while `v`'s magnitude is below 2^24, which the caller checks).
template <typename T>
uint32_t f32_units(T v, double unit) {
    return f32_bits(static_cast<float>(static_cast<double>(v) * unit));
}

/// The bits of the f64 of `v` units of `unit` (exact while `v`'s magnitude is below 2^53).
template <typename T>
uint64_t f64_units(T v, double unit) {
    return f64_bits(static_cast<double>(v) * unit);
}

// ---- a quaternion's bits, as its packed record lays them ----

/// A smallest-three quaternion of `bits` bits a component as one integer, least significant bit
/// first as a packed record writes it: the dropped component's index in 2 bits, then the three
/// sent, each in `bits` bits two's complement (LANGUAGE.md, `quat(B)`).
inline uint64_t quat_bits(const SmallestThree& q, unsigned bits) {
    const uint64_t mask = (uint64_t{1} << bits) - 1;
    uint64_t v = uint64_t{q.largest} & 3u;
    for (unsigned i = 0; i < 3; ++i) {
        v |= (static_cast<uint64_t>(static_cast<int64_t>(q.rest[i])) & mask) << (2 + i * bits);
    }
    return v;
}

/// The quaternion of its bits (quat_bits' inverse on every value it gives).
inline SmallestThree quat_of(uint64_t v, unsigned bits) {
    const uint64_t mask = (uint64_t{1} << bits) - 1;
    SmallestThree q;
    q.largest = static_cast<uint8_t>(v & 3u);
    for (unsigned i = 0; i < 3; ++i) {
        q.rest[i] = static_cast<int16_t>(rt::sign_extend((v >> (2 + i * bits)) & mask, bits));
    }
    return q;
}

// ---- a record's canonical bytes, written at once ----

/// The low `bytes` bytes of `v` at `at`, least significant first.
inline void put_le(uint8_t* at, uint64_t v, size_t bytes) {
    for (size_t i = 0; i < bytes; ++i) {
        at[i] = static_cast<uint8_t>(v >> (8 * i));
    }
}

/// The low `bytes` bytes of `v` at `at`, most significant first.
inline void put_be(uint8_t* at, uint64_t v, size_t bytes) {
    for (size_t i = 0; i < bytes; ++i) {
        at[i] = static_cast<uint8_t>(v >> (8 * (bytes - 1 - i)));
    }
}

// ---- encoding a change: the wire's integer of a field, or a refusal ----

/// An encode error of kind `over_width` at `field` (of the form `form`, when given): a value the
/// wire cannot carry.
inline rt::EncodeError over(const char* field, const char* form = nullptr) {
    rt::EncodeError e(rt::ErrorKind::over_width);
    e.path.push_field(field);
    if (form != nullptr) {
        e.path.push_field(form);
    }
    return e;
}

/// An encode error of kind `invalid_condition` at `field`: a record whose flags and optional
/// groups disagree, or that drops an optional group its base had.
inline rt::EncodeError invalid(const char* field) {
    rt::EncodeError e(rt::ErrorKind::invalid_condition);
    e.path.push_field(field);
    return e;
}

/// `to` less `from` (a step from the base's value) into `out`, when it lies within `lo..=hi`.
template <typename T, typename U>
bool step_of(T to, U from, int64_t lo, int64_t hi, int64_t& out) {
    int64_t d = 0;
    if (__builtin_sub_overflow(to, from, &d) || d < lo || d > hi) {
        return false;
    }
    out = d;
    return true;
}

/// `v` in a unit `by` times coarser (the wire's integer of a `quant` whose unit is a whole
/// multiple of the field's) into `out`, when `by` divides it and the quotient lies within
/// `lo..=hi`.
template <typename T>
bool coarser(T v, int64_t by, int64_t lo, int64_t hi, int64_t& out) {
    int64_t wide = 0;
    if (__builtin_add_overflow(v, 0, &wide) || wide % by != 0) {
        return false;
    }
    const int64_t q = wide / by;
    if (q < lo || q > hi) {
        return false;
    }
    out = q;
    return true;
}

/// Whether the integer `v` lies within `lo..=hi`.
template <typename T>
bool within(T v, int64_t lo, int64_t hi) {
    int64_t wide = 0;
    return !__builtin_add_overflow(v, 0, &wide) && wide >= lo && wide <= hi;
}

// ---- applying a change: the record's value of a wire field, or the frame does not apply ----

/// `from` plus `step` (a step form's value) into `out`, when the sum fits `out`'s type.
template <typename T, typename U, typename V>
bool add_step(T from, U step, V& out) {
    return !__builtin_add_overflow(from, step, &out);
}

/// `v` times `by` (a coarser wire integer back in the field's unit) into `out`, when the product
/// fits `out`'s type.
template <typename T, typename V>
bool times(T v, int64_t by, V& out) {
    return !__builtin_mul_overflow(v, by, &out);
}

/// The whole number of units that the float `v` is (a field carried as its value, `v *
/// per_unit` its integer, `per_unit` a power of two), into `out`, when it is one below `limit`
/// in magnitude: false for a value off the grid, past the limit or not finite. Within `limit`
/// (at most 2^53) a product is a whole number exactly when it survives the trip through an
/// int64_t, which no call into libm is needed to tell.
inline bool whole_units(double v, double per_unit, double limit, int64_t& out) {
    const double s = v * per_unit;
    // The range first (a NaN fails it too), so that the conversion below is defined.
    if (!(std::fabs(s) < limit)) {
        return false;
    }
    const auto whole = static_cast<int64_t>(s);
    if (static_cast<double>(whole) != s) {
        return false;
    }
    out = whole;
    return true;
}

/// whole_units of the f32 whose bits are `bits` (a staged field holding them).
template <typename B>
bool whole_units_f32(B bits, double per_unit, double limit, int64_t& out) {
    return whole_units(static_cast<double>(f32_of(static_cast<uint32_t>(bits))), per_unit, limit,
        out);
}

/// whole_units of the f64 whose bits are `bits`.
template <typename B>
bool whole_units_f64(B bits, double per_unit, double limit, int64_t& out) {
    return whole_units(f64_of(static_cast<uint64_t>(bits)), per_unit, limit, out);
}

// ---- decoding a frame ----

/// A decoded frame's header (the generated frame `Wire`'s scalar fields: kind 6's and kind 12's
/// header are ACK-2's, field for field) into `out`, whose lists are the caller's.
///
/// ACK-4: flags bit 0, KEYFRAME, means the frame applies onto nothing (base_tick is then 0): a
/// keyframe naming a base is `invalid_condition` at byte 5 (every acked frame's
/// base_tick starts there), `base_tick`, returned before `out` is touched.
template <typename Wire, typename C, typename E>
std::optional<rt::DecodeError> keep_header(
    const Wire& f, bool keyframe, acked::AckedFrame<C, E>& out) {
    if (keyframe && f.base_tick != 0) {
        rt::DecodeError e(rt::ErrorKind::invalid_condition, 5);
        e.path.push_field("base_tick");
        return e;
    }
    out.tick = f.tick;
    out.base_tick = f.base_tick;
    out.last_seq = f.last_seq;
    out.input_buffer = f.input_buffer;
    out.keyframe = keyframe;
    out.check = f.check;
    out.first_serial = f.first_serial.value_or(0);
    return std::nullopt;
}

/// The first code of a packed body that its byte-aligned field cannot hold (LANGUAGE.md: "a
/// packed decoder refuses a code past it"): a bucket list that holds every value of a u16
/// holds more, an id past 65535, a step past an i16. The frame is read to its end first, as
/// its generated reader reads it, so that a frame with a fault the reader finds is refused for
/// that; then a code past its range is `over_width` at the packed body's first byte, with the
/// field's path (`body.changes[i].pose_step.dx`).
class RangeFault {
public:
    /// Notes that change `change`'s field `field` (of the form `form`, when given) holds a code
    /// past its range, unless an earlier code was noted.
    void note(size_t change, const char* form, const char* field) {
        if (!set_) {
            set_ = true;
            change_ = change;
            form_ = form;
            field_ = field;
        }
    }

    /// Whether a code was noted.
    explicit operator bool() const { return set_; }

    /// The error of the code noted, for a body starting at byte `body_at`.
    rt::DecodeError error(size_t body_at) const {
        rt::DecodeError e(rt::ErrorKind::over_width, body_at);
        e.path.push_field(field_);
        if (form_ != nullptr) {
            e.path.push_field(form_);
        }
        e.path.push_index(change_);
        e.path.push_field("changes");
        e.path.push_field("body");
        return e;
    }

private:
    bool set_ = false;
    size_t change_ = 0;
    const char* form_ = nullptr;
    const char* field_ = "";
};

}  // namespace state
}  // namespace ackwire
