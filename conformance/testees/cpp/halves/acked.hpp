// The `acked` session pair (`docs/spec/acked.md`) over the runtime's halves
// (gen/ackwire_acked_half.hpp) and the binding `ackwire gen` writes for `state Reference`
// (gen/reference.hpp): `acked_server` is the server's per-client AckedEncoder fed by a world and
// the reference Presenter (gen/reference/presenter.hpp, the game's hand-written policy);
// `acked_client` is the client's AckedDecoder with its kind 7 writer. A port of
// conformance/src/sessions/acked.rs, which says what the params, the world ops and the reports
// are:
// - params (an object, every key optional, the same object opens both halves): `own` (eids,
//   default [1]), `near_enter`, `near_leave` (metres, 12 and 14), `far_every` (ticks, 6),
//   `max_late`, `max_early` (ticks, 4 and 64), `input_lead` (ticks, 2), `keep_inputs` (16),
//   `corrupt_at` (tick: at that tick's advance the client flips bits 0x55 of the `hp` of every
//   record it holds and shows, a corruption the next check must catch);
// - world ops (the server's `advance`): `spawn`, `move`, `set`, `despawn`, `event`, and
//   `{"orient": {"eid", "x", "y", "z", "w"}}` (issue 19: the entity's orientation, applied after
//   the tick's other ops; an entity keeps it for its life);
// - each server tick sends one `acked` frame, each client tick one `ack`.
// `acked_packed_server` and `acked_packed_client` are the same halves over the bit-packed schema
// (gen/reference.hpp's PackedReference): kind 12 frames named `acked_packed`, the same acks.
// `acked_coded_server` and `acked_coded_client` (issue 39) are the same halves over the coded
// schema (CodedReference): kind 13 frames named `acked_coded`, each coded against the records of
// its base and older snapshot (docs/spec/coded.md), the same acks.

//
// Included by sessions.hpp after Session and Opener, before openers().

#pragma once

#include "ackwire_acked_half.hpp"
#include "ackwire_state_testee.hpp"
#include "reference.hpp"
#include "reference/presenter.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace testee {
namespace acked_halves {

namespace ref = ackwire::reference;
namespace acked = ackwire::acked;
namespace protocol = ackwire::protocol;
using ackwire::session::Now;

// serde_json's `as_u64`: a non-negative integer that fits, else nothing.
inline std::optional<uint64_t> as_u64(const Value* v) {
    uint64_t n = 0;
    ackwire::json::Error error;
    if (v == nullptr || !ackwire::json::convert::GetUint{}(*v, n, error)) {
        return std::nullopt;
    }
    return n;
}

// serde_json's `as_f64`: any number, else nothing.
inline std::optional<double> as_f64(const Value* v) {
    double d = 0.0;
    ackwire::json::Error error;
    if (v == nullptr || !ackwire::json::convert::GetF64{}(*v, d, error)) {
        return std::nullopt;
    }
    return d;
}

// Rust's `f64 as f32`: the nearest single, infinite past the largest (never the undefined
// behaviour of a C++ conversion out of range).
inline float to_f32(double d) {
    constexpr double overflow = 340282356779733661637539395458142568448.0;
    if (std::isnan(d)) {
        return std::numeric_limits<float>::quiet_NaN();
    }
    if (std::fabs(d) >= overflow) {
        const float inf = std::numeric_limits<float>::infinity();
        return d < 0 ? -inf : inf;
    }
    return static_cast<float>(d);
}

struct Params {
    ref::ViewConfig view;
    acked::InputWindow window;
    uint32_t lead = 2;
    size_t keep = 16;
    std::optional<uint64_t> corrupt_at;
};

inline Outcome<Params> params(const Value& v) {
    if (!(v.kind() == Value::Kind::object || v.is_null())) {
        return std::string("acked params must be an object");
    }
    const auto num = [&](const char* k, double d) { return as_f64(v.find(k)).value_or(d); };
    const auto integer = [&](const char* k, uint64_t d) { return as_u64(v.find(k)).value_or(d); };
    Params p;
    if (const Value* own = v.find("own")) {
        if (own->kind() != Value::Kind::array) {
            return std::string("`own` must be an array of eids");
        }
        for (const Value& e : own->items()) {
            const std::optional<uint64_t> eid = as_u64(&e);
            if (!eid || *eid > 0xffff) {
                return std::string("`own` must hold u16 eids");
            }
            p.view.own.push_back(static_cast<uint16_t>(*eid));
        }
    } else {
        p.view.own = {1};
    }
    const float enter = to_f32(num("near_enter", 12.0));
    const float leave = to_f32(num("near_leave", 14.0));
    if (std::isnan(leave) || std::isnan(enter) || leave < enter) {
        return std::string("near_leave must not be smaller than near_enter");
    }
    p.view.tier = acked::TierBoundary(enter, leave);
    const uint64_t far = integer("far_every", 6);
    p.view.far_every = far > 0xFFFFFFFFu ? 6 : std::max(static_cast<uint32_t>(far), uint32_t{1});
    p.window = acked::InputWindow{integer("max_late", 4), integer("max_early", 64)};
    const uint64_t lead = integer("input_lead", 2);
    p.lead = lead > 0xFFFFFFFFu ? 2 : static_cast<uint32_t>(lead);
    p.keep = static_cast<size_t>(integer("keep_inputs", 16));
    p.corrupt_at = as_u64(v.find("corrupt_at"));
    return p;
}

// One world op, as conformance/src/sessions/acked.rs's `Op`.
struct Op {
    enum class Kind { spawn, move, set, despawn, event };
    Kind kind = Kind::spawn;
    uint16_t eid = 0;
    float pos[3] = {0.0f, 0.0f, 0.0f};
    float yaw = 0.0f;
    uint8_t hp = 0;
    uint8_t armor = 0;
    uint16_t vehicle = 0;
    uint8_t seat = 0;
    protocol::Event event;
};

inline Outcome<Op> op_from_json(const Value& v) {
    if (v.kind() != Value::Kind::object || v.keys().size() != 1) {
        return "a world op is an object with one key (spawn, move, set, despawn, event): "
            + v.dump();
    }
    const std::string& kind = v.keys()[0];
    const Value& body = v.items()[0];
    Op op;
    const auto eid = [&]() -> Outcome<uint16_t> {
        const std::optional<uint64_t> e = as_u64(body.find("eid"));
        if (!e || *e > 0xffff) {
            return "`" + kind + "` needs a u16 `eid`: " + v.dump();
        }
        return static_cast<uint16_t>(*e);
    };
    const auto f = [&](const char* k) { return to_f32(as_f64(body.find(k)).value_or(0.0)); };
    const auto byte = [&](const char* k) {
        return static_cast<uint8_t>(std::min(as_u64(body.find(k)).value_or(0), uint64_t{255}));
    };
    if (kind == "spawn" || kind == "move" || kind == "set" || kind == "despawn") {
        auto e = eid();
        if (!e) {
            return e.error();
        }
        op.eid = e.value();
    }
    if (kind == "spawn") {
        op.kind = Op::Kind::spawn;
        op.pos[0] = f("x");
        op.pos[1] = f("y");
        op.pos[2] = f("z");
        op.yaw = f("yaw");
        op.hp = byte("hp");
    } else if (kind == "move") {
        op.kind = Op::Kind::move;
        op.pos[0] = f("x");
        op.pos[1] = f("y");
        op.pos[2] = f("z");
        op.yaw = f("yaw");
    } else if (kind == "set") {
        op.kind = Op::Kind::set;
        op.hp = byte("hp");
        op.armor = byte("armor");
        op.vehicle = static_cast<uint16_t>(
            std::min(as_u64(body.find("vehicle")).value_or(0), uint64_t{65535}));
        op.seat = byte("seat");
    } else if (kind == "despawn") {
        op.kind = Op::Kind::despawn;
    } else if (kind == "event") {
        op.kind = Op::Kind::event;
        ackwire::json::Error error;
        if (!from_json(body, op.event, error)) {
            return error.text() + ": " + v.dump();
        }
    } else {
        return "unknown world op `" + kind + "`";
    }
    return op;
}

// The `orient` ops of a tick (`{"orient": {"eid", "x", "y", "z", "w"}}`: the entity's
// orientation, a quaternion of any norm), applied after the tick's other ops; an entity keeps its
// orientation for its life (issue 19). An op for an id the world does not hold is an error.
inline Outcome<bool> turn(ref::World& world, const Value& ops) {
    for (const Value& v : ops.items()) {
        const Value* body = v.kind() == Value::Kind::object ? v.find("orient") : nullptr;
        if (body == nullptr) {
            continue;
        }
        const std::optional<uint64_t> e = as_u64(body->find("eid"));
        if (!e || *e > 0xffff) {
            return "`orient` needs a u16 `eid`: " + v.dump();
        }
        const auto f = [&](const char* k) { return to_f32(as_f64(body->find(k)).value_or(0.0)); };
        auto it = world.find(static_cast<uint16_t>(*e));
        if (it == world.end()) {
            return "`orient` of entity " + std::to_string(*e) + ", which the world does not hold";
        }
        it->second.orient = std::array<float, 4>{f("x"), f("y"), f("z"), f("w")};
    }
    return true;
}

// Applies `ops` to `world`; returns the events. `lives` counts spawns per id.
inline std::vector<protocol::Event> apply_ops(
    ref::World& world, std::map<uint16_t, uint32_t>& lives, const std::vector<Op>& ops) {
    std::vector<protocol::Event> events;
    for (const Op& op : ops) {
        switch (op.kind) {
            case Op::Kind::spawn: {
                uint32_t& life = lives[op.eid];
                life += 1;
                ref::WorldEntity w;
                w.life = life;
                w.x = op.pos[0];
                w.y = op.pos[1];
                w.z = op.pos[2];
                w.yaw = op.yaw;
                w.hp = op.hp;
                world[op.eid] = w;
                break;
            }
            case Op::Kind::move: {
                auto it = world.find(op.eid);
                if (it != world.end()) {
                    it->second.x = op.pos[0];
                    it->second.y = op.pos[1];
                    it->second.z = op.pos[2];
                    it->second.yaw = op.yaw;
                }
                break;
            }
            case Op::Kind::set: {
                auto it = world.find(op.eid);
                if (it != world.end()) {
                    it->second.hp = op.hp;
                    it->second.armor = op.armor;
                    it->second.vehicle = op.vehicle;
                    it->second.seat = op.seat;
                }
                break;
            }
            case Op::Kind::despawn:
                world.erase(op.eid);
                break;
            case Op::Kind::event:
                events.push_back(op.event);
                break;
        }
    }
    return events;
}

// The server half: the world, and the runtime's half (the client's view of it, its encoder) over
// the schema `S`; `NAME` is the half's name in messages.
template <typename S, const char* NAME>
class AckedServer : public Session {
public:
    explicit AckedServer(const Params& p) : half_(ref::Presenter(p.view), p.window) {}

    Outcome<bool> advance(uint64_t tick, uint64_t now_ms, const Value& ops) override {
        std::vector<Op> parsed;
        for (const Value& o : ops.items()) {
            if (o.kind() == Value::Kind::object && o.find("orient") != nullptr) {
                continue;  // applied by turn(), after the others
            }
            auto op = op_from_json(o);
            if (!op) {
                return op.error();
            }
            parsed.push_back(std::move(op).value());
        }
        if (tick > 0xFFFFFFFFu) {
            return std::string("ticks are u32 on the wire");
        }
        tick_ = tick;
        std::vector<protocol::Event> events = apply_ops(world_, lives_, parsed);
        auto turned = turn(world_, ops);
        if (!turned) {
            return turned.error();
        }
        // SRV-12: inputs execute on the tick they name; the reference world does
        // not act on them, it only consumes them so the buffer reports what is still ahead.
        while (half_.machine().inputs_mut().execute_due(tick)) {
        }
        auto done = half_.handle_tick(Now{tick, now_ms}, world_, std::move(events));
        if (!done) {
            return "encoding tick " + std::to_string(tick) + ": " + done.error().message;
        }
        return true;
    }

    Outcome<Value> deliver(uint64_t now_ms, const std::string& frame,
        const std::vector<uint8_t>& bytes) override {
        auto r = half_.handle_frame(Now{tick_, now_ms}, frame, bytes.data(), bytes.size());
        Value out = Value::object();
        if (!r) {
            const auto& e = r.error();
            if (e.kind == ackwire::session::SessionError::Kind::decode && e.decode_error) {
                out.set("error",
                    Value::from_string(std::string(ackwire::rt::kind_name(e.decode_error->kind))));
                return out;
            }
            if (e.kind == ackwire::session::SessionError::Kind::unexpected_frame) {
                return std::string(NAME) + " takes `ack` frames, not `" + frame + "`";
            }
            return e.message;
        }
        const acked::AckedAckReport& report = r.value();
        out.set("ack", Value::from_string(acked::verdict_name(report.verdict)));
        out.set("base", report.base ? Value::from_u64(*report.base) : Value());
        out.set("last_seq", Value::from_u64(report.last_seq));
        out.set("keyframes", Value::from_u64(report.counters.keyframes));
        out.set("events_expired", Value::from_u64(report.counters.events_expired));
        return out;
    }

    std::vector<ackwire::session::Transmit> take() override {
        std::vector<ackwire::session::Transmit> all;
        while (auto t = half_.poll_transmit()) {
            all.push_back(std::move(*t));
        }
        return all;
    }

    std::optional<uint32_t> state_hash() override { return std::nullopt; }

private:
    ref::World world_;
    std::map<uint16_t, uint32_t> lives_;
    acked::AckedServerHalf<S, ref::Presenter> half_;
    uint64_t tick_ = 0;
};

inline std::string joined(const std::vector<std::string>& parts) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) {
            out += ' ';
        }
        out += parts[i];
    }
    return out;
}

// The client half: the runtime's (the AckedDecoder and the kind 7 writer) over the schema `S`,
// and the scripted player; `NAME` is the half's name in messages.
template <typename S, const char* NAME>
class AckedClient : public Session {
public:
    explicit AckedClient(const Params& p)
        : half_(p.keep), lead_(p.lead), corrupt_at_(p.corrupt_at) {}

    Outcome<bool> advance(uint64_t tick, uint64_t now_ms, const Value& /*ops*/) override {
        if (corrupt_at_ && *corrupt_at_ == tick) {
            half_.machine().tamper([](uint16_t, protocol::EntityState& r) {
                r.hp = static_cast<uint8_t>(r.hp ^ 0x55);
            });
        }
        if (tick > 0xFFFFFFFFu) {
            return std::string("ticks are u32 on the wire");
        }
        const uint32_t tick32 = static_cast<uint32_t>(tick);
        protocol::Input input;
        input.tick = tick32 > 0xFFFFFFFFu - lead_ ? 0xFFFFFFFFu : tick32 + lead_;
        input.buttons.set(protocol::Buttons::FIRE, tick % 10 == 0);
        input.move_x = 1.0;
        input.move_y = 0.0;
        input.yaw = static_cast<double>(tick32 % 256) * (360.0 / 256.0);
        auto done = half_.handle_tick(Now{tick, now_ms}, input);
        if (!done) {
            return done.error().message;
        }
        return true;
    }

    Outcome<Value> deliver(uint64_t now_ms, const std::string& frame,
        const std::vector<uint8_t>& bytes) override {
        // The client does not count ticks; its decoder reads none.
        auto r = half_.handle_frame(Now{0, now_ms}, frame, bytes.data(), bytes.size());
        if (!r) {
            if (r.error().kind == ackwire::session::SessionError::Kind::unexpected_frame) {
                return std::string(NAME) + " takes `" + S::FRAME_NAME + "` frames, not `" + frame
                    + "`";
            }
            return r.error().message;
        }
        return ackwire::testee::delivery_json(r.value(),
            [](const protocol::Event& e) { return protocol::to_json(e); });
    }

    std::vector<ackwire::session::Transmit> take() override {
        std::vector<ackwire::session::Transmit> all;
        while (auto t = half_.poll_transmit()) {
            all.push_back(std::move(*t));
        }
        return all;
    }

    std::optional<uint32_t> state_hash() override { return half_.state_hash(); }

private:
    acked::AckedClientHalf<S> half_;
    uint32_t lead_;
    std::optional<uint64_t> corrupt_at_;
};

// The halves' names (template arguments: objects with linkage).
inline constexpr char ACKED_SERVER[] = "acked_server";
inline constexpr char ACKED_CLIENT[] = "acked_client";
inline constexpr char ACKED_PACKED_SERVER[] = "acked_packed_server";
inline constexpr char ACKED_PACKED_CLIENT[] = "acked_packed_client";
inline constexpr char ACKED_CODED_SERVER[] = "acked_coded_server";
inline constexpr char ACKED_CODED_CLIENT[] = "acked_coded_client";

// The Opener of `Half`, made from the acked params.
template <typename Half>
Opener acked_opener() {
    return [](const Value& v) -> Outcome<std::unique_ptr<Session>> {
        auto p = acked_halves::params(v);
        if (!p) {
            return p.error();
        }
        return std::unique_ptr<Session>(new Half(p.value()));
    };
}

}  // namespace acked_halves

/// Registers `acked_server`, `acked_client` (kind 6), `acked_packed_server`,
/// `acked_packed_client` (kind 12, issue 19: the same halves over PackedReference) and
/// `acked_coded_server`, `acked_coded_client` (kind 13, issue 39: over CodedReference).
inline void add_acked_halves(std::map<std::string, Opener>& all) {
    using namespace acked_halves;
    all[ACKED_SERVER] = acked_opener<AckedServer<ref::Reference, ACKED_SERVER>>();
    all[ACKED_CLIENT] = acked_opener<AckedClient<ref::Reference, ACKED_CLIENT>>();
    all[ACKED_PACKED_SERVER] =
        acked_opener<AckedServer<ref::PackedReference, ACKED_PACKED_SERVER>>();
    all[ACKED_PACKED_CLIENT] =
        acked_opener<AckedClient<ref::PackedReference, ACKED_PACKED_CLIENT>>();
    all[ACKED_CODED_SERVER] = acked_opener<AckedServer<ref::CodedReference, ACKED_CODED_SERVER>>();
    all[ACKED_CODED_CLIENT] = acked_opener<AckedClient<ref::CodedReference, ACKED_CODED_CLIENT>>();
}

}  // namespace testee
