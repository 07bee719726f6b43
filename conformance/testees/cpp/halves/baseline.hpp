// The `baseline` session pair (`docs/spec/baseline.md`) over the runtime's machines
// (ackwire_baseline.hpp) bound to the reference protocol (reference_baseline.hpp, generated from
// the `schema ReferenceBaseline` of spec/protocol), as conformance/src/sessions/baseline.rs:
// `baseline_server` is a SnapshotWriter over a scripted Scene, one snapshot a tick;
// `baseline_client` a SnapshotClient that acknowledges each snapshot it applies.
//
// Parameters (every key optional): `budget` (bytes, 1200), `client` (1), `first_sequence` (0),
// `max_entities` (65,536). World ops: spawn {slot, generation, owner?}, despawn {slot},
// transform {slot, x, y, z, yaw}, velocity {slot, vx, vy, vz}, health {slot, hp}, team {slot,
// team}. The client's state hash is FNV-1a 32 over SnapshotClient::canonical_bytes.

#pragma once

#include "../sessions.hpp"
#include "rest_json.hpp"
#include "reference_baseline.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace testee {
namespace baseline_halves {

using Schema = ackwire::protocol::ReferenceBaseline;
namespace bl = ackwire::baseline;
namespace pr = ackwire::protocol;
using rest::Value;

struct Params {
    size_t budget = 1200;
    uint32_t client = 1;
    uint16_t first = 0;
    size_t max_entities = size_t{1} << 16;
};

inline bool params(const Value& v, Params& p, std::string& why) {
    auto get = [&](const char* k, uint64_t d, uint64_t& out) {
        out = d;
        const Value* m = rest::member(v, k);
        if (m == nullptr) {
            return true;
        }
        auto n = rest::as_u64(*m);
        if (!n) {
            why = "`" + std::string(k) + "` must be an unsigned integer";
            return false;
        }
        out = *n;
        return true;
    };
    uint64_t budget = 0;
    uint64_t client = 0;
    uint64_t first = 0;
    uint64_t max_entities = 0;
    if (!get("budget", 1200, budget) || !get("client", 1, client) ||
        !get("first_sequence", 0, first) || !get("max_entities", uint64_t{1} << 16, max_entities)) {
        return false;
    }
    if (client > 0xFFFFFFFFu) {
        why = "`client` must fit a u32";
        return false;
    }
    if (first > 0xFFFFu) {
        why = "`first_sequence` must fit a u16";
        return false;
    }
    p.budget = static_cast<size_t>(budget);
    p.client = static_cast<uint32_t>(client);
    p.first = static_cast<uint16_t>(first);
    p.max_entities = static_cast<size_t>(max_entities);
    return true;
}

inline bool small(const Value& v, const char* k, uint8_t& out, std::string& why) {
    const Value* m = rest::member(v, k);
    auto n = m != nullptr ? rest::as_u64(*m) : std::nullopt;
    if (!n || *n > 0xFF) {
        why = "`" + std::string(k) + "` must be an integer 0..=255 in " + v.dump();
        return false;
    }
    out = static_cast<uint8_t>(*n);
    return true;
}

inline bool slot_of(const Value& v, uint32_t& out, std::string& why) {
    const Value* m = rest::member(v, "slot");
    auto n = m != nullptr ? rest::as_u64(*m) : std::nullopt;
    if (!n || *n > 0xFFFFFFFFu) {
        why = "`slot` must be a u32 in " + v.dump();
        return false;
    }
    out = static_cast<uint32_t>(*n);
    return true;
}

inline bool apply(bl::Scene<Schema>& scene, const Value& v, std::string& why) {
    std::string name;
    const Value* b = nullptr;
    if (!rest::only_member(v, name, b)) {
        why = "a world op is an object with one member: " + v.dump();
        return false;
    }
    uint32_t slot = 0;
    std::optional<Schema::Value> value;
    if (name == "spawn") {
        std::optional<uint32_t> owner;
        if (const Value* o = rest::member(*b, "owner")) {
            auto n = rest::as_u64(*o);
            if (n && *n <= 0xFFFFFFFFu) {
                owner = static_cast<uint32_t>(*n);
            }
        }
        bl::EntityId id;
        if (!slot_of(*b, id.slot, why) || !small(*b, "generation", id.generation, why)) {
            return false;
        }
        if (auto e = scene.spawn(id, owner)) {
            why = *e;
            return false;
        }
        return true;
    }
    if (name == "despawn") {
        if (!slot_of(*b, slot, why)) {
            return false;
        }
        scene.despawn(slot);
        return true;
    }
    if (name == "transform") {
        pr::Transform t;
        if (!rest::num_member(*b, "x", t.x, why) || !rest::num_member(*b, "y", t.y, why) ||
            !rest::num_member(*b, "z", t.z, why) || !rest::num_member(*b, "yaw", t.yaw, why)) {
            return false;
        }
        value = Schema::Value(std::in_place_index<0>, t);
    } else if (name == "velocity") {
        pr::Velocity t;
        if (!rest::num_member(*b, "vx", t.vx, why) || !rest::num_member(*b, "vy", t.vy, why) ||
            !rest::num_member(*b, "vz", t.vz, why)) {
            return false;
        }
        value = Schema::Value(std::in_place_index<1>, t);
    } else if (name == "health") {
        pr::Vitality t;
        if (!small(*b, "hp", t.hp, why)) {
            return false;
        }
        value = Schema::Value(std::in_place_index<2>, t);
    } else if (name == "team") {
        pr::Team t;
        if (!small(*b, "team", t.team, why)) {
            return false;
        }
        value = Schema::Value(std::in_place_index<3>, t);
    } else {
        why = "unknown world op `" + name + "`";
        return false;
    }
    if (!slot_of(*b, slot, why)) {
        return false;
    }
    if (auto e = scene.set(slot, std::move(*value))) {
        why = *e;
        return false;
    }
    return true;
}

class Server : public Session {
public:
    explicit Server(const Params& p)
        : half_(bl::SnapshotWriter<Schema>(p.client, p.budget, p.first)) {}

    Outcome<bool> advance(uint64_t tick, uint64_t now_ms, const Value& ops) override {
        std::string why;
        for (const Value& v : ops.items()) {
            if (!apply(scene_, v, why)) {
                return why;
            }
        }
        auto done = half_.handle_tick(ackwire::session::Now{tick, now_ms}, scene_);
        if (!done) {
            return done.error().message;
        }
        return true;
    }

    Outcome<Value> deliver(uint64_t now_ms, const std::string& frame,
        const std::vector<uint8_t>& bytes) override {
        auto r = half_.handle_frame(ackwire::session::Now{0, now_ms}, frame, bytes);
        if (!r) {
            if (auto v = rest::refusal(r.error(), frame)) {
                return std::move(*v);
            }
            return r.error().message;
        }
        Value v = Value::object();
        v.set("pending", rest::n(half_.machine().baseline().pending()));
        v.set("told", rest::n(half_.machine().baseline().told()));
        return v;
    }

    std::vector<ackwire::session::Transmit> take() override { return rest::drain(half_); }

    std::optional<uint32_t> state_hash() override { return std::nullopt; }

private:
    bl::Scene<Schema> scene_;
    bl::BaselineServer<Schema> half_;
};

class Client : public Session {
public:
    explicit Client(const Params& p) : half_(p.max_entities) {}

    Outcome<bool> advance(uint64_t, uint64_t, const Value& ops) override {
        if (!ops.items().empty()) {
            return std::string("a client half has no world");
        }
        return true;
    }

    Outcome<Value> deliver(uint64_t now_ms, const std::string& frame,
        const std::vector<uint8_t>& bytes) override {
        auto r = half_.handle_frame(ackwire::session::Now{0, now_ms}, frame, bytes);
        if (!r) {
            if (auto v = rest::refusal(r.error(), frame)) {
                return std::move(*v);
            }
            return r.error().message;
        }
        const bl::SnapshotSummary& s = r.value();
        Value v = Value::object();
        v.set("applied", rest::b(s.applied));
        v.set("stale", rest::b(s.stale));
        v.set("malformed", rest::b(s.malformed));
        v.set("removed", rest::n(s.removed));
        v.set("not_ours", rest::n(s.not_ours));
        v.set("created", rest::n(s.created));
        v.set("updated", rest::n(s.updated));
        v.set("refused", rest::n(s.refused));
        return v;
    }

    std::vector<ackwire::session::Transmit> take() override { return rest::drain(half_); }

    std::optional<uint32_t> state_hash() override { return half_.machine().state_hash(); }

private:
    bl::BaselineClient<Schema> half_;
};

}  // namespace baseline_halves

/// Registers `baseline_server` and `baseline_client`.
inline void add_baseline_halves(std::map<std::string, Opener>& all) {
    all["baseline_server"] = opener_of<baseline_halves::Server>(&baseline_halves::params);
    all["baseline_client"] = opener_of<baseline_halves::Client>(&baseline_halves::params);
}

}  // namespace testee
