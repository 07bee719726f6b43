// Acked snapshots (`docs/spec/acked.md`), both halves, generic over a schema: the server's
// per-client AckedEncoder (SENT_RING, keyframes, events, the check, RELIABLE_ABOVE) with the input
// schedule it feeds (SRV-12 to SRV-16), and the client's AckedDecoder (HELD_RING, the report
// against the last frame shown, each event once) with the inputs its kind 7 frames repeat
// (AckWriter). A port of the Rust codec's `acked` module (codec/src/acked/): the same rules, the
// same bytes, the same state hashes, so that a C++ client and a Rust server (or the reverse) agree
// frame for frame.
//
// | rules of docs/spec/acked.md                      | here                           | side   |
// | ------------------------------------------------ | ------------------------------ | ------ |
// | S_N, S_B and the delta between them (ACK-17..21) | ServerState, delta, check      | both   |
// | SENT_RING, base or keyframe, events (ACK-19..28) | AckedEncoder, Outgoing         | server |
// | inputs executed on the tick they name (SRV-12..) | InputSchedule, ScheduledInputs | server |
// | the client's AckedDecoder (ACK-29..36)           | AckedDecoder, FrameReport      | client |
// | the inputs of its kind 7 frames (ACK-10..13)     | AckWriter                      | client |
//
// A schema S (a template parameter, as Rust's `AckedSchema` trait) provides:
//   using Record, Change, Event, Input;                 one entity's record, change, an event,
//                                                       an input of the kind 7 frame
//   static constexpr size_t SENT_RING, HELD_RING, RELIABLE_ABOVE;
//   static constexpr uint64_t EVENT_TTL;  static constexpr uint32_t CHECK_EVERY;
//   static constexpr const char* FRAME_NAME, ACK_NAME;  its frames' names in a session
//   static rt::EncodeStatus diff(uint16_t eid, const Record* base, const Record& next,
//       uint32_t tick, std::optional<Change>& out);     the change base -> next, or none
//   static uint16_t change_eid(const Change&);
//   static const char* apply(const Record* base, const Change&, uint32_t tick, Record& out);
//                                                       nullptr, or why it cannot apply
//   static void write_record(const Record&, std::vector<uint8_t>& out);  canonical bytes
//   static std::optional<uint32_t> measured(const Record&);
//   static std::optional<bool> pose_full(const Record&);
//   static rt::EncodeStatus encode_frame(const Frame<S>&, std::vector<uint8_t>& out);
//   static std::optional<rt::DecodeError> decode_frame_into(const uint8_t*, size_t,
//       Frame<S>& out);                                 reusing out's buffers
//   static rt::EncodeStatus encode_ack(const AckContent<Input>&, std::vector<uint8_t>& out);
//   static std::optional<rt::DecodeError> decode_ack(const uint8_t*, size_t,
//       AckContent<Input>& out);
//   static uint32_t input_tick(const Input&);           the server tick an input is aimed at
// and, when its frames are coded (kind 13, docs/spec/coded.md; Rust's `AckedSchema::coded` and
// the hooks beside it), `static constexpr bool CODED = true` and:
//   static std::optional<rt::DecodeError> read_basis(const uint8_t*, size_t,
//       coded::CodedBasisTicks& out);                   tick, base tick, keyframe, older
//   static rt::EncodeStatus encode_frame_on(const Frame<S>&, uint8_t older,
//       const coded::CodedBasis<Record>&, std::vector<uint8_t>& out);
//   static std::optional<rt::DecodeError> decode_frame_on_into(const uint8_t*, size_t,
//       const coded::CodedBasis<Record>&, Frame<S>& out);
// which the machines call in place of encode_frame and decode_frame_into. A schema without
// CODED (kinds 6 and 12) needs none of them and is run exactly as before.
// `ackwire gen --lang cpp` writes one for every profile of every `state` a spec declares (the
// reference protocol's `reference::Reference`, kind 6, `reference::PackedReference`, kind 12,
// and `reference::CodedReference`, kind 13 and CODED, in `reference.hpp` beside
// `protocol.hpp`); the session halves over a schema are ackwire_acked_half.hpp's.
//
// A coded schema adds the coded profile's session rules: the encoder names an older snapshot, the
// newest acknowledged kept frame before the base within 255 ticks (CODE-2), and both halves write
// and read each frame against the records of its base and older snapshot (coded::CodedBasis);
// the decoder drops a frame whose base or older snapshot it does not hold before reading its
// changes (CODE-3).
//
// Sans-IO: ticks are arguments; nothing reads a clock, opens a socket or starts a thread.
// Nothing here throws on a peer's bytes, and every container a peer can grow is bounded:
// HELD_RING frame states on the client, SENT_RING frames and the events of EVENT_TTL frames on
// the server, MAX_BUFFERED_INPUTS inputs, a live state of at most 65,536 ids (a u16's).

#pragma once

#include "ackwire_coded.hpp"
#include "ackwire_session.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace ackwire {
namespace acked {

namespace detail {

template <typename S, typename = void>
struct coded_schema : std::false_type {};

template <typename S>
struct coded_schema<S, std::void_t<decltype(S::CODED)>> : std::bool_constant<S::CODED> {};

}  // namespace detail

/// Whether schema `S`'s frames are coded (kind 13): it declares `static constexpr bool CODED =
/// true`, and the machines call its coded hooks (see above). False for kinds 6 and 12.
template <typename S>
inline constexpr bool is_coded = detail::coded_schema<S>::value;

/// An acked frame (kind 6) in schema-independent terms: the header is ACK-2's, the changes and the
/// events are the schema's.
template <typename Change, typename Event>
struct AckedFrame {
    /// The server tick this frame describes.
    uint32_t tick = 0;
    /// The tick of the acknowledged frame it applies onto (0 for a keyframe).
    uint32_t base_tick = 0;
    /// The newest input sequence the server has processed for this client.
    uint32_t last_seq = 0;
    /// How many of the client's inputs the server holds, ahead of execution.
    uint8_t input_buffer = 0;
    /// The frame applies onto nothing.
    bool keyframe = false;
    /// FNV-1a of every record of the state the frame produces, every CHECK_EVERY frames.
    std::optional<uint32_t> check;
    /// The entities gone, and those whose life changed (they come again whole).
    std::vector<uint16_t> removed;
    /// The entities whose groups differ from the base, ascending.
    std::vector<Change> changes;
    /// The serial of the first event (meaningful only when there are events).
    uint32_t first_serial = 0;
    /// The events not yet acknowledged, oldest first; the i-th has `first_serial + i`.
    std::vector<Event> events;
};

/// The acked frame of schema `S`.
template <typename S>
using Frame = AckedFrame<typename S::Change, typename S::Event>;

/// What a kind 7 frame says, in schema-independent terms (acked.wire's `Ack`): the newest frame
/// the client applied, whether it asks for a keyframe, and its recent inputs.
template <typename I>
struct AckContent {
    /// The newest frame applied (0 for none, and while a keyframe is requested).
    uint32_t ack_tick = 0;
    /// The client's check failed: it asks for a keyframe (AckFlags::KEYFRAME_REQUEST).
    bool keyframe_request = false;
    /// The sequence number of the first input (meaningful only when there are inputs).
    uint32_t first_seq = 0;
    /// The inputs, oldest first; the i-th has `first_seq + i`.
    std::vector<I> inputs;
};

/// One entity of a server-side state: the record, and the life it belongs to. An id whose
/// life changed is, to the client, an entity gone and another one come whole (ACK-5: removed,
/// then whole again).
template <typename R>
struct Entry {
    /// Which life of the id this is; the server bumps it on every spawn under the id.
    uint32_t life = 0;
    /// What the client is to hold of the entity.
    R record{};
};

/// S_N as the server computes it for one client: every entity's record with its life,
/// ascending by id (the presenter builds it in id order; `delta` walks it so).
template <typename R>
using ServerState = std::vector<std::pair<uint16_t, Entry<R>>>;

/// The check of the records `f` visits (each as `f(emit)` calling `emit(eid, record)` in ascending
/// id): CHECK-2: FNV-1a over every record of the state the frame produces, in ascending eid, each
/// as its `u16 eid` then the record's canonical bytes.
template <typename S, typename Visit>
uint32_t state_check(Visit visit, std::vector<uint8_t>& buf) {
    uint32_t h = 2166136261u;
    visit([&](uint16_t eid, const typename S::Record& record) {
        buf.clear();
        buf.push_back(static_cast<uint8_t>(eid & 0xff));
        buf.push_back(static_cast<uint8_t>(eid >> 8));
        S::write_record(record, buf);
        h = rt::fnv1a32(buf.data(), buf.size(), h);
    });
    return h;
}

/// The check of a server-side state (the same value as the client's check of what it holds).
template <typename S>
uint32_t server_check(const ServerState<typename S::Record>& state) {
    std::vector<uint8_t> buf;
    return state_check<S>(
        [&](auto emit) {
            for (const auto& e : state) {
                emit(e.first, e.second.record);
            }
        },
        buf);
}

/// What turns `base` into `next` (the removed ids and the changes, both ascending) in a frame
/// of tick `tick`; `base` is null for a keyframe.
///
/// ACK-19, ACK-21: frame N carries what turns the acknowledged S_B into S_N: the entities gone or
/// living a new life removed (the latter whole again), the groups that differ, a position as steps
/// from the base's.
template <typename S>
rt::EncodeStatus delta(const ServerState<typename S::Record>* base,
    const ServerState<typename S::Record>& next, uint32_t tick, std::vector<uint16_t>& removed,
    std::vector<typename S::Change>& changes) {
    removed.clear();
    changes.clear();
    // Both states ascend by id: one walk over the two, no lookups.
    size_t h = 0;
    const size_t held = base != nullptr ? base->size() : 0;
    for (size_t i = 0; i < next.size(); ++i) {
        const uint16_t eid = next[i].first;
        const Entry<typename S::Record>& entry = next[i].second;
        while (h < held && (*base)[h].first < eid) {
            removed.push_back((*base)[h].first);
            ++h;
        }
        const typename S::Record* before = nullptr;
        if (h < held && (*base)[h].first == eid) {
            if ((*base)[h].second.life == entry.life) {
                before = &(*base)[h].second.record;
            } else {
                removed.push_back(eid);
            }
            ++h;
        }
        std::optional<typename S::Change> change;
        if (auto e = S::diff(eid, before, entry.record, tick, change)) {
            e->path.push_index(i);
            e->path.push_field("changes");
            return e;
        }
        if (change) {
            changes.push_back(std::move(*change));
        } else if (before == nullptr) {
            // A whole entity always gives a change.
            rt::EncodeError e(rt::ErrorKind::invalid_condition);
            e.path.push_index(i);
            e.path.push_field("changes");
            return e;
        }
    }
    for (; h < held; ++h) {
        removed.push_back((*base)[h].first);
    }
    return std::nullopt;
}

// ---- the tier boundary (SRV-8) ----

/// A membership boundary with hysteresis (SRV-8): it takes less distance to stay in than to get in.
/// The presenter's near tier; the Rust codec's `tier::TierBoundary`. It holds no memory: the caller
/// passes whether the entity was inside last round.
class TierBoundary {
public:
    /// A boundary that admits a newcomer within `enter` and drops a member past `leave`. SRV-8: a
    /// `leave` below `enter` is raised to it (a NaN radius is left alone: it admits nothing).
    TierBoundary(float enter, float leave) : enter_(enter), leave_(leave < enter ? enter : leave) {}

    /// The radius that admits a newcomer.
    float enter() const { return enter_; }
    /// The radius past which a member is dropped.
    float leave() const { return leave_; }

    /// Whether an entity at `distance` is a member this round, given whether it was one last
    /// round. Both radii are inclusive; a NaN distance is never a member.
    bool admits(bool was_inside, float distance) const {
        return distance <= (was_inside ? leave_ : enter_);
    }

private:
    float enter_;
    float leave_;
};

// ---- the server's input schedule (SRV-12 to SRV-16) ----

/// The accepting window, in ticks either side of the current one (SRV-12 to SRV-16).
struct InputWindow {
    /// How many ticks past its named tick an input is still accepted; it then executes on the
    /// next tick to run, and is counted late.
    uint64_t max_late = 4;
    /// How far ahead of the current tick an input may aim before it reads as parking inputs in
    /// the future.
    uint64_t max_early = 64;
};

/// What `InputSchedule::submit` decided (SRV-12 to SRV-16).
enum class Submission {
    /// Buffered for its tick.
    scheduled,
    /// Buffered, but its tick has already passed inside the window: it executes on the next
    /// tick to run.
    late,
    /// Named a tick already simulated and outside the window; dropped.
    tick_closed,
    /// Named a tick too far ahead; dropped.
    too_far_ahead,
};

/// One seat's buffered inputs and the counters that judge the window, as the Rust server's
/// `InputSchedule` (server/src/input_schedule.rs). SRV-13: the window rejects, it never corrects;
/// SRV-16: `current` is an argument, never a counter kept here. The inbox is bounded in time by the
/// window (nothing is buffered more than `max_early` ticks ahead); the AckedEncoder bounds it in
/// count (MAX_BUFFERED_INPUTS) before `submit`.
template <typename I>
class InputSchedule {
public:
    /// Offers an input naming `tick`, judged against `current` and `window`. SRV-13: an input for a
    /// tick already closed is dropped, never shifted into the window; SRV-14: it never executes
    /// before a tick already executed for its seat.
    Submission submit(uint64_t tick, I input, uint64_t current, InputWindow window) {
        const uint64_t ahead = current > std::numeric_limits<uint64_t>::max() - window.max_early
            ? std::numeric_limits<uint64_t>::max()
            : current + window.max_early;
        if (tick > ahead) {
            rejected_ahead_ += 1;
            return Submission::too_far_ahead;
        }
        const bool late = tick < current;
        if (late && current - tick > window.max_late) {
            rejected_closed_ += 1;
            return Submission::tick_closed;
        }
        const uint64_t named_or_next = late ? current : tick;
        const uint64_t execute_on =
            executed_through_ ? std::max(named_or_next, *executed_through_) : named_or_next;
        queue_[execute_on].push_back(std::move(input));
        pending_ += 1;
        accepted_ += 1;
        if (late) {
            late_ += 1;
            return Submission::late;
        }
        return Submission::scheduled;
    }

    /// The input to apply on tick `current`, if any has come due: level semantics (SRV-15: the
    /// newest due input wins); every other due input is consumed and discarded.
    std::optional<I> execute_due(uint64_t current) {
        std::optional<I> newest;
        bool any = false;
        while (!queue_.empty() && queue_.begin()->first <= current) {
            auto& inputs = queue_.begin()->second;
            pending_ -= inputs.size();
            if (!inputs.empty()) {
                newest = std::move(inputs.back());
            }
            any = true;
            queue_.erase(queue_.begin());
        }
        if (any) {
            executed_through_ = executed_through_ ? std::max(*executed_through_, current) : current;
        }
        return newest;
    }

    /// How many inputs are buffered; constant time (a running count), since the encoder asks
    /// for every input a client sends.
    size_t pending() const { return pending_; }

    /// Inputs buffered, scheduled plus late.
    uint64_t accepted() const { return accepted_; }
    /// Inputs accepted after their tick had passed.
    uint64_t late() const { return late_; }
    /// Inputs dropped for naming a closed or far-future tick.
    uint64_t rejected() const { return rejected_closed_ + rejected_ahead_; }

private:
    std::map<uint64_t, std::vector<I>> queue_;
    size_t pending_ = 0;
    std::optional<uint64_t> executed_through_;
    uint64_t accepted_ = 0;
    uint64_t late_ = 0;
    uint64_t rejected_closed_ = 0;
    uint64_t rejected_ahead_ = 0;
};

/// A client's inputs as the acked encoder hands them on: an InputSchedule judging each input by a
/// window (SRV-12: the input executes on the server tick it names). The encoder's input sink:
/// `submit(seq, tick, input, current)` and `pending()`.
template <typename I>
class ScheduledInputs {
public:
    /// The input a kind 7 frame carries.
    using Input = I;

    /// An empty schedule judging inputs by `window`.
    explicit ScheduledInputs(InputWindow window) : window_(window) {}

    /// Takes a new input (the encoder submits each sequence number once).
    void submit(uint32_t /*seq*/, uint32_t tick, I input, uint64_t current) {
        (void)schedule_.submit(tick, std::move(input), current, window_);
    }

    /// How many inputs it holds ahead of execution (the header's `input_buffer`).
    size_t pending() const { return schedule_.pending(); }

    /// The input to apply on tick `current` (level semantics).
    std::optional<I> execute_due(uint64_t current) { return schedule_.execute_due(current); }

    /// The schedule, for its counters.
    const InputSchedule<I>& schedule() const { return schedule_; }

private:
    InputSchedule<I> schedule_;
    InputWindow window_;
};

// ---- the server's half: the AckedEncoder ----

/// Inputs a client may have buffered in its input sink at once; more are dropped before `submit`
/// (ACK-25).
constexpr size_t MAX_BUFFERED_INPUTS = 256;

/// What an ack did to the base.
enum class AckVerdict {
    /// The base moved to the acknowledged tick.
    taken,
    /// Not newer than the base taken, or from before a keyframe request.
    old,
    /// A tick the server does not keep.
    unknown,
    /// The client acknowledges nothing yet.
    nothing,
    /// The client asked for a keyframe.
    keyframe_requested,
};

/// The verdict's name, for reports (as the Rust `AckVerdict::as_str`).
inline const char* verdict_name(AckVerdict v) {
    switch (v) {
        case AckVerdict::taken:
            return "taken";
        case AckVerdict::old:
            return "old";
        case AckVerdict::unknown:
            return "unknown";
        case AckVerdict::nothing:
            return "nothing";
        case AckVerdict::keyframe_requested:
            return "keyframe_requested";
    }
    return "unknown";
}

/// What the encoder has done, for meters and tests.
struct EncoderCounters {
    /// Frames sent.
    uint64_t frames = 0;
    /// Of which keyframes.
    uint64_t keyframes = 0;
    /// Of which marked for the reliable channel.
    uint64_t reliable = 0;
    /// Acks that moved the base forward.
    uint64_t acks_taken = 0;
    /// Acks of a tick the server does not keep.
    uint64_t acks_unknown = 0;
    /// Acks not newer than the base taken, or from before a keyframe request.
    uint64_t acks_old = 0;
    /// Keyframe requests received.
    uint64_t keyframe_requests = 0;
    /// Events dropped after EVENT_TTL frames without an acknowledgement.
    uint64_t events_expired = 0;
    /// Coded frames that named an older snapshot (CODE-2).
    uint64_t older_named = 0;
    /// Inputs submitted to the input sink.
    uint64_t inputs_taken = 0;
    /// Inputs already taken, carried again.
    uint64_t inputs_repeated = 0;
    /// Inputs dropped because MAX_BUFFERED_INPUTS were buffered.
    uint64_t inputs_overflow = 0;
};

/// A frame to send.
template <typename S>
struct Outgoing {
    /// The frame.
    Frame<S> frame;
    /// Its bytes.
    std::vector<uint8_t> bytes;
    /// ACK-27: a frame over RELIABLE_ABOVE bytes goes on the reliable channel, and is still a frame
    /// like any other.
    bool reliable = false;
};

/// The server's per-client acked encoder (ACK-17 to ACK-28), generic over the schema `S` and over
/// where the client's inputs go (`Q`: `submit(seq, tick, input, current)`, `pending()`).
///
/// It enforces the server's rules of `docs/spec/acked.md`:
/// - ACK-19: the base is the newest acknowledged frame it still keeps; only a tick it sent,
///   keeps and has not seen acknowledged already moves the base;
/// - ACK-20: with no acknowledged base, a keyframe, onto nothing;
/// - ACK-23: each event, numbered per client, goes again until a frame that carried it is
///   acknowledged, or for EVENT_TTL frames at most;
/// - ACK-24: the check every CHECK_EVERY frames (counted in frames, from 1);
/// - ACK-27: a frame over RELIABLE_ABOVE bytes goes on the reliable channel;
/// - CODE-2: a coded frame (is_coded<S>) onto a base names as its older snapshot the newest kept
///   frame before the base that the client acknowledged (since its last keyframe request),
///   within 255 ticks, and is written against both frames' records (S::encode_frame_on), each
///   found by a binary search of the kept state by id.
/// Memory stays bounded whatever the acks say: SENT_RING frames, the events of EVENT_TTL
/// frames, MAX_BUFFERED_INPUTS inputs.
template <typename S, typename Q>
class AckedEncoder {
public:
    using Record = typename S::Record;
    using Event = typename S::Event;

    /// An encoder for a fresh client whose inputs go to `inputs`.
    explicit AckedEncoder(Q inputs) : inputs_(std::move(inputs)) {}

    /// The frame of tick `tick`, producing `state` (S_N), with this tick's new `events`. A
    /// tick not newer than the last frame's is refused (invalid_condition in `tick`).
    rt::Result<Outgoing<S>, rt::EncodeError> encode(
        uint32_t tick, ServerState<Record> state, std::vector<Event> events) {
        if (!sent_.empty() && tick <= sent_.back().tick) {
            rt::EncodeError e(rt::ErrorKind::invalid_condition);
            e.path.push_field("tick");
            return e;
        }
        const uint64_t frame_no = counters_.frames;
        for (auto& event : events) {
            pending_.push_back(Pending{next_serial_, frame_no, std::move(event)});
            next_serial_ += 1;  // modulo 2^32, as the Rust encoder's wrapping_add
        }
        // ACK-23: an event goes again in each frame until one that carried it is acknowledged, or
        // for at most EVENT_TTL frames.
        while (!pending_.empty()) {
            const Pending& p = pending_.front();
            if (acked_serial_ && p.serial <= *acked_serial_) {
                pending_.pop_front();
            } else if (p.born + S::EVENT_TTL <= frame_no) {
                counters_.events_expired += 1;
                pending_.pop_front();
            } else {
                break;
            }
        }
        std::optional<size_t> base_at;
        if (acked_) {
            base_at = index_of(*acked_);
        }
        const Kept* base = base_at ? &sent_[*base_at] : nullptr;
        Outgoing<S> out;
        Frame<S>& frame = out.frame;
        if (auto e = delta<S>(
                base != nullptr ? &base->state : nullptr, state, tick, frame.removed,
                frame.changes)) {
            return std::move(*e);
        }
        const size_t carried = std::min(pending_.size(), size_t{255});
        frame.tick = tick;
        frame.base_tick = base != nullptr ? base->tick : 0;
        frame.last_seq = last_seq_;
        frame.input_buffer = static_cast<uint8_t>(std::min(inputs_.pending(), size_t{255}));
        frame.keyframe = base == nullptr;
        // Frames, not ticks: a server that does not encode every tick would otherwise check at
        // another rate or never. Counted from 1, so the CHECK_EVERY-th frame carries the first.
        if (S::CHECK_EVERY != 0 && (frame_no + 1) % S::CHECK_EVERY == 0) {
            frame.check = server_check<S>(state);
        }
        frame.first_serial = carried > 0 ? pending_.front().serial : 0;
        std::optional<uint32_t> events_through;
        for (size_t i = 0; i < carried; ++i) {
            frame.events.push_back(pending_[i].event);
            events_through = pending_[i].serial;
        }
        if constexpr (is_coded<S>) {
            // CODE-2: a coded frame onto a base names the newest frame before it that the client
            // acknowledged, within 255 ticks; a keyframe names none. Ticks ascend, so the
            // distance is 1 to 255.
            const Kept* older = nullptr;
            for (size_t i = base_at.value_or(0); base != nullptr && i-- > 0;) {
                if (base->tick - sent_[i].tick > 255) {
                    break;
                }
                if (sent_[i].acked) {
                    older = &sent_[i];
                    break;
                }
            }
            const uint8_t distance =
                older != nullptr ? static_cast<uint8_t>(base->tick - older->tick) : uint8_t{0};
            const KeptBasis basis(base != nullptr ? &base->state : nullptr,
                older != nullptr ? &older->state : nullptr);
            if (auto e = S::encode_frame_on(frame, distance, basis, out.bytes)) {
                return std::move(*e);
            }
            counters_.older_named += distance != 0 ? 1 : 0;
        } else {
            if (auto e = S::encode_frame(frame, out.bytes)) {
                return std::move(*e);
            }
        }
        out.reliable = out.bytes.size() > S::RELIABLE_ABOVE;
        counters_.frames += 1;
        counters_.keyframes += frame.keyframe ? 1 : 0;
        counters_.reliable += out.reliable ? 1 : 0;
        sent_.push_back(Kept{tick, std::move(state), events_through, false});
        // ACK-1, ACK-20: the server keeps fewer frames (SENT_RING) than the client holds, so every
        // base it names is one the client still holds.
        while (sent_.size() > S::SENT_RING) {
            sent_.pop_front();
        }
        if (acked_ && !keeps(*acked_)) {
            acked_.reset();
        }
        return out;
    }

    /// Takes a client's kind 7 content: the tick it acknowledges, whether it asks for a
    /// keyframe, and its inputs (`first_seq` numbering the first; `tick_of(input)` the tick
    /// each is aimed at), judged against `current` by the input sink. Only a tick the server
    /// keeps and that is newer than the base already taken moves the base; each input is taken
    /// once, by sequence number.
    template <typename Inputs, typename TickOf>
    AckVerdict on_ack(uint64_t current, uint32_t ack_tick, bool keyframe_request,
        uint32_t first_seq, const Inputs& inputs, TickOf tick_of) {
        AckVerdict verdict;
        if (keyframe_request) {
            // ACK-26 (AckFlags::KEYFRAME_REQUEST): forget every acknowledgement, ignore those of
            // frames sent before the request, send keyframes until one is acked.
            counters_.keyframe_requests += 1;
            acked_.reset();
            // The client holds none of them any more.
            for (Kept& k : sent_) {
                k.acked = false;
            }
            if (!sent_.empty()) {
                floor_ = sent_.back().tick;
            }
            verdict = AckVerdict::keyframe_requested;
        } else if (ack_tick == 0) {
            verdict = AckVerdict::nothing;
        } else if (floor_ && ack_tick <= *floor_) {
            counters_.acks_old += 1;
            verdict = AckVerdict::old;
        } else if (acked_ && ack_tick <= *acked_) {
            // Too old to move the base, but a frame the client applied (CODE-2).
            if (const std::optional<size_t> i = index_of(ack_tick)) {
                sent_[*i].acked = true;
            }
            counters_.acks_old += 1;
            verdict = AckVerdict::old;
        } else if (const std::optional<size_t> i = index_of(ack_tick)) {
            Kept* k = &sent_[*i];
            k->acked = true;
            acked_ = ack_tick;
            if (k->events_through) {
                const uint32_t through = *k->events_through;
                acked_serial_ = acked_serial_ ? std::max(*acked_serial_, through) : through;
            }
            counters_.acks_taken += 1;
            verdict = AckVerdict::taken;
        } else {
            counters_.acks_unknown += 1;
            verdict = AckVerdict::unknown;
        }
        uint64_t seq64 = first_seq;
        for (const auto& input : inputs) {
            if (seq64 > 0xFFFFFFFFu) {
                break;
            }
            const uint32_t seq = static_cast<uint32_t>(seq64);
            seq64 += 1;
            if (seq <= last_seq_) {
                counters_.inputs_repeated += 1;
                continue;
            }
            last_seq_ = seq;
            if (inputs_.pending() >= MAX_BUFFERED_INPUTS) {
                counters_.inputs_overflow += 1;
                continue;
            }
            inputs_.submit(seq, tick_of(input), input, current);
            counters_.inputs_taken += 1;
        }
        return verdict;
    }

    /// The same, from a kind 7 frame's content: `S::input_tick` gives the tick each input is
    /// aimed at.
    template <typename I>
    AckVerdict on_ack(uint64_t current, const AckContent<I>& ack) {
        return on_ack(current, ack.ack_tick, ack.keyframe_request, ack.first_seq, ack.inputs,
            [](const I& input) { return S::input_tick(input); });
    }

    /// Where the client's inputs go, for its counters.
    const Q& inputs() const { return inputs_; }
    /// Where the client's inputs go, to execute them (executing is the sink's business).
    Q& inputs_mut() { return inputs_; }
    /// The tick of the base the next frame goes onto, if any.
    std::optional<uint32_t> acked() const { return acked_; }
    /// Frames kept (at most SENT_RING).
    size_t kept() const { return sent_.size(); }
    /// Events waiting for an acknowledgement.
    size_t pending_events() const { return pending_.size(); }
    /// The newest input sequence taken.
    uint32_t last_seq() const { return last_seq_; }
    /// What the encoder has done.
    const EncoderCounters& counters() const { return counters_; }

private:
    /// One frame kept: its tick, its state, the newest event serial it carried, and whether the
    /// client acknowledged it (since its last keyframe request): a frame it applied, which a
    /// coded frame may name as its older snapshot (CODE-2).
    struct Kept {
        uint32_t tick;
        ServerState<Record> state;
        std::optional<uint32_t> events_through;
        bool acked;
    };

    /// The records a coded frame is predicted from (CODE-13, CODE-14) as the encoder keeps them:
    /// those of its base and of its older snapshot (null: no such frame, no records), each found
    /// by a binary search of the kept state by id. The record whatever the life it belongs to:
    /// the client holds records, not lives.
    class KeptBasis final : public coded::CodedBasis<Record> {
    public:
        KeptBasis(const ServerState<Record>* b, const ServerState<Record>* o)
            : base_(b), older_(o) {}

        std::optional<Record> base(uint16_t eid) const override { return at(base_, eid); }
        std::optional<Record> older(uint16_t eid) const override { return at(older_, eid); }

    private:
        static std::optional<Record> at(const ServerState<Record>* state, uint16_t eid) {
            if (state == nullptr) {
                return std::nullopt;
            }
            const auto it = std::lower_bound(state->begin(), state->end(), eid,
                [](const std::pair<uint16_t, Entry<Record>>& e, uint16_t id) {
                    return e.first < id;
                });
            if (it == state->end() || it->first != eid) {
                return std::nullopt;
            }
            return it->second.record;
        }

        const ServerState<Record>* base_;
        const ServerState<Record>* older_;
    };
    struct Pending {
        uint32_t serial;
        uint64_t born;
        Event event;
    };

    std::optional<size_t> index_of(uint32_t tick) const {
        for (size_t i = 0; i < sent_.size(); ++i) {
            if (sent_[i].tick == tick) {
                return i;
            }
        }
        return std::nullopt;
    }
    bool keeps(uint32_t tick) const { return index_of(tick).has_value(); }

    std::deque<Kept> sent_;
    std::optional<uint32_t> acked_;
    std::optional<uint32_t> floor_;
    std::deque<Pending> pending_;
    uint32_t next_serial_ = 1;
    std::optional<uint32_t> acked_serial_;
    Q inputs_;
    uint32_t last_seq_ = 0;
    EncoderCounters counters_;
};

// ---- the client's half: the AckedDecoder ----

/// What the client's AckedDecoder has done, for meters and tests.
struct DecoderCounters {
    /// Frames applied and shown.
    uint64_t applied = 0;
    /// Frames not newer than the last applied, dropped.
    uint64_t stale = 0;
    /// Frames whose base the decoder does not hold, dropped; and, of a coded schema, frames whose
    /// older snapshot it does not hold (CODE-3: dropped as a frame without its base is), also
    /// counted in `unknown_older`.
    uint64_t unknown_base = 0;
    /// Of `unknown_base`, the coded frames whose base the decoder holds but whose older snapshot
    /// (CODE-2) it does not.
    uint64_t unknown_older = 0;
    /// Frames that did not decode.
    uint64_t undecodable = 0;
    /// Frames that decoded but could not apply onto their base.
    uint64_t inapplicable = 0;
    /// Checks that matched.
    uint64_t checks_passed = 0;
    /// Checks that did not match.
    uint64_t checks_failed = 0;
    /// Events shown.
    uint64_t events_shown = 0;
};

/// What an applied frame changed, told against the last frame shown, not the base.
///
/// ACK-34: the report of a frame (changed, measured and when, gone, tiers) compares with the last
/// frame shown rather than the base, so a pose repeated after it was shown is not a new
/// measurement.
///
/// The decoder owns one report and refills it for every frame it shows (its buffers reused);
/// a Delivery lends it until the next call. Copy it to keep it.
template <typename E>
struct FrameReport {
    /// The frame's tick.
    uint32_t tick = 0;
    /// The tick of the frame it applied onto (0 for a keyframe).
    uint32_t base_tick = 0;
    /// Whether it was a keyframe.
    bool keyframe = false;
    /// Entities whose record differs from the last frame shown (or that it did not hold),
    /// ascending.
    std::vector<uint16_t> changed;
    /// Entities with a pose measured since the last frame shown, and the tick it was measured.
    std::vector<std::pair<uint16_t, uint32_t>> measured;
    /// Entities the last frame shown held and this one does not, ascending.
    std::vector<uint16_t> gone;
    /// The tier of each changed entity as the client sees it: whether its pose came full.
    std::vector<std::pair<uint16_t, bool>> tiers;
    /// The events shown for the first time, with their serials.
    std::vector<std::pair<uint32_t, E>> events;
    /// The check's verdict, when the frame carried one.
    std::optional<bool> check;
};

/// What the decoder did with a frame.
template <typename E>
struct Delivery {
    /// Which of the outcomes.
    enum class Kind {
        /// Applied and shown; `report` is the decoder's, lent until its next delivery.
        shown,
        /// Not newer than the last frame applied: dropped, counted.
        stale,
        /// Its base is not held, or (a coded frame, CODE-3) its older snapshot: dropped, counted.
        unknown_base,
        /// The bytes are not a frame (`error` says why).
        undecodable,
        /// A frame that cannot apply onto the base it named (`why` says why).
        inapplicable,
    };
    /// Which of the outcomes.
    Kind kind = Kind::shown;
    /// The frame's tick (not for `undecodable`).
    uint32_t tick = 0;
    /// The base it named (for `unknown_base`).
    uint32_t base_tick = 0;
    /// Why it cannot apply (for `inapplicable`).
    const char* why = nullptr;
    /// Why it does not decode (for `undecodable`).
    std::optional<rt::DecodeError> error;
    /// The report (for `shown`).
    const FrameReport<E>* report = nullptr;
};

namespace detail {

/// The most entity ids there are: a u16 on the wire.
constexpr size_t IDS = size_t{1} << 16;

/// The size a table indexed by id grows to so that `eid` fits: a power of two (at least 64,
/// at most 65,536), so that a world that grows an id at a time reallocates a few times.
inline size_t table_len(uint16_t eid) {
    size_t n = 64;
    while (n < size_t{eid} + 1) {
        n *= 2;
    }
    return std::min(n, IDS);
}

}  // namespace detail

/// The state the client shows: every entity's record, in a table indexed by id, so that a
/// frame edits an entity in place, whatever the size of the world. It grows to the largest id
/// it has held (at most 65,536 slots, a u16's ids: the most a hostile server can make it hold).
template <typename R>
class LiveState {
public:
    /// The record of `eid`, or null.
    const R* get(uint16_t eid) const {
        const size_t i = eid;
        return i < slots_.size() && slots_[i] ? &*slots_[i] : nullptr;
    }

    /// How many entities.
    size_t size() const { return len_; }

    /// Whether it holds no entity.
    bool empty() const { return len_ == 0; }

    /// Calls `f(eid, record)` for every entity, ascending by id.
    template <typename F>
    void for_each(F&& f) const {
        for (size_t i = 0; i < slots_.size(); ++i) {
            if (slots_[i]) {
                f(static_cast<uint16_t>(i), *slots_[i]);
            }
        }
    }

    /// Sets (or with nothing clears) the record of `eid`.
    void set(uint16_t eid, const std::optional<R>& record) {
        const size_t i = eid;
        if (i >= slots_.size()) {
            if (!record) {
                return;
            }
            slots_.resize(detail::table_len(eid));
        }
        std::optional<R>& slot = slots_[i];
        if (!slot && record) {
            len_ += 1;
        } else if (slot && !record) {
            len_ -= 1;
        }
        slot = record;
    }

    /// Calls `f(eid, record)` with every record mutable (for `tamper`).
    template <typename F>
    void for_each_mut(F&& f) {
        for (size_t i = 0; i < slots_.size(); ++i) {
            if (slots_[i]) {
                f(static_cast<uint16_t>(i), *slots_[i]);
            }
        }
    }

private:
    std::vector<std::optional<R>> slots_;
    size_t len_ = 0;
};

/// The client's half of the acked stream (ACK-29 to ACK-36): holds the states of its last HELD_RING
/// frames by tick, applies each frame onto the base it names, shows each event once.
///
/// One live state, the state of the last frame shown, edited in place; each held frame keeps
/// the edits that undo it (for every entity the frame changed, what the frame before it held).
/// Frames apply in ascending tick, so the held frames form one chain ending at the live state;
/// the state of a held frame B is the live state with the undo edits of every frame after B
/// laid over it, the oldest edit of an entity winning. A frame onto base B touches only the
/// entities it names and those edited since B; a warm delivery allocates nothing (the frame is
/// decoded into the buffers of the one before, the report and the undo edits reuse theirs), and
/// a frame costs its changes and the entities they touch, never the world (the check, every
/// CHECK_EVERY frames, and a keyframe, which names the whole world, aside).
///
/// A coded schema's frames (is_coded<S>, CODE-3): what the basis is looked up by is read first,
/// the frame dropped as one without its base when its base or its older snapshot is not held, and
/// read against their records, each entity's found through the undo edits of the frames after
/// the held frame, a binary search in each (HeldBasis): a change's lookup costs the frames held
/// at most, never the world.
///
/// Feed it every kind 6 frame with `deliver`; after each, answer with a kind 7 frame
/// acknowledging `ack_tick()`. It never grows past HELD_RING states, whatever it is fed.
template <typename S>
class AckedDecoder {
public:
    using Record = typename S::Record;
    using Event = typename S::Event;
    static_assert(S::HELD_RING >= 1, "the decoder holds at least the frame it shows");

    /// A decoder that holds nothing and has shown nothing.
    AckedDecoder() : ring_(S::HELD_RING), leaf_(detail::IDS / 64, 0) {}

    /// Takes one frame's bytes.
    Delivery<Event> deliver(const uint8_t* bytes, size_t len) {
        Delivery<Event> d;
        size_t after_base = count_;
        if constexpr (is_coded<S>) {
            if (!read_coded(bytes, len, after_base, d)) {
                return d;
            }
        } else {
            if (auto e = S::decode_frame_into(bytes, len, frame_)) {
                counters_.undecodable += 1;
                d.kind = Delivery<Event>::Kind::undecodable;
                d.error = std::move(*e);
                return d;
            }
            d.tick = frame_.tick;
            // ACK-31: a frame not newer than the last one applied is stale, and dropped.
            if (shown_ && frame_.tick <= *shown_) {
                counters_.stale += 1;
                d.kind = Delivery<Event>::Kind::stale;
                return d;
            }
            // ACK-30: a frame onto a base the client no longer holds (or never had) is dropped
            // silently; a later frame, on a newer acknowledgement, follows. While a keyframe is
            // wanted the decoder holds nothing, so only a keyframe applies.
            if (!frame_.keyframe) {
                const std::optional<size_t> found = after(frame_.base_tick);
                if (!found) {
                    counters_.unknown_base += 1;
                    d.kind = Delivery<Event>::Kind::unknown_base;
                    d.base_tick = frame_.base_tick;
                    return d;
                }
                after_base = *found;
            }
        }
        if (const char* why = stage(after_base)) {
            counters_.inapplicable += 1;
            d.kind = Delivery<Event>::Kind::inapplicable;
            d.why = why;
            return d;
        }
        undo_.clear();
        commit();
        // ACK-36: a frame that carries a check is held to the check (CHECK-2) of the state it
        // produces.
        std::optional<bool> check;
        if (frame_.check) {
            check = live_check(bytes_) == *frame_.check;
            (*check ? counters_.checks_passed : counters_.checks_failed) += 1;
        }
        report_.check = check;
        counters_.applied += 1;
        last_seq_ = frame_.last_seq;
        input_buffer_ = frame_.input_buffer;
        shown_ = frame_.tick;
        if (check == std::optional<bool>(false)) {
            // ACK-36: a mismatch: every state held may be wrong. Hold nothing, acknowledge nothing
            // and ask for a keyframe (AckFlags::KEYFRAME_REQUEST, acked.wire) until one applies.
            keyframe_wanted_ = true;
            count_ = 0;
        } else {
            if (frame_.keyframe) {
                keyframe_wanted_ = false;
            }
            if (!keyframe_wanted_) {
                if (count_ >= S::HELD_RING) {
                    // The oldest held frame's edits lead to a frame no longer held.
                    head_ = (head_ + 1) % S::HELD_RING;
                    count_ -= 1;
                }
                Held& slot = ring_[(head_ + count_) % S::HELD_RING];
                slot.tick = frame_.tick;
                slot.undo.swap(undo_);
                count_ += 1;
            }
        }
        d.kind = Delivery<Event>::Kind::shown;
        d.report = &report_;
        return d;
    }

    /// Takes one frame's bytes.
    Delivery<Event> deliver(const std::vector<uint8_t>& bytes) {
        return deliver(bytes.data(), bytes.size());
    }

    /// The tick of the newest frame applied, which the next kind 7 frame acknowledges; 0 before
    /// the first and while a keyframe is wanted ("acknowledges nothing until one arrives",
    /// AckFlags::KEYFRAME_REQUEST in acked.wire).
    uint32_t ack_tick() const {
        if (keyframe_wanted_) {
            return 0;
        }
        return shown_.value_or(0);
    }

    /// Whether a check failed and no keyframe has applied since: the next kind 7 frames set
    /// KEYFRAME_REQUEST.
    bool keyframe_wanted() const { return keyframe_wanted_; }

    /// The tick of the last frame shown, if any.
    std::optional<uint32_t> shown_tick() const { return shown_; }

    /// The state of the last frame shown (empty before the first).
    const LiveState<Record>& live() const { return live_; }

    /// The check of the state shown (of an empty state before the first frame).
    uint32_t state_hash() const {
        std::vector<uint8_t> buf;
        return live_check(buf);
    }

    /// The newest input sequence the server said it processed.
    uint32_t last_seq() const { return last_seq_; }
    /// How many inputs the server said it holds.
    uint8_t input_buffer() const { return input_buffer_; }
    /// How many frame states are held.
    size_t held_count() const { return count_; }
    /// What the decoder has done.
    const DecoderCounters& counters() const { return counters_; }

    /// Changes every record the decoder holds and shows through `f(eid, record&)`: a memory
    /// corruption, for tests and the conformance scenario that the check must catch.
    template <typename F>
    void tamper(F f) {
        // Every held state is the live state with undo edits laid over it: changing every
        // record of both changes every record of every held state, each once.
        live_.for_each_mut(f);
        for (size_t i = 0; i < count_; ++i) {
            for (auto& edit : held(i).undo) {
                if (edit.second) {
                    f(edit.first, *edit.second);
                }
            }
        }
    }

private:
    /// One held frame: its tick, and the edits that undo it, ascending by id.
    struct Held {
        uint32_t tick = 0;
        std::vector<std::pair<uint16_t, std::optional<Record>>> undo;
    };

    static constexpr const char* REMOVED_NOT_HELD = "a removed id the base does not hold";

    Held& held(size_t i) { return ring_[(head_ + i) % S::HELD_RING]; }
    const Held& held(size_t i) const { return ring_[(head_ + i) % S::HELD_RING]; }

    /// The place among the held frames after the one of tick `tick`, if it is held.
    std::optional<size_t> after(uint32_t tick) const {
        for (size_t i = 0; i < count_; ++i) {
            if (held(i).tick == tick) {
                return i + 1;
            }
        }
        return std::nullopt;
    }

    /// The records a coded frame is predicted from (CODE-13, CODE-14) as the decoder holds them:
    /// those of its base and of its older snapshot, each a held frame B given by the place after
    /// it (none: no such frame, no records). B's record of an entity is the live state's with
    /// the undo edits of the frames after B laid over it, the oldest that edited the entity
    /// winning: a binary search in each frame after B (at most HELD_RING), never a walk of the
    /// world.
    class HeldBasis final : public coded::CodedBasis<Record> {
    public:
        HeldBasis(const AckedDecoder& dec, std::optional<size_t> b, std::optional<size_t> o)
            : dec_(dec), base_(b), older_(o) {}

        std::optional<Record> base(uint16_t eid) const override { return at(base_, eid); }
        std::optional<Record> older(uint16_t eid) const override { return at(older_, eid); }

    private:
        std::optional<Record> at(std::optional<size_t> from, uint16_t eid) const {
            if (!from) {
                return std::nullopt;
            }
            for (size_t h = *from; h < dec_.count_; ++h) {
                const auto& undo = dec_.held(h).undo;
                const auto it = std::lower_bound(undo.begin(), undo.end(), eid,
                    [](const std::pair<uint16_t, std::optional<Record>>& e, uint16_t id) {
                        return e.first < id;
                    });
                if (it != undo.end() && it->first == eid) {
                    return it->second;
                }
            }
            return opt(dec_.live_.get(eid));
        }

        const AckedDecoder& dec_;
        std::optional<size_t> base_;
        std::optional<size_t> older_;
    };

    /// A coded frame (CODE-2, CODE-3) up to its application: what its basis is looked up by read
    /// first, then, unless it is stale (ACK-31) or its base or its older snapshot is not held
    /// (dropped as ACK-30 drops a frame without its base, before its changes are read), the frame
    /// decoded into `frame_` against the records of both as the decoder holds them (HeldBasis).
    /// False, with why in `d`, when it goes no further; else the place after its base in
    /// `after_base`.
    bool read_coded(const uint8_t* bytes, size_t len, size_t& after_base, Delivery<Event>& d) {
        coded::CodedBasisTicks ticks;
        if (auto e = S::read_basis(bytes, len, ticks)) {
            counters_.undecodable += 1;
            d.kind = Delivery<Event>::Kind::undecodable;
            d.error = std::move(*e);
            return false;
        }
        d.tick = ticks.tick;
        if (shown_ && ticks.tick <= *shown_) {
            counters_.stale += 1;
            d.kind = Delivery<Event>::Kind::stale;
            return false;
        }
        std::optional<size_t> base;
        std::optional<size_t> older;
        // CODE-2: a keyframe names no older snapshot (the schema refuses one that does).
        if (!ticks.keyframe) {
            base = after(ticks.base_tick);
            if (!base) {
                counters_.unknown_base += 1;
                d.kind = Delivery<Event>::Kind::unknown_base;
                d.base_tick = ticks.base_tick;
                return false;
            }
            if (ticks.older != 0) {
                // Before tick 0 the server sent nothing, so nothing there is held.
                if (ticks.base_tick >= ticks.older) {
                    older = after(ticks.base_tick - ticks.older);
                }
                if (!older) {
                    counters_.unknown_base += 1;
                    counters_.unknown_older += 1;
                    d.kind = Delivery<Event>::Kind::unknown_base;
                    d.base_tick = ticks.base_tick;
                    return false;
                }
            }
        }
        const HeldBasis basis(*this, base, older);
        std::optional<rt::DecodeError> e = S::decode_frame_on_into(bytes, len, basis, frame_);
        // The frame must be the one its prefix said, or it would apply onto another base than
        // the one it was read against.
        const bool as_said = frame_.tick == ticks.tick && frame_.base_tick == ticks.base_tick
            && frame_.keyframe == ticks.keyframe;
        if (!e && !as_said) {
            e = rt::DecodeError(rt::ErrorKind::invalid_condition, 0);
            e->path.push_field("base_tick");
        }
        if (e) {
            counters_.undecodable += 1;
            d.kind = Delivery<Event>::Kind::undecodable;
            d.error = std::move(*e);
            return false;
        }
        after_base = base.value_or(count_);
        return true;
    }

    /// The staged value of `eid`, first read with `from()` when the frame has not touched it.
    /// Which ids are touched is a two-level bit set over the 65,536 ids (16 words over 1,024),
    /// so the touched entities are walked in ascending id without sorting them.
    template <typename From>
    std::optional<Record>& entry(uint16_t eid, From from) {
        const size_t i = eid;
        const size_t w = i / 64;
        const uint64_t bit = uint64_t{1} << (i % 64);
        if ((leaf_[w] & bit) == 0) {
            leaf_[w] |= bit;
            top_[w / 64] |= uint64_t{1} << (w % 64);
            if (i >= vals_.size()) {
                vals_.resize(detail::table_len(eid));
            }
            vals_[i] = from();
        }
        return vals_[i];
    }

    /// Takes every entity staged, ascending by id, leaving nothing staged.
    template <typename F>
    void drain(F f) {
        for (size_t t = 0; t < top_.size(); ++t) {
            uint64_t words = top_[t];
            top_[t] = 0;
            while (words != 0) {
                const size_t w = t * 64 + static_cast<size_t>(__builtin_ctzll(words));
                words &= words - 1;
                uint64_t bits = leaf_[w];
                leaf_[w] = 0;
                while (bits != 0) {
                    const size_t i = w * 64 + static_cast<size_t>(__builtin_ctzll(bits));
                    bits &= bits - 1;
                    f(static_cast<uint16_t>(i), vals_[i]);
                    vals_[i].reset();
                }
            }
        }
    }

    /// The rules of ACK-5, ACK-21 and ACK-32 for a frame's removals and changes onto its base (the
    /// live state with the undo edits of the held frames from `after_base` on laid over it, the
    /// first of an entity winning; nothing for a keyframe), staged. The faults are those of
    /// applying the removals one by one, then the changes one by one. Nullptr, or why the frame is
    /// refused.
    const char* stage(size_t after_base) {
        drain([](uint16_t, std::optional<Record>&) {});
        const Frame<S>& frame = frame_;
        if (frame.keyframe) {
            // A keyframe applies onto nothing: every entity held goes unless the frame names it.
            if (!frame.removed.empty()) {
                return REMOVED_NOT_HELD;
            }
            live_.for_each([&](uint16_t eid, const Record&) {
                entry(eid, [] { return std::optional<Record>(); });
            });
        } else {
            // The base's records of the entities edited since: the oldest undo edit of each.
            for (size_t h = after_base; h < count_; ++h) {
                for (const auto& edit : held(h).undo) {
                    entry(edit.first, [&] { return edit.second; });
                }
            }
            // ACK-5: the entities gone, and those living a new life under their id, are removed
            // (the latter come again whole). The wire does not make the removals ascend; taken one
            // by one, any order of distinct held ids applies, and an id twice is a removal of an id
            // no longer held.
            for (const uint16_t eid : frame.removed) {
                std::optional<Record>& e = entry(eid, [&] { return opt(live_.get(eid)); });
                if (!e) {
                    return REMOVED_NOT_HELD;
                }
                e.reset();
            }
        }
        std::optional<uint16_t> last;
        for (const auto& change : frame.changes) {
            const uint16_t eid = S::change_eid(change);
            if (last && *last >= eid) {
                return "changes not in ascending id order";
            }
            last = eid;
            const bool keyframe = frame.keyframe;
            std::optional<Record>& e = entry(eid, [&] {
                return keyframe ? std::optional<Record>() : opt(live_.get(eid));
            });
            // ACK-33: a pose sent with its age is recorded at the tick it was true (the schema's
            // `apply`: tick minus age).
            Record next{};
            if (const char* why = S::apply(e ? &*e : nullptr, change, frame.tick, next)) {
                return why;
            }
            e = next;
        }
        return nullptr;
    }

    static std::optional<Record> opt(const Record* r) {
        return r != nullptr ? std::optional<Record>(*r) : std::nullopt;
    }

    /// Writes the staged entities into the live state, keeping what each write overwrote in
    /// `undo_`, and fills the report against the state overwritten (the last frame shown);
    /// marks the frame's new events shown.
    void commit() {
        FrameReport<Event>& report = report_;
        report.changed.clear();
        report.measured.clear();
        report.gone.clear();
        report.tiers.clear();
        report.events.clear();
        report.check.reset();
        report.tick = frame_.tick;
        report.base_tick = frame_.base_tick;
        report.keyframe = frame_.keyframe;
        drain([&](uint16_t eid, std::optional<Record>& next) {
            const Record* old = live_.get(eid);
            if (old == nullptr ? !next : (next && *old == *next)) {
                return;
            }
            if (!next) {
                report.gone.push_back(eid);
            } else {
                report.changed.push_back(eid);
                if (const std::optional<uint32_t> m = S::measured(*next)) {
                    if (old == nullptr || S::measured(*old) != m) {
                        report.measured.emplace_back(eid, *m);
                    }
                }
                if (const std::optional<bool> full = S::pose_full(*next)) {
                    report.tiers.emplace_back(eid, *full);
                }
            }
            undo_.emplace_back(eid, opt(old));
            live_.set(eid, next);
        });
        // ACK-35: each event is shown once, only when its serial is above the newest shown. Modulo
        // 2^32, as the server numbers them: a first_serial near 2^32 - 1 wraps.
        for (size_t i = 0; i < frame_.events.size(); ++i) {
            const uint32_t serial = frame_.first_serial + static_cast<uint32_t>(i);
            if (!newest_serial_ || serial > *newest_serial_) {
                newest_serial_ = serial;
                counters_.events_shown += 1;
                report.events.emplace_back(serial, frame_.events[i]);
            }
        }
    }

    /// FNV-1a of every record of the live state in ascending id (CHECK-2).
    uint32_t live_check(std::vector<uint8_t>& buf) const {
        return state_check<S>([&](auto emit) { live_.for_each(emit); }, buf);
    }

    LiveState<Record> live_;
    std::optional<uint32_t> shown_;
    // ACK-29: the client holds the states of its last HELD_RING applied frames, by tick: a ring of
    // HELD_RING slots, oldest at head_, each as the edits that undo it; when any is held, the
    // newest is the frame shown (the live state).
    std::vector<Held> ring_;
    size_t head_ = 0;
    size_t count_ = 0;
    // The undo edits of the frame being applied; swapped into its ring slot when it is held.
    std::vector<std::pair<uint16_t, std::optional<Record>>> undo_;
    Frame<S> frame_;
    std::vector<std::optional<Record>> vals_;
    std::vector<uint64_t> leaf_;
    std::array<uint64_t, detail::IDS / 64 / 64> top_{};
    FrameReport<Event> report_;
    std::vector<uint8_t> bytes_;
    std::optional<uint32_t> newest_serial_;
    bool keyframe_wanted_ = false;
    uint32_t last_seq_ = 0;
    uint8_t input_buffer_ = 0;
    DecoderCounters counters_;
};

/// The inputs of the client's kind 7 frames (ACK-12: "the client's recent inputs, each with its
/// sequence number and the server tick it is aimed at ... repeated over several frames so that a
/// lost frame loses no input"). Inputs are numbered from 1 and kept until the server's `last_seq`
/// says it processed them, or until more than `keep` newer ones have been pushed (at most 255, the
/// count's width); every frame carries all of those kept, oldest first. The frame itself is the
/// schema's (reference/acked.hpp writes protocol::Ack).
template <typename I>
class AckWriter {
public:
    /// A writer that repeats at most `keep` inputs (clamped to 1 to 255).
    explicit AckWriter(size_t keep) : keep_(std::min(std::max(keep, size_t{1}), size_t{255})) {}

    /// Adds an input; returns its sequence number.
    uint32_t push(I input) {
        const uint32_t seq = next_seq_;
        next_seq_ += 1;  // modulo 2^32, as the Rust writer's wrapping_add
        pending_.emplace_back(seq, std::move(input));
        while (pending_.size() > keep_) {
            pending_.pop_front();
        }
        return seq;
    }

    /// The server processed every input up to `last_seq`: stop repeating them.
    void confirm(uint32_t last_seq) {
        while (!pending_.empty() && pending_.front().first <= last_seq) {
            pending_.pop_front();
        }
    }

    /// The inputs still repeated, oldest first, with their sequence numbers.
    const std::deque<std::pair<uint32_t, I>>& pending() const { return pending_; }

    /// The kind 7 frame acknowledging `ack_tick` with every input still repeated;
    /// `keyframe_request` sets KEYFRAME_REQUEST (the client's check failed and it holds no
    /// base: acked.wire, AckFlags), and the frame then acknowledges nothing.
    AckContent<I> content(uint32_t ack_tick, bool keyframe_request) const {
        AckContent<I> ack;
        ack.ack_tick = keyframe_request ? 0 : ack_tick;
        ack.keyframe_request = keyframe_request;
        if (!pending_.empty()) {
            ack.first_seq = pending_.front().first;
        }
        ack.inputs.reserve(pending_.size());
        for (const auto& p : pending_) {
            ack.inputs.push_back(p.second);
        }
        return ack;
    }

private:
    std::deque<std::pair<uint32_t, I>> pending_;
    uint32_t next_seq_ = 1;
    size_t keep_;
};

}  // namespace acked
}  // namespace ackwire
