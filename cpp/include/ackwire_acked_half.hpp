// The two session halves of acked snapshots (ACK-17 to ACK-36) over any acked schema
// (ackwire_acked.hpp lists what a schema provides), as the Rust codec's `session::AckedClient` and
// `session::AckedServer`: AckedClientHalf, the facade a native client drives, and AckedServerHalf,
// which a game's presenter feeds. `ackwire gen --lang cpp` writes the schemas of every `state` a
// spec declares (the reference protocol's `reference::Reference`, kind 6, and
// `reference::PackedReference`, kind 12); what each client sees of the world (tiers, refresh, a
// client's own entities) is the presenter's, the game's own code.
//
// Sans-IO (ackwire_session.hpp): a frame and the time go in, the frames to send come out of
// `poll_transmit()`; nothing reads a clock or a socket. Nothing throws on a peer's bytes.

#pragma once

#include "ackwire_acked.hpp"
#include "ackwire_session.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ackwire {
namespace acked {

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

/// The client's half of acked snapshots: an AckedDecoder of the schema `S` and the kind 7
/// AckWriter. A frame is one named `S::FRAME_NAME`, reported as its Delivery (an undecodable
/// frame is a delivery too; a frame of another name is a SessionError); a tick takes the
/// player's input and sends one `S::ACK_NAME` frame acknowledging the newest frame applied,
/// with the inputs `last_seq` does not cover yet, KEYFRAME_REQUEST set after a failed check
/// until a keyframe applies. A native client's loop: `handle_frame` for every datagram,
/// `handle_tick` every tick, then `poll_transmit` until it gives nothing, sending what it gives.
template <typename S>
class AckedClientHalf {
public:
    /// The decoder's report of a frame.
    using Delivery = acked::Delivery<typename S::Event>;
    /// The input a kind 7 frame carries.
    using Input = typename S::Input;

    /// A fresh decoder; the writer repeats `keep` inputs (1 to 255) until they are covered.
    explicit AckedClientHalf(size_t keep = 16) : writer_(keep) {}

    /// The server's frame `frame` (its name in the spec) arrives. The Delivery's report is the
    /// decoder's, lent until the next call.
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

    /// A tick passes with the player's `input`: one ack frame is queued.
    session::Result<session::Unit> handle_tick(session::Now /*now*/, Input input) {
        writer_.confirm(decoder_.last_seq());
        writer_.push(std::move(input));
        std::vector<uint8_t> bytes;
        if (auto e = S::encode_ack(
                writer_.content(decoder_.ack_tick(), decoder_.keyframe_wanted()), bytes)) {
            return detail::encode_error(*e);
        }
        out_.push(session::Transmit{S::ACK_NAME, std::move(bytes), false});
        return session::Unit{};
    }

    /// The next frame to send, in order; nothing when there is none.
    std::optional<session::Transmit> poll_transmit() { return out_.poll(); }

    /// The check of the state shown: FNV-1a of every record in ascending id (CHECK-2, CHECK-7),
    /// what the server's S_N check of the same tick is.
    uint32_t state_hash() const { return decoder_.state_hash(); }

    /// The entities shown (read-only): `shown().for_each([](uint16_t eid, const Record& r) {
    /// ... })`, `shown().get(eid)`, `shown().size()`.
    const LiveState<typename S::Record>& shown() const { return decoder_.live(); }

    /// The tick of the last frame shown, if any.
    std::optional<uint32_t> shown_tick() const { return decoder_.shown_tick(); }

    /// The decoder, for its counters and lower-level methods.
    AckedDecoder<S>& machine() { return decoder_; }
    /// The decoder.
    const AckedDecoder<S>& machine() const { return decoder_; }

private:
    AckedDecoder<S> decoder_;
    AckWriter<Input> writer_;
    session::Outbox out_;
};

/// What an ack did to the acked server.
struct AckedAckReport {
    /// The encoder's verdict.
    AckVerdict verdict = AckVerdict::nothing;
    /// The acknowledged base now.
    std::optional<uint32_t> base;
    /// The newest input sequence received.
    uint32_t last_seq = 0;
    /// The encoder's counters.
    EncoderCounters counters;
};

/// The server's half of acked snapshots: a presenter `P` and an AckedEncoder of the schema `S`
/// over the server's input schedule. A tick takes the world and the tick's events and sends one
/// frame named `S::FRAME_NAME` (reliable when over RELIABLE_ABOVE bytes); a frame is the
/// client's ack, its inputs judged against the tick of `now`.
///
/// The presenter is the game's policy (ACK-17: for each client, the state an ordered client
/// would hold after frame N, as the ordered encoder computes it):
/// `present(tick, world)` gives S_N, every entity the client holds ascending by id, for any
/// world type the game passes to `handle_tick`.
template <typename S, typename P>
class AckedServerHalf {
public:
    /// The encoder: the schema's, over the server's input schedule.
    using Encoder = AckedEncoder<S, ScheduledInputs<typename S::Input>>;

    /// The half of a client seen through `presenter`, its inputs judged by `window`.
    AckedServerHalf(P presenter, InputWindow window)
        : presenter_(std::move(presenter)),
        encoder_(ScheduledInputs<typename S::Input>(window)) {}

    /// The client's ack frame `frame` arrives at `now` (its inputs judged against `now.tick`);
    /// an undecodable one is a SessionError of kind `decode`.
    session::Result<AckedAckReport> handle_frame(
        session::Now now, const std::string& frame, const uint8_t* bytes, size_t len) {
        if (auto e = session::expect_frame(frame, S::ACK_NAME)) {
            return std::move(*e);
        }
        if (auto e = S::decode_ack(bytes, len, ack_)) {
            return detail::decode_error(std::move(*e));
        }
        AckedAckReport report;
        report.verdict = encoder_.on_ack(now.tick, ack_);
        report.base = encoder_.acked();
        report.last_seq = encoder_.last_seq();
        report.counters = encoder_.counters();
        return report;
    }

    /// Tick `now.tick` passes with `world` and the tick's new `events`: one frame.
    template <typename W>
    session::Result<session::Unit> handle_tick(
        session::Now now, const W& world, std::vector<typename S::Event> events) {
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

    /// The client's view.
    const P& presenter() const { return presenter_; }

    /// The encoder, for its lower-level methods (its inputs are executed through it).
    Encoder& machine() { return encoder_; }
    /// The encoder.
    const Encoder& machine() const { return encoder_; }

private:
    P presenter_;
    Encoder encoder_;
    AckContent<typename S::Input> ack_;
    session::Outbox out_;
};

}  // namespace acked
}  // namespace ackwire
