// The reference protocol's presenter: the game policy the reference server runs behind the acked
// machines (ACK-18's S_N for one client), the hand-written hooks beside the binding that
// `ackwire gen --lang cpp` writes for `state Reference` (reference.hpp): which entities a client
// sees, at which tier (near, with hysteresis, or far), how often a far pose is refreshed, and a
// client's own entities in full. A port of the Rust codec's acked/presenter.rs: the same S_N, so
// the same frames and state hashes.
//
// What is mechanical (the records, diff, apply, the check's bytes, the frames) is generated;
// what is here is the reference game's choice. `acked::AckedServerHalf<reference::Reference,
// reference::Presenter>` (ackwire_acked_half.hpp) is its server half.
//
// Needs the generated binding: `#include "reference.hpp"`, found through `-I gen` (where
// `ackwire gen --lang cpp` writes it, beside protocol.hpp and the runtime's headers).

#pragma once

#include "ackwire_acked.hpp"
#include "reference.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace ackwire {
namespace reference {

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

namespace presenter_detail {

/// The bits of each component of the orientation's smallest three (acked.wire's `orient` group:
/// `quat(9)`).
constexpr unsigned ORIENT_BITS = 9;

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

}  // namespace presenter_detail

/// Computes each tick's S_N for one client of the reference schema, exactly as the ordered
/// encoder would (the Rust codec's `Presenter`).
///
/// ACK-17, ACK-18: per client, the server computes what an ordered client would hold after
/// frame N (every entity's record, whether its pose came full, the tier it was sent at and the
/// tick its pose was measured at), as the ordered encoder does: what changed, a far entity's
/// pose only when it is due or its rest changed, the client's own entities' pose in full. Per
/// entity of the world:
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
            viewer = Viewer{presenter_detail::steps(w.x), presenter_detail::steps(w.y), presenter_detail::steps(w.z)};
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
            const int32_t x = presenter_detail::steps(w.x);
            const int32_t y = presenter_detail::steps(w.y);
            const int32_t z = presenter_detail::steps(w.z);
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
            const uint16_t yaw_full = presenter_detail::yaw_steps(w.yaw);
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
                orient = protocol::Orientation{rt::from_xyzw(*w.orient, presenter_detail::ORIENT_BITS)};
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

}  // namespace reference
}  // namespace ackwire
