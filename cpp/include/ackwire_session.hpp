// The one sans-IO shape (GEN-4) of every session half, as the Rust codec's `session::SessionHalf`:
// input goes in with the time as an argument (`handle_frame` for a peer's frame, `handle_tick` for
// a tick passing), output is returned (a report of what the frame did) or polled (`poll_transmit`,
// until it returns nothing). Nothing here opens a socket or reads a clock: a native client's loop
// owns both.
//
// The session machines of the runtime (ackwire_*.hpp beside this header) are generic over a
// schema and include only the runtime; the reference protocol's schemas are generated beside
// its protocol.hpp (reference.hpp, reference_{datagram,baseline,delta}.hpp).

#pragma once

#include "ackwire_runtime.hpp"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ackwire {
namespace session {

/// When an input happens: the server tick and milliseconds on the session's own clock.
struct Now {
    /// The server tick: for a tick the tick passing, for a frame the newest tick passed.
    uint64_t tick = 0;
    /// Milliseconds on the session's clock.
    uint64_t ms = 0;
};

/// A frame a half wants sent.
struct Transmit {
    /// The frame's name in the spec (`acked`, `ack`, `datagram_ack`, ...).
    std::string frame;
    /// Its bytes.
    std::vector<uint8_t> bytes;
    /// Whether it goes on the reliable, ordered channel.
    bool reliable = false;
};

/// Why a half refused an input, as the Rust codec's `SessionError` variants.
struct SessionError {
    /// What went wrong.
    enum class Kind { decode, unexpected_frame, encode, limit, world, tick_range, no_world };
    /// What went wrong.
    Kind kind = Kind::decode;
    /// One line saying what, for a person.
    std::string message;
    /// The codec's error, for `decode`.
    std::optional<rt::DecodeError> decode_error;
};

/// The result of a half's method: its value, or why it refused the input.
template <typename T>
using Result = rt::Result<T, SessionError>;

/// A result with no value.
struct Unit {};

/// The most frames a half holds for `poll_transmit`. A client answers every frame with an ack,
/// so a hostile server sending faster than the caller polls would grow the queue without end;
/// past the limit the oldest unreliable frame is dropped, as the lossy transport may drop it.
/// Reliable frames come from the half's own ticks and are never dropped.
constexpr size_t MAX_QUEUED = 1024;

/// The frames a half has yet to hand out, at most MAX_QUEUED unreliable ones (GEN-8).
class Outbox {
public:
    /// Queues `t`, dropping the oldest unreliable frame first when the queue is full.
    void push(Transmit t) {
        if (queue_.size() >= MAX_QUEUED) {
            for (auto it = queue_.begin(); it != queue_.end(); ++it) {
                if (!it->reliable) {
                    queue_.erase(it);
                    break;
                }
            }
        }
        queue_.push_back(std::move(t));
    }

    /// The oldest queued frame, removed; nothing when there is none.
    std::optional<Transmit> poll() {
        if (queue_.empty()) {
            return std::nullopt;
        }
        Transmit t = std::move(queue_.front());
        queue_.pop_front();
        return t;
    }

    /// How many frames are queued.
    size_t size() const { return queue_.size(); }

private:
    std::deque<Transmit> queue_;
};

/// `tick` as the wire's u32 tick, or a `tick_range` error past 2^32 - 1.
inline Result<uint32_t> tick32(uint64_t tick) {
    if (tick > 0xFFFFFFFFu) {
        return SessionError{SessionError::Kind::tick_range, "ticks are u32 on the wire", {}};
    }
    return static_cast<uint32_t>(tick);
}

/// Nothing when `frame` is `name`, else an `unexpected_frame` error.
inline std::optional<SessionError> expect_frame(const std::string& frame, const char* name) {
    if (frame == name) {
        return std::nullopt;
    }
    return SessionError{
        SessionError::Kind::unexpected_frame, "unexpected frame `" + frame + "`", {}};
}

}  // namespace session
}  // namespace ackwire
