// Datagram v2 (`docs/spec/datagram.md`), both halves, sans-IO, as the Rust codec's
// codec/src/datagram/: entity updates that may be lost, duplicated or reordered, beside a reliable,
// ordered stream of spawns, despawns and full frames.
//
// Each datagram is self-contained: an update holds the entity's absolute quantized position, so
// losing a datagram only delays its content; the client acknowledges what it applies and the server
// repeats whatever changed since an entity's last acknowledged state until covered (DG-14, DG-22).
//
// - DatagramBuilder builds one datagram (updates in ascending id order, a size limit with the
//   header counted at MAX_HEADER_LEN); split_tick splits a tick into parts.
// - Subscription is the server's machine, DatagramServer its session half: it takes the world's
//   operations tick by tick and the client's datagram_acks; stream frames go reliable.
// - ReplicaTable is the client's machine, DatagramClient its session half: spawn tags, the last
//   datagram applied per entity, whole ticks, the input ack, and its datagram_acks.
//
// Everything is generic over a schema `S` (the reference protocol's is
// protocol::ReferenceDatagram, which `ackwire gen` writes into reference_datagram.hpp from its
// `schema` declaration), which names the frame types, their names, the mask's bits, and the
// codec functions:
//   types Datagram, Update, Component, Spawn, Despawn, FullFrame, FullEntity, DatagramAck;
//   MAX_HEADER_LEN, MASK_X, MASK_Y, MASK_Z, MASK_COMPONENTS;
//   DATAGRAM, SPAWN, DESPAWN, FULL_FRAME, DATAGRAM_ACK (frame names);
//   encoded_len_after(update, prev), check_update(update) -> rt::EncodeStatus,
//   decode_<frame>(data, len), to_bytes(frame).
//
// Two choices the specification makes, as the Rust codec makes them: the client acks a datagram
// when it applies it (when its tick, or a later one, is whole), not while it only holds it; a tick
// that sends a full frame sends no datagram (DG-22, DG-12).

#pragma once

#include "ackwire_session.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ackwire {
namespace datagram {

namespace detail {

/// `a + b`, saturating at SIZE_MAX: the sizes summed follow from what the peer sent.
inline size_t sat_add(size_t a, size_t b) {
    const size_t max = std::numeric_limits<size_t>::max();
    return a > max - b ? max : a + b;
}

/// Adds `n` to a summary's counter, saturating: the counts are the wire's and must not wrap.
inline void count(uint32_t& counter, size_t n) {
    const uint64_t sum = uint64_t{counter} + std::min<uint64_t>(n, 0xFFFFFFFFu);
    counter = sum > 0xFFFFFFFFu ? 0xFFFFFFFFu : static_cast<uint32_t>(sum);
}

}  // namespace detail

/// The part of a spawn tick an update carries (DG-8: its low 16 bits).
///
/// DG-8, DG-18: an update names the low 16 bits of the tick of the stream frame that spawned its
/// entity, and applies only to the entity spawned then.
inline uint16_t spawn_tag(uint64_t spawn_tick) {
    return static_cast<uint16_t>(spawn_tick & 0xFFFFu);
}

/// An axis value on the wire: round(coordinate / precision), halves away from zero.
///
/// DG-5: an axis value is round(coordinate / precision), and a non-finite coordinate quantizes to
/// 0. A quotient that is not finite (a precision of 0) also gives 0, and one beyond the i64 range
/// saturates (as Rust's `as` does).
inline int64_t quantize(double coordinate, float precision) {
    if (!std::isfinite(coordinate)) {
        return 0;
    }
    const double q = std::round(coordinate / static_cast<double>(precision));
    if (!std::isfinite(q)) {
        return 0;
    }
    if (q >= 9223372036854775808.0) {
        return std::numeric_limits<int64_t>::max();
    }
    if (q < -9223372036854775808.0) {
        return std::numeric_limits<int64_t>::min();
    }
    return static_cast<int64_t>(q);
}

/// The header of every datagram of one tick but the frame number, which each part takes in
/// turn.
struct DatagramHeader {
    /// The number of the tick's first datagram.
    uint64_t frame = 0;
    /// The server tick.
    uint64_t tick = 0;
    /// The highest client_seq the shard has processed.
    uint64_t input_ack = 0;
    /// The tick of the last stream frame sent by this tick.
    uint64_t stream_tick = 0;
    /// Metres per quantization step.
    float precision = 0.0f;
    /// How many datagrams the tick is sent in.
    uint32_t parts = 1;
};

/// Why a datagram could not be built.
struct BuildError {
    /// What went wrong.
    enum class Kind { not_ascending, too_large, encode, out_of_numbers };
    /// What went wrong.
    Kind kind = Kind::encode;
    /// One line for a person.
    std::string message;
};

/// One datagram being built: updates in ascending id order under a size limit, the header counted
/// at MAX_HEADER_LEN (DG-7: the largest header).
template <typename S>
class DatagramBuilder {
public:
    /// A builder of a datagram with `header`, at most `limit` bytes.
    DatagramBuilder(DatagramHeader header, size_t limit)
        : header_(header), len_(S::MAX_HEADER_LEN), limit_(limit) {}

    /// The bytes counted so far (the header at its largest).
    size_t len() const { return len_; }

    /// Whether no update was pushed.
    bool empty() const { return updates_.empty(); }

    /// Adds `update`, or says why not (it does not ascend, does not fit, does not encode).
    rt::Result<session::Unit, BuildError> push(typename S::Update update) {
        if (prev_ && update.id <= *prev_) {
            return BuildError{BuildError::Kind::not_ascending,
                "update id " + std::to_string(update.id) + " does not ascend (previous " +
                    std::to_string(*prev_) + ")"};
        }
        if (auto e = S::check_update(update)) {
            return BuildError{
                BuildError::Kind::encode, "the update does not encode: " + e->message()};
        }
        std::optional<uint64_t> prev = prev_;
        const size_t needed = S::encoded_len_after(update, prev);
        const size_t left = limit_ > len_ ? limit_ - len_ : 0;
        if (needed > left) {
            return BuildError{BuildError::Kind::too_large, "the update needs " +
                    std::to_string(needed) + " bytes, " + std::to_string(left) + " are left"};
        }
        len_ += needed;
        prev_ = update.id;
        updates_.push_back(std::move(update));
        return session::Unit{};
    }

    /// Adds `update` whatever its size: the first update of a datagram always goes.
    rt::Result<session::Unit, BuildError> push_unlimited(typename S::Update update) {
        const size_t limit = limit_;
        limit_ = std::numeric_limits<size_t>::max();
        auto r = push(std::move(update));
        limit_ = limit;
        return r;
    }

    /// Sets how many parts the tick has.
    void set_parts(uint32_t parts) { header_.parts = parts; }

    /// The datagram.
    typename S::Datagram finish() && {
        typename S::Datagram d;
        d.frame = header_.frame;
        d.tick = header_.tick;
        d.input_ack = header_.input_ack;
        d.stream_tick = header_.stream_tick;
        d.precision = header_.precision;
        d.parts = header_.parts;
        d.updates = std::move(updates_);
        return d;
    }

private:
    DatagramHeader header_;
    std::vector<typename S::Update> updates_;
    std::optional<uint64_t> prev_;
    size_t len_;
    size_t limit_;
};

namespace detail {

inline rt::Result<DatagramHeader, BuildError> numbered(DatagramHeader first, size_t part) {
    if (part > std::numeric_limits<uint64_t>::max() - first.frame) {
        return BuildError{BuildError::Kind::out_of_numbers,
            "the tick's datagrams run out of numbers: first frame " + std::to_string(first.frame) +
                ", part " + std::to_string(part)};
    }
    first.frame += part;
    return first;
}

}  // namespace detail

/// A tick's updates (ids ascending) in as many datagrams as the size limit needs, numbered from
/// `header.frame` up, each naming the count. An update too large for any datagram goes alone.
/// DG-11: a tick without a full frame sends one datagram or more.
template <typename S>
rt::Result<std::vector<typename S::Datagram>, BuildError> split_tick(
    DatagramHeader header, std::vector<typename S::Update> updates, size_t limit) {
    std::vector<DatagramBuilder<S>> parts;
    DatagramBuilder<S> current(header, limit);
    std::optional<uint64_t> last_id;
    for (auto& update : updates) {
        if (last_id && update.id <= *last_id) {
            return BuildError{BuildError::Kind::not_ascending,
                "update id " + std::to_string(update.id) + " does not ascend (previous " +
                    std::to_string(*last_id) + ")"};
        }
        last_id = update.id;
        auto pushed = current.push(update);
        if (pushed) {
            continue;
        }
        if (pushed.error().kind != BuildError::Kind::too_large) {
            return pushed.error();
        }
        auto next = detail::numbered(header, parts.size() + 1);
        if (!next) {
            return next.error();
        }
        if (current.empty()) {
            auto alone = current.push_unlimited(update);
            if (!alone) {
                return alone.error();
            }
            parts.push_back(std::move(current));
            current = DatagramBuilder<S>(next.value(), limit);
        } else {
            parts.push_back(std::move(current));
            current = DatagramBuilder<S>(next.value(), limit);
            auto again = current.push(update);
            if (!again) {
                if (again.error().kind != BuildError::Kind::too_large) {
                    return again.error();
                }
                auto alone = current.push_unlimited(update);
                if (!alone) {
                    return alone.error();
                }
                auto after = detail::numbered(header, parts.size() + 1);
                if (!after) {
                    return after.error();
                }
                parts.push_back(std::move(current));
                current = DatagramBuilder<S>(after.value(), limit);
            }
        }
    }
    if (!current.empty() || parts.empty()) {
        parts.push_back(std::move(current));
    }
    if (parts.size() > 0xFFFFFFFFu) {
        return BuildError{BuildError::Kind::out_of_numbers, "a tick of more than 2^32 - 1 parts"};
    }
    const auto n = static_cast<uint32_t>(parts.size());
    std::vector<typename S::Datagram> out;
    out.reserve(parts.size());
    for (auto& b : parts) {
        b.set_parts(n);
        out.push_back(std::move(b).finish());
    }
    return out;
}

/// The update of entity `id` spawned at `spawn_tick` carrying `axes` and `components`, its spawn
/// tag and mask following from them. DG-4: mask bit 1 x, 2 y, 4 z, 8 components.
template <typename S>
typename S::Update entry(uint64_t id, uint64_t spawn_tick, const std::optional<int64_t> (&axes)[3],
    std::optional<std::vector<typename S::Component>> components) {
    typename S::Update u;
    u.id = id;
    u.spawn_tag = spawn_tag(spawn_tick);
    u.mask.set(S::MASK_X, axes[0].has_value());
    u.mask.set(S::MASK_Y, axes[1].has_value());
    u.mask.set(S::MASK_Z, axes[2].has_value());
    u.mask.set(S::MASK_COMPONENTS, components.has_value());
    u.x = axes[0];
    u.y = axes[1];
    u.z = axes[2];
    u.components = std::move(components);
    return u;
}

// ---- the client ----

/// Bounds on what a ReplicaTable holds, whatever the server sends (GEN-5, docs/limits.md), the Rust
/// codec's ReplicaLimits.
struct ReplicaLimits {
    /// What each component costs beyond its bytes in max_component_bytes, so that a flood of
    /// empty components is bounded too.
    static constexpr size_t COMPONENT_OVERHEAD = 64;
    /// Entities held at most; a spawn beyond is refused.
    size_t max_entities = size_t{1} << 16;
    /// Datagrams held for ticks that are not whole yet; beyond, the oldest tick held is given up
    /// (its datagrams were never acked, so the server sends what they said again).
    size_t max_held = 256;
    /// Component bytes held at most, over every entity, each counted at its length plus
    /// COMPONENT_OVERHEAD (16 MiB). Past it a spawn (or a full frame's entity) is refused, and
    /// an update is skipped whole and its datagram not acked.
    size_t max_component_bytes = size_t{16} << 20;
    /// What a held datagram costs in max_held_bytes beyond its updates.
    static constexpr size_t HELD_DATAGRAM_OVERHEAD = 256;
    /// What each update of a held datagram costs in max_held_bytes beyond its components.
    static constexpr size_t HELD_UPDATE_OVERHEAD = 96;
    /// Bytes of datagrams held for ticks not yet whole (8 MiB), each datagram counted at
    /// HELD_DATAGRAM_OVERHEAD, plus HELD_UPDATE_OVERHEAD an update, plus each component's length
    /// and COMPONENT_OVERHEAD; past it, as past max_held, the oldest tick held is given up.
    size_t max_held_bytes = size_t{8} << 20;
};

/// One entity as the client holds it.
struct Replica {
    /// The tick of the stream frame that spawned it (a spawn or a full frame).
    uint64_t spawn_tick = 0;
    /// Absolute position, in steps of the precision.
    int64_t position[3] = {0, 0, 0};
    /// Components by type: their bytes.
    std::map<uint8_t, std::vector<uint8_t>> components;
    /// The number of the last datagram applied to it; 0 before any.
    uint64_t last_datagram = 0;
};

/// What one datagram, or one stream frame, did to the table (the Rust DatagramSummary).
struct DatagramSummary {
    /// The datagram is held until its tick is whole.
    bool held = false;
    /// Datagrams applied during the call.
    uint32_t released = 0;
    /// Updates applied.
    uint32_t applied = 0;
    /// Updates skipped: their spawn tag is not the entity's.
    uint32_t skipped_spawn_tag = 0;
    /// Updates skipped: their datagram is not newer than the last applied to the entity.
    uint32_t skipped_stale = 0;
    /// Updates skipped: no entity has their id.
    uint32_t skipped_unknown = 0;
    /// Held datagrams given up for room.
    uint32_t given_up = 0;
    /// Stream frames refused, and entities of a full frame refused for the limits.
    uint32_t refused = 0;
    /// Updates skipped whole for max_component_bytes; their datagram is not acked.
    uint32_t skipped_over_bytes = 0;
};

/// The client's replica table (DG-17 to DG-23). Stream frames go to apply_* in the order the
/// reliable stream delivers them; datagrams to receive() as they arrive; the acks to send come out
/// of take_acks(). A datagram is acked when its updates have been applied (or skipped), never while
/// it is only held.
template <typename S>
class ReplicaTable {
public:
    /// An empty table with default limits.
    ReplicaTable() = default;

    /// An empty table with `limits`.
    explicit ReplicaTable(ReplicaLimits limits) : limits_(limits) {}

    /// The entities, by id.
    const std::map<uint64_t, Replica>& entities() const { return entities_; }
    /// The tick of the last stream frame applied (DG-10, DG-22).
    uint64_t stream_tick() const { return stream_tick_; }
    /// The input ack of the newest whole tick.
    uint64_t input_ack() const { return input_ack_; }
    /// Datagrams held for ticks that are not whole yet.
    size_t held() const { return held_count_; }
    /// What the held datagrams cost, as max_held_bytes counts them.
    size_t held_bytes() const { return held_bytes_; }
    /// The component bytes held, as max_component_bytes counts them.
    size_t component_bytes() const { return component_bytes_; }

    /// The acks to send, in order; a second call returns nothing new.
    std::vector<typename S::DatagramAck> take_acks() {
        std::vector<typename S::DatagramAck> out;
        out.swap(acks_);
        return out;
    }

    /// Applies a spawn, in stream order.
    DatagramSummary apply_spawn(const typename S::Spawn& f) {
        DatagramSummary s;
        if (!stream_order(f.tick, s)) {
            return s;
        }
        Replica r;
        r.spawn_tick = f.tick;
        r.position[0] = f.x;
        r.position[1] = f.y;
        r.position[2] = f.z;
        r.components = whole(f.components);
        if (!admit(f.id, std::move(r))) {
            detail::count(s.refused, 1);
        }
        release(s);
        return s;
    }

    /// Applies a despawn, in stream order.
    DatagramSummary apply_despawn(const typename S::Despawn& f) {
        DatagramSummary s;
        if (!stream_order(f.tick, s)) {
            return s;
        }
        auto gone = entities_.find(f.id);
        if (gone != entities_.end()) {
            component_bytes_ -= cost(gone->second.components);
            entities_.erase(gone);
        }
        release(s);
        return s;
    }

    /// Applies a full frame, in stream order. DG-17: a full frame replaces everything the client
    /// holds, and every entity in it counts as spawned at its tick.
    DatagramSummary apply_full_frame(const typename S::FullFrame& f) {
        DatagramSummary s;
        if (!stream_order(f.tick, s)) {
            return s;
        }
        entities_.clear();
        component_bytes_ = 0;
        for (const auto& e : f.entities) {
            Replica r;
            r.spawn_tick = f.tick;
            r.position[0] = e.x;
            r.position[1] = e.y;
            r.position[2] = e.z;
            r.components = whole(e.components);
            if (!admit(e.id, std::move(r))) {
                detail::count(s.refused, 1);
            }
        }
        release(s);
        return s;
    }

    /// Takes one datagram: applies it when its tick (or a later one) is whole, holds it
    /// otherwise, and applies whatever it makes whole.
    DatagramSummary receive(typename S::Datagram datagram) {
        DatagramSummary s;
        // DG-21: the client applies a tick's datagrams, and takes its input ack, when the tick or a
        // later one is whole. A later tick is whole already: apply now, once the stream frame it
        // names is in.
        if (whole_tick_ && datagram.tick <= *whole_tick_ && datagram.stream_tick <= stream_tick_) {
            apply(datagram, s);
            return s;
        }
        auto found = held_.find(datagram.tick);
        if (found == held_.end()) {
            HeldTick h;
            h.parts = datagram.parts;
            found = held_.emplace(datagram.tick, std::move(h)).first;
        }
        HeldTick& h = found->second;
        h.stream_tick = std::max(h.stream_tick, datagram.stream_tick);
        if (h.datagrams.find(datagram.frame) == h.datagrams.end()) {
            const uint64_t frame = datagram.frame;
            const size_t bytes = held_cost(datagram);
            h.datagrams.emplace(frame, std::move(datagram));
            h.bytes = detail::sat_add(h.bytes, bytes);
            held_bytes_ = detail::sat_add(held_bytes_, bytes);
            held_count_ += 1;
        }
        s.held = true;
        release(s);
        // ReplicaLimits::max_held and max_held_bytes: memory stays bounded whatever the server
        // sends; give up the oldest ticks held.
        while (!held_.empty() &&
            (held_count_ > limits_.max_held || held_bytes_ > limits_.max_held_bytes)) {
            auto oldest = held_.begin();
            held_count_ -= oldest->second.datagrams.size();
            held_bytes_ -= oldest->second.bytes;
            detail::count(s.given_up, oldest->second.datagrams.size());
            held_.erase(oldest);
        }
        return s;
    }

    /// The canonical bytes of the table, which the state hash is the FNV-1a of: u64
    /// stream_tick, u64 input_ack, u32 entity count, then per entity in ascending id u64 id, u64
    /// spawn_tick, i64 x, i64 y, i64 z, u32 component count, then per component in ascending
    /// type u8 type, u32 length, bytes; every integer little endian.
    std::vector<uint8_t> canonical_bytes() const {
        std::vector<uint8_t> out;
        put(out, stream_tick_, 8);
        put(out, input_ack_, 8);
        put(out, entities_.size(), 4);
        for (const auto& [id, e] : entities_) {
            put(out, id, 8);
            put(out, e.spawn_tick, 8);
            for (int64_t v : e.position) {
                put(out, static_cast<uint64_t>(v), 8);
            }
            put(out, e.components.size(), 4);
            for (const auto& [t, bytes] : e.components) {
                out.push_back(t);
                put(out, bytes.size(), 4);
                out.insert(out.end(), bytes.begin(), bytes.end());
            }
        }
        return out;
    }

    /// FNV-1a 32 of canonical_bytes().
    uint32_t state_hash() const {
        const std::vector<uint8_t> b = canonical_bytes();
        return rt::fnv1a32(b.data(), b.size());
    }

private:
    struct HeldTick {
        uint32_t parts = 0;
        uint64_t stream_tick = 0;
        std::map<uint64_t, typename S::Datagram> datagrams;
        /// What `datagrams` cost, as max_held_bytes counts them.
        size_t bytes = 0;
    };

    // What a held datagram costs in max_held_bytes (ReplicaLimits::max_held_bytes); saturating,
    // since the counts and lengths are the wire's.
    static size_t held_cost(const typename S::Datagram& d) {
        size_t sum = ReplicaLimits::HELD_DATAGRAM_OVERHEAD;
        for (const auto& u : d.updates) {
            sum = detail::sat_add(sum, ReplicaLimits::HELD_UPDATE_OVERHEAD);
            if (!u.components) {
                continue;
            }
            for (const auto& c : *u.components) {
                const size_t length = c.data ? c.data->size() : 0;
                const size_t cost = detail::sat_add(length, ReplicaLimits::COMPONENT_OVERHEAD);
                sum = detail::sat_add(sum, cost);
            }
        }
        return sum;
    }

    using Components = std::map<uint8_t, std::vector<uint8_t>>;

    static void put(std::vector<uint8_t>& out, uint64_t v, size_t bytes) {
        for (size_t i = 0; i < bytes; ++i) {
            out.push_back(static_cast<uint8_t>(v >> (8 * i)));
        }
    }

    // The stream is ordered; a frame from before the last one applied is not ours.
    bool stream_order(uint64_t tick, DatagramSummary& s) {
        if (tick < stream_tick_) {
            detail::count(s.refused, 1);
            return false;
        }
        stream_tick_ = tick;
        return true;
    }

    static size_t component_cost(const std::vector<uint8_t>& bytes) {
        return detail::sat_add(bytes.size(), ReplicaLimits::COMPONENT_OVERHEAD);
    }

    static size_t cost(const Components& components) {
        size_t sum = 0;
        for (const auto& c : components) {
            sum = detail::sat_add(sum, component_cost(c.second));
        }
        return sum;
    }

    // The table's component bytes once `changes` apply onto `components` (of two changes of
    // one type the later stands); nothing past SIZE_MAX.
    std::optional<size_t> cost_after(
        const Components& components, const std::vector<typename S::Component>& changes) const {
        std::map<uint8_t, size_t> after;
        for (const auto& c : changes) {
            after[c.type] = c.data ? component_cost(*c.data) : 0;
        }
        size_t sum = component_bytes_;
        for (const auto& [t, now] : after) {
            auto old = components.find(t);
            const size_t was = old == components.end() ? 0 : component_cost(old->second);
            if (sum < was) {
                return std::nullopt;
            }
            sum -= was;
            if (now > std::numeric_limits<size_t>::max() - sum) {
                return std::nullopt;
            }
            sum += now;
        }
        return sum;
    }

    // A spawn's or full frame's components: a removal in them means absent.
    static Components whole(const std::vector<typename S::Component>& components) {
        Components out;
        for (const auto& c : components) {
            if (c.data) {
                out.emplace(c.type, *c.data);
            }
        }
        return out;
    }

    // Holds `replica` under `id` (replacing the one there) when the limits allow it: an entity
    // more than max_entities, or components past max_component_bytes, are refused.
    bool admit(uint64_t id, Replica replica) {
        auto there = entities_.find(id);
        const size_t replaced = there == entities_.end() ? 0 : cost(there->second.components);
        if (there == entities_.end() && entities_.size() >= limits_.max_entities) {
            return false;
        }
        const size_t bytes =
            detail::sat_add(component_bytes_ - replaced, cost(replica.components));
        if (bytes > limits_.max_component_bytes) {
            return false;
        }
        component_bytes_ = bytes;
        entities_[id] = std::move(replica);
        return true;
    }

    // Applies every held tick up to the newest whole one. DG-21: a tick is whole when the client
    // holds all of its datagrams and the stream frame they name.
    void release(DatagramSummary& s) {
        std::optional<uint64_t> whole_at;
        for (auto it = held_.rbegin(); it != held_.rend(); ++it) {
            const HeldTick& h = it->second;
            const bool complete = static_cast<uint64_t>(h.datagrams.size()) >= uint64_t{h.parts} ||
                (whole_tick_ && it->first <= *whole_tick_);
            if (complete && h.stream_tick <= stream_tick_) {
                whole_at = it->first;
                break;
            }
        }
        if (!whole_at) {
            return;
        }
        const uint64_t whole_tick = *whole_at;
        // The tick is the wire's: UINT64_MAX is a tick like any other, above which nothing is
        // held (so no `whole + 1`).
        auto end = held_.upper_bound(whole_tick);
        std::map<uint64_t, HeldTick> ready(held_.begin(), end);
        held_.erase(held_.begin(), end);
        std::optional<uint64_t> newest_ack;
        for (auto& [tick, h] : ready) {
            held_count_ -= h.datagrams.size();
            held_bytes_ -= h.bytes;
            for (auto& [frame, d] : h.datagrams) {
                (void)frame;
                if (tick == whole_tick) {
                    newest_ack = newest_ack ? std::max(*newest_ack, d.input_ack) : d.input_ack;
                }
                apply(d, s);
            }
        }
        if (!whole_tick_ || whole_tick > *whole_tick_) {
            whole_tick_ = whole_tick;
            // DG-21: only then does the input ack describe the table.
            if (newest_ack) {
                input_ack_ = *newest_ack;
            }
        }
    }

    void apply(const typename S::Datagram& d, DatagramSummary& s) {
        detail::count(s.released, 1);
        // Several stream frames can share a tick, and the stream says nothing of how many: an
        // update for an entity spawned at the last stream tick that the table does not hold
        // (yet) means that tick's frames may still be coming. The ack then names the tick
        // before, all of whose frames are surely in, so it does not cover that entity.
        const uint16_t doubtful_tag = spawn_tag(stream_tick_);
        bool doubtful = false;
        // An update refused for room: the datagram is not acked, so its contents come again.
        bool refused = false;
        static const std::vector<typename S::Component> none;
        for (const auto& u : d.updates) {
            auto found = entities_.find(u.id);
            if (found == entities_.end()) {
                doubtful = doubtful || u.spawn_tag == doubtful_tag;
                detail::count(s.skipped_unknown, 1);
                continue;
            }
            Replica& e = found->second;
            // DG-18: an update lands only on the entity spawned at the tick its tag names, so a
            // stale datagram for an id respawned since, or built before a full frame, changes
            // nothing.
            if (u.spawn_tag != spawn_tag(e.spawn_tick)) {
                doubtful = doubtful || u.spawn_tag == doubtful_tag;
                detail::count(s.skipped_spawn_tag, 1);
                continue;
            }
            // DG-19: an update from a datagram not newer than the last one applied to its entity is
            // skipped.
            if (d.frame <= e.last_datagram) {
                detail::count(s.skipped_stale, 1);
                continue;
            }
            const auto& changes = u.components ? *u.components : none;
            const std::optional<size_t> bytes = cost_after(e.components, changes);
            if (!bytes || *bytes > limits_.max_component_bytes) {
                // ReplicaLimits::max_component_bytes: refused whole, before any of it applies.
                detail::count(s.skipped_over_bytes, 1);
                refused = true;
                continue;
            }
            component_bytes_ = *bytes;
            e.last_datagram = d.frame;
            const std::optional<int64_t>* axes[3] = {&u.x, &u.y, &u.z};
            for (size_t axis = 0; axis < 3; ++axis) {
                if (*axes[axis]) {
                    e.position[axis] = **axes[axis];
                }
            }
            for (const auto& c : changes) {
                if (c.data) {
                    e.components[c.type] = *c.data;
                } else {
                    e.components.erase(c.type);
                }
            }
            detail::count(s.applied, 1);
        }
        if (refused) {
            return;
        }
        // DG-22: the acknowledgement carries the datagram's number and the last stream tick
        // applied.
        typename S::DatagramAck ack;
        ack.frame = d.frame;
        ack.stream_tick = doubtful && stream_tick_ > 0 ? stream_tick_ - 1 : stream_tick_;
        acks_.push_back(ack);
    }

    std::map<uint64_t, Replica> entities_;
    uint64_t stream_tick_ = 0;
    uint64_t input_ack_ = 0;
    std::optional<uint64_t> whole_tick_;
    std::map<uint64_t, HeldTick> held_;
    size_t held_count_ = 0;
    size_t held_bytes_ = 0;
    std::vector<typename S::DatagramAck> acks_;
    size_t component_bytes_ = 0;
    ReplicaLimits limits_;
};

// ---- the server ----

/// How a Subscription builds its datagrams.
struct SubscriptionConfig {
    /// Metres per quantization step.
    float precision = 0.01f;
    /// The size limit a tick's datagrams are split under, in bytes.
    size_t max_datagram = 1200;
    /// Datagrams remembered for acks: an ack of a datagram older than this many is unknown.
    uint64_t sent_window = 1024;
};

/// One operation of the world on a tick.
struct WorldOp {
    /// Which operation.
    enum class Kind { spawn, despawn, move, set_component, remove_component, full_frame };
    /// Which operation.
    Kind kind = Kind::full_frame;
    /// The entity (all but full_frame).
    uint64_t id = 0;
    /// Metres (spawn, move).
    double position[3] = {0.0, 0.0, 0.0};
    /// A spawn's components, by type.
    std::vector<std::pair<uint8_t, std::vector<uint8_t>>> components;
    /// The component's type (set_component, remove_component).
    uint8_t type = 0;
    /// The component's bytes (set_component).
    std::vector<uint8_t> data;
};

/// What a datagram_ack did (the Rust AckSummary).
struct AckSummary {
    /// The ack named a datagram the subscription remembers.
    bool known = false;
    /// Entities the ack covered.
    uint32_t covered = 0;
    /// Entities it did not (respawned since, or acked before the stream frame of their spawn).
    uint32_t not_covered = 0;
};

/// The server's half of one client's subscription (`docs/spec/datagram.md`).
template <typename S>
class Subscription {
public:
    /// The frames one tick sends.
    struct TickOutput {
        /// Stream frames, reliable, in order: each a name and bytes.
        std::vector<std::pair<const char*, std::vector<uint8_t>>> stream;
        /// Datagrams, unreliable.
        std::vector<typename S::Datagram> datagrams;
    };

    /// A subscription with nothing in it.
    explicit Subscription(SubscriptionConfig config) : config_(config) {}

    /// The tick of the last stream frame sent.
    uint64_t stream_tick() const { return stream_tick_; }

    /// Datagrams remembered for acks (at most sent_window).
    size_t remembered() const { return sent_.size(); }

    /// Takes one tick of the world: `ops` in order, the shard's `input_ack`. Ticks must ascend.
    rt::Result<TickOutput, session::SessionError> tick(
        uint64_t tick, uint64_t input_ack, const std::vector<WorldOp>& ops) {
        using session::SessionError;
        if (last_tick_ && tick <= *last_tick_) {
            return world_error("tick " + std::to_string(tick) + " is not after the last tick " +
                std::to_string(*last_tick_));
        }
        // Spawn frames are kept as values until the end of the ops: a despawn in the same
        // tick takes its spawn back.
        struct Stream {
            bool spawn = false;
            typename S::Spawn s;
            typename S::Despawn d;
        };
        std::vector<Stream> stream;
        bool full = false;
        // The first datagram that can carry a change made now.
        const uint64_t carrier = next_frame_;
        for (const WorldOp& op : ops) {
            switch (op.kind) {
                case WorldOp::Kind::spawn: {
                    if (entities_.count(op.id) != 0) {
                        return world_error(
                            "entity " + std::to_string(op.id) + " is already spawned");
                    }
                    Tracked t;
                    t.spawn_tick = tick;
                    for (size_t i = 0; i < 3; ++i) {
                        t.position[i] = quantize(op.position[i], config_.precision);
                    }
                    for (const auto& [type, bytes] : op.components) {
                        t.components[type] = Change{bytes, 0};
                    }
                    // The spawn frame carries its state; nothing built before it counts.
                    t.acked_frame = carrier - 1;
                    Stream f;
                    f.spawn = true;
                    f.s.tick = tick;
                    f.s.id = op.id;
                    f.s.precision = config_.precision;
                    f.s.x = t.position[0];
                    f.s.y = t.position[1];
                    f.s.z = t.position[2];
                    f.s.components = wire_components(t.components);
                    stream.push_back(std::move(f));
                    entities_.emplace(op.id, std::move(t));
                    break;
                }
                case WorldOp::Kind::despawn: {
                    auto e = entities_.find(op.id);
                    if (e == entities_.end()) {
                        return world_error("entity " + std::to_string(op.id) + " is not spawned");
                    }
                    const bool same_tick = e->second.spawn_tick == tick;
                    entities_.erase(e);
                    if (same_tick) {
                        // Spawned and despawned within this tick: the client never sees it. Two
                        // occupants of one id spawned in one tick would share a spawn tag.
                        const uint64_t gone = op.id;
                        auto taken_back = [gone](const Stream& f) {
                            return f.spawn && f.s.id == gone;
                        };
                        stream.erase(
                            std::remove_if(stream.begin(), stream.end(), taken_back),
                            stream.end());
                    } else {
                        Stream f;
                        f.d.tick = tick;
                        f.d.id = op.id;
                        stream.push_back(std::move(f));
                    }
                    break;
                }
                case WorldOp::Kind::move: {
                    auto e = entities_.find(op.id);
                    if (e == entities_.end()) {
                        return world_error("entity " + std::to_string(op.id) + " is not spawned");
                    }
                    for (size_t i = 0; i < 3; ++i) {
                        const int64_t q = quantize(op.position[i], config_.precision);
                        if (e->second.position[i] != q) {
                            e->second.position[i] = q;
                            e->second.position_changed[i] = carrier;
                        }
                    }
                    break;
                }
                case WorldOp::Kind::set_component: {
                    auto e = entities_.find(op.id);
                    if (e == entities_.end()) {
                        return world_error("entity " + std::to_string(op.id) + " is not spawned");
                    }
                    auto c = e->second.components.find(op.type);
                    const bool same = c != e->second.components.end() && c->second.data &&
                        *c->second.data == op.data;
                    if (!same) {
                        e->second.components[op.type] = Change{op.data, carrier};
                    }
                    break;
                }
                case WorldOp::Kind::remove_component: {
                    auto e = entities_.find(op.id);
                    if (e == entities_.end()) {
                        return world_error("entity " + std::to_string(op.id) + " is not spawned");
                    }
                    auto c = e->second.components.find(op.type);
                    if (c != e->second.components.end() && c->second.data) {
                        c->second.data.reset();
                        c->second.changed = carrier;
                    }
                    break;
                }
                case WorldOp::Kind::full_frame:
                    full = true;
                    break;
            }
        }
        last_tick_ = tick;
        if (!stream.empty()) {
            stream_tick_ = tick;
        }
        TickOutput out;
        if (full) {
            // A full frame replaces everything the client holds: the tick's other stream frames
            // are in it, and no datagram is sent this tick.
            typename S::FullFrame f;
            f.tick = tick;
            f.precision = config_.precision;
            for (auto& [id, e] : entities_) {
                for (auto c = e.components.begin(); c != e.components.end();) {
                    c = c->second.data ? std::next(c) : e.components.erase(c);
                }
                for (auto& c : e.components) {
                    c.second.changed = 0;
                }
                e.position_changed[0] = e.position_changed[1] = e.position_changed[2] = 0;
                e.spawn_tick = tick;
                e.acked_frame = next_frame_ - 1;
                typename S::FullEntity fe;
                fe.id = id;
                fe.x = e.position[0];
                fe.y = e.position[1];
                fe.z = e.position[2];
                fe.components = wire_components(e.components);
                f.entities.push_back(std::move(fe));
            }
            auto bytes = S::to_bytes(f);
            if (!bytes) {
                return encode_error(bytes.error());
            }
            out.stream.emplace_back(S::FULL_FRAME, std::move(bytes).value());
            stream_tick_ = tick;
            return out;
        }
        for (const Stream& f : stream) {
            auto bytes = f.spawn ? S::to_bytes(f.s) : S::to_bytes(f.d);
            if (!bytes) {
                return encode_error(bytes.error());
            }
            out.stream.emplace_back(f.spawn ? S::SPAWN : S::DESPAWN, std::move(bytes).value());
        }
        std::vector<typename S::Update> updates;
        for (const auto& [id, e] : entities_) {
            // DG-14: whatever changed since the entity's last acknowledged state is sent again
            // until an acknowledgement covers it.
            std::optional<int64_t> axes[3];
            for (size_t i = 0; i < 3; ++i) {
                if (e.position_changed[i] > e.acked_frame) {
                    axes[i] = e.position[i];
                }
            }
            std::vector<typename S::Component> comps;
            for (const auto& [type, c] : e.components) {
                if (c.changed > e.acked_frame) {
                    typename S::Component w;
                    w.type = type;
                    w.data = c.data;
                    comps.push_back(std::move(w));
                }
            }
            std::optional<std::vector<typename S::Component>> carried;
            if (!comps.empty()) {
                carried = std::move(comps);
            }
            auto update = entry<S>(id, e.spawn_tick, axes, std::move(carried));
            if (update.mask.bits == 0) {
                continue;
            }
            updates.push_back(std::move(update));
        }
        DatagramHeader header;
        header.frame = next_frame_;
        header.tick = tick;
        header.input_ack = input_ack;
        header.stream_tick = stream_tick_;
        header.precision = config_.precision;
        header.parts = 1;
        // DG-11: a tick without a full frame sends one datagram or more.
        auto datagrams = split_tick<S>(header, std::move(updates), config_.max_datagram);
        if (!datagrams) {
            return world_error(datagrams.error().message);
        }
        for (const auto& d : datagrams.value()) {
            std::vector<std::pair<uint64_t, uint64_t>> carried;
            for (const auto& u : d.updates) {
                auto e = entities_.find(u.id);
                if (e != entities_.end()) {
                    carried.emplace_back(u.id, e->second.spawn_tick);
                }
            }
            sent_[d.frame] = std::move(carried);
        }
        next_frame_ += datagrams.value().size();
        const uint64_t oldest =
            next_frame_ > config_.sent_window ? next_frame_ - config_.sent_window : 0;
        sent_.erase(sent_.begin(), sent_.lower_bound(oldest));
        out.datagrams = std::move(datagrams).value();
        return out;
    }

    /// Folds one of the client's acks.
    AckSummary on_ack(const typename S::DatagramAck& ack) {
        AckSummary s;
        // An ack naming a stream frame never sent is not from our client.
        if (ack.stream_tick > stream_tick_) {
            return s;
        }
        auto carried = sent_.find(ack.frame);
        if (carried == sent_.end()) {
            return s;
        }
        s.known = true;
        for (const auto& [id, spawned] : carried->second) {
            auto found = entities_.find(id);
            if (found == entities_.end()) {
                s.not_covered += 1;
                continue;
            }
            Tracked& e = found->second;
            // DG-15: an acknowledgement covers an entity only when its stream tick is at or after
            // the entity's spawn. The update must also be for this occupant of the id, not one
            // despawned since.
            if (e.spawn_tick != spawned || ack.stream_tick < e.spawn_tick) {
                s.not_covered += 1;
                continue;
            }
            s.covered += 1;
            // A late ack never moves the acknowledged state back.
            e.acked_frame = std::max(e.acked_frame, ack.frame);
            const uint64_t acked = e.acked_frame;
            for (auto c = e.components.begin(); c != e.components.end();) {
                const bool keep = c->second.data || c->second.changed > acked;
                c = keep ? std::next(c) : e.components.erase(c);
            }
        }
        return s;
    }

private:
    struct Change {
        std::optional<std::vector<uint8_t>> data;
        uint64_t changed = 0;
    };

    struct Tracked {
        uint64_t spawn_tick = 0;
        int64_t position[3] = {0, 0, 0};
        uint64_t position_changed[3] = {0, 0, 0};
        std::map<uint8_t, Change> components;
        uint64_t acked_frame = 0;
    };

    static session::SessionError world_error(std::string message) {
        return session::SessionError{session::SessionError::Kind::world, std::move(message), {}};
    }

    static session::SessionError encode_error(const rt::EncodeError& e) {
        return session::SessionError{session::SessionError::Kind::encode, e.message(), {}};
    }

    static std::vector<typename S::Component> wire_components(const std::map<uint8_t, Change>& c) {
        std::vector<typename S::Component> out;
        for (const auto& [type, change] : c) {
            if (change.data) {
                typename S::Component w;
                w.type = type;
                w.data = change.data;
                out.push_back(std::move(w));
            }
        }
        return out;
    }

    SubscriptionConfig config_;
    std::map<uint64_t, Tracked> entities_;
    uint64_t next_frame_ = 1;
    uint64_t stream_tick_ = 0;
    std::optional<uint64_t> last_tick_;
    std::map<uint64_t, std::vector<std::pair<uint64_t, uint64_t>>> sent_;
};

// ---- the session halves ----

namespace detail {

inline session::SessionError decode_error(const rt::DecodeError& e) {
    return session::SessionError{session::SessionError::Kind::decode, e.message(), e};
}

}  // namespace detail

/// The server's half of datagram v2: a Subscription. A tick takes the shard's input ack and the
/// world's ops; stream frames go reliable, datagrams unreliable. A frame is a `datagram_ack`.
template <typename S>
class DatagramServer {
public:
    /// The half over a subscription of `config`.
    explicit DatagramServer(SubscriptionConfig config) : sub_(config) {}

    /// The machine.
    Subscription<S>& machine() { return sub_; }

    /// Takes the client's `datagram_ack`.
    session::Result<AckSummary> handle_frame(
        session::Now, const std::string& frame, const std::vector<uint8_t>& bytes) {
        if (auto e = session::expect_frame(frame, S::DATAGRAM_ACK)) {
            return *e;
        }
        auto ack = S::decode_datagram_ack(bytes.data(), bytes.size());
        if (!ack) {
            return detail::decode_error(ack.error());
        }
        return sub_.on_ack(ack.value());
    }

    /// A tick passes (`now.tick`) and the world does `ops`.
    session::Result<session::Unit> handle_tick(
        session::Now now, uint64_t input_ack, const std::vector<WorldOp>& ops) {
        auto out = sub_.tick(now.tick, input_ack, ops);
        if (!out) {
            return out.error();
        }
        for (auto& [name, bytes] : out.value().stream) {
            out_.push(session::Transmit{name, std::move(bytes), true});
        }
        for (const auto& d : out.value().datagrams) {
            auto bytes = S::to_bytes(d);
            if (!bytes) {
                return session::SessionError{
                    session::SessionError::Kind::encode, bytes.error().message(), {}};
            }
            out_.push(session::Transmit{S::DATAGRAM, std::move(bytes).value(), false});
        }
        return session::Unit{};
    }

    /// The next frame to send, or nothing.
    std::optional<session::Transmit> poll_transmit() { return out_.poll(); }

private:
    Subscription<S> sub_;
    session::Outbox out_;
};

/// The client's half of datagram v2: a ReplicaTable. A frame is a `datagram` or a stream frame
/// (`spawn`, `despawn`, `full_frame`); its `datagram_ack`s are polled (unreliable, at most
/// MAX_QUEUED held).
template <typename S>
class DatagramClient {
public:
    /// The half over a table of `limits`.
    explicit DatagramClient(ReplicaLimits limits) : table_(limits) {}

    /// The machine.
    const ReplicaTable<S>& machine() const { return table_; }

    /// Takes one frame from the server.
    session::Result<DatagramSummary> handle_frame(
        session::Now, const std::string& frame, const std::vector<uint8_t>& bytes) {
        DatagramSummary summary;
        if (frame == S::DATAGRAM) {
            auto d = S::decode_datagram(bytes.data(), bytes.size());
            if (!d) {
                return detail::decode_error(d.error());
            }
            summary = table_.receive(std::move(d).value());
        } else if (frame == S::SPAWN) {
            auto f = S::decode_spawn(bytes.data(), bytes.size());
            if (!f) {
                return detail::decode_error(f.error());
            }
            summary = table_.apply_spawn(f.value());
        } else if (frame == S::DESPAWN) {
            auto f = S::decode_despawn(bytes.data(), bytes.size());
            if (!f) {
                return detail::decode_error(f.error());
            }
            summary = table_.apply_despawn(f.value());
        } else if (frame == S::FULL_FRAME) {
            auto f = S::decode_full_frame(bytes.data(), bytes.size());
            if (!f) {
                return detail::decode_error(f.error());
            }
            summary = table_.apply_full_frame(f.value());
        } else {
            return session::SessionError{session::SessionError::Kind::unexpected_frame,
                "unexpected frame `" + frame + "`", {}};
        }
        for (const auto& a : table_.take_acks()) {
            auto b = S::to_bytes(a);
            if (!b) {
                return session::SessionError{
                    session::SessionError::Kind::encode, b.error().message(), {}};
            }
            out_.push(session::Transmit{S::DATAGRAM_ACK, std::move(b).value(), false});
        }
        return summary;
    }

    /// The next frame to send, or nothing.
    std::optional<session::Transmit> poll_transmit() { return out_.poll(); }

private:
    ReplicaTable<S> table_;
    session::Outbox out_;
};

}  // namespace datagram
}  // namespace ackwire
