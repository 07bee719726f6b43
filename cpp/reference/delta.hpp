// The reference protocol's schema for the delta machines (ackwire_delta.hpp): the `delta_plan`
// and `delta_ack` frames of spec/protocol as gen/protocol.hpp declares them.

#pragma once

#include "protocol.hpp"
#include "ackwire_delta.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ackwire {
namespace reference {

/// The delta streaming frames of the reference protocol (`docs/spec/delta.md`).
struct DeltaSchema {
    using DeltaPlan = protocol::DeltaPlan;
    using DeltaAck = protocol::DeltaAck;

    static constexpr unsigned PLAN_FULL_BASELINE = protocol::PlanFlags::FULL_BASELINE;
    static constexpr unsigned PLAN_BASELINE = protocol::PlanFlags::BASELINE;

    static constexpr const char* DELTA_PLAN = "delta_plan";
    static constexpr const char* DELTA_ACK = "delta_ack";

    static rt::Result<DeltaPlan> decode_delta_plan(const uint8_t* data, size_t len) {
        return protocol::decode_delta_plan(data, len);
    }
    static rt::Result<DeltaAck> decode_delta_ack(const uint8_t* data, size_t len) {
        return protocol::decode_delta_ack(data, len);
    }

    /// The bytes of either frame.
    template <typename F>
    static rt::Result<std::vector<uint8_t>, rt::EncodeError> to_bytes(const F& frame) {
        return protocol::to_bytes(frame);
    }
};

}  // namespace reference
}  // namespace ackwire
