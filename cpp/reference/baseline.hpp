// The reference protocol's schema for the NetBaseline machines (ackwire_baseline.hpp): the
// `snapshot` and `snapshot_ack` frames of spec/protocol and the reference schema's components
// (Transform, Velocity, Vitality as Health, Team), as gen/protocol.hpp declares them.

#pragma once

#include "protocol.hpp"
#include "ackwire_baseline.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

namespace ackwire {
namespace reference {

/// The NetBaseline frames and components of the reference protocol (`docs/spec/baseline.md`).
struct BaselineSchema {
    /// The component types, in schema order (the mask's bits).
    static constexpr size_t COMPONENT_TYPES = 4;
    /// Snapshots held unconfirmed at most, by sequence distance from the newest.
    static constexpr uint64_t ACK_WINDOW = protocol::ACK_WINDOW;
    /// Lost entities one snapshot reports at most.
    static constexpr size_t MAX_LOST_PER_SNAPSHOT = protocol::MAX_LOST_PER_SNAPSHOT;

    /// One component's value; its index is its type.
    using Value =
        std::variant<protocol::Transform, protocol::Velocity, protocol::Vitality, protocol::Team>;
    using Snapshot = protocol::Snapshot;
    using SnapshotAck = protocol::SnapshotAck;
    using EntityRef = protocol::EntityRef;
    using Entry = protocol::Entry;

    static constexpr const char* SNAPSHOT = "snapshot";
    static constexpr const char* SNAPSHOT_ACK = "snapshot_ack";

    /// The component's type, in schema order.
    static size_t index(const Value& v) { return v.index(); }

    /// The component's bits as the snapshot body encodes them, padded to a byte.
    static rt::Result<std::vector<uint8_t>, rt::EncodeError> bits(const Value& v) {
        std::vector<uint8_t> out;
        bool ok = false;
        rt::EncodeError error(rt::ErrorKind::over_width);
        {
            rt::Writer w(out);
            {
                rt::BitWriter b(w);
                ok = std::visit([&b](const auto& c) { return protocol::detail::write_bits(b, c); },
                    v);
                if (ok) {
                    b.finish();
                }
            }
            if (!ok) {
                error = w.take_error();
            }
        }
        if (!ok) {
            return error;
        }
        return out;
    }

    /// The component's length in bits.
    static size_t bit_len(const Value& v) {
        return std::visit([](const auto& c) { return protocol::bit_len(c); }, v);
    }

    /// The entry of an entity `gap` slots after the previous one.
    static Entry make_entry(uint32_t gap, uint8_t generation,
        const std::array<const Value*, COMPONENT_TYPES>& values) {
        Entry e;
        e.wide = gap >= (1u << 7);
        if (e.wide) {
            e.wide_gap = gap;
        } else {
            e.gap = static_cast<uint8_t>(gap);
        }
        e.generation = generation;
        if (values[0] != nullptr) {
            e.mask.set(protocol::ComponentMask::TRANSFORM);
            e.transform = std::get<0>(*values[0]);
        }
        if (values[1] != nullptr) {
            e.mask.set(protocol::ComponentMask::VELOCITY);
            e.velocity = std::get<1>(*values[1]);
        }
        if (values[2] != nullptr) {
            e.mask.set(protocol::ComponentMask::HEALTH);
            e.health = std::get<2>(*values[2]);
        }
        if (values[3] != nullptr) {
            e.mask.set(protocol::ComponentMask::TEAM);
            e.team = std::get<3>(*values[3]);
        }
        return e;
    }

    /// The entry's slot gap, wide or not.
    static uint32_t entry_gap(const Entry& e) {
        if (e.wide_gap) {
            return *e.wide_gap;
        }
        return e.gap ? uint32_t{*e.gap} : 0;
    }

    /// The entry's generation.
    static uint8_t entry_generation(const Entry& e) { return e.generation; }

    /// The entry's components, by type.
    static std::array<std::optional<Value>, COMPONENT_TYPES> entry_values(const Entry& e) {
        std::array<std::optional<Value>, COMPONENT_TYPES> out;
        if (e.transform) {
            out[0] = Value(std::in_place_index<0>, *e.transform);
        }
        if (e.velocity) {
            out[1] = Value(std::in_place_index<1>, *e.velocity);
        }
        if (e.health) {
            out[2] = Value(std::in_place_index<2>, *e.health);
        }
        if (e.team) {
            out[3] = Value(std::in_place_index<3>, *e.team);
        }
        return out;
    }

    static rt::Result<Snapshot> decode_snapshot(const uint8_t* data, size_t len) {
        return protocol::decode_snapshot(data, len);
    }
    static rt::Result<SnapshotAck> decode_snapshot_ack(const uint8_t* data, size_t len) {
        return protocol::decode_snapshot_ack(data, len);
    }

    /// The bytes of either frame.
    template <typename F>
    static rt::Result<std::vector<uint8_t>, rt::EncodeError> to_bytes(const F& frame) {
        return protocol::to_bytes(frame);
    }
};

}  // namespace reference
}  // namespace ackwire
