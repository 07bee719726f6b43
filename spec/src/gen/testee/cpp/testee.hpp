//
// The testee of the codec in protocol.hpp: conformance/PROTOCOL.md over standard input and
// output, one JSON request a line in and one reply a line out, so that `ackwire conform` checks
// this codec through the same door as every other implementation. The replies are the runtime's
// (ackwire_testee.hpp); this header names the frames. testee.cpp serves it with no session half;
// a testee that has halves passes them to `serve`.

#pragma once

#include "ackwire_testee.hpp"
#include "protocol.hpp"

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <string_view>
#include <utility>
#include <vector>

namespace ackwire::testee {

/// The frames of protocol.hpp by name, as Server takes them.
struct ProtocolFrames {
    /// Every frame's name.
    static constexpr const auto& names = protocol::FRAME_NAMES;

    /// Calls `visitor` with the frame type named `name`; false when there is none.
    template <typename V>
    static bool visit(std::string_view name, V&& visitor) {
        return protocol::visit_frame(name, std::forward<V>(visitor));
    }

    /// Decodes the frame named `name` into its JSON form.
    static rt::Result<json::Value, rt::FrameError> decode_json(std::string_view name,
        const uint8_t* data, size_t len) {
        return protocol::decode_frame_json(name, data, len);
    }

    /// Encodes the frame named `name` from its JSON form.
    static rt::Result<std::vector<uint8_t>, rt::FrameError> encode_json(std::string_view name,
        const json::Value& value) {
        return protocol::encode_frame_json(name, value);
    }
};

/// Serves the testee protocol on standard input and output until the input ends, or `bye`,
/// with `sessions` (or none) beside the frames; the process's exit code.
inline int serve(Sessions* sessions = nullptr) {
    std::ios::sync_with_stdio(false);
    return Server<ProtocolFrames>("ackwire-cpp", sessions).run(std::cin, std::cout);
}

}  // namespace ackwire::testee
