// The bit-packed acked schema (spec/protocol/acked_packed.wire, kind 12): the reference
// protocol's records, changes and events (Reference's of reference/acked.hpp: the same diff,
// apply and check, inherited, not copied), with each frame written and read as kind 12 instead
// of kind 6. A port of the Rust codec's acked/packed.rs: the same bytes, the same refusals.
//
// Kind 12 carries exactly kind 6's information: its header is kind 6's, its events are kind 6's,
// and each protocol::PackedChange is a kind 6 protocol::Change in variable widths (the id as a gap
// from the previous change's, the mask in its six named bits, the steps and the yaw in buckets). So
// PackedReference converts between the two at the frame's edge and every session machine (the
// AckedEncoder, the AckedDecoder, the halves of reference/acked.hpp) runs over it unchanged. The
// conversion is lossless both ways: every kind 6 frame whose changes ascend by id (the only ones
// the machines apply: ACK-8's changes in ascending id) has exactly one kind 12 frame, and back.
//
// ACK-16: every rule of the acked stream holds unchanged, since the machines and the schema's diff
// and apply are kind 6's: frame N carries what turns the acknowledged S_B into S_N (ACK-19,
// ACK-21), and each change says whether its pose is full and how old it is (ACK-21): kind 12
// carries the same bits for both.
//
// A kind 6 frame whose changes do not ascend has no kind 12 form: encoding it is
// `not_ascending` (the generated kind 12 writer's refusal, at `body.changes[i].eid`). A few
// kind 12 codes have no kind 6 value (a bucket list that holds every u16 holds more: an id past
// 65535, a step past an i16, a yaw or an age past a u8): decoding them is `over_width`, reported
// at the packed body's first byte with the field's path (`body.changes[i].pose_step.dx`).
//
// Needs the generated codec (`#include "protocol.hpp"`, through `-I gen`), as acked.hpp does.

#pragma once

#include "acked.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace ackwire {
namespace reference {

namespace packed_detail {

/// Kind 6's yaw steps (PoseStep: `quant(u8, 360/256)`).
constexpr double YAW_STEP = 360.0 / 256.0;

/// The kind 6 mask bits and the kind 12 bits they become, in the same meaning.
struct MaskBit {
    unsigned wide;
    unsigned narrow;
};
constexpr MaskBit MASK_BITS[6] = {
    {protocol::ChangeMask::POSE, protocol::PackedMask::POSE},
    {protocol::ChangeMask::HEALTH, protocol::PackedMask::HEALTH},
    {protocol::ChangeMask::VEHICLE, protocol::PackedMask::VEHICLE},
    {protocol::ChangeMask::ORIENT, protocol::PackedMask::ORIENT},
    {protocol::ChangeMask::POSE_FULL, protocol::PackedMask::POSE_FULL},
    {protocol::ChangeMask::POSE_AGE, protocol::PackedMask::POSE_AGE},
};

inline rt::EncodeError encode_error(rt::ErrorKind kind, const char* field) {
    rt::EncodeError e(kind);
    e.path.push_field(field);
    return e;
}

/// Kind 6's mask as kind 12's; a reserved bit of kind 6's (which no decoded change holds, and
/// kind 6's writer refuses) is `reserved_bit`.
inline rt::EncodeStatus pack_mask(protocol::ChangeMask mask, protocol::PackedMask& out) {
    out = protocol::PackedMask{};
    uint32_t named = 0;
    for (const MaskBit& b : MASK_BITS) {
        named |= uint32_t{1} << b.wide;
        out.set(b.narrow, mask.contains(b.wide));
    }
    if ((uint32_t{mask.bits} & ~named) != 0) {
        return encode_error(rt::ErrorKind::reserved_bit, "mask");
    }
    return std::nullopt;
}

inline protocol::ChangeMask unpack_mask(protocol::PackedMask mask) {
    protocol::ChangeMask wide;
    for (const MaskBit& b : MASK_BITS) {
        wide.set(b.wide, mask.contains(b.narrow));
    }
    return wide;
}

/// A PoseStep's yaw (degrees) as kind 6's writer quantizes it: `round(yaw / (360/256))`,
/// halves away from zero, a non-finite value as 0, past a u8 `over_width`. The degrees kind 6's
/// model holds are `steps * 360/256`, so the count is recovered exactly for any value kind 6
/// decodes.
inline rt::EncodeStatus yaw_steps(double yaw, uint16_t& out) {
    const double steps = std::isfinite(yaw) ? std::round(yaw / YAW_STEP) : 0.0;
    if (!(steps >= 0.0 && steps <= 255.0)) {
        return encode_error(rt::ErrorKind::over_width, "pose_step.yaw");
    }
    out = static_cast<uint16_t>(steps);
    return std::nullopt;
}

/// Kind 6's change as kind 12's (the id absolute: the generated writer writes it as the gap).
inline rt::EncodeStatus pack_change(const protocol::Change& c, protocol::PackedChange& out) {
    out.eid = c.eid;
    if (auto e = pack_mask(c.mask, out.mask)) {
        return e;
    }
    out.age.reset();
    if (c.age) {
        out.age = uint16_t{*c.age};
    }
    out.pose_full.reset();
    if (c.pose_full) {
        const protocol::PoseFull& p = *c.pose_full;
        out.pose_full = protocol::PackedPoseFull{p.x, p.y, p.z, p.yaw};
    }
    out.pose_step.reset();
    if (c.pose_step) {
        const protocol::PoseStep& p = *c.pose_step;
        protocol::PackedPoseStep s;
        s.dx = p.dx;
        s.dy = p.dy;
        s.dz = p.dz;
        if (auto e = yaw_steps(p.yaw, s.yaw)) {
            return e;
        }
        out.pose_step = s;
    }
    out.health.reset();
    if (c.health) {
        out.health = protocol::PackedHealth{c.health->hp, c.health->armor};
    }
    out.vehicle.reset();
    if (c.vehicle) {
        out.vehicle = protocol::PackedVehicle{c.vehicle->vehicle, c.vehicle->seat};
    }
    out.orient = c.orient;
    return std::nullopt;
}

/// Kind 12's change as kind 6's; a code with no kind 6 value is `over_width` at `at` (the
/// packed body's first byte), with the field's path, checked in the Rust codec's order (the
/// id, the age, the step's yaw, then dx, dy, dz).
inline std::optional<rt::DecodeError> unpack_change(
    const protocol::PackedChange& c, size_t at, protocol::Change& out) {
    const auto over = [at](const char* field) {
        rt::DecodeError e(rt::ErrorKind::over_width, at);
        e.path.push_field(field);
        return e;
    };
    if (c.eid > 0xffffu) {
        return over("eid");
    }
    out.eid = static_cast<uint16_t>(c.eid);
    out.mask = unpack_mask(c.mask);
    out.age.reset();
    if (c.age) {
        if (*c.age > 0xffu) {
            return over("age");
        }
        out.age = static_cast<uint8_t>(*c.age);
    }
    out.pose_full.reset();
    if (c.pose_full) {
        const protocol::PackedPoseFull& p = *c.pose_full;
        out.pose_full = protocol::PoseFull{p.x, p.y, p.z, p.yaw};
    }
    out.pose_step.reset();
    if (c.pose_step) {
        const protocol::PackedPoseStep& p = *c.pose_step;
        if (p.yaw > 0xffu) {
            return over("pose_step.yaw");
        }
        const auto narrow = [](int32_t v) { return v >= -32768 && v <= 32767; };
        if (!narrow(p.dx)) {
            return over("pose_step.dx");
        }
        if (!narrow(p.dy)) {
            return over("pose_step.dy");
        }
        if (!narrow(p.dz)) {
            return over("pose_step.dz");
        }
        protocol::PoseStep s;
        s.dx = static_cast<int16_t>(p.dx);
        s.dy = static_cast<int16_t>(p.dy);
        s.dz = static_cast<int16_t>(p.dz);
        s.yaw = static_cast<double>(p.yaw) * YAW_STEP;
        out.pose_step = s;
    }
    out.health.reset();
    if (c.health) {
        out.health = protocol::Health{c.health->hp, c.health->armor};
    }
    out.vehicle.reset();
    if (c.vehicle) {
        out.vehicle = protocol::Vehicle{c.vehicle->vehicle, c.vehicle->seat};
    }
    out.orient = c.orient;
    return std::nullopt;
}

}  // namespace packed_detail

/// The bit-packed reference schema: Reference (its records, changes, events, diff, apply and
/// check, inherited) with frames of kind 12, named `acked_packed`.
struct PackedReference : Reference {
    /// The name of the schema's frames in the spec.
    static constexpr const char* FRAME_NAME = "acked_packed";

    /// A kind 6 frame as kind 12's, into `out` (its lists' buffers reused).
    static rt::EncodeStatus pack_frame(
        const acked::Frame<Reference>& frame, protocol::AckedPacked& out) {
        if (frame.events.size() > 255) {
            return packed_detail::encode_error(rt::ErrorKind::over_width, "event_count");
        }
        out.tick = frame.tick;
        out.base_tick = frame.base_tick;
        out.last_seq = frame.last_seq;
        out.input_buffer = frame.input_buffer;
        out.flags = protocol::AckedFlags{};
        out.flags.set(protocol::AckedFlags::KEYFRAME, frame.keyframe);
        out.flags.set(protocol::AckedFlags::CHECK, frame.check.has_value());
        out.check = frame.check;
        out.removed = frame.removed;
        out.body.changes.resize(frame.changes.size());
        for (size_t i = 0; i < frame.changes.size(); ++i) {
            if (auto e = packed_detail::pack_change(frame.changes[i], out.body.changes[i])) {
                e->path.push_index(i);
                e->path.push_field("changes");
                e->path.push_field("body");
                return e;
            }
        }
        out.first_serial.reset();
        if (!frame.events.empty()) {
            out.first_serial = frame.first_serial;
        }
        out.events = frame.events;
        return std::nullopt;
    }

    /// A kind 12 frame's header and changes as kind 6's, into `out` (its changes' buffer reused;
    /// its `removed` and `events` are left to the caller, `removed_count` being how many ids the
    /// frame removes). The header through kind 6's Reference::header_into, which checks ACK-4 (a
    /// keyframe applies onto nothing, its base_tick 0) as kind 6's decoder checks it, before the
    /// changes.
    static std::optional<rt::DecodeError> unpack_header_and_changes(
        const protocol::AckedPacked& f, size_t removed_count, acked::Frame<Reference>& out) {
        if (auto e = Reference::header_into(f, out)) {
            return e;
        }
        // The packed body's first byte: kind 12's header is kind 6's without changed_count.
        const size_t at = 17 + (f.check ? 4 : 0) + 2 * removed_count;
        out.changes.resize(f.body.changes.size());
        for (size_t i = 0; i < f.body.changes.size(); ++i) {
            if (auto e = packed_detail::unpack_change(f.body.changes[i], at, out.changes[i])) {
                e->path.push_index(i);
                e->path.push_field("changes");
                e->path.push_field("body");
                return e;
            }
        }
        return std::nullopt;
    }

    /// A kind 12 frame as kind 6's, whole (a copy of its lists): the conversion as a function,
    /// for tests and tools; the decoder uses decode_frame_into.
    static std::optional<rt::DecodeError> unpack_frame(
        const protocol::AckedPacked& f, acked::Frame<Reference>& out) {
        if (auto e = unpack_header_and_changes(f, f.removed.size(), out)) {
            return e;
        }
        out.removed = f.removed;
        out.events = f.events;
        return std::nullopt;
    }

    /// Writes a frame's bytes as kind 12: `not_ascending` for changes out of id order (the
    /// generated writer's refusal), `reserved_bit` for a reserved mask bit, `over_width` for a
    /// yaw past a u8 or more than 255 events.
    static rt::EncodeStatus encode_frame(
        const acked::Frame<Reference>& frame, std::vector<uint8_t>& out) {
        protocol::AckedPacked& packed = scratch();
        if (auto e = pack_frame(frame, packed)) {
            return e;
        }
        return protocol::encode(packed, out);
    }

    /// Reads a kind 12 frame from its bytes (canonically: trailing bytes are an error) into
    /// `out` as kind 6's. Allocation-free once warm: the kind 12 frame is read into this
    /// thread's scratch frame (kept between frames, its lists as large as the largest frame
    /// this thread read or wrote), with `out`'s `removed` and `events` swapped into it and back,
    /// and the changes converted into `out`'s buffer.
    static std::optional<rt::DecodeError> decode_frame_into(
        const uint8_t* data, size_t len, acked::Frame<Reference>& out) {
        protocol::AckedPacked& a = scratch();
        a.removed.swap(out.removed);
        a.events.swap(out.events);
        rt::Reader r(data, len);
        const bool ok = protocol::detail::read(r, a) && r.finish();
        a.removed.swap(out.removed);
        a.events.swap(out.events);
        if (!ok) {
            return r.take_error();
        }
        // `a.removed` is the buffer swapped back: the ids read are in `out.removed`.
        return unpack_header_and_changes(a, out.removed.size(), out);
    }

    /// Lets go of this thread's scratch frame's buffers: a thread that read one large frame
    /// keeps them (at most a frame's worth: docs/limits.md) until this or its exit.
    static void release_scratch() { scratch() = protocol::AckedPacked{}; }

private:
    /// The kind 12 frame this thread converts through, kept between frames so that its
    /// changes' buffer is reused (a decoder and an encoder on one thread share it: each call
    /// overwrites every field it reads).
    static protocol::AckedPacked& scratch() {
        thread_local protocol::AckedPacked frame;
        return frame;
    }
};

}  // namespace reference
}  // namespace ackwire
