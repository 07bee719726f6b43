// What the datagram, baseline and delta adapters share: reading the members of the session
// protocol's JSON (params, world ops) and writing reports, as serde_json reads and writes them
// in conformance/src/sessions/.

#pragma once

#include "protocol.hpp"
#include "ackwire_session.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace testee {
namespace rest {

using ackwire::json::Value;

/// The member `key` of an object, or null when `v` is not one or has none.
inline const Value* member(const Value& v, const char* key) {
    return v.kind() == Value::Kind::object ? v.find(key) : nullptr;
}

/// `v` as an unsigned integer, as serde_json's as_u64.
inline std::optional<uint64_t> as_u64(const Value& v) {
    uint64_t n = 0;
    ackwire::json::Error e;
    if (!ackwire::json::convert::GetUint{}(v, n, e)) {
        return std::nullopt;
    }
    return n;
}

/// `v` as a double, as serde_json's as_f64 (any number).
inline std::optional<double> as_f64(const Value& v) {
    double d = 0.0;
    ackwire::json::Error e;
    if (!ackwire::json::convert::GetF64{}(v, d, e)) {
        return std::nullopt;
    }
    return d;
}

/// The unsigned member `key` of `v`, or why not.
inline bool uint_member(const Value& v, const char* key, uint64_t& out, std::string& why) {
    const Value* m = member(v, key);
    if (m == nullptr) {
        why = "missing `" + std::string(key) + "` in " + v.dump();
        return false;
    }
    auto n = as_u64(*m);
    if (!n) {
        why = "`" + std::string(key) + "` must be an unsigned integer";
        return false;
    }
    out = *n;
    return true;
}

/// The number member `key` of `v`, or why not.
inline bool num_member(const Value& v, const char* key, double& out, std::string& why) {
    const Value* m = member(v, key);
    auto d = m != nullptr ? as_f64(*m) : std::nullopt;
    if (!d) {
        why = "missing number `" + std::string(key) + "` in " + v.dump();
        return false;
    }
    out = *d;
    return true;
}

/// Hex bytes, or why not.
inline bool hex_value(const Value& v, std::vector<uint8_t>& out, std::string& why) {
    if (v.kind() != Value::Kind::string) {
        why = "component bytes must be a hex string";
        return false;
    }
    return ackwire::rt::from_hex(v.text(), out, why);
}

/// An object's only member, as (name, value); false when `v` is not an object with members.
inline bool only_member(const Value& v, std::string& name, const Value*& body) {
    if (v.kind() != Value::Kind::object || v.keys().empty()) {
        return false;
    }
    name = v.keys()[0];
    body = &v.items()[0];
    return true;
}

/// An object of one member.
inline Value one(const char* key, Value v) {
    Value o = Value::object();
    o.set(key, std::move(v));
    return o;
}

/// A count as a JSON number.
inline Value n(uint64_t v) { return Value::from_u64(v); }

/// A boolean as JSON.
inline Value b(bool v) { return Value::from_bool(v); }

/// A string as JSON.
inline Value s(std::string v) { return Value::from_string(std::move(v)); }

/// Drains a half's poll_transmit.
template <typename Half>
std::vector<ackwire::session::Transmit> drain(Half& half) {
    std::vector<ackwire::session::Transmit> out;
    while (auto t = half.poll_transmit()) {
        out.push_back(std::move(*t));
    }
    return out;
}

/// The JSON of a frame a half refused: `{"error": kind}` for one that does not decode,
/// `{"ignored": frame}` for one it does not take; nothing for any other refusal.
inline std::optional<Value> refusal(const ackwire::session::SessionError& e,
    const std::string& frame) {
    using Kind = ackwire::session::SessionError::Kind;
    if (e.kind == Kind::decode && e.decode_error) {
        return one("error", s(std::string(ackwire::rt::kind_name(e.decode_error->kind))));
    }
    if (e.kind == Kind::unexpected_frame) {
        return one("ignored", s(frame));
    }
    return std::nullopt;
}

}  // namespace rest
}  // namespace testee
