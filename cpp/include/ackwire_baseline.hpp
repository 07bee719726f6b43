// NetBaseline snapshots (`docs/spec/baseline.md`), both halves, sans-IO, as the Rust codec's
// codec/src/baseline/: the server's SnapshotWriter writes one connection's snapshots under a byte
// budget from a Scene and folds their acknowledgements into its NetBaseline; the client's
// SnapshotClient applies snapshots and acknowledges each one it applies.
//
// NB-7: a component goes in full when its encoded bits are not the confirmed ones; what changes is
// presence, never values, so each entry reads from its packet alone. gatherLost: "Reported until
// confirmed, which makes destruction reliable."
//
// Generic over a schema `S` (the reference protocol's is protocol::ReferenceBaseline, which
// `ackwire gen` writes into reference_baseline.hpp from its `schema` declaration):
//   COMPONENT_TYPES, ACK_WINDOW, MAX_LOST_PER_SNAPSHOT;
//   types Value (one component's value), Snapshot (sequence; body.lost of EntityRef {slot,
//   generation}; body.entries of Entry), EntityRef, Entry, SnapshotAck (sequence);
//   index(value), bits(value) -> rt::Result<bytes, rt::EncodeError>, bit_len(value);
//   make_entry(gap, generation, values) (values: an array of COMPONENT_TYPES `const Value*`,
//   null for a component not sent), entry_gap(entry), entry_generation(entry) and
//   entry_values(entry) (an array of COMPONENT_TYPES std::optional<Value>);
//   SNAPSHOT, SNAPSHOT_ACK (frame names); decode_snapshot, decode_snapshot_ack, to_bytes.

#pragma once

#include "ackwire_session.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace ackwire {
namespace baseline {

/// Whether sequence `a` is newer than `b` under wrapping u16 arithmetic.
inline bool sequence_newer(uint16_t a, uint16_t b) {
    const auto d = static_cast<uint16_t>(a - b);
    return d != 0 && d < 0x8000u;
}

/// An entity by slot and generation: never by slot alone, since a slot can be reused.
struct EntityId {
    /// The slot (24 bits on the wire).
    uint32_t slot = 0;
    /// The occupant's generation.
    uint8_t generation = 0;

    friend bool operator==(EntityId a, EntityId b) {
        return a.slot == b.slot && a.generation == b.generation;
    }
    friend bool operator<(EntityId a, EntityId b) {
        return a.slot != b.slot ? a.slot < b.slot : a.generation < b.generation;
    }
};

/// The world a connection replicates: entities by slot and generation, each with at most one
/// value of each component type and that value's encoded bits.
template <typename S>
class Scene {
public:
    /// One entity.
    struct Entity {
        /// The occupant's generation.
        uint8_t generation = 0;
        /// The client that owns it, whose entities go first under the budget.
        std::optional<uint32_t> owner;
        /// Each component type's value and its bits, as the snapshot body encodes them.
        std::array<std::optional<std::pair<typename S::Value, std::vector<uint8_t>>>,
            S::COMPONENT_TYPES>
            components;
    };

    /// A new occupant of its slot, replacing any; a slot past 24 bits is refused.
    std::optional<std::string> spawn(EntityId entity, std::optional<uint32_t> owner) {
        if (entity.slot >= (uint32_t{1} << 24)) {
            return "slot " + std::to_string(entity.slot) + " does not fit 24 bits";
        }
        Entity e;
        e.generation = entity.generation;
        e.owner = owner;
        entities_[entity.slot] = std::move(e);
        return std::nullopt;
    }

    /// The slot's occupant is destroyed.
    void despawn(uint32_t slot) { entities_.erase(slot); }

    /// Sets a component of the slot's occupant.
    std::optional<std::string> set(uint32_t slot, typename S::Value value) {
        auto bits = S::bits(value);
        if (!bits) {
            return "the component does not encode: " + bits.error().message();
        }
        auto found = entities_.find(slot);
        if (found == entities_.end()) {
            return "slot " + std::to_string(slot) + " is empty";
        }
        const size_t i = S::index(value);
        found->second.components[i] = std::make_pair(std::move(value), std::move(bits).value());
        return std::nullopt;
    }

    /// Whether `entity` (this slot with this generation) is alive.
    bool alive(EntityId entity) const {
        auto found = entities_.find(entity.slot);
        return found != entities_.end() && found->second.generation == entity.generation;
    }

    /// The entities by slot.
    const std::map<uint32_t, Entity>& entities() const { return entities_; }

private:
    std::map<uint32_t, Entity> entities_;
};

/// What a snapshot said of one connection, held until it is confirmed or leaves the window.
struct Pending {
    /// The snapshot's sequence.
    uint16_t sequence = 0;
    /// The entities it reported lost.
    std::vector<EntityId> lost;
    /// The components it carried: entity, type, bits.
    std::vector<std::tuple<EntityId, size_t, std::vector<uint8_t>>> entries;
};

/// What one connection is known to hold (NB-7 to NB-11).
template <typename S>
class NetBaseline {
public:
    /// A component's bits as confirmed, and the snapshot that confirmed them.
    struct Confirmed {
        /// The bits.
        std::vector<uint8_t> bits;
        /// The confirming snapshot's sequence.
        uint16_t sequence = 0;
        /// That sequence extended past the u16 wrap.
        uint64_t extended = 0;
    };

    /// What is confirmed of `entity`'s component `type`.
    const Confirmed* find(EntityId entity, size_t type) const {
        auto r = records_.find(entity);
        if (r == records_.end() || type >= S::COMPONENT_TYPES || !r->second[type]) {
            return nullptr;
        }
        return &*r->second[type];
    }

    /// Holds what a snapshot said until it is confirmed.
    void hold(Pending pending) {
        const uint64_t extended = extend(pending.sequence);
        newest_ = newest_ ? std::max(*newest_, extended) : extended;
        for (const auto& entry : pending.entries) {
            // Told about while alive: an occupant found dead that is alive again (its slot's
            // generation wrapped) is a live entity once more.
            lost_.erase(std::get<0>(entry));
            records_[std::get<0>(entry)];
        }
        auto same = [extended](const auto& p) { return p.first == extended; };
        pending_.erase(std::remove_if(pending_.begin(), pending_.end(), same), pending_.end());
        pending_.emplace_back(extended, std::move(pending));
        drop_outside_window();
    }

    /// The client confirmed snapshot `sequence`.
    void confirm(uint16_t sequence) {
        const uint64_t extended = extend(sequence);
        auto it = std::find_if(pending_.begin(), pending_.end(),
            [extended](const auto& p) { return p.first == extended; });
        if (it == pending_.end()) {
            return;
        }
        Pending pending = std::move(it->second);
        pending_.erase(it);
        for (auto& [entity, type, bits] : pending.entries) {
            auto r = records_.find(entity);
            if (r == records_.end() || type >= S::COMPONENT_TYPES) {
                // It died since, or its loss was confirmed since.
                continue;
            }
            auto& slot = r->second[type];
            // NB-9: a component is folded only when its snapshot is newer than what is confirmed,
            // so a late acknowledgement cannot write stale bits over fresh ones.
            if (!slot || slot->extended < extended) {
                slot = Confirmed{std::move(bits), sequence, extended};
            }
        }
        // The client removed them: forget them, so they are no longer reported.
        for (const EntityId& e : pending.lost) {
            lost_.erase(e);
        }
    }

    /// Snapshot `sequence` was written: what falls out of the ack window expires.
    void expire(uint16_t sequence) {
        const uint64_t extended = extend(sequence);
        newest_ = newest_ ? std::max(*newest_, extended) : extended;
        drop_outside_window();
    }

    /// Moves the told entities that died into the lost set, and appends to `out` at most
    /// `at_most` of the lost ones, ascending.
    void gather_lost(const Scene<S>& scene, size_t at_most, std::vector<EntityId>& out) {
        uint64_t examined = 0;
        for (auto it = records_.begin(); it != records_.end();) {
            examined += 1;
            if (scene.alive(it->first)) {
                ++it;
            } else {
                lost_.insert(it->first);
                it = records_.erase(it);
            }
        }
        size_t taken = 0;
        std::vector<EntityId> alive_again;
        for (const EntityId& e : lost_) {
            if (taken == at_most) {
                break;
            }
            examined += 1;
            // By entity: the same slot and generation alive again (a wrapped generation) is not
            // lost, and is a live entity from now on.
            if (scene.alive(e)) {
                alive_again.push_back(e);
            } else {
                out.push_back(e);
                taken += 1;
            }
        }
        for (const EntityId& e : alive_again) {
            lost_.erase(e);
            records_[e] = Record{};
        }
        examined_ = examined_ > UINT64_MAX - examined ? UINT64_MAX : examined_ + examined;
    }

    /// Forgets everything (NB-13: for a world replaced under a live session).
    void clear() {
        records_.clear();
        lost_.clear();
        pending_.clear();
    }

    /// Snapshots sent and not yet confirmed.
    size_t pending() const { return pending_.size(); }
    /// Entities the client was told about.
    size_t told() const { return records_.size() + lost_.size(); }
    /// Entities owed as lost.
    size_t owed_lost() const { return lost_.size(); }

private:
    using Record = std::array<std::optional<Confirmed>, S::COMPONENT_TYPES>;

    uint64_t extend(uint16_t sequence) const {
        if (!newest_) {
            return (uint64_t{1} << 40) | sequence;
        }
        const auto delta = static_cast<int16_t>(static_cast<uint16_t>(sequence - *newest_));
        return *newest_ + static_cast<uint64_t>(static_cast<int64_t>(delta));
    }

    void drop_outside_window() {
        if (!newest_) {
            return;
        }
        const uint64_t newest = *newest_;
        std::deque<std::pair<uint64_t, Pending>> keep;
        for (auto& [extended, pending] : pending_) {
            if (extended <= newest && newest - extended <= uint64_t{S::ACK_WINDOW}) {
                keep.emplace_back(extended, std::move(pending));
                continue;
            }
            // The client may have applied what the snapshot said: what is confirmed older than
            // it no longer describes the client, so it is forgotten and said again.
            for (const auto& entry : pending.entries) {
                auto r = records_.find(std::get<0>(entry));
                if (r == records_.end() || std::get<1>(entry) >= S::COMPONENT_TYPES) {
                    continue;
                }
                auto& slot = r->second[std::get<1>(entry)];
                if (slot && slot->extended < extended) {
                    slot.reset();
                }
            }
        }
        pending_ = std::move(keep);
    }

    std::map<EntityId, Record> records_;
    std::set<EntityId> lost_;
    std::deque<std::pair<uint64_t, Pending>> pending_;
    std::optional<uint64_t> newest_;
    uint64_t examined_ = 0;
};

/// What a SnapshotWriter's connection may be owed (the Rust BaselineLimits).
struct BaselineLimits {
    /// Lost entities owed at most (65,536). Past it the connection is stalled (a `limit` error)
    /// rather than given a clean slate: forgetting what is owed would be a lie to the client
    /// (NB-14).
    size_t max_owed_lost = size_t{1} << 16;
};

/// The server's half of one connection: writes its snapshots under a byte budget and folds
/// its acknowledgements.
template <typename S>
class SnapshotWriter {
public:
    /// A writer for client `client`, snapshots of at most `budget` bytes, the first numbered
    /// `first_sequence`.
    SnapshotWriter(std::optional<uint32_t> client, size_t budget, uint16_t first_sequence,
        BaselineLimits limits = BaselineLimits{})
        : next_sequence_(first_sequence), budget_(budget), client_(client), limits_(limits) {}

    /// What the connection is known to hold.
    const NetBaseline<S>& baseline() const { return baseline_; }

    /// Folds the client's acknowledgement.
    void on_ack(const typename S::SnapshotAck& ack) { baseline_.confirm(ack.sequence); }

    /// The world was replaced under the live session: forget everything held (NB-13). A clean slate
    /// only when the client drops its table at the same point (SnapshotClient::replace_world with
    /// this writer's next sequence), never a way out of a stall on its own.
    void replace_world() {
        baseline_.clear();
        unconfirmed_since_.clear();
    }

    /// The sequence the next snapshot takes.
    uint16_t next_sequence() const { return next_sequence_; }

    /// The next snapshot of `scene`.
    session::Result<typename S::Snapshot> write(const Scene<S>& scene) {
        constexpr size_t HEADER_BYTES = 3;
        constexpr size_t COUNT_BITS = 7 + 16;
        constexpr size_t ENTRY_HEAD_BITS = 1 + 24 + 8 + 4;
        const uint16_t sequence = next_sequence_;
        const size_t budget_bits = (budget_ > HEADER_BYTES ? budget_ - HEADER_BYTES : 0) * 8;
        size_t used = COUNT_BITS;
        const size_t fit = (budget_bits > used ? budget_bits - used : 0) / 32;
        std::vector<EntityId> lost;
        baseline_.gather_lost(
            scene, std::min<size_t>(fit, size_t{S::MAX_LOST_PER_SNAPSHOT}), lost);
        const size_t owed = baseline_.owed_lost();
        // NB-11: a lost entity is named until the client confirms a snapshot that named it, so
        // destruction is reliable. What is owed is never dropped to make room, so past the limit
        // the connection stalls.
        if (owed > limits_.max_owed_lost) {
            return session::SessionError{session::SessionError::Kind::limit,
                "connection stalled at snapshot " + std::to_string(sequence) + ": it owes " +
                    std::to_string(owed) + " lost entities, past the limit of " +
                    std::to_string(limits_.max_owed_lost),
                {}};
        }
        next_sequence_ = static_cast<uint16_t>(next_sequence_ + 1u);
        written_ += 1;
        baseline_.expire(sequence);
        used += lost.size() * 32;

        // Candidates: every live entity with a component that differs from what is confirmed.
        struct Candidate {
            EntityId entity;
            bool owned = false;
            uint64_t since = 0;
            std::vector<const typename S::Value*> values;
            std::vector<const std::vector<uint8_t>*> bits;
        };
        std::vector<Candidate> candidates;
        std::map<EntityId, uint64_t> still;
        for (const auto& [slot, e] : scene.entities()) {
            const EntityId entity{slot, e.generation};
            Candidate c;
            c.entity = entity;
            for (size_t t = 0; t < S::COMPONENT_TYPES; ++t) {
                if (!e.components[t]) {
                    continue;
                }
                // By entity, never by slot (find's guard).
                const auto* held = baseline_.find(entity, t);
                if (held == nullptr || held->bits != e.components[t]->second) {
                    c.values.push_back(&e.components[t]->first);
                    c.bits.push_back(&e.components[t]->second);
                }
            }
            if (c.values.empty()) {
                continue;
            }
            auto since = unconfirmed_since_.find(entity);
            c.since = since == unconfirmed_since_.end() ? written_ : since->second;
            still[entity] = c.since;
            c.owned = client_.has_value() && e.owner == client_;
            candidates.push_back(std::move(c));
        }
        unconfirmed_since_ = std::move(still);
        std::stable_sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) {
                if (a.owned != b.owned) {
                    return a.owned;
                }
                if (a.since != b.since) {
                    return a.since < b.since;
                }
                return a.entity.slot < b.entity.slot;
            });

        std::vector<Candidate*> chosen;
        for (Candidate& c : candidates) {
            size_t bits = ENTRY_HEAD_BITS;
            for (const auto* v : c.values) {
                bits += S::bit_len(*v);
            }
            if (used + bits > budget_bits || chosen.size() == size_t{0xFFFF}) {
                continue;
            }
            used += bits;
            chosen.push_back(&c);
        }
        std::sort(chosen.begin(), chosen.end(),
            [](const Candidate* a, const Candidate* b) { return a->entity.slot < b->entity.slot; });

        typename S::Snapshot snapshot;
        snapshot.sequence = sequence;
        Pending pending;
        pending.sequence = sequence;
        std::optional<uint32_t> prev;
        for (const Candidate* c : chosen) {
            const uint32_t gap = prev ? c->entity.slot - *prev - 1 : c->entity.slot;
            prev = c->entity.slot;
            std::array<const typename S::Value*, S::COMPONENT_TYPES> values{};
            for (size_t i = 0; i < c->values.size(); ++i) {
                const size_t t = S::index(*c->values[i]);
                values[t] = c->values[i];
                pending.entries.emplace_back(c->entity, t, *c->bits[i]);
            }
            snapshot.body.entries.push_back(S::make_entry(gap, c->entity.generation, values));
        }
        for (const EntityId& e : lost) {
            typename S::EntityRef r;
            r.slot = e.slot;
            r.generation = e.generation;
            snapshot.body.lost.push_back(r);
        }
        pending.lost = std::move(lost);
        baseline_.hold(std::move(pending));
        return snapshot;
    }

private:
    NetBaseline<S> baseline_;
    uint16_t next_sequence_;
    size_t budget_;
    std::optional<uint32_t> client_;
    std::map<EntityId, uint64_t> unconfirmed_since_;
    uint64_t written_ = 0;
    BaselineLimits limits_;
};

/// What one snapshot did to the client (the Rust SnapshotSummary).
struct SnapshotSummary {
    /// The snapshot was applied.
    bool applied = false;
    /// It was not newer than the last applied.
    bool stale = false;
    /// A slot ran past 24 bits.
    bool malformed = false;
    /// Lost entities removed.
    uint32_t removed = 0;
    /// Lost entities the client did not hold (another occupant, or none).
    uint32_t not_ours = 0;
    /// Entities created.
    uint32_t created = 0;
    /// Entities updated.
    uint32_t updated = 0;
    /// Entities refused past the client's limit.
    uint32_t refused = 0;
};

/// The client's half: applies snapshots and acknowledges each one applied. At most
/// `max_entities` are held; an entity beyond is refused (counted, never held).
template <typename S>
class SnapshotClient {
public:
    /// One entity as the client holds it.
    struct Entity {
        /// The occupant's generation.
        uint8_t generation = 0;
        /// Its components.
        std::array<std::optional<typename S::Value>, S::COMPONENT_TYPES> components;
    };

    /// A client holding at most `max_entities`.
    explicit SnapshotClient(size_t max_entities) : max_entities_(max_entities) {}

    /// The entities by slot.
    const std::map<uint32_t, Entity>& entities() const { return entities_; }

    /// The acks to send; a second call returns nothing new.
    std::vector<typename S::SnapshotAck> take_acks() {
        std::vector<typename S::SnapshotAck> out;
        out.swap(acks_);
        return out;
    }

    /// The world was replaced: drop the table and every snapshot before `first_sequence`, the
    /// first written of the new world.
    void replace_world(uint16_t first_sequence) {
        entities_.clear();
        last_ = static_cast<uint16_t>(first_sequence - 1u);
    }

    /// Applies one snapshot.
    SnapshotSummary receive(const typename S::Snapshot& snapshot) {
        SnapshotSummary s;
        if (last_ && !sequence_newer(snapshot.sequence, *last_)) {
            s.stale = true;
            return s;
        }
        // The slots first, so that a malformed snapshot changes nothing.
        std::vector<uint32_t> slots;
        slots.reserve(snapshot.body.entries.size());
        std::optional<uint32_t> prev;
        for (const auto& e : snapshot.body.entries) {
            const uint32_t gap = S::entry_gap(e);
            uint64_t slot = prev ? uint64_t{*prev} + gap + 1 : uint64_t{gap};
            if (slot >= (uint64_t{1} << 24)) {
                s.malformed = true;
                return s;
            }
            prev = static_cast<uint32_t>(slot);
            slots.push_back(static_cast<uint32_t>(slot));
        }
        for (const auto& lost : snapshot.body.lost) {
            // By entity: only the occupant named goes.
            auto found = entities_.find(lost.slot);
            if (found != entities_.end() && found->second.generation == lost.generation) {
                entities_.erase(found);
                s.removed += 1;
            } else {
                s.not_ours += 1;
            }
        }
        for (size_t i = 0; i < slots.size(); ++i) {
            const auto& e = snapshot.body.entries[i];
            Entity incoming;
            incoming.generation = S::entry_generation(e);
            incoming.components = S::entry_values(e);
            auto found = entities_.find(slots[i]);
            if (found != entities_.end() && found->second.generation == incoming.generation) {
                for (size_t t = 0; t < S::COMPONENT_TYPES; ++t) {
                    if (incoming.components[t]) {
                        found->second.components[t] = std::move(incoming.components[t]);
                    }
                }
                s.updated += 1;
                continue;
            }
            if (found == entities_.end() && entities_.size() >= max_entities_) {
                s.refused += 1;
                continue;
            }
            // Another occupant of the slot: nothing of the old one carries over.
            entities_[slots[i]] = std::move(incoming);
            s.created += 1;
        }
        last_ = snapshot.sequence;
        typename S::SnapshotAck ack;
        ack.sequence = snapshot.sequence;
        acks_.push_back(ack);
        s.applied = true;
        return s;
    }

    /// Per entity in ascending slot: u32 slot (little endian), u8 generation, u8 mask (bit i:
    /// component i held), then each held component's bits as the snapshot body encodes them,
    /// each padded to a byte.
    std::vector<uint8_t> canonical_bytes() const {
        std::vector<uint8_t> out;
        for (const auto& [slot, e] : entities_) {
            for (size_t i = 0; i < 4; ++i) {
                out.push_back(static_cast<uint8_t>(slot >> (8 * i)));
            }
            out.push_back(e.generation);
            uint8_t mask = 0;
            for (size_t t = 0; t < S::COMPONENT_TYPES; ++t) {
                if (e.components[t]) {
                    mask = static_cast<uint8_t>(mask | (1u << t));
                }
            }
            out.push_back(mask);
            for (const auto& c : e.components) {
                if (c) {
                    // A decoded value always re-encodes (canonical decoding).
                    auto bits = S::bits(*c);
                    if (bits) {
                        out.insert(out.end(), bits.value().begin(), bits.value().end());
                    }
                }
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
    std::map<uint32_t, Entity> entities_;
    std::optional<uint16_t> last_;
    std::vector<typename S::SnapshotAck> acks_;
    size_t max_entities_;
};

// ---- the session halves ----

/// The server's half: a SnapshotWriter, one unreliable `snapshot` a tick of the Scene it is
/// given. A frame is a `snapshot_ack`.
template <typename S>
class BaselineServer {
public:
    /// The half over `writer`.
    explicit BaselineServer(SnapshotWriter<S> writer) : writer_(std::move(writer)) {}

    /// The machine.
    const SnapshotWriter<S>& machine() const { return writer_; }

    /// Takes a `snapshot_ack`.
    session::Result<session::Unit> handle_frame(
        session::Now, const std::string& frame, const std::vector<uint8_t>& bytes) {
        if (auto e = session::expect_frame(frame, S::SNAPSHOT_ACK)) {
            return *e;
        }
        auto ack = S::decode_snapshot_ack(bytes.data(), bytes.size());
        if (!ack) {
            return session::SessionError{
                session::SessionError::Kind::decode, ack.error().message(), ack.error()};
        }
        writer_.on_ack(ack.value());
        return session::Unit{};
    }

    /// A tick passes: one snapshot of `scene`.
    session::Result<session::Unit> handle_tick(session::Now, const Scene<S>& scene) {
        auto snapshot = writer_.write(scene);
        if (!snapshot) {
            return snapshot.error();
        }
        auto bytes = S::to_bytes(snapshot.value());
        if (!bytes) {
            return session::SessionError{
                session::SessionError::Kind::encode, bytes.error().message(), {}};
        }
        out_.push(session::Transmit{S::SNAPSHOT, std::move(bytes).value(), false});
        return session::Unit{};
    }

    /// The next frame to send, or nothing.
    std::optional<session::Transmit> poll_transmit() { return out_.poll(); }

private:
    SnapshotWriter<S> writer_;
    session::Outbox out_;
};

/// The client's half: a SnapshotClient. A frame is a `snapshot`; its `snapshot_ack`s are polled.
template <typename S>
class BaselineClient {
public:
    /// The half over a client holding at most `max_entities`.
    explicit BaselineClient(size_t max_entities) : client_(max_entities) {}

    /// The machine.
    const SnapshotClient<S>& machine() const { return client_; }

    /// Takes one `snapshot`.
    session::Result<SnapshotSummary> handle_frame(
        session::Now, const std::string& frame, const std::vector<uint8_t>& bytes) {
        if (auto e = session::expect_frame(frame, S::SNAPSHOT)) {
            return *e;
        }
        auto snapshot = S::decode_snapshot(bytes.data(), bytes.size());
        if (!snapshot) {
            return session::SessionError{session::SessionError::Kind::decode,
                snapshot.error().message(), snapshot.error()};
        }
        const SnapshotSummary summary = client_.receive(snapshot.value());
        for (const auto& a : client_.take_acks()) {
            auto b = S::to_bytes(a);
            if (!b) {
                return session::SessionError{
                    session::SessionError::Kind::encode, b.error().message(), {}};
            }
            out_.push(session::Transmit{S::SNAPSHOT_ACK, std::move(b).value(), false});
        }
        return summary;
    }

    /// The next frame to send, or nothing.
    std::optional<session::Transmit> poll_transmit() { return out_.poll(); }

private:
    SnapshotClient<S> client_;
    session::Outbox out_;
};

}  // namespace baseline
}  // namespace ackwire
