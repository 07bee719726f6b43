// The `datagram` session pair (`docs/spec/datagram.md`) over the runtime's machines
// (ackwire_datagram.hpp) bound to the reference protocol (reference_datagram.hpp, generated from
// the `schema ReferenceDatagram` of spec/protocol), as conformance/src/sessions/datagram.rs:
// `datagram_server` is a Subscription fed by a scripted world, `datagram_client` a ReplicaTable.
//
// Parameters (every key optional, the same object opens both halves): `precision` (metres per
// step, default 0.01), `max_datagram` (bytes, default 1200), `max_held` (default 256),
// `max_held_bytes` (default 8 MiB).
// World ops: spawn, move, set, remove, despawn, full_frame, input_ack (datagram.rs says each).
// The client's state hash is FNV-1a 32 over ReplicaTable::canonical_bytes.

#pragma once

#include "../sessions.hpp"
#include "rest_json.hpp"
#include "reference_datagram.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace testee {
namespace datagram_halves {

using Schema = ackwire::protocol::ReferenceDatagram;
namespace dg = ackwire::datagram;
using rest::Value;

struct Params {
    dg::SubscriptionConfig config;
    dg::ReplicaLimits limits;
};

inline bool params(const Value& v, Params& p, std::string& why) {
    if (const Value* m = rest::member(v, "precision")) {
        auto d = rest::as_f64(*m);
        if (!d) {
            why = "`precision` must be a number";
            return false;
        }
        p.config.precision = static_cast<float>(*d);
    }
    if (const Value* m = rest::member(v, "max_datagram")) {
        auto n = rest::as_u64(*m);
        if (!n) {
            why = "`max_datagram` must be an integer";
            return false;
        }
        p.config.max_datagram = static_cast<size_t>(*n);
    }
    if (const Value* m = rest::member(v, "max_held")) {
        auto n = rest::as_u64(*m);
        if (!n) {
            why = "`max_held` must be an integer";
            return false;
        }
        p.limits.max_held = static_cast<size_t>(*n);
    }
    if (const Value* m = rest::member(v, "max_held_bytes")) {
        auto n = rest::as_u64(*m);
        if (!n) {
            why = "`max_held_bytes` must be an integer";
            return false;
        }
        p.limits.max_held_bytes = static_cast<size_t>(*n);
    }
    return true;
}

inline bool position(const Value& v, double (&out)[3], std::string& why) {
    return rest::num_member(v, "x", out[0], why) && rest::num_member(v, "y", out[1], why) &&
        rest::num_member(v, "z", out[2], why);
}

inline bool component_type(const Value& v, uint8_t& out, std::string& why) {
    uint64_t t = 0;
    if (!rest::uint_member(v, "type", t, why)) {
        return false;
    }
    if (t > 0xFF) {
        why = "`type` must fit a u8";
        return false;
    }
    out = static_cast<uint8_t>(t);
    return true;
}

/// Reads one world op into `ops`, or the input ack into `input_ack`.
inline bool op(
    const Value& v, std::vector<dg::WorldOp>& ops, uint64_t& input_ack, std::string& why) {
    std::string name;
    const Value* body = nullptr;
    if (!rest::only_member(v, name, body)) {
        why = "a world op is an object with one member: " + v.dump();
        return false;
    }
    dg::WorldOp o;
    if (name == "input_ack") {
        return rest::uint_member(*body, "seq", input_ack, why);
    }
    if (name == "full_frame") {
        o.kind = dg::WorldOp::Kind::full_frame;
        ops.push_back(std::move(o));
        return true;
    }
    if (!rest::uint_member(*body, "id", o.id, why)) {
        return false;
    }
    if (name == "spawn") {
        o.kind = dg::WorldOp::Kind::spawn;
        if (const Value* c = rest::member(*body, "components");
            c != nullptr && c->kind() == Value::Kind::object) {
            for (size_t i = 0; i < c->keys().size(); ++i) {
                const std::string& t = c->keys()[i];
                char* end = nullptr;
                const unsigned long type = std::strtoul(t.c_str(), &end, 10);
                if (t.empty() || *end != '\0' || type > 0xFF || t[0] == '-' || t[0] == '+') {
                    why = "component type `" + t + "`";
                    return false;
                }
                std::vector<uint8_t> bytes;
                if (!rest::hex_value(c->items()[i], bytes, why)) {
                    return false;
                }
                o.components.emplace_back(static_cast<uint8_t>(type), std::move(bytes));
            }
        }
        if (!position(*body, o.position, why)) {
            return false;
        }
    } else if (name == "move") {
        o.kind = dg::WorldOp::Kind::move;
        if (!position(*body, o.position, why)) {
            return false;
        }
    } else if (name == "set") {
        o.kind = dg::WorldOp::Kind::set_component;
        const Value* hex = rest::member(*body, "hex");
        if (!component_type(*body, o.type, why)) {
            return false;
        }
        if (hex == nullptr) {
            why = "missing `hex` in " + body->dump();
            return false;
        }
        if (!rest::hex_value(*hex, o.data, why)) {
            return false;
        }
    } else if (name == "remove") {
        o.kind = dg::WorldOp::Kind::remove_component;
        if (!component_type(*body, o.type, why)) {
            return false;
        }
    } else if (name == "despawn") {
        o.kind = dg::WorldOp::Kind::despawn;
    } else {
        why = "unknown world op `" + name + "`";
        return false;
    }
    ops.push_back(std::move(o));
    return true;
}

inline Value summary_json(const dg::DatagramSummary& s) {
    Value v = Value::object();
    v.set("held", rest::b(s.held));
    v.set("released", rest::n(s.released));
    v.set("applied", rest::n(s.applied));
    v.set("skipped_spawn_tag", rest::n(s.skipped_spawn_tag));
    v.set("skipped_stale", rest::n(s.skipped_stale));
    v.set("skipped_unknown", rest::n(s.skipped_unknown));
    v.set("given_up", rest::n(s.given_up));
    v.set("refused", rest::n(s.refused));
    if (s.skipped_over_bytes != 0) {
        v.set("skipped_over_bytes", rest::n(s.skipped_over_bytes));
    }
    return v;
}

class Server : public Session {
public:
    explicit Server(const Params& p) : half_(p.config) {}

    Outcome<bool> advance(uint64_t tick, uint64_t now_ms, const Value& ops) override {
        std::vector<dg::WorldOp> world;
        std::string why;
        for (const Value& v : ops.items()) {
            if (!op(v, world, input_ack_, why)) {
                return why;
            }
        }
        auto done = half_.handle_tick(ackwire::session::Now{tick, now_ms}, input_ack_, world);
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
        v.set("known", rest::b(r.value().known));
        v.set("covered", rest::n(r.value().covered));
        v.set("not_covered", rest::n(r.value().not_covered));
        return v;
    }

    std::vector<ackwire::session::Transmit> take() override { return rest::drain(half_); }

    std::optional<uint32_t> state_hash() override { return std::nullopt; }

private:
    dg::DatagramServer<Schema> half_;
    uint64_t input_ack_ = 0;
};

class Client : public Session {
public:
    explicit Client(const Params& p) : half_(p.limits) {}

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
        return summary_json(r.value());
    }

    std::vector<ackwire::session::Transmit> take() override { return rest::drain(half_); }

    std::optional<uint32_t> state_hash() override { return half_.machine().state_hash(); }

private:
    dg::DatagramClient<Schema> half_;
};

}  // namespace datagram_halves

/// Registers `datagram_server` and `datagram_client`.
inline void add_datagram_halves(std::map<std::string, Opener>& all) {
    all["datagram_server"] = opener_of<datagram_halves::Server>(&datagram_halves::params);
    all["datagram_client"] = opener_of<datagram_halves::Client>(&datagram_halves::params);
}

}  // namespace testee
