// ackwire_state_testee.hpp: the acked session halves of a spec's own `state` for a generated
// testee (conformance/PROTOCOL.md, "Session operations"): what `ackwire conform --spec` replays
// the stream vectors of `ackwire vectors --spec` with. Ported from
// conformance/src/sessions/state/mod.rs, as the TypeScript and C# runtimes' state testees: one
// session pair per frame the state is sent in, named after the frame; `<frame>_server` is the
// AckedServerHalf over a world every client sees whole; `<frame>_client` the AckedClientHalf.
// World ops: `spawn`, `set` (a record in its JSON form), `despawn`, `event`; the client's ops are
// the player's `input` for the tick. Reports are the reference pair's. `ackwire gen --lang cpp
// --testee` writes it beside ackwire_testee.hpp.

#pragma once

#include "ackwire_acked_half.hpp"
#include "ackwire_testee.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ackwire::testee {

namespace state_detail {

/// One open half. Errors are their messages.
class Half {
public:
    virtual ~Half() = default;
    virtual std::optional<std::string> advance(uint64_t tick, const Value& ops) = 0;
    virtual rt::Result<Value, std::string> deliver(
        const std::string& frame, const std::vector<uint8_t>& bytes) = 0;
    virtual std::vector<session::Transmit> take() = 0;
    virtual std::optional<uint32_t> state_hash() = 0;
};

/// A value of type `T` from its JSON form (the generated codec's `from_json`).
template <typename T>
rt::Result<T, std::string> read(const Value* j) {
    T out{};
    json::Error error;
    const Value null;
    if (!from_json(j != nullptr ? *j : null, out, error)) {
        return error.text();
    }
    return out;
}

inline std::optional<uint16_t> eid_of(const Value& body) {
    const Value* e = body.find("eid");
    std::optional<uint64_t> n = e != nullptr ? u64_member(body, "eid") : std::nullopt;
    if (!n || *n > 0xFFFF) {
        return std::nullopt;
    }
    return static_cast<uint16_t>(*n);
}

/// The world every client sees whole: S_N is every entity, ascending by id.
template <typename R>
struct WholeWorld {
    acked::ServerState<R> present(uint32_t /*tick*/, const std::map<uint16_t, acked::Entry<R>>& w) const {
        acked::ServerState<R> out;
        for (const auto& e : w) {
            out.push_back(e);
        }
        return out;
    }
};

template <typename S>
class Server : public Half {
public:
    using R = typename S::Record;

    Server() : half_(WholeWorld<R>{}, acked::InputWindow{4, 64}) {}

    std::optional<std::string> advance(uint64_t tick, const Value& ops) override {
        tick_ = tick;
        std::vector<typename S::Event> events;
        for (const Value& op : ops.items()) {
            if (op.kind() != Value::Kind::object || op.keys().size() != 1) {
                return std::string("a world op is an object with one key");
            }
            const std::string& kind = op.keys()[0];
            const Value& body = op.items()[0];
            if (kind == "event") {
                auto e = read<typename S::Event>(&body);
                if (!e) {
                    return e.error();
                }
                events.push_back(std::move(e).value());
                continue;
            }
            const std::optional<uint16_t> eid = eid_of(body);
            if (!eid) {
                return "`" + kind + "` needs a u16 `eid`";
            }
            if (kind == "despawn") {
                world_.erase(*eid);
            } else if (kind == "spawn" || kind == "set") {
                auto r = read<R>(body.find("record"));
                if (!r) {
                    return r.error();
                }
                auto held = world_.find(*eid);
                if (kind == "set" && held == world_.end()) {
                    return "`set` of entity " + std::to_string(*eid) + ", which the world does not hold";
                }
                uint32_t life = kind == "set" ? held->second.life : (lives_[*eid] += 1);
                world_[*eid] = acked::Entry<R>{life, std::move(r).value()};
            } else {
                return "unknown world op `" + kind + "`";
            }
        }
        // SRV-12: inputs execute on the tick they name; this world only consumes them.
        while (half_.machine().inputs_mut().execute_due(tick)) {
        }
        auto done = half_.handle_tick(session::Now{tick, 0}, world_, std::move(events));
        if (!done) {
            return "encoding tick " + std::to_string(tick) + ": " + done.error().message;
        }
        return std::nullopt;
    }

    rt::Result<Value, std::string> deliver(
        const std::string& frame, const std::vector<uint8_t>& bytes) override {
        auto r = half_.handle_frame(session::Now{tick_, 0}, frame, bytes.data(), bytes.size());
        Value out = Value::object();
        if (!r) {
            const auto& e = r.error();
            if (e.kind == session::SessionError::Kind::decode && e.decode_error) {
                out.set("error", Value::from_string(std::string(rt::kind_name(e.decode_error->kind))));
                return out;
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

    std::vector<session::Transmit> take() override {
        std::vector<session::Transmit> all;
        while (auto t = half_.poll_transmit()) {
            all.push_back(std::move(*t));
        }
        return all;
    }

    std::optional<uint32_t> state_hash() override { return std::nullopt; }

private:
    acked::AckedServerHalf<S, WholeWorld<R>> half_;
    std::map<uint16_t, acked::Entry<R>> world_;
    std::map<uint16_t, uint32_t> lives_;
    uint64_t tick_ = 0;
};

inline std::string joined(const std::vector<std::string>& parts) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) {
        out += (i == 0 ? "" : " ") + parts[i];
    }
    return out;
}

/// A client half's delivery as the testee protocol reports it (conformance/PROTOCOL.md): the
/// state shown with its report, or why the frame was dropped, or the decode error's kind; each
/// event in its JSON form by `event_json`. The reference testee's acked client and every state's
/// client report alike.
template <typename E, typename EventJson>
Value delivery_json(const acked::Delivery<E>& d, const EventJson& event_json) {
    using Kind = typename acked::Delivery<E>::Kind;
    Value out = Value::object();
    switch (d.kind) {
        case Kind::shown: {
            const auto& rep = *d.report;
            std::vector<std::string> changed, measured, gone, tiers;
            for (const uint16_t e : rep.changed) {
                changed.push_back(std::to_string(e));
            }
            for (const auto& m : rep.measured) {
                measured.push_back(std::to_string(m.first) + "@" + std::to_string(m.second));
            }
            for (const uint16_t e : rep.gone) {
                gone.push_back(std::to_string(e));
            }
            for (const auto& t : rep.tiers) {
                tiers.push_back(std::to_string(t.first) + (t.second ? ":full" : ":quantized"));
            }
            Value events = Value::array();
            for (const auto& e : rep.events) {
                Value ev = Value::object();
                ev.set("serial", Value::from_u64(e.first));
                ev.set("event", event_json(e.second));
                events.push(std::move(ev));
            }
            Value shown = Value::object();
            shown.set("tick", Value::from_u64(rep.tick));
            shown.set("base_tick", Value::from_u64(rep.base_tick));
            shown.set("keyframe", Value::from_bool(rep.keyframe));
            shown.set("changed", Value::from_string(joined(changed)));
            shown.set("measured", Value::from_string(joined(measured)));
            shown.set("gone", Value::from_string(joined(gone)));
            shown.set("tiers", Value::from_string(joined(tiers)));
            shown.set("events", std::move(events));
            shown.set("check", rep.check ? Value::from_bool(*rep.check) : Value());
            out.set("shown", std::move(shown));
            break;
        }
        case Kind::stale:
            out.set("dropped", Value::from_string("stale"));
            out.set("tick", Value::from_u64(d.tick));
            break;
        case Kind::unknown_base:
            out.set("dropped", Value::from_string("unknown_base"));
            out.set("tick", Value::from_u64(d.tick));
            out.set("base_tick", Value::from_u64(d.base_tick));
            break;
        case Kind::undecodable:
            out.set("error", Value::from_string(std::string(rt::kind_name(d.error->kind))));
            break;
        case Kind::inapplicable:
            out.set("dropped", Value::from_string("inapplicable"));
            out.set("tick", Value::from_u64(d.tick));
            out.set("why", Value::from_string(d.why));
            break;
    }
    return out;
}

template <typename S>
class Client : public Half {
public:
    explicit Client(size_t keep) : half_(keep) {}

    std::optional<std::string> advance(uint64_t tick, const Value& ops) override {
        std::optional<typename S::Input> input;
        for (const Value& op : ops.items()) {
            const Value* i = op.find("input");
            if (i == nullptr) {
                return std::string("a client op is {\"input\": ...}");
            }
            auto read_input = read<typename S::Input>(i);
            if (!read_input) {
                return read_input.error();
            }
            input = std::move(read_input).value();
        }
        if (!input) {
            // The runtime's client half sends its ack with the tick's input.
            return std::string("a client tick needs its player's input");
        }
        auto done = half_.handle_tick(session::Now{tick, 0}, std::move(*input));
        if (!done) {
            return done.error().message;
        }
        return std::nullopt;
    }

    rt::Result<Value, std::string> deliver(
        const std::string& frame, const std::vector<uint8_t>& bytes) override {
        auto r = half_.handle_frame(session::Now{0, 0}, frame, bytes.data(), bytes.size());
        if (!r) {
            return r.error().message;
        }
        return delivery_json(
            r.value(), [](const typename S::Event& e) { return to_json(e); });
    }

    std::vector<session::Transmit> take() override {
        std::vector<session::Transmit> all;
        while (auto t = half_.poll_transmit()) {
            all.push_back(std::move(*t));
        }
        return all;
    }

    std::optional<uint32_t> state_hash() override { return half_.state_hash(); }

private:
    acked::AckedClientHalf<S> half_;
};

}  // namespace state_detail

using state_detail::delivery_json;

/// The session halves of a testee's states: `add<Schema>()` for each frame a state is sent in.
class StateSessions : public Sessions {
public:
    /// Adds the server and client halves of schema `S` (named after its frame).
    template <typename S>
    StateSessions& add() {
        openers_[std::string(S::FRAME_NAME) + "_server"] = [](const Value&) {
            return std::unique_ptr<state_detail::Half>(new state_detail::Server<S>());
        };
        openers_[std::string(S::FRAME_NAME) + "_client"] = [](const Value& params) {
            const size_t keep = static_cast<size_t>(u64_member(params, "keep_inputs").value_or(16));
            return std::unique_ptr<state_detail::Half>(new state_detail::Client<S>(keep));
        };
        return *this;
    }

    std::vector<std::string> names() const override {
        std::vector<std::string> all;
        for (const auto& o : openers_) {
            all.push_back(o.first);
        }
        return all;
    }

    Value answer(const std::string& op, const Value& request) override {
        if (op == "open") {
            const std::string name = string_member(request, "session");
            auto opener = openers_.find(name);
            if (opener == openers_.end()) {
                return unimplemented("session `" + name + "` is not implemented");
            }
            const Value* params = request.find("params");
            const Value null;
            next_ += 1;
            open_[next_] = opener->second(params != nullptr ? *params : null);
            Value ok = Value::object();
            ok.set("handle", Value::from_u64(next_));
            return member("ok", std::move(ok));
        }
        const std::optional<uint64_t> handle = u64_member(request, "handle");
        auto found = handle ? open_.find(*handle) : open_.end();
        if (found == open_.end()) {
            return bad_request("no session " + (handle ? std::to_string(*handle) : std::string()));
        }
        if (op == "close") {
            open_.erase(found);
            return member("ok", Value::object());
        }
        state_detail::Half& half = *found->second;
        if (op == "advance") {
            const Value* ops = request.find("ops");
            auto e = half.advance(u64_member(request, "tick").value_or(0), ops != nullptr ? *ops : Value::array());
            return e ? bad_request(*e) : member("ok", Value::object());
        }
        if (op == "deliver") {
            std::vector<uint8_t> bytes;
            std::string why;
            if (!rt::from_hex(string_member(request, "hex"), bytes, why)) {
                return bad_request(why);
            }
            auto report = half.deliver(string_member(request, "frame"), bytes);
            return report ? member("ok", member("report", std::move(report).value()))
                          : bad_request(report.error());
        }
        if (op == "take") {
            Value frames = Value::array();
            for (const auto& t : half.take()) {
                Value f = Value::object();
                f.set("frame", Value::from_string(t.frame));
                f.set("hex", Value::from_string(rt::to_hex(t.bytes)));
                f.set("reliable", Value::from_bool(t.reliable));
                frames.push(std::move(f));
            }
            return member("ok", member("frames", std::move(frames)));
        }
        if (op == "state_hash") {
            auto hash = half.state_hash();
            if (!hash) {
                return unimplemented("this session half has no state hash");
            }
            return member("ok", member("hash", Value::from_u64(*hash)));
        }
        return unimplemented("unknown op `" + op + "`");
    }

private:
    std::map<std::string, std::function<std::unique_ptr<state_detail::Half>(const Value&)>> openers_;
    std::map<uint64_t, std::unique_ptr<state_detail::Half>> open_;
    uint64_t next_ = 0;
};

}  // namespace ackwire::testee
