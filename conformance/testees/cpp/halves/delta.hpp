// The `delta` session pair (`docs/spec/delta.md`) over the runtime's machines (ackwire_delta.hpp)
// bound to the reference protocol (reference_delta.hpp, generated from the `schema ReferenceDelta`
// of spec/protocol), as conformance/src/sessions/delta.rs: `delta_server` is a world of slot keys
// and one subscriber's DeltaBaseline, `delta_client` a DeltaMirror.
//
// Parameters (every member optional): `history` (32, at most 65,536), `policy`
// ("ack_recovery" or "naive"), `stalled_after_ms` with `keepalive_every_ms` (flow control, both
// or neither), `client_stalls` ([[from_ms, to_ms], ...]: the client discards plans unread, then
// drops its mirror and reads again). World ops: {"enter": key}, {"leave": key}, {"reset": true},
// {"request_full_baseline": true}. The client's state hash is FNV-1a 32 over its keys
// ascending, each a u64 little endian.

#pragma once

#include "../sessions.hpp"
#include "rest_json.hpp"
#include "reference_delta.hpp"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace testee {
namespace delta_halves {

using Schema = ackwire::protocol::ReferenceDelta;
namespace dl = ackwire::delta;
using rest::Value;

struct Params {
    size_t history = 32;
    dl::RecoveryPolicy policy = dl::RecoveryPolicy::ack_recovery;
    std::optional<std::pair<uint64_t, uint64_t>> flow;
    std::vector<std::pair<uint64_t, uint64_t>> stalls;
};

inline bool params(const Value& v, Params& p, std::string& why) {
    auto u = [&](const char* name, std::optional<uint64_t>& out) {
        const Value* m = rest::member(v, name);
        if (m == nullptr || m->is_null()) {
            return true;
        }
        out = rest::as_u64(*m);
        if (!out) {
            why = "`" + std::string(name) + "` must be a non-negative integer";
            return false;
        }
        return true;
    };
    std::optional<uint64_t> history;
    std::optional<uint64_t> after;
    std::optional<uint64_t> keepalive;
    if (!u("history", history) || !u("stalled_after_ms", after) ||
        !u("keepalive_every_ms", keepalive)) {
        return false;
    }
    p.history = static_cast<size_t>(std::min<uint64_t>(history.value_or(32), 1u << 16));
    const Value* policy = rest::member(v, "policy");
    if (const Value* m = policy; m != nullptr && m->kind() == Value::Kind::string) {
        if (m->text() == "naive") {
            p.policy = dl::RecoveryPolicy::naive;
        } else if (m->text() != "ack_recovery") {
            why = "unknown policy `" + m->text() + "`";
            return false;
        }
    }
    if (after.has_value() != keepalive.has_value()) {
        why = "`stalled_after_ms` and `keepalive_every_ms` go together";
        return false;
    }
    if (after) {
        p.flow = std::make_pair(*after, *keepalive);
    }
    if (const Value* list = rest::member(v, "client_stalls")) {
        if (list->kind() != Value::Kind::array) {
            why = "`client_stalls` must be a list";
            return false;
        }
        for (const Value& s : list->items()) {
            if (s.kind() != Value::Kind::array || s.items().size() < 2) {
                why = "a stall is [from_ms, to_ms]";
                return false;
            }
            auto a = rest::as_u64(s.items()[0]);
            auto b = rest::as_u64(s.items()[1]);
            if (!a || !b) {
                why = "a stall is [from_ms, to_ms]";
                return false;
            }
            p.stalls.emplace_back(*a, *b);
        }
    }
    return true;
}

inline bool key_of(const Value& v, dl::SlotKey& out, std::string& why) {
    auto k = rest::as_u64(v);
    if (!k || *k >= (uint64_t{1} << 48)) {
        why = "a key is an integer below 2^48, not " + v.dump();
        return false;
    }
    out = dl::SlotKey::decode(*k);
    return true;
}

inline dl::DeltaBaseline baseline(const Params& p) {
    dl::DeltaBaseline b(p.history);
    b.set_policy(p.policy);
    if (p.flow) {
        b.set_flow(p.flow->first, p.flow->second);
    }
    return b;
}

class Server : public Session {
public:
    explicit Server(const Params& p) : half_(baseline(p)) {}

    Outcome<bool> advance(uint64_t tick, uint64_t now_ms, const Value& ops) override {
        std::string why;
        for (const Value& op : ops.items()) {
            dl::SlotKey k;
            const Value* reset = rest::member(op, "reset");
            const Value* full = rest::member(op, "request_full_baseline");
            if (const Value* e = rest::member(op, "enter")) {
                if (!key_of(*e, k, why)) {
                    return why;
                }
                world_[k.index] = k.generation;
            } else if (const Value* l = rest::member(op, "leave")) {
                if (!key_of(*l, k, why)) {
                    return why;
                }
                auto found = world_.find(k.index);
                if (found != world_.end() && found->second == k.generation) {
                    world_.erase(found);
                }
            } else if (reset != nullptr && reset->kind() == Value::Kind::boolean &&
                reset->as_bool()) {
                half_.machine().reset();
            } else if (full != nullptr && full->kind() == Value::Kind::boolean &&
                full->as_bool()) {
                half_.machine().request_full_baseline();
            } else {
                return "unknown delta world op " + op.dump();
            }
        }
        std::set<uint64_t> visible;
        for (const auto& [index, generation] : world_) {
            visible.insert(dl::SlotKey{index, generation}.encode());
        }
        auto done = half_.handle_tick(ackwire::session::Now{tick, now_ms}, visible);
        if (!done) {
            return done.error().message;
        }
        return true;
    }

    Outcome<Value> deliver(uint64_t now_ms, const std::string& frame,
        const std::vector<uint8_t>& bytes) override {
        using Kind = ackwire::session::SessionError::Kind;
        auto r = half_.handle_frame(ackwire::session::Now{0, now_ms}, frame, bytes);
        if (!r) {
            if (r.error().kind == Kind::unexpected_frame) {
                return rest::one("dropped", rest::s("the server takes delta_ack, not " + frame));
            }
            if (r.error().kind == Kind::decode && r.error().decode_error) {
                return rest::one("dropped",
                    rest::s(std::string(ackwire::rt::kind_name(r.error().decode_error->kind))));
            }
            return r.error().message;
        }
        Value v = Value::object();
        v.set("acked_seq", r.value().acked_seq ? rest::n(*r.value().acked_seq) : Value());
        v.set("unacked", rest::n(r.value().unacked));
        v.set("full_rebuilds", rest::n(r.value().full_rebuilds));
        v.set("stalled", rest::b(r.value().stalled));
        return v;
    }

    std::vector<ackwire::session::Transmit> take() override { return rest::drain(half_); }

    std::optional<uint32_t> state_hash() override { return std::nullopt; }

private:
    std::map<uint32_t, uint16_t> world_;
    dl::DeltaServer<Schema> half_;
};

class Client : public Session {
public:
    explicit Client(const Params& p) : stalls_(p.stalls) {}

    Outcome<bool> advance(uint64_t, uint64_t, const Value& ops) override {
        if (!ops.items().empty()) {
            return std::string("the delta client takes no world ops");
        }
        return true;
    }

    Outcome<Value> deliver(uint64_t now_ms, const std::string& frame,
        const std::vector<uint8_t>& bytes) override {
        if (frame != Schema::DELTA_PLAN) {
            return rest::one("dropped", rest::s("the client takes delta_plan, not " + frame));
        }
        for (const auto& [from, to] : stalls_) {
            if (from <= now_ms && now_ms < to) {
                unread_ = true;
                return rest::one("unread", rest::b(true));
            }
        }
        // A plan that does not decode leaves the mirror, and whether it is to be dropped, as
        // they are: check before the half reads it.
        auto plan = Schema::decode_delta_plan(bytes.data(), bytes.size());
        if (!plan) {
            return rest::one(
                "dropped", rest::s(std::string(ackwire::rt::kind_name(plan.error().kind))));
        }
        const bool dropped_mirror = unread_;
        unread_ = false;
        if (dropped_mirror) {
            half_.machine().clear();
        }
        auto a = half_.handle_frame(ackwire::session::Now{0, now_ms}, frame, bytes);
        if (!a) {
            if (a.error().kind == ackwire::session::SessionError::Kind::limit) {
                // Past the mirror's limit: refused whole and not acknowledged, as if lost.
                Value v = Value::object();
                v.set("refused", rest::s(a.error().message));
                v.set("held", rest::n(half_.machine().size()));
                return v;
            }
            return a.error().message;
        }
        Value v = Value::object();
        v.set("applied", rest::b(a.value().applied));
        v.set("full_baseline", rest::b(a.value().cleared));
        v.set("entered", rest::n(a.value().entered));
        v.set("left", rest::n(a.value().left));
        v.set("held", rest::n(half_.machine().size()));
        v.set("dropped_mirror", rest::b(dropped_mirror));
        return v;
    }

    std::vector<ackwire::session::Transmit> take() override { return rest::drain(half_); }

    std::optional<uint32_t> state_hash() override {
        uint32_t h = 2166136261u;
        for (const dl::SlotKey& k : half_.machine().keys()) {
            uint8_t le[8];
            const uint64_t key = k.encode();
            for (size_t i = 0; i < 8; ++i) {
                le[i] = static_cast<uint8_t>(key >> (8 * i));
            }
            h = ackwire::rt::fnv1a32(le, sizeof le, h);
        }
        return h;
    }

private:
    dl::DeltaClient<Schema> half_;
    std::vector<std::pair<uint64_t, uint64_t>> stalls_;
    // Set while the client is not reading; it drops its mirror when it reads again.
    bool unread_ = false;
};

}  // namespace delta_halves

/// Registers `delta_server` and `delta_client`.
inline void add_delta_halves(std::map<std::string, Opener>& all) {
    all["delta_server"] = opener_of<delta_halves::Server>(&delta_halves::params);
    all["delta_client"] = opener_of<delta_halves::Client>(&delta_halves::params);
}

}  // namespace testee
