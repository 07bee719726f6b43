// The reference protocol's acked schema (spec/protocol/acked.wire) for the runtime's generic
// machines (ackwire_acked.hpp), and what the reference protocol puts around them: records are
// protocol::EntityState, changes protocol::Change with POSE_FULL and POSE_AGE, events
// protocol::Event; the server's Presenter computes each client's S_N from a world; the two
// session halves (AckedServerHalf, AckedClientHalf) are the sans-IO shape of
// ackwire_session.hpp over the machines. A port of the Rust codec's acked/reference.rs,
// acked/presenter.rs, acked/ack.rs and session.rs's acked halves: the same bytes, the same
// state hashes.
//
// The orientation (ChangeMask::ORIENT, StateFlags::ORIENTED, issue 19) is a group of its own: a
// smallest-three quaternion is absolute, so a change carries it whole whenever it differs from
// the base's, never as a step; and a record keeps it for the entity's life once it has one (an
// apply without the group leaves the base's). The halves are templates over the schema, so
// that reference/acked_packed.hpp's PackedReference (kind 12) runs in the same halves.
//
// Needs the generated codec: `#include "protocol.hpp"`, found through `-I gen` (where
// `ackwire gen --lang cpp` writes it, beside ackwire_acked.hpp).

#pragma once

#include "ackwire_acked.hpp"
#include "ackwire_session.hpp"
#include "protocol.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ackwire {
namespace reference {

/// The box a quantized pose lies in: at most this many 1/512 m steps from the origin on every
/// axis (about 32 m). Any two points of the box are at most 32766 steps apart, so a PoseStep
/// (i16 steps) reaches a quantized pose from any base pose in the box, and from the origin.
constexpr int32_t POSE_REACH = 16383;

namespace detail {

/// Steps of 1/512 m an f32 holds exactly, all of them: 2^24.
constexpr double F32_EXACT = 16777216.0;
constexpr double YAW_FULL = 360.0 / 65536.0;
constexpr double YAW_STEP = 360.0 / 256.0;

/// `std::round(x)` (half away from zero) as a u16, saturating as Rust's `x.round() as u16`
/// does (NaN is 0): never the undefined behaviour of a C++ conversion of a double out of
/// range, and no call into libm (a change's heading is rounded on every frame). Exact: for
/// 0 < x < 65535, `x - floor(x)` is exact (Sterbenz), so the half is judged on x itself.
inline uint16_t round_u16(double x) {
    if (!(x > 0.0)) {
        return 0;  // a NaN, or anything that rounds to 0 or below
    }
    if (x >= 65535.0) {
        return 65535;
    }
    const auto whole = static_cast<uint32_t>(x);
    const uint32_t rounded = x - static_cast<double>(whole) >= 0.5 ? whole + 1 : whole;
    return static_cast<uint16_t>(rounded);
}

inline bool in_box(const protocol::EntityState& r) {
    const auto inside = [](int32_t v) { return std::llabs(int64_t{v}) <= int64_t{POSE_REACH}; };
    return inside(r.x) && inside(r.y) && inside(r.z);
}

struct Origin {
    int32_t x = 0;
    int32_t y = 0;
    int32_t z = 0;
};

/// The point a PoseStep counts from: the base's pose when the base holds the entity (same
/// life) and its pose lies in the box, the origin otherwise. Both sides decide it from the base
/// alone.
inline Origin step_origin(const protocol::EntityState* base) {
    if (base != nullptr && in_box(*base)) {
        return Origin{base->x, base->y, base->z};
    }
    return Origin{};
}

/// Whether two records say the same of the pose group: position, heading, tier (POSE_FULL
/// alone, not the ORIENTED bit, which is the orientation group's) and measurement tick.
inline bool same_pose(const protocol::EntityState& a, const protocol::EntityState& b) {
    return a.x == b.x && a.y == b.y && a.z == b.z && a.yaw == b.yaw
        && a.flags.contains(protocol::StateFlags::POSE_FULL)
        == b.flags.contains(protocol::StateFlags::POSE_FULL)
        && a.measured == b.measured;
}

/// The bits of each component of the orientation's smallest three (acked.wire's
/// `Orientation`: `quat(9)`).
constexpr unsigned ORIENT_BITS = 9;

inline rt::EncodeError bad_orient() {
    rt::EncodeError e(rt::ErrorKind::invalid_condition);
    e.path.push_field("orient");
    return e;
}

/// A full pose's coordinate as whole 1/512 m steps, or why not (CHECK-4).
inline const char* grid(float v, int32_t& out) {
    const double s = static_cast<double>(v) * 512.0;
    // Not finite, 2^24 steps or more, or a fraction of a step: all one fault. The range is
    // checked first (a NaN fails it too), so the conversion below is defined.
    if (!(std::fabs(s) < F32_EXACT)) {
        return "a full pose off the 1/512 m grid";
    }
    const auto steps = static_cast<int32_t>(s);
    if (static_cast<double>(steps) != s) {
        return "a full pose off the 1/512 m grid";
    }
    out = steps;
    return nullptr;
}

inline rt::EncodeError over(const char* field) {
    rt::EncodeError e(rt::ErrorKind::over_width);
    e.path.push_field(field);
    return e;
}

}  // namespace detail

/// The reference protocol's acked schema.
struct Reference {
    using Record = protocol::EntityState;
    using Change = protocol::Change;
    using Event = protocol::Event;

    /// Frames the server keeps per client.
    static constexpr size_t SENT_RING = protocol::SENT_RING;
    /// Frame states the client keeps by tick; larger than SENT_RING.
    static constexpr size_t HELD_RING = protocol::HELD_RING;
    /// Frames an unacknowledged event is sent in at most.
    static constexpr uint64_t EVENT_TTL = protocol::EVENT_TTL;
    /// A check follows the header of every CHECK_EVERY-th frame.
    static constexpr uint32_t CHECK_EVERY = protocol::CHECK_EVERY;
    /// A frame larger than this many bytes goes on the reliable channel.
    static constexpr size_t RELIABLE_ABOVE = protocol::RELIABLE_ABOVE;
    /// The name of the schema's frames in the spec (what the halves send and expect).
    static constexpr const char* FRAME_NAME = "acked";

    /// ACK-21: every change says if its pose is full (POSE_FULL), the base being any recent frame,
    /// and a pose taken before the frame's tick carries its age (POSE_AGE) so that the client dates
    /// it right (ACK-33).
    static rt::EncodeStatus diff(uint16_t eid, const Record* base, const Record& next,
        uint32_t tick, std::optional<Change>& out) {
        out.reset();
        const bool pose = base == nullptr || !detail::same_pose(*base, next);
        const bool health = base == nullptr || base->hp != next.hp || base->armor != next.armor;
        const bool vehicle =
            base == nullptr || base->vehicle != next.vehicle || base->seat != next.seat;
        const bool oriented = next.flags.contains(protocol::StateFlags::ORIENTED);
        if (oriented != next.orient.has_value()) {
            // A record whose ORIENTED bit and orientation disagree: the writer of EntityState
            // refuses it too (its condition is `flags.ORIENTED`).
            return detail::bad_orient();
        }
        // Once an entity has an orientation it keeps it for its life: a change can send a new
        // one but cannot take one away (no group says "none"), so a record that drops the
        // base's orientation is refused rather than sent as a change the client would apply
        // keeping the old one (its check would then differ from the server's).
        if (base != nullptr && base->orient.has_value() && !next.orient.has_value()) {
            return detail::bad_orient();
        }
        // Smallest three is absolute: the group goes whole whenever it differs from the base's
        // (and with every whole entity that has one).
        const bool orient =
            next.orient.has_value() && (base == nullptr || base->orient != next.orient);
        if (!pose && !health && !vehicle && !orient) {
            return std::nullopt;
        }
        Change change;
        change.eid = eid;
        if (pose) {
            change.mask.set(protocol::ChangeMask::POSE);
            if (tick < next.measured) {
                return detail::over("age");
            }
            const uint32_t age = tick - next.measured;
            if (age > 0) {
                if (age > 255) {
                    return detail::over("age");
                }
                change.mask.set(protocol::ChangeMask::POSE_AGE);
                change.age = static_cast<uint8_t>(age);
            }
            if (next.flags.contains(protocol::StateFlags::POSE_FULL)) {
                change.mask.set(protocol::ChangeMask::POSE_FULL);
                for (const int32_t v : {next.x, next.y, next.z}) {
                    if (std::fabs(static_cast<double>(v)) >= detail::F32_EXACT) {
                        return detail::over("pose_full");
                    }
                }
                protocol::PoseFull full;
                full.x = static_cast<float>(next.x) / 512.0f;
                full.y = static_cast<float>(next.y) / 512.0f;
                full.z = static_cast<float>(next.z) / 512.0f;
                full.yaw = static_cast<double>(next.yaw) * detail::YAW_FULL;
                change.pose_full = full;
            } else {
                const detail::Origin o = detail::step_origin(base);
                int16_t d[3] = {0, 0, 0};
                const int32_t to[3] = {next.x, next.y, next.z};
                const int32_t from[3] = {o.x, o.y, o.z};
                for (size_t i = 0; i < 3; ++i) {
                    const int64_t step = int64_t{to[i]} - int64_t{from[i]};
                    if (step < -32768 || step > 32767) {
                        return detail::over("pose_step");
                    }
                    d[i] = static_cast<int16_t>(step);
                }
                if ((next.yaw & 0xff) != 0) {
                    return detail::over("pose_step.yaw");
                }
                protocol::PoseStep s;
                s.dx = d[0];
                s.dy = d[1];
                s.dz = d[2];
                s.yaw = static_cast<double>(next.yaw >> 8) * detail::YAW_STEP;
                change.pose_step = s;
            }
        }
        if (health) {
            change.mask.set(protocol::ChangeMask::HEALTH);
            change.health = protocol::Health{next.hp, next.armor};
        }
        if (vehicle) {
            change.mask.set(protocol::ChangeMask::VEHICLE);
            change.vehicle = protocol::Vehicle{next.vehicle, next.seat};
        }
        if (orient) {
            change.mask.set(protocol::ChangeMask::ORIENT);
            change.orient = next.orient;
        }
        out = std::move(change);
        return std::nullopt;
    }

    /// The entity a change is about.
    static uint16_t change_eid(const Change& change) { return change.eid; }

    /// `base` (or nothing, when the entity comes whole) with `change` applied, in a frame of tick
    /// `tick`. ACK-33: a pose sent with its age is recorded at the tick it was true: `measured` is
    /// the frame's tick minus the age. Nullptr, or why the change cannot apply.
    static const char* apply(
        const Record* base, const Change& change, uint32_t tick, Record& out) {
        Record r;
        if (base != nullptr) {
            r = *base;
        } else if (!change.mask.contains(protocol::ChangeMask::POSE)
            || !change.mask.contains(protocol::ChangeMask::HEALTH)
            || !change.mask.contains(protocol::ChangeMask::VEHICLE)) {
            return "an entity comes whole without every group";
        }
        if (change.pose_full) {
            const protocol::PoseFull& full = *change.pose_full;
            if (const char* why = detail::grid(full.x, r.x)) {
                return why;
            }
            if (const char* why = detail::grid(full.y, r.y)) {
                return why;
            }
            if (const char* why = detail::grid(full.z, r.z)) {
                return why;
            }
            r.yaw = detail::round_u16(full.yaw / detail::YAW_FULL);
            // The tier is the pose's; ORIENTED is the orientation's and stays.
            r.flags.set(protocol::StateFlags::POSE_FULL, true);
        }
        if (change.pose_step) {
            const protocol::PoseStep& step = *change.pose_step;
            const detail::Origin o = detail::step_origin(base);
            const auto add = [](int32_t from, int16_t d, int32_t& to) {
                const int64_t v = int64_t{from} + int64_t{d};
                if (v < INT32_MIN || v > INT32_MAX) {
                    return false;
                }
                to = static_cast<int32_t>(v);
                return true;
            };
            if (!add(o.x, step.dx, r.x) || !add(o.y, step.dy, r.y) || !add(o.z, step.dz, r.z)) {
                return "a pose step past the grid";
            }
            // As Rust's `(x as u16) << 8` on a u16: the bits shifted past 16 are dropped.
            r.yaw = static_cast<uint16_t>(
                (detail::round_u16(step.yaw / detail::YAW_STEP) << 8) & 0xffff);
            r.flags.set(protocol::StateFlags::POSE_FULL, false);
        }
        if (change.mask.contains(protocol::ChangeMask::POSE)) {
            const uint32_t age = change.age.value_or(0);
            if (tick < age) {
                return "a pose measured before tick 0";
            }
            r.measured = tick - age;
        }
        if (change.health) {
            r.hp = change.health->hp;
            r.armor = change.health->armor;
        }
        if (change.vehicle) {
            r.vehicle = change.vehicle->vehicle;
            r.seat = change.vehicle->seat;
        }
        if (change.orient) {
            r.orient = change.orient;
            r.flags.set(protocol::StateFlags::ORIENTED, true);
        }
        out = r;
        return nullptr;
    }

    /// The record's canonical bytes (CHECK-3: what the check hashes after the u16 eid): the
    /// generated writer's 24 bytes (28 with an orientation: its 29 bits padded to 4 bytes, as the
    /// generated Orientation writer lays them out), written at once: the check writes every record
    /// of the world every CHECK_EVERY frames. A record no frame could have applied (reserved flag
    /// bits, an ORIENTED bit that disagrees with the orientation, a quaternion the rules refuse)
    /// goes to the generated writer, which refuses it where it is, as the Rust codec's write_record
    /// does.
    static void write_record(const Record& record, std::vector<uint8_t>& out) {
        const uint8_t flags = record.flags.bits;
        const bool orient_ok = !record.orient
            || !rt::smallest_three_fault(record.orient->q, detail::ORIENT_BITS);
        if ((flags & ~3u) != 0 || ((flags & 2u) != 0) != record.orient.has_value()
            || !orient_ok) {
            rt::Writer w(out);
            (void)protocol::detail::write(w, record);
            return;
        }
        uint8_t b[28];
        const auto le32 = [&](size_t at, uint32_t v) {
            b[at] = static_cast<uint8_t>(v);
            b[at + 1] = static_cast<uint8_t>(v >> 8);
            b[at + 2] = static_cast<uint8_t>(v >> 16);
            b[at + 3] = static_cast<uint8_t>(v >> 24);
        };
        const auto le16 = [&](size_t at, uint16_t v) {
            b[at] = static_cast<uint8_t>(v);
            b[at + 1] = static_cast<uint8_t>(v >> 8);
        };
        le32(0, static_cast<uint32_t>(record.x));
        le32(4, static_cast<uint32_t>(record.y));
        le32(8, static_cast<uint32_t>(record.z));
        le16(12, record.yaw);
        b[14] = flags;
        le32(15, record.measured);
        b[19] = record.hp;
        b[20] = record.armor;
        le16(21, record.vehicle);
        b[23] = record.seat;
        size_t n = 24;
        if (record.orient) {
            // `Orientation`'s 29 bits, least significant first (largest: u2, then three i9),
            // and three zero padding bits.
            const SmallestThree& q = record.orient->q;
            const auto c = [&](size_t i) {
                return uint32_t{static_cast<uint16_t>(q.rest[i])} & 0x1ffu;
            };
            le32(24, uint32_t{q.largest} | c(0) << 2 | c(1) << 11 | c(2) << 20);
            n = 28;
        }
        out.insert(out.end(), b, b + n);
    }

    /// The tick the record's pose was measured at.
    static std::optional<uint32_t> measured(const Record& record) { return record.measured; }

    /// Whether the record's pose came full (the tier the client sees).
    static std::optional<bool> pose_full(const Record& record) {
        return record.flags.contains(protocol::StateFlags::POSE_FULL);
    }

    /// Writes a frame's bytes.
    static rt::EncodeStatus encode_frame(
        const acked::Frame<Reference>& frame, std::vector<uint8_t>& out) {
        if (frame.events.size() > 255) {
            return detail::over("event_count");
        }
        protocol::Acked a;
        a.tick = frame.tick;
        a.base_tick = frame.base_tick;
        a.last_seq = frame.last_seq;
        a.input_buffer = frame.input_buffer;
        a.flags.set(protocol::AckedFlags::KEYFRAME, frame.keyframe);
        a.flags.set(protocol::AckedFlags::CHECK, frame.check.has_value());
        a.check = frame.check;
        a.removed = frame.removed;
        a.changes = frame.changes;
        if (!frame.events.empty()) {
            a.first_serial = frame.first_serial;
        }
        a.events = frame.events;
        return protocol::encode(a, out);
    }

    /// A generated frame's header into `out`: its scalar fields (kind 6's `protocol::Acked`'s
    /// or kind 12's `protocol::AckedPacked`'s, whose header is kind 6's field for field), its
    /// lists being the caller's (kind 6's swapped, kind 12's converted). Kind 6's
    /// decode_frame_into and kind 12's unpack_header_and_changes both come through here.
    ///
    /// ACK-4: a keyframe applies onto nothing, and its base_tick is 0: a keyframe naming a base is
    /// `invalid_condition` at byte 5 (both kinds' base_tick starts there), `base_tick`, returned
    /// before `out` is touched.
    template <typename Wire>
    static std::optional<rt::DecodeError> header_into(
        const Wire& f, acked::Frame<Reference>& out) {
        const bool keyframe = f.flags.contains(protocol::AckedFlags::KEYFRAME);
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

    /// Reads a frame from its bytes (canonically: trailing bytes are an error) into `out`, reusing
    /// its lists' buffers (they are swapped into the generated frame and back, so a warm decoder
    /// allocates nothing); then its header (header_into, which checks ACK-4).
    static std::optional<rt::DecodeError> decode_frame_into(
        const uint8_t* data, size_t len, acked::Frame<Reference>& out) {
        protocol::Acked a;
        a.removed.swap(out.removed);
        a.changes.swap(out.changes);
        a.events.swap(out.events);
        rt::Reader r(data, len);
        const bool ok = protocol::detail::read(r, a) && r.finish();
        a.removed.swap(out.removed);
        a.changes.swap(out.changes);
        a.events.swap(out.events);
        if (!ok) {
            return r.take_error();
        }
        return header_into(a, out);
    }
};

/// The kind 7 frame acknowledging `ack_tick` with every input `writer` still repeats;
/// `keyframe_request` sets KEYFRAME_REQUEST (the client's check failed and it holds no base:
/// acked.wire, AckFlags), and the frame then acknowledges nothing.
inline protocol::Ack ack_frame(
    const acked::AckWriter<protocol::Input>& writer, uint32_t ack_tick, bool keyframe_request) {
    protocol::Ack ack;
    ack.ack_tick = keyframe_request ? 0 : ack_tick;
    ack.flags.set(protocol::AckFlags::KEYFRAME_REQUEST, keyframe_request);
    if (!writer.pending().empty()) {
        ack.first_seq = writer.pending().front().first;
    }
    for (const auto& p : writer.pending()) {
        ack.inputs.push_back(p.second);
    }
    return ack;
}

// ---- the server's world and its Presenter ----

/// One entity of the server's world, in world units.
struct WorldEntity {
    /// Which life of its id; bumped by every spawn under the id.
    uint32_t life = 0;
    /// East, metres.
    float x = 0.0f;
    /// North, metres.
    float y = 0.0f;
    /// Up, metres.
    float z = 0.0f;
    /// Heading, degrees.
    float yaw = 0.0f;
    /// Hit points.
    uint8_t hp = 0;
    /// Armour points.
    uint8_t armor = 0;
    /// The vehicle it is in, 0 on foot.
    uint16_t vehicle = 0;
    /// The seat taken.
    uint8_t seat = 0;
    /// Its orientation, a unit quaternion `{x, y, z, w}` (any norm: it is normalised), or
    /// nothing for an entity without one. An entity keeps the orientation it was last given
    /// for its life: nothing after a value presents the last one again (the wire has no way to
    /// take an orientation away, see Reference::diff).
    std::optional<std::array<float, 4>> orient;

    friend bool operator==(const WorldEntity& a, const WorldEntity& b) {
        return a.life == b.life && a.x == b.x && a.y == b.y && a.z == b.z && a.yaw == b.yaw
            && a.hp == b.hp && a.armor == b.armor && a.vehicle == b.vehicle && a.seat == b.seat
            && a.orient == b.orient;
    }
};

/// The server's world: entities by id.
using World = std::map<uint16_t, WorldEntity>;

/// A pose is measured again at least this often (in ticks), so that a pose's age always fits
/// the u8 of POSE_AGE, even in a keyframe.
constexpr uint32_t POSE_REFRESH = 255;

/// How a client sees the world: its own entities, the near tier's boundary, the far rate.
struct ViewConfig {
    /// The client's own entities; the lowest present is where it stands.
    std::vector<uint16_t> own;
    /// The near tier, with hysteresis (SRV-8).
    acked::TierBoundary tier{12.0f, 14.0f};
    /// A far entity's pose is due on the ticks where `(tick + eid) % far_every == 0`.
    uint32_t far_every = 6;
};

namespace detail {

/// A coordinate in steps of 1/512 m (an f32 holds every step below 2^24 exactly).
inline int32_t steps(float v) {
    if (!std::isfinite(v)) {
        return 0;
    }
    const double s = std::round(static_cast<double>(v) * 512.0);
    return static_cast<int32_t>(std::min(std::max(s, -16777215.0), 16777215.0));
}

/// A heading in 65536 steps a turn.
inline uint16_t yaw_steps(float deg) {
    if (!std::isfinite(deg)) {
        return 0;
    }
    // Rust's rem_euclid: the remainder made non-negative.
    double r = std::fmod(static_cast<double>(deg), 360.0);
    if (r < 0.0) {
        r += 360.0;
    }
    const double turns = r / 360.0;
    return static_cast<uint16_t>(static_cast<uint32_t>(std::round(turns * 65536.0)) & 0xffff);
}

}  // namespace detail

/// Computes each tick's S_N for one client of the reference schema, exactly as the ordered
/// encoder would (the Rust codec's `Presenter`).
///
/// ACK-17, ACK-18: per client, the server computes S_N, the state an ordered client holds after
/// frame N (records, pose full or not, tier, measurement tick), as the ordered encoder would: the
/// changes, far poses only when due or when their rest changed, the client's own entities with full
/// poses. Per entity of the world:
/// - new (or a new life): whole, its pose measured now;
/// - near (the client's own, or within the tier boundary, judged with hysteresis against the
///   tier it was sent at last) or far outside the quantized box (POSE_REACH): the pose comes
///   full, whenever it differs from the one held;
/// - far: the pose comes quantized (1/512 m, 256 yaw steps), only when it is due, its rest
///   (health, vehicle) changed or its tier changed, and it differs;
/// - any pose is measured again when the one held is POSE_REFRESH ticks old.
class Presenter {
public:
    /// A presenter for a client that holds nothing yet.
    explicit Presenter(ViewConfig config) : config_(std::move(config)) {}

    /// The view it computes for.
    const ViewConfig& config() const { return config_; }

    /// S_N for tick `tick` of `world`.
    acked::ServerState<protocol::EntityState> present(uint32_t tick, const World& world) {
        using protocol::EntityState;
        using protocol::StateFlags;
        // Where the client stands: its own entity with the lowest id present, or the origin.
        std::optional<uint16_t> stand;
        for (const uint16_t eid : config_.own) {
            if (world.count(eid) != 0 && (!stand || eid < *stand)) {
                stand = eid;
            }
        }
        Viewer viewer;
        if (stand) {
            const WorldEntity& w = world.at(*stand);
            viewer = Viewer{detail::steps(w.x), detail::steps(w.y), detail::steps(w.z)};
        }
        const bool same_viewer = viewer_ && *viewer_ == viewer;
        viewer_ = viewer;
        acked::ServerState<EntityState> next;
        next.reserve(world.size());
        std::vector<Presented> extras;
        extras.reserve(world.size());
        size_t h = 0;
        for (const auto& item : world) {
            const uint16_t eid = item.first;
            const WorldEntity& w = item.second;
            while (h < prev_.size() && prev_[h].first < eid) {
                ++h;
            }
            const bool has_last = h < prev_.size() && prev_[h].first == eid;
            const acked::Entry<EntityState>* last_entry = has_last ? &prev_[h].second : nullptr;
            const Presented* last_extra = has_last ? &extras_[h] : nullptr;
            if (has_last) {
                ++h;
            }
            // An entity the world did not touch, seen from where the client stood, whose
            // record is current and not due a refresh, is presented as it was: nothing of the
            // rules below could change its record.
            if (has_last && same_viewer && last_extra->current && last_extra->seen == w
                && sat_sub(tick, last_entry->record.measured) < POSE_REFRESH) {
                next.emplace_back(eid, *last_entry);
                extras.push_back(*last_extra);
                continue;
            }
            const int32_t x = detail::steps(w.x);
            const int32_t y = detail::steps(w.y);
            const int32_t z = detail::steps(w.z);
            const EntityState* prev = nullptr;
            bool was_near = false;
            if (has_last && last_entry->life == w.life) {
                prev = &last_entry->record;
                was_near = last_extra->near;
            }
            bool own = false;
            for (const uint16_t o : config_.own) {
                own = own || o == eid;
            }
            // A distance is never negative: a negative (or NaN) radius admits nothing, and the
            // square root is skipped.
            const float radius = was_near ? config_.tier.leave() : config_.tier.enter();
            bool near = own;
            if (!near && radius >= 0.0f) {
                const auto d = [](int32_t a, int32_t b) {
                    return (static_cast<double>(a) - static_cast<double>(b)) / 512.0;
                };
                const double dx = d(x, viewer.x);
                const double dy = d(y, viewer.y);
                const double dz = d(z, viewer.z);
                const double dist = std::sqrt(dx * dx + dy * dy + dz * dz);
                near = config_.tier.admits(was_near, static_cast<float>(dist));
            }
            const auto inside = [](int32_t v) {
                return std::llabs(int64_t{v}) <= int64_t{POSE_REACH};
            };
            const bool in_box = inside(x) && inside(y) && inside(z);
            const bool full = near || !in_box;
            const uint16_t yaw_full = detail::yaw_steps(w.yaw);
            // 256 steps a turn, kept as a multiple of 256 of the 65536.
            const auto coarse = static_cast<uint16_t>(
                (((uint32_t{yaw_full} + 128) >> 8) << 8) & 0xffff);
            const uint16_t yaw = full ? yaw_full : coarse;
            StateFlags flags;
            flags.set(StateFlags::POSE_FULL, full);
            // The orientation is kept current on every tick it changes, like health, whatever
            // the pose's tier and rate; the entity keeps its last one when the world drops it.
            std::optional<protocol::Orientation> orient;
            if (w.orient) {
                orient = protocol::Orientation{rt::from_xyzw(*w.orient, detail::ORIENT_BITS)};
            } else if (prev != nullptr) {
                orient = prev->orient;
            }
            flags.set(StateFlags::ORIENTED, orient.has_value());
            EntityState fresh;
            fresh.x = x;
            fresh.y = y;
            fresh.z = z;
            fresh.yaw = yaw;
            fresh.flags = flags;
            fresh.measured = tick;
            fresh.hp = w.hp;
            fresh.armor = w.armor;
            fresh.vehicle = w.vehicle;
            fresh.seat = w.seat;
            fresh.orient = orient;
            EntityState record = fresh;
            if (prev != nullptr) {
                const EntityState& p = *prev;
                const bool rest_changed = p.hp != w.hp || p.armor != w.armor
                    || p.vehicle != w.vehicle || p.seat != w.seat;
                const bool tier_changed = near != was_near;
                const bool differs = p.x != x || p.y != y || p.z != z || p.yaw != yaw
                    || p.flags.contains(StateFlags::POSE_FULL) != full;
                const bool refresh = sat_sub(tick, p.measured) >= POSE_REFRESH;
                const uint32_t every = std::max(config_.far_every, uint32_t{1});
                const bool due = near || rest_changed || tier_changed
                    || (tick + uint32_t{eid}) % every == 0;
                const bool send = refresh || (due && differs);
                record = send ? fresh : p;
                record.hp = w.hp;
                record.armor = w.armor;
                record.vehicle = w.vehicle;
                record.seat = w.seat;
                record.orient = orient;
                record.flags.set(StateFlags::ORIENTED, orient.has_value());
            }
            const bool current = record.x == x && record.y == y && record.z == z
                && record.yaw == yaw && record.flags.contains(StateFlags::POSE_FULL) == full;
            next.emplace_back(eid, acked::Entry<EntityState>{w.life, record});
            extras.push_back(Presented{near, w, current});
        }
        prev_ = next;
        extras_ = std::move(extras);
        return next;
    }

private:
    struct Viewer {
        int32_t x = 0;
        int32_t y = 0;
        int32_t z = 0;
        bool operator==(const Viewer& o) const { return x == o.x && y == o.y && z == o.z; }
    };
    /// How the presenter last computed an entity's record.
    struct Presented {
        bool near = false;
        /// The world's entity it was computed from.
        WorldEntity seen;
        /// Whether the record's pose is the one `seen` gives (it was sent, or did not differ).
        bool current = false;
    };

    static uint32_t sat_sub(uint32_t a, uint32_t b) { return a > b ? a - b : 0; }

    ViewConfig config_;
    acked::ServerState<protocol::EntityState> prev_;
    std::vector<Presented> extras_;
    std::optional<Viewer> viewer_;
};

/// The acked encoder of a schema of the reference protocol's records (Reference, or
/// PackedReference of reference/acked_packed.hpp) over the server's input schedule.
template <typename S>
using EncoderOf = acked::AckedEncoder<S, acked::ScheduledInputs<protocol::Input>>;

/// The acked encoder of the reference schema over the server's input schedule.
using ReferenceEncoder = EncoderOf<Reference>;

// ---- the session halves ----

/// What an `ack` did to the acked server.
struct AckedAckReport {
    /// The encoder's verdict.
    acked::AckVerdict verdict = acked::AckVerdict::nothing;
    /// The acknowledged base now.
    std::optional<uint32_t> base;
    /// The newest input sequence received.
    uint32_t last_seq = 0;
    /// The encoder's counters.
    acked::EncoderCounters counters;
};

namespace detail {

inline session::SessionError decode_error(rt::DecodeError e) {
    session::SessionError s{session::SessionError::Kind::decode, e.message(), std::nullopt};
    s.decode_error = std::move(e);
    return s;
}

inline session::SessionError encode_error(const rt::EncodeError& e) {
    return session::SessionError{session::SessionError::Kind::encode, e.message(), std::nullopt};
}

}  // namespace detail

/// The server's half of acked snapshots (`docs/spec/acked.md`): a Presenter and an AckedEncoder of
/// the schema `S` (Reference: kind 6; PackedReference: kind 12) over the server's input schedule. A
/// tick takes the world and the tick's events and sends one frame named `S::FRAME_NAME` (reliable
/// when over RELIABLE_ABOVE bytes); a frame is the client's `ack`.
template <typename S>
class BasicAckedServerHalf {
public:
    /// The half for a client seen through `view`, its inputs judged by `window`.
    BasicAckedServerHalf(ViewConfig view, acked::InputWindow window)
        : presenter_(std::move(view)), encoder_(acked::ScheduledInputs<protocol::Input>(window)) {}

    /// The client's `ack` frame arrives at `now` (its inputs judged against `now.tick`).
    session::Result<AckedAckReport> handle_frame(
        session::Now now, const std::string& frame, const uint8_t* bytes, size_t len) {
        if (auto e = session::expect_frame(frame, "ack")) {
            return std::move(*e);
        }
        auto ack = protocol::decode_ack(bytes, len);
        if (!ack) {
            return detail::decode_error(ack.error());
        }
        const protocol::Ack& a = ack.value();
        AckedAckReport report;
        report.verdict = encoder_.on_ack(now.tick, a.ack_tick,
            a.flags.contains(protocol::AckFlags::KEYFRAME_REQUEST), a.first_seq.value_or(0),
            a.inputs, [](const protocol::Input& i) { return i.tick; });
        report.base = encoder_.acked();
        report.last_seq = encoder_.last_seq();
        report.counters = encoder_.counters();
        return report;
    }

    /// Tick `now.tick` passes with `world` and the tick's new `events`: one `acked` frame.
    session::Result<session::Unit> handle_tick(
        session::Now now, const World& world, std::vector<protocol::Event> events) {
        auto tick = session::tick32(now.tick);
        if (!tick) {
            return tick.error();
        }
        auto sent = encoder_.encode(
            tick.value(), presenter_.present(tick.value(), world), std::move(events));
        if (!sent) {
            return detail::encode_error(sent.error());
        }
        const bool reliable = sent.value().reliable;
        out_.push(session::Transmit{S::FRAME_NAME, std::move(sent.value().bytes), reliable});
        return session::Unit{};
    }

    /// The next frame to send, in order; nothing when there is none.
    std::optional<session::Transmit> poll_transmit() { return out_.poll(); }

    /// The encoder, for its lower-level methods (its inputs are executed through it).
    EncoderOf<S>& machine() { return encoder_; }
    /// The encoder.
    const EncoderOf<S>& machine() const { return encoder_; }

private:
    Presenter presenter_;
    EncoderOf<S> encoder_;
    session::Outbox out_;
};

/// The server's half of the reference schema: kind 6 frames named `acked`.
using AckedServerHalf = BasicAckedServerHalf<Reference>;

/// The client's half of acked snapshots: an AckedDecoder of the schema `S` (Reference: kind 6;
/// PackedReference: kind 12) and the kind 7 writer. A tick takes the player's input and sends
/// one `ack` acknowledging the newest frame applied, with the inputs not yet covered by
/// `last_seq`; a frame is one named `S::FRAME_NAME`, reported as its Delivery (an undecodable
/// frame is a delivery too; a frame of another name is a SessionError). A native client's
/// loop: `handle_frame` for every datagram, `handle_tick` every tick, then `poll_transmit`
/// until it gives nothing, sending what it gives.
template <typename S>
class BasicAckedClientHalf {
public:
    /// The decoder's report of a frame.
    using Delivery = acked::Delivery<protocol::Event>;

    /// A fresh decoder; the writer repeats `keep` inputs (1 to 255) until they are covered.
    explicit BasicAckedClientHalf(size_t keep = 16) : writer_(keep) {}

    /// The server's frame `frame` (its name in the spec: `S::FRAME_NAME`) arrives. The
    /// Delivery's report is the decoder's, lent until the next call.
    session::Result<Delivery> handle_frame(
        session::Now /*now*/, const std::string& frame, const uint8_t* bytes, size_t len) {
        if (auto e = session::expect_frame(frame, S::FRAME_NAME)) {
            return std::move(*e);
        }
        // The writer stops repeating what the frame's `last_seq` covers before it next writes
        // (in handle_tick).
        return decoder_.deliver(bytes, len);
    }

    /// The same, from a vector.
    session::Result<Delivery> handle_frame(
        session::Now now, const std::string& frame, const std::vector<uint8_t>& bytes) {
        return handle_frame(now, frame, bytes.data(), bytes.size());
    }

    /// A tick passes with the player's `input`: one `ack` frame is queued.
    session::Result<session::Unit> handle_tick(session::Now /*now*/, protocol::Input input) {
        writer_.confirm(decoder_.last_seq());
        writer_.push(input);
        const protocol::Ack ack =
            ack_frame(writer_, decoder_.ack_tick(), decoder_.keyframe_wanted());
        auto bytes = protocol::to_bytes(ack);
        if (!bytes) {
            return detail::encode_error(bytes.error());
        }
        out_.push(session::Transmit{"ack", std::move(bytes).value(), false});
        return session::Unit{};
    }

    /// The next frame to send, in order; nothing when there is none.
    std::optional<session::Transmit> poll_transmit() { return out_.poll(); }

    /// The check of the state shown: FNV-1a of every record in ascending id (CHECK-2), what the
    /// server's S_N check of the same tick is.
    uint32_t state_hash() const { return decoder_.state_hash(); }

    /// The entities shown (read-only): `shown().for_each([](uint16_t eid, const
    /// protocol::EntityState& r) { ... })`, `shown().get(eid)`, `shown().size()`.
    const acked::LiveState<protocol::EntityState>& shown() const { return decoder_.live(); }

    /// The tick of the last frame shown, if any.
    std::optional<uint32_t> shown_tick() const { return decoder_.shown_tick(); }

    /// The decoder, for its counters and lower-level methods.
    acked::AckedDecoder<S>& machine() { return decoder_; }
    /// The decoder.
    const acked::AckedDecoder<S>& machine() const { return decoder_; }

private:
    acked::AckedDecoder<S> decoder_;
    acked::AckWriter<protocol::Input> writer_;
    session::Outbox out_;
};

/// The client's half of the reference schema: kind 6 frames named `acked`.
using AckedClientHalf = BasicAckedClientHalf<Reference>;

}  // namespace reference
}  // namespace ackwire
