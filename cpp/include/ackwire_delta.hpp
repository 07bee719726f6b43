// Delta streaming of a set of keys (`docs/spec/delta.md`), both halves, sans-IO, as the Rust
// codec's codec/src/delta/: the server's DeltaBaseline plans what a subscriber must add and drop,
// the client's DeltaMirror applies the plans and answers each with its AckWindow and the SetDigest
// of what it holds, so the server notices a mirror that diverged.
//
// One DeltaBaseline per subscriber (DELTA-9), set-theoretic: keys are u64 numbers whose meaning is
// the application's, and entering and leaving are the only events.
//
// Generic over a schema `S` (the reference protocol's is protocol::ReferenceDelta, which
// `ackwire gen` writes into reference_delta.hpp from its `schema` declaration) naming the two
// frames and their codec: types DeltaPlan (flags, sequence, baseline_seq, entered, left) and
// DeltaAck (newest, mask, digest); PLAN_FULL_BASELINE and PLAN_BASELINE (the flags' bits);
// DELTA_PLAN and DELTA_ACK (frame names); decode_delta_plan, decode_delta_ack, to_bytes.
//
// Time (`now`) is an argument in the application's own units (the session halves use
// milliseconds); nothing here reads a clock.

#pragma once

#include "ackwire_digest.hpp"
#include "ackwire_session.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ackwire {
namespace delta {

using digest::AckWindow;
using digest::Agreement;
using digest::SetDigest;
using digest::SlotKey;

/// How a DeltaBaseline recovers from loss.
enum class RecoveryPolicy {
    /// Diff against the last state sent, as if every packet arrived (a baseline for tests).
    naive,
    /// Diff against the acknowledged state (DELTA-12's opposite baselines).
    ack_recovery,
};

/// A plan before it is numbered: what a subscriber must do to hold the current set.
struct Plan {
    /// The subscriber clears its mirror first: `entered` is the whole set.
    bool full_baseline = false;
    /// The sequence the differences were computed against.
    std::optional<uint64_t> baseline_seq;
    /// Keys to hold, ascending.
    std::vector<uint64_t> entered;
    /// Keys to drop, ascending.
    std::vector<uint64_t> left;

    /// The `delta_plan` frame of this plan, numbered `sequence`.
    template <typename S>
    typename S::DeltaPlan to_frame(uint64_t sequence) const {
        typename S::DeltaPlan f;
        f.flags.set(S::PLAN_FULL_BASELINE, full_baseline);
        f.flags.set(S::PLAN_BASELINE, baseline_seq.has_value());
        f.sequence = sequence;
        f.baseline_seq = baseline_seq;
        f.entered = entered;
        f.left = left;
        return f;
    }
};

/// The keys a mirror holds that the server does not, and those it lacks.
struct Divergence {
    /// Held by the mirror, not by the server.
    std::vector<SlotKey> extra;
    /// Held by the server, not by the mirror.
    std::vector<SlotKey> missing;

    /// Whether the two agree.
    bool empty() const { return extra.empty() && missing.empty(); }
};

/// What applying one plan did.
struct Applied {
    /// The plan was applied (not older than the newest applied).
    bool applied = false;
    /// The mirror was cleared first (a full baseline applied).
    bool cleared = false;
    /// Keys entered.
    size_t entered = 0;
    /// Keys that left.
    size_t left = 0;
    /// Retractions naming another occupant of a held slot, refused.
    size_t stale_refs = 0;
};

/// Bounds on what a DeltaMirror holds, whatever the server sends (the Rust MirrorLimits).
struct MirrorLimits {
    /// Occupants held at most (65,536). A slot index is 32 bits, so a hostile server could fill
    /// a mirror toward 2^32 occupants; a plan that would take the mirror past this is refused
    /// whole, neither applied nor acknowledged, which to the server is a packet the network
    /// lost.
    size_t max_keys = size_t{1} << 16;
};

/// Why a plan was refused: it would take the mirror past MirrorLimits::max_keys.
struct MirrorKeysError {
    /// The refused plan's sequence; nothing for a key inserted outside a plan.
    std::optional<uint64_t> sequence;
    /// How many occupants the mirror would have held.
    size_t would_hold = 0;
    /// The limit.
    size_t max_keys = 0;

    /// For a person, as the Rust LimitError::MirrorKeys prints it.
    std::string message() const {
        std::string out = "a delta plan";
        if (sequence) {
            out += " (sequence " + std::to_string(*sequence) + ")";
        }
        return out + " would take the mirror to " + std::to_string(would_hold) +
            " occupants, past its limit of " + std::to_string(max_keys);
    }
};

/// Nothing held beside a key.
struct NoEntity {};

/// The client half of a delta stream: the set it actually holds, one occupant per slot.
///
/// Which packets it applies: a plan's keys are absolute, so a packet is applied whatever
/// baseline it names; but a packet older than the newest applied one is not applied (it is
/// still acknowledged), since on a link that reorders it would bring back a key a newer packet
/// retracted.
template <typename S, typename E = NoEntity>
class DeltaMirror {
public:
    /// An empty mirror with default limits.
    DeltaMirror() = default;

    /// An empty mirror with `limits`.
    explicit DeltaMirror(MirrorLimits limits) : limits_(limits) {}

    /// Keys the same slot under any generation alike (a mirror of a world without generations).
    void set_generational(bool generational) {
        if (generational_ != generational) {
            generational_ = generational;
            clear();
        }
    }

    /// The limits kept.
    MirrorLimits limits() const { return limits_; }

    /// Records `seq` in the window; whether the packet is to be applied (not older than the
    /// newest applied). A full baseline clears the mirror.
    bool begin(uint64_t seq, bool full_baseline) {
        acks_.observe(seq);
        if (is_stale(seq)) {
            stale_packets_ = sat_inc(stale_packets_, 1);
            return false;
        }
        if (applied_seq_) {
            frames_lost_ = sat_inc(frames_lost_, seq - *applied_seq_ - 1);
        }
        applied_seq_ = seq;
        if (full_baseline) {
            clear();
        }
        return true;
    }

    /// Holds `key` with `entity`, replacing another occupant of its slot; refused past
    /// max_keys.
    std::optional<MirrorKeysError> insert(SlotKey key, E entity) {
        key = normalise(key);
        if (held_.size() >= limits_.max_keys && held_.count(key.index) == 0) {
            return MirrorKeysError{std::nullopt, held_.size() + 1, limits_.max_keys};
        }
        insert_within_limits(key, std::move(entity));
        return std::nullopt;
    }

    /// Drops `key`, when it is the occupant held; a reference to another occupant of the slot is
    /// counted in stale_refs and changes nothing.
    std::optional<E> remove(SlotKey key) {
        key = normalise(key);
        auto found = held_.find(key.index);
        if (found == held_.end()) {
            return std::nullopt;
        }
        if (found->second.first != key.generation) {
            stale_refs_ = sat_inc(stale_refs_, 1);
            return std::nullopt;
        }
        digest_.remove(key.encode());
        E e = std::move(found->second.second);
        held_.erase(found);
        return e;
    }

    /// What is held beside `key`, when it is the occupant held; a reference to another
    /// occupant of the slot finds nothing.
    const E* get(SlotKey key) const {
        key = normalise(key);
        auto found = held_.find(key.index);
        if (found == held_.end() || found->second.first != key.generation) {
            return nullptr;
        }
        return &found->second.second;
    }

    /// Whether `key` is the occupant held.
    bool contains(SlotKey key) const {
        key = normalise(key);
        auto found = held_.find(key.index);
        return found != held_.end() && found->second.first == key.generation;
    }

    /// The keys held, ascending.
    std::vector<SlotKey> keys() const {
        std::vector<SlotKey> out;
        out.reserve(held_.size());
        for (const auto& [index, held] : held_) {
            out.push_back(SlotKey{index, held.first});
        }
        return out;
    }

    /// Occupants held.
    size_t size() const { return held_.size(); }

    /// Drops every key (the window is kept).
    void clear() {
        held_.clear();
        digest_.clear();
    }

    /// The SetDigest of the keys held.
    uint64_t digest() const { return digest_.digest(); }

    /// This mirror's digest against the one the server shipped.
    Agreement agreement_with(uint64_t server_digest) const {
        return Agreement::compare(server_digest, digest());
    }

    /// How this mirror differs from the server's keys.
    template <typename Keys>
    Divergence divergence_from(const Keys& server_keys) const {
        std::set<uint64_t> theirs(std::begin(server_keys), std::end(server_keys));
        std::set<uint64_t> mine;
        for (const SlotKey& k : keys()) {
            mine.insert(k.encode());
        }
        Divergence d;
        for (uint64_t k : mine) {
            if (theirs.count(k) == 0) {
                d.extra.push_back(SlotKey::decode(k));
            }
        }
        for (uint64_t k : theirs) {
            if (mine.count(k) == 0) {
                d.missing.push_back(SlotKey::decode(k));
            }
        }
        return d;
    }

    /// The window of sequences received.
    const AckWindow& acks() const { return acks_; }

    /// The `delta_ack` to send: the window and the digest; nothing before any packet.
    std::optional<typename S::DeltaAck> ack() const {
        auto w = acks_.encode();
        if (!w) {
            return std::nullopt;
        }
        typename S::DeltaAck a;
        a.newest = w->first;
        a.mask = w->second;
        a.digest = digest();
        return a;
    }

    /// The newest sequence applied.
    std::optional<uint64_t> applied_seq() const { return applied_seq_; }
    /// Sequences skipped between applied packets.
    uint64_t frames_lost() const { return frames_lost_; }
    /// Packets acknowledged and not applied (older than the newest applied).
    uint64_t stale_packets() const { return stale_packets_; }
    /// References to another occupant of a held slot, refused.
    uint64_t stale_refs() const { return stale_refs_; }

    /// Applies one plan, or refuses it whole past max_keys (then it is neither applied nor
    /// acknowledged: DELTA-12 builds what to send from the acknowledged state intersected with
    /// every state sent since, so a plan never acknowledged is said again (DELTA-24)).
    rt::Result<Applied, MirrorKeysError> apply(const typename S::DeltaPlan& frame) {
        const bool full = frame.flags.contains(S::PLAN_FULL_BASELINE);
        if (!is_stale(frame.sequence)) {
            const size_t would = would_hold(frame, full);
            if (would > limits_.max_keys) {
                return MirrorKeysError{frame.sequence, would, limits_.max_keys};
            }
        }
        Applied out;
        out.cleared = full;
        if (!begin(frame.sequence, full)) {
            out.cleared = false;
            return out;
        }
        out.applied = true;
        const uint64_t before = stale_refs_;
        for (uint64_t key : frame.left) {
            if (remove(SlotKey::decode(key))) {
                out.left += 1;
            }
        }
        out.stale_refs = static_cast<size_t>(stale_refs_ - before);
        for (uint64_t key : frame.entered) {
            // Counted against the limit above.
            insert_within_limits(normalise(SlotKey::decode(key)), E{});
            out.entered += 1;
        }
        return out;
    }

private:
    static uint64_t sat_inc(uint64_t v, uint64_t by) {
        return v > UINT64_MAX - by ? UINT64_MAX : v + by;
    }

    bool is_stale(uint64_t seq) const { return applied_seq_ && seq <= *applied_seq_; }

    SlotKey normalise(SlotKey key) const { return generational_ ? key : key.ungenerational(); }

    void insert_within_limits(SlotKey key, E entity) {
        auto found = held_.find(key.index);
        if (found != held_.end()) {
            digest_.remove(SlotKey{key.index, found->second.first}.encode());
            found->second = std::make_pair(key.generation, std::move(entity));
        } else {
            held_.emplace(key.index, std::make_pair(key.generation, std::move(entity)));
        }
        digest_.insert(key.encode());
    }

    // Counted as apply would go: retractions of an occupant held free its slot, then each
    // arrival takes a slot not held (one per slot, however many generations name it).
    size_t would_hold(const typename S::DeltaPlan& frame, bool full) const {
        const size_t base = full ? 0 : held_.size();
        if (frame.entered.size() <= limits_.max_keys &&
            base <= limits_.max_keys - frame.entered.size()) {
            return base + frame.entered.size();
        }
        std::set<uint32_t> freed;
        if (!full) {
            for (uint64_t k : frame.left) {
                const SlotKey key = normalise(SlotKey::decode(k));
                auto found = held_.find(key.index);
                if (found != held_.end() && found->second.first == key.generation) {
                    freed.insert(key.index);
                }
            }
        }
        std::set<uint32_t> taken;
        size_t would = base - freed.size();
        for (uint64_t k : frame.entered) {
            const uint32_t index = normalise(SlotKey::decode(k)).index;
            const bool occupied = !full && held_.count(index) != 0 && freed.count(index) == 0;
            if (!occupied && taken.insert(index).second) {
                would += 1;
            }
        }
        return would;
    }

    std::map<uint32_t, std::pair<uint16_t, E>> held_;
    MirrorLimits limits_;
    SetDigest digest_;
    AckWindow acks_;
    std::optional<uint64_t> applied_seq_;
    bool generational_ = true;
    uint64_t frames_lost_ = 0;
    uint64_t stale_packets_ = 0;
    uint64_t stale_refs_ = 0;
};

/// One subscriber's view of a streamed set, the server half (`docs/spec/delta.md`).
class DeltaBaseline {
public:
    /// A baseline keeping at most `history` states sent (at least 1), under AckRecovery.
    explicit DeltaBaseline(size_t history) : history_(std::max<size_t>(history, 1)) {}

    /// Sets the policy (a change starts a new epoch).
    void set_policy(RecoveryPolicy policy) {
        if (policy != policy_) {
            policy_ = policy;
            reset();
        }
    }

    /// The policy.
    RecoveryPolicy policy() const { return policy_; }

    /// Turns the digest check on acks on or off.
    void set_drift_check(bool on) { drift_check_ = on; }

    /// Flow control: a subscriber silent for more than `stalled_after` is stalled, and is sent
    /// a keepalive plan at most every `keepalive_every` (at least 1).
    void set_flow(uint64_t stalled_after, uint64_t keepalive_every) {
        flow_ = Flow{stalled_after, std::max<uint64_t>(keepalive_every, 1), std::nullopt,
            std::nullopt};
    }

    /// Whether the subscriber has been silent for more than `stalled_after` at `now`.
    bool stalled(uint64_t now) const {
        if (!flow_ || !flow_->last_ack) {
            return false;
        }
        return (now > *flow_->last_ack ? now - *flow_->last_ack : 0) > flow_->stalled_after;
    }

    /// Whether to send a plan at `now`.
    bool should_send(uint64_t now) {
        const bool is_stalled = stalled(now);
        if (!flow_) {
            return true;
        }
        if (!flow_->last_ack) {
            // The first send decision starts the grace period: construction has no clock.
            flow_->last_ack = now;
            return true;
        }
        if (!is_stalled) {
            return true;
        }
        if (flow_->last_keepalive &&
            (now > *flow_->last_keepalive ? now - *flow_->last_keepalive : 0) <
                flow_->keepalive_every) {
            return false;
        }
        flow_->last_keepalive = now;
        return true;
    }

    /// A subscriber takes the slot: a new epoch, whose first plan is a full set.
    void reset() {
        new_epoch();
        pending_ = Pending::fresh;
        if (flow_) {
            flow_->last_ack.reset();
            flow_->last_keepalive.reset();
        }
    }

    /// The next plan is a full rebuild.
    void request_full_baseline() { rebuild(); }

    /// The plan numbered `seq` that brings the subscriber to `current`.
    Plan plan(const std::set<uint64_t>& current, uint64_t seq) {
        const bool recovering = policy_ == RecoveryPolicy::ack_recovery;
        // DELTA-13: a baseline aged out of the history forces a full rebuild rather than a wrong
        // difference.
        if (recovering && history_lost_) {
            rebuild();
        }
        const Pending pending = pending_;
        pending_ = Pending::nothing;
        if (pending == Pending::rebuild) {
            full_rebuilds_ = full_rebuilds_ == UINT64_MAX ? UINT64_MAX : full_rebuilds_ + 1;
        }
        // DELTA-11: under AckRecovery, before any acknowledgement every plan is a full set;
        // differences follow once acknowledgements arrive.
        const bool unknown = recovering && !acked_;
        Plan p;
        bool standalone = true;
        if (pending != Pending::nothing || unknown) {
            p.full_baseline = true;
            p.entered.assign(current.begin(), current.end());
        } else if (acked_ && recovering) {
            // DELTA-12: sends are computed against the smallest state the subscriber can hold (the
            // acknowledged state intersected with everything sent after it), retractions against
            // the largest (the acknowledged state unioned with everything sent after it).
            std::set<uint64_t> least = acked_->state;
            std::set<uint64_t> most = acked_->state;
            for (const SentState& sent : sent_) {
                if (sent.seq <= acked_->seq) {
                    continue;
                }
                for (auto it = least.begin(); it != least.end();) {
                    it = sent.state.count(*it) != 0 ? std::next(it) : least.erase(it);
                }
                most.insert(sent.state.begin(), sent.state.end());
            }
            p.baseline_seq = acked_->seq;
            std::set_difference(current.begin(), current.end(), least.begin(), least.end(),
                std::back_inserter(p.entered));
            std::set_difference(most.begin(), most.end(), current.begin(), current.end(),
                std::back_inserter(p.left));
        } else if (last_sent_) {
            // Naive: against the last state sent, as if every packet arrived.
            p.baseline_seq = last_sent_->first;
            const std::set<uint64_t>& last = last_sent_->second;
            std::set_difference(current.begin(), current.end(), last.begin(), last.end(),
                std::back_inserter(p.entered));
            std::set_difference(last.begin(), last.end(), current.begin(), current.end(),
                std::back_inserter(p.left));
            // Only right for a mirror that holds exactly the last state sent.
            standalone = false;
        } else {
            p.full_baseline = true;
            p.entered.assign(current.begin(), current.end());
        }
        sent_.push_back(SentState{seq, current, standalone});
        while (sent_.size() > history_) {
            const SentState& old = sent_.front();
            if (acked_ && old.seq > acked_->seq) {
                history_lost_ = true;
            }
            sent_.pop_front();
        }
        last_sent_ = std::make_pair(seq, current);
        return p;
    }

    /// Folds a `delta_ack`: the window (newest, mask) and the subscriber's digest.
    Agreement observe_ack(uint64_t newest, uint64_t mask, uint64_t reported) {
        if (policy_ != RecoveryPolicy::ack_recovery) {
            return Agreement{};
        }
        const AckWindow window = AckWindow::from_encoded(newest, mask);
        window_ = window;
        // A standalone packet (a full baseline, or one planned against an acknowledged state)
        // leaves a mirror that applied it holding exactly its state, whatever was lost in
        // between: the frontier steps to the newest such packet received.
        const SentState* reached = nullptr;
        for (auto it = sent_.rbegin(); it != sent_.rend(); ++it) {
            if (it->standalone && window.contains(it->seq)) {
                reached = &*it;
                break;
            }
        }
        if (reached != nullptr) {
            Acked a;
            a.seq = reached->seq;
            a.state = reached->state;
            a.digest = SetDigest::from_keys(reached->state).digest();
            acked_ = std::move(a);
            const uint64_t seq = acked_->seq;
            sent_.erase(std::remove_if(sent_.begin(), sent_.end(),
                            [seq](const SentState& s) { return s.seq <= seq; }),
                sent_.end());
        }
        Agreement agreement;
        // DELTA-16: every digest is compared (the empty set's too) unless the check is off.
        if (acked_ && drift_check_ && acked_->seq == newest) {
            agreement = Agreement::compare(acked_->digest, reported);
        }
        if (agreement.is_disagreement()) {
            // DELTA-15: a digest that disagrees with the acknowledged state's makes the next plan a
            // full rebuild.
            rebuild();
        }
        return agreement;
    }

    /// observe_ack at `now`: a stalled subscriber that answers again starts a new epoch.
    Agreement observe_ack_at(uint64_t newest, uint64_t mask, uint64_t reported, uint64_t now) {
        const bool resuming = stalled(now);
        if (resuming) {
            reset();
        }
        if (flow_) {
            flow_->last_ack = now;
        }
        return resuming ? Agreement{} : observe_ack(newest, mask, reported);
    }

    /// Full baselines rebuilt.
    uint64_t full_rebuilds() const { return full_rebuilds_; }

    /// Plans sent after the acknowledged state and not in the window.
    size_t unacked() const {
        size_t n = 0;
        for (const SentState& s : sent_) {
            if ((!acked_ || s.seq > acked_->seq) && !window_.contains(s.seq)) {
                n += 1;
            }
        }
        return n;
    }

    /// The acknowledged state's sequence.
    std::optional<uint64_t> acked_seq() const {
        return acked_ ? std::optional<uint64_t>(acked_->seq) : std::nullopt;
    }

    /// States held for the diff (at most `history`).
    size_t held_states() const { return sent_.size(); }

private:
    struct SentState {
        uint64_t seq = 0;
        std::set<uint64_t> state;
        bool standalone = false;
    };
    struct Acked {
        uint64_t seq = 0;
        std::set<uint64_t> state;
        uint64_t digest = 0;
    };
    enum class Pending { nothing, fresh, rebuild };
    struct Flow {
        uint64_t stalled_after = 0;
        uint64_t keepalive_every = 1;
        std::optional<uint64_t> last_ack;
        std::optional<uint64_t> last_keepalive;
    };

    void rebuild() {
        new_epoch();
        pending_ = Pending::rebuild;
    }

    // DELTA-17: a new epoch drops the acknowledged state, the last sent and the history.
    void new_epoch() {
        sent_.clear();
        acked_.reset();
        history_lost_ = false;
        last_sent_.reset();
        window_ = AckWindow();
    }

    RecoveryPolicy policy_ = RecoveryPolicy::ack_recovery;
    size_t history_;
    std::deque<SentState> sent_;
    std::optional<Acked> acked_;
    bool history_lost_ = false;
    std::optional<std::pair<uint64_t, std::set<uint64_t>>> last_sent_;
    Pending pending_ = Pending::fresh;
    uint64_t full_rebuilds_ = 0;
    AckWindow window_;
    std::optional<Flow> flow_;
    bool drift_check_ = true;
};

// ---- the allocator ----

/// How a SlotAllocator picks a slot to reuse.
struct ReusePolicy {
    /// The lowest free slot, or FIFO with a quarantine.
    enum class Kind { lowest_free, fifo };
    /// Which.
    Kind kind = Kind::lowest_free;
    /// For fifo: freed slots that wait before any is reused (a fresh slot goes first while
    /// they wait).
    uint32_t quarantine = 0;
};

/// Hands out SlotKeys, bumping a slot's generation each time it is reused (DELTA-3: a retraction
/// must name the occupant the subscriber holds, not the slot's current one). The first occupant of
/// a slot is generation 0; every reuse the next, wrapping at 65,535. Memory is bounded by the
/// capacity, which the game sets, not a peer.
class SlotAllocator {
public:
    /// An allocator of slots 0 to `capacity` - 1.
    SlotAllocator(uint32_t capacity, ReusePolicy policy) : policy_(policy), capacity_(capacity) {}

    /// Occupants live.
    size_t size() const { return live_; }

    /// A new occupant in the slot the policy picks; nothing when every slot is live.
    std::optional<SlotKey> allocate() {
        const std::optional<uint32_t> fresh_slot = fresh();
        std::optional<uint32_t> oldest;
        if (!freed_.empty()) {
            oldest = freed_.begin()->second;
        }
        std::optional<uint32_t> index;
        if (policy_.kind == ReusePolicy::Kind::lowest_free) {
            index = oldest;
            if (fresh_slot && (!index || *fresh_slot < *index)) {
                index = fresh_slot;
            }
        } else {
            const bool waiting = freed_.size() > size_t{policy_.quarantine};
            index = (waiting || !fresh_slot) ? oldest : fresh_slot;
        }
        if (!index) {
            return std::nullopt;
        }
        return allocate_at(*index);
    }

    /// A new occupant in slot `index`; nothing when it is live or past the capacity.
    std::optional<SlotKey> allocate_at(uint32_t index) {
        if (index >= capacity_) {
            return std::nullopt;
        }
        const size_t at = index;
        if (at >= slots_.size()) {
            for (auto i = static_cast<uint32_t>(slots_.size()); i < index; ++i) {
                unused_.insert(i);
            }
            slots_.resize(at + 1);
            // The slot itself has never had an occupant: its first is generation 0.
            slots_[at].live = true;
        } else {
            Slot& slot = slots_[at];
            if (slot.live) {
                return std::nullopt;
            }
            if (unused_.erase(index) != 0) {
                slot.generation = 0;
            } else {
                freed_.erase(std::make_pair(slot.order, index));
                // DELTA-3: a respawn in the same slot must be a different key.
                slot.generation = static_cast<uint16_t>(slot.generation + 1u);
            }
            slot.live = true;
        }
        live_ += 1;
        return SlotKey{index, slots_[at].generation};
    }

    /// Frees `key`'s slot; false when `key` is not the live occupant.
    bool free(SlotKey key) {
        if (!is_live(key)) {
            return false;
        }
        uint64_t order = key.index;
        if (policy_.kind == ReusePolicy::Kind::fifo) {
            stamp_ += 1;
            order = stamp_;
        }
        Slot& slot = slots_[key.index];
        slot.live = false;
        slot.order = order;
        freed_.insert(std::make_pair(order, key.index));
        live_ -= 1;
        return true;
    }

    /// Whether `key` is its slot's live occupant.
    bool is_live(SlotKey key) const {
        return key.index < slots_.size() && slots_[key.index].live &&
            slots_[key.index].generation == key.generation;
    }

    /// The live occupant of slot `index`.
    std::optional<SlotKey> occupant(uint32_t index) const {
        if (index >= slots_.size() || !slots_[index].live) {
            return std::nullopt;
        }
        return SlotKey{index, slots_[index].generation};
    }

    /// The live occupants, ascending.
    std::vector<SlotKey> live() const {
        std::vector<SlotKey> out;
        for (size_t i = 0; i < slots_.size(); ++i) {
            if (slots_[i].live) {
                out.push_back(SlotKey{static_cast<uint32_t>(i), slots_[i].generation});
            }
        }
        return out;
    }

private:
    struct Slot {
        uint16_t generation = 0;
        bool live = false;
        uint64_t order = 0;
    };

    std::optional<uint32_t> fresh() const {
        if (!unused_.empty()) {
            return *unused_.begin();
        }
        if (slots_.size() < capacity_) {
            return static_cast<uint32_t>(slots_.size());
        }
        return std::nullopt;
    }

    ReusePolicy policy_;
    uint32_t capacity_;
    std::vector<Slot> slots_;
    std::set<std::pair<uint64_t, uint32_t>> freed_;
    std::set<uint32_t> unused_;
    uint64_t stamp_ = 0;
    size_t live_ = 0;
};

// ---- the session halves ----

/// What a `delta_ack` left the delta server at.
struct DeltaAckReport {
    /// The newest plan acknowledged.
    std::optional<uint64_t> acked_seq;
    /// Plans sent and not acknowledged.
    size_t unacked = 0;
    /// Full baselines rebuilt.
    uint64_t full_rebuilds = 0;
    /// Whether the connection is stalled.
    bool stalled = false;
};

/// The server's half: one subscriber's DeltaBaseline. A tick takes the keys visible now and,
/// when should_send(now.ms), sends one unreliable `delta_plan` numbered from 1 upwards. A frame
/// is a `delta_ack`, observed at now.ms.
template <typename S>
class DeltaServer {
public:
    /// The half over `baseline`.
    explicit DeltaServer(DeltaBaseline baseline) : baseline_(std::move(baseline)) {}

    /// The machine.
    DeltaBaseline& machine() { return baseline_; }

    /// Takes the subscriber's `delta_ack`.
    session::Result<DeltaAckReport> handle_frame(
        session::Now now, const std::string& frame, const std::vector<uint8_t>& bytes) {
        if (auto e = session::expect_frame(frame, S::DELTA_ACK)) {
            return *e;
        }
        auto ack = S::decode_delta_ack(bytes.data(), bytes.size());
        if (!ack) {
            return session::SessionError{
                session::SessionError::Kind::decode, ack.error().message(), ack.error()};
        }
        baseline_.observe_ack_at(ack.value().newest, ack.value().mask, ack.value().digest, now.ms);
        DeltaAckReport r;
        r.acked_seq = baseline_.acked_seq();
        r.unacked = baseline_.unacked();
        r.full_rebuilds = baseline_.full_rebuilds();
        r.stalled = baseline_.stalled(now.ms);
        return r;
    }

    /// A tick passes at `now.ms` with `visible` the keys the subscriber should hold.
    session::Result<session::Unit> handle_tick(
        session::Now now, const std::set<uint64_t>& visible) {
        if (baseline_.should_send(now.ms)) {
            seq_ += 1;
            const Plan p = baseline_.plan(visible, seq_);
            auto bytes = S::to_bytes(p.template to_frame<S>(seq_));
            if (!bytes) {
                return session::SessionError{
                    session::SessionError::Kind::encode, bytes.error().message(), {}};
            }
            out_.push(session::Transmit{S::DELTA_PLAN, std::move(bytes).value(), false});
        }
        return session::Unit{};
    }

    /// The next frame to send, or nothing.
    std::optional<session::Transmit> poll_transmit() { return out_.poll(); }

private:
    DeltaBaseline baseline_;
    uint64_t seq_ = 0;
    session::Outbox out_;
};

/// The client's half: a DeltaMirror. A frame is a `delta_plan`, applied (a plan past the
/// mirror's limits is refused whole, unacknowledged: a `limit` error); its `delta_ack` is
/// polled.
template <typename S>
class DeltaClient {
public:
    /// The half over a mirror of `limits`.
    explicit DeltaClient(MirrorLimits limits = MirrorLimits{}) : mirror_(limits) {}

    /// The machine.
    DeltaMirror<S>& machine() { return mirror_; }

    /// Takes one `delta_plan`.
    session::Result<Applied> handle_frame(
        session::Now, const std::string& frame, const std::vector<uint8_t>& bytes) {
        if (auto e = session::expect_frame(frame, S::DELTA_PLAN)) {
            return *e;
        }
        auto plan = S::decode_delta_plan(bytes.data(), bytes.size());
        if (!plan) {
            return session::SessionError{
                session::SessionError::Kind::decode, plan.error().message(), plan.error()};
        }
        auto applied = mirror_.apply(plan.value());
        if (!applied) {
            return session::SessionError{
                session::SessionError::Kind::limit, applied.error().message(), {}};
        }
        if (auto ack = mirror_.ack()) {
            auto b = S::to_bytes(*ack);
            if (!b) {
                return session::SessionError{
                    session::SessionError::Kind::encode, b.error().message(), {}};
            }
            out_.push(session::Transmit{S::DELTA_ACK, std::move(b).value(), false});
        }
        return applied.value();
    }

    /// The next frame to send, or nothing.
    std::optional<session::Transmit> poll_transmit() { return out_.poll(); }

private:
    DeltaMirror<S> mirror_;
    session::Outbox out_;
};

}  // namespace delta
}  // namespace ackwire
