// ackwire_testee.hpp: the testee protocol (conformance/PROTOCOL.md) for any generated C++ codec.
// This file is its source (cpp/include/ in the ackwire repository, tested by cpp/test.sh);
// `ackwire gen --lang cpp --testee` writes it unchanged beside protocol.hpp, with a testee.hpp
// that binds the codec's frames and a testee.cpp that serves them.
//
// One JSON request per line in, one JSON reply per line out, flushed after each. `hello` lists
// the codec's frames and the session halves given (a generated testee has none; the reference
// protocol's testee adds its own), `decode` and `encode` go through the frames' JSON form, the
// session operations go to the halves, `bye` answers, then stops.
//
// The codec is also held to its own promises on every request (WIRE-21): bytes it
// decodes encode back to exactly those bytes, through their JSON form, and encoded_len predicts
// what encode writes. A broken promise aborts the process with a message on standard error,
// which the runner reports as a crash.

#pragma once

#include "ackwire_runtime.hpp"

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ackwire::testee {

using json::Value;

/// The protocol version spoken.
inline constexpr uint64_t PROTOCOL_VERSION = 1;

/// The session halves a testee implements beside its frames.
class Sessions {
public:
    virtual ~Sessions() = default;
    /// The halves `hello` lists.
    virtual std::vector<std::string> names() const = 0;
    /// The body of the reply to the session op `op` (one member: ok, error or unimplemented).
    virtual Value answer(const std::string& op, const Value& request) = 0;
    /// Frames served here rather than by the codec's by-name functions, listed in `hello`: a
    /// coded frame, whose `decode` and `encode` requests carry the `basis` it is read and
    /// written against (conformance/PROTOCOL.md). None by default.
    virtual std::vector<std::string> frames() const { return {}; }
    /// The body of the reply to `decode` or `encode` (`op`) of one of frames().
    virtual Value frame_op(const std::string& op, const std::string& frame, const Value& request);
};

/// Whether `op` is one of the protocol's session operations.
inline bool is_session_op(std::string_view op) {
    return op == "open" || op == "advance" || op == "deliver" || op == "take" ||
        op == "state_hash" || op == "close";
}

/// A reply body of one member.
inline Value member(const char* name, Value v) {
    Value o = Value::object();
    o.set(name, std::move(v));
    return o;
}

/// The body of an `unimplemented` reply.
inline Value unimplemented(std::string why) {
    return member("unimplemented", Value::from_string(std::move(why)));
}

inline Value Sessions::frame_op(const std::string& op, const std::string& frame, const Value&) {
    return unimplemented("`" + op + "` of frame `" + frame + "` is not implemented");
}

/// The body of a `bad_request` error.
inline Value bad_request(std::string message) {
    Value e = Value::object();
    e.set("kind", Value::from_string("bad_request"));
    e.set("message", Value::from_string(std::move(message)));
    return member("error", std::move(e));
}

/// A string member of a request, or "" when it is absent or not a string.
inline std::string string_member(const Value& request, const char* name) {
    const Value* v = request.find(name);
    return v != nullptr && v->kind() == Value::Kind::string ? v->text() : std::string();
}

/// An unsigned integer member of a request, or nothing when it is absent or not one.
inline std::optional<uint64_t> u64_member(const Value& request, const char* name) {
    const Value* v = request.find(name);
    uint64_t n = 0;
    json::Error error;
    if (v == nullptr || !json::convert::GetUint{}(*v, n, error)) {
        return std::nullopt;
    }
    return n;
}

/// The body of the error reply of a decoder's refusal: kind, byte offset, bit, field path.
inline Value decode_error(const rt::DecodeError& d) {
    Value e = Value::object();
    e.set("kind", Value::from_string(std::string(rt::kind_name(d.kind))));
    e.set("offset", Value::from_u64(d.offset));
    if (d.bit) {
        e.set("bit", Value::from_u64(*d.bit));
    }
    e.set("path", Value::from_string(d.path_string()));
    return member("error", std::move(e));
}

/// The body of the error reply of an encoder's refusal: kind and field path.
inline Value encode_error(const rt::EncodeError& d) {
    Value e = Value::object();
    e.set("kind", Value::from_string(std::string(rt::kind_name(d.kind))));
    e.set("path", Value::from_string(d.path.str()));
    return member("error", std::move(e));
}

/// The body of the reply to a by-name frame operation that failed.
inline Value frame_error(const rt::FrameError& f) {
    using Kind = rt::FrameError::Kind;
    switch (f.kind) {
        case Kind::unknown_frame:
            return unimplemented(f.message);
        case Kind::bad_json:
            return bad_request(f.message);
        case Kind::decode:
            return decode_error(*f.decode_error);
        case Kind::encode:
            return encode_error(*f.encode_error);
    }
    return bad_request(f.message);
}

/// Serves the testee protocol for a codec's frames. `Frames` names them:
/// - `Frames::names`, every frame's name (the generated FRAME_NAMES);
/// - `Frames::visit(name, visitor)`, the generated visit_frame;
/// - `Frames::decode_json(name, data, len)` and `Frames::encode_json(name, value)`, the
///   generated decode_frame_json and encode_frame_json.
/// A frame type's `from_json`, `encode` and `encoded_len` are found by argument-dependent
/// lookup, as the runtime's encode_json finds them.
template <typename Frames>
class Server {
public:
    /// A testee called `name` in `hello`, with `sessions` (or none) beside the frames.
    explicit Server(std::string name, Sessions* sessions = nullptr)
        : name_(std::move(name)), sessions_(sessions) {}

    /// Answers every line of `in` on `out` until `in` ends or a `bye`; the exit code.
    int run(std::istream& in, std::ostream& out) {
        std::string line;
        while (std::getline(in, line)) {
            if (line.find_first_not_of(" \t\r\n") == std::string::npos) {
                continue;
            }
            bool bye = false;
            const Value reply = reply_to(line, bye);
            out << reply.dump() << '\n' << std::flush;
            if (!out) {
                return 1;
            }
            if (bye) {
                return 0;
            }
        }
        return 0;
    }

    /// The whole reply to one request line; `bye` is set on `bye`.
    Value reply_to(const std::string& line, bool& bye) {
        auto request = json::parse(line);
        Value reply = Value::object();
        if (!request) {
            reply.set("id", Value());
            reply.set("error", bad_request(request.error().text()).items()[0]);
            return reply;
        }
        const Value* id = request.value().find("id");
        reply.set("id", id != nullptr ? *id : Value());
        const Value body = answer(request.value(), bye);
        for (size_t i = 0; i < body.keys().size(); ++i) {
            reply.set(body.keys()[i], body.items()[i]);
        }
        return reply;
    }

private:
    std::string name_;
    Sessions* sessions_;

    Value hello() const {
        Value frames = Value::array();
        for (const std::string_view f : Frames::names) {
            frames.push(Value::from_string(std::string(f)));
        }
        Value halves = Value::array();
        if (sessions_ != nullptr) {
            for (const std::string& f : sessions_->frames()) {
                frames.push(Value::from_string(f));
            }
            for (const std::string& s : sessions_->names()) {
                halves.push(Value::from_string(s));
            }
        }
        Value ok = Value::object();
        ok.set("name", Value::from_string(name_));
        ok.set("version", Value::from_string("0.1.0"));
        ok.set("protocol", Value::from_u64(PROTOCOL_VERSION));
        ok.set("frames", std::move(frames));
        ok.set("sessions", std::move(halves));
        return member("ok", std::move(ok));
    }

    static bool known_frame(std::string_view name) {
        for (const std::string_view f : Frames::names) {
            if (f == name) {
                return true;
            }
        }
        return false;
    }

    bool served_by_sessions(const std::string& name) const {
        if (sessions_ == nullptr) {
            return false;
        }
        for (const std::string& f : sessions_->frames()) {
            if (f == name) {
                return true;
            }
        }
        return false;
    }

    // Stops the testee: the codec broke one of its own promises.
    [[noreturn]] static void broken(std::string_view frame, const std::string& what) {
        std::cerr << "testee: the " << frame << " codec " << what << std::endl;
        std::abort();
    }

    // The promises on a value `v` of frame type X read from JSON: encoded_len(v) is what encode
    // writes, and when `bytes` are given (v's JSON form was decoded from them), encode writes
    // them back.
    template <typename X>
    static void hold_to_promises(std::string_view frame, const X& v, const std::vector<uint8_t>* bytes) {
        std::vector<uint8_t> out;
        if (auto e = encode(v, out)) {
            if (bytes != nullptr) {
                broken(frame, "refuses to encode what it decoded: " + e->message());
            }
            return;
        }
        if (out.size() != encoded_len(v)) {
            broken(frame, "wrote " + std::to_string(out.size()) + " bytes, but encoded_len said " +
                std::to_string(encoded_len(v)));
        }
        if (bytes != nullptr && out != *bytes) {
            broken(frame, "decoded " + rt::to_hex(*bytes) + " but encodes it as " + rt::to_hex(out));
        }
    }

    // The promises on the value of frame `frame` whose JSON form is `value`.
    static void hold_json_to_promises(std::string_view frame, const Value& value,
        const std::vector<uint8_t>* bytes) {
        Frames::visit(frame, [&](auto type) {
            using X = typename decltype(type)::type;
            X v{};
            json::Error error;
            if (from_json(value, v, error)) {
                hold_to_promises<X>(frame, v, bytes);
            } else if (bytes != nullptr) {
                broken(frame, "cannot read back the JSON form it decoded: " + error.text());
            }
        });
    }

    Value decode(const std::string& frame, const Value& request) const {
        std::vector<uint8_t> bytes;
        std::string why;
        if (!rt::from_hex(string_member(request, "hex"), bytes, why)) {
            return bad_request(why);
        }
        auto decoded = Frames::decode_json(frame, bytes.data(), bytes.size());
        if (!decoded) {
            return frame_error(decoded.error());
        }
        hold_json_to_promises(frame, decoded.value(), &bytes);
        return member("ok", member("value", std::move(decoded).value()));
    }

    Value encode_value(const std::string& frame, const Value& request) const {
        const Value* given = request.find("value");
        const Value value = given != nullptr ? *given : Value();
        hold_json_to_promises(frame, value, nullptr);
        auto encoded = Frames::encode_json(frame, value);
        if (!encoded) {
            return frame_error(encoded.error());
        }
        return member("ok", member("hex", Value::from_string(rt::to_hex(encoded.value()))));
    }

    // The body of the reply to `request` (every member but `id`).
    Value answer(const Value& request, bool& bye) {
        const std::string op = string_member(request, "op");
        const std::string frame = string_member(request, "frame");
        if (op == "hello") {
            return hello();
        }
        if (op == "bye") {
            bye = true;
            return member("ok", Value::object());
        }
        if ((op == "decode" || op == "encode") && served_by_sessions(frame)) {
            return sessions_->frame_op(op, frame, request);
        }
        if ((op == "decode" || op == "encode") && !known_frame(frame)) {
            return unimplemented("frame `" + frame + "` is not implemented");
        }
        if (op == "decode") {
            return decode(frame, request);
        }
        if (op == "encode") {
            return encode_value(frame, request);
        }
        if (is_session_op(op) && sessions_ != nullptr) {
            return sessions_->answer(op, request);
        }
        return unimplemented("`" + op + "` is not implemented");
    }
};

}  // namespace ackwire::testee
