// The reference protocol's schema for the datagram v2 machines (ackwire_datagram.hpp): the
// frame types of spec/protocol/datagram.wire as gen/protocol.hpp declares them, their names,
// the update mask's bits and the codec's functions.

#pragma once

#include "protocol.hpp"
#include "ackwire_datagram.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace ackwire {
namespace reference {

/// The datagram v2 frames of the reference protocol (`docs/spec/datagram.md`).
struct DatagramSchema {
    using Datagram = protocol::Datagram;
    using Update = protocol::Update;
    using Component = protocol::Component;
    using Spawn = protocol::Spawn;
    using Despawn = protocol::Despawn;
    using FullFrame = protocol::FullFrame;
    using FullEntity = protocol::FullEntity;
    using DatagramAck = protocol::DatagramAck;

    /// The largest header a datagram can have, which a builder counts.
    static constexpr size_t MAX_HEADER_LEN = protocol::MAX_HEADER_LEN;
    static constexpr unsigned MASK_X = protocol::UpdateMask::X;
    static constexpr unsigned MASK_Y = protocol::UpdateMask::Y;
    static constexpr unsigned MASK_Z = protocol::UpdateMask::Z;
    static constexpr unsigned MASK_COMPONENTS = protocol::UpdateMask::COMPONENTS;

    static constexpr const char* DATAGRAM = "datagram";
    static constexpr const char* SPAWN = "spawn";
    static constexpr const char* DESPAWN = "despawn";
    static constexpr const char* FULL_FRAME = "full_frame";
    static constexpr const char* DATAGRAM_ACK = "datagram_ack";

    /// The bytes `update` takes after the update of id `prev` (moving `prev` on).
    static size_t encoded_len_after(const Update& update, std::optional<uint64_t>& prev) {
        return protocol::encoded_len_after(update, prev);
    }

    /// Whether `update` encodes on its own (its mask matches what it carries).
    static rt::EncodeStatus check_update(const Update& update) {
        std::vector<uint8_t> scratch;
        rt::Writer w(scratch);
        if (!protocol::detail::write(w, update)) {
            return w.take_error();
        }
        return std::nullopt;
    }

    static rt::Result<Datagram> decode_datagram(const uint8_t* data, size_t len) {
        return protocol::decode_datagram(data, len);
    }
    static rt::Result<Spawn> decode_spawn(const uint8_t* data, size_t len) {
        return protocol::decode_spawn(data, len);
    }
    static rt::Result<Despawn> decode_despawn(const uint8_t* data, size_t len) {
        return protocol::decode_despawn(data, len);
    }
    static rt::Result<FullFrame> decode_full_frame(const uint8_t* data, size_t len) {
        return protocol::decode_full_frame(data, len);
    }
    static rt::Result<DatagramAck> decode_datagram_ack(const uint8_t* data, size_t len) {
        return protocol::decode_datagram_ack(data, len);
    }

    /// The bytes of any of the frames above.
    template <typename F>
    static rt::Result<std::vector<uint8_t>, rt::EncodeError> to_bytes(const F& frame) {
        return protocol::to_bytes(frame);
    }
};

}  // namespace reference
}  // namespace ackwire
