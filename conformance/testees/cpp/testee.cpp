// The C++ testee: conformance/PROTOCOL.md over standard input and output, answering with the
// codec generated from the reference protocol (gen/protocol.hpp, written by build.sh).
//
// One JSON request per line in, one JSON reply per line out, flushed after each. `hello` lists
// every frame of the spec and the session halves of sessions.hpp; `decode` and `encode` go
// through the frames' JSON form; the session operations drive the halves; `bye` answers, then
// exits.
//
// The testee also checks the codec against itself on every request: a frame it decodes must
// encode back to the same bytes, and encoded_len must predict what encode writes. A failed check
// aborts the process with a message on standard error, which the runner reports as a crash.

#include "protocol.hpp"
#include "sessions.hpp"

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using ackwire::json::Value;

constexpr uint64_t PROTOCOL_VERSION = 1;

Value text(std::string_view s) { return Value::from_string(std::string(s)); }

// A reply body with one member.
Value member(const char* name, Value v) {
    Value o = Value::object();
    o.set(name, std::move(v));
    return o;
}

Value unimplemented(std::string why) { return member("unimplemented", text(why)); }

Value bad_request(std::string message) {
    Value e = Value::object();
    e.set("kind", text("bad_request"));
    e.set("message", text(message));
    return member("error", std::move(e));
}

Value decode_error(const ackwire::rt::DecodeError& d) {
    Value e = Value::object();
    e.set("kind", text(ackwire::rt::kind_name(d.kind)));
    e.set("offset", Value::from_u64(d.offset));
    if (d.bit) {
        e.set("bit", Value::from_u64(*d.bit));
    }
    e.set("path", text(d.path_string()));
    return member("error", std::move(e));
}

Value encode_error(const ackwire::rt::EncodeError& d) {
    Value e = Value::object();
    e.set("kind", text(ackwire::rt::kind_name(d.kind)));
    e.set("path", text(d.path.str()));
    return member("error", std::move(e));
}

Value frame_error(const ackwire::rt::FrameError& f) {
    using Kind = ackwire::rt::FrameError::Kind;
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

// Stops the testee: the codec broke one of its own promises.
[[noreturn]] void broken(std::string_view frame, const std::string& what) {
    std::cerr << "testee: the " << frame << " codec " << what << std::endl;
    std::abort();
}

// The checks of one frame value `v` of type X: encoded_len(v) is what encode writes, and when
// `bytes` are given (v was decoded from them), encode writes them back.
template <typename X>
void check_codec(std::string_view frame, const X& v, const std::vector<uint8_t>* bytes) {
    std::vector<uint8_t> out;
    if (auto e = ackwire::protocol::encode(v, out)) {
        if (bytes != nullptr) {
            broken(frame, "refuses to encode what it decoded: " + e->message());
        }
        return;
    }
    if (out.size() != ackwire::protocol::encoded_len(v)) {
        broken(frame, "wrote " + std::to_string(out.size()) + " bytes, but encoded_len said "
            + std::to_string(ackwire::protocol::encoded_len(v)));
    }
    if (bytes != nullptr && out != *bytes) {
        broken(frame, "decoded " + ackwire::rt::to_hex(*bytes) + " but encodes it as "
            + ackwire::rt::to_hex(out));
    }
}

// The self-checks of a decode request's bytes.
void check_decoded(std::string_view frame, const std::vector<uint8_t>& bytes) {
    ackwire::protocol::visit_frame(frame, [&](auto type) {
        using X = typename decltype(type)::type;
        X v;
        ackwire::rt::Reader r(bytes.data(), bytes.size());
        if (ackwire::protocol::detail::read(r, v) && r.finish()) {
            check_codec(frame, v, &bytes);
        }
    });
}

// The self-checks of an encode request's value.
void check_encoded(std::string_view frame, const Value& value) {
    ackwire::protocol::visit_frame(frame, [&](auto type) {
        using X = typename decltype(type)::type;
        X v;
        ackwire::json::Error error;
        if (from_json(value, v, error)) {
            check_codec<X>(frame, v, nullptr);
        }
    });
}

bool known_frame(std::string_view name) {
    for (const std::string_view f : ackwire::protocol::FRAME_NAMES) {
        if (f == name) {
            return true;
        }
    }
    return false;
}

// A string member of the request, or "" when it is absent or not a string.
std::string string_member(const Value& request, const char* name) {
    const Value* v = request.find(name);
    return v != nullptr && v->kind() == Value::Kind::string ? v->text() : std::string();
}

// An unsigned integer member of the request, or nothing when it is absent or not one.
std::optional<uint64_t> u64_member(const Value& request, const char* name) {
    const Value* v = request.find(name);
    uint64_t n = 0;
    ackwire::json::Error error;
    if (v == nullptr || !ackwire::json::convert::GetUint{}(*v, n, error)) {
        return std::nullopt;
    }
    return n;
}

// The open session halves, by handle.
struct Sessions {
    std::map<std::string, testee::Opener> openers = testee::openers();
    std::map<uint64_t, std::unique_ptr<testee::Session>> open;
    uint64_t next = 0;
};

Sessions& sessions() {
    static Sessions s;
    return s;
}

// The body of the reply to a session op.
Value session_op(const std::string& op, const Value& request) {
    Sessions& all = sessions();
    if (op == "open") {
        const std::string name = string_member(request, "session");
        auto opener = all.openers.find(name);
        if (opener == all.openers.end()) {
            return unimplemented("session `" + name + "` is not implemented");
        }
        const Value* params = request.find("params");
        const Value null;
        auto opened = opener->second(params != nullptr ? *params : null);
        if (!opened) {
            return bad_request(opened.error());
        }
        all.next += 1;
        all.open[all.next] = std::move(opened).value();
        Value ok = Value::object();
        ok.set("handle", Value::from_u64(all.next));
        return member("ok", std::move(ok));
    }
    const std::optional<uint64_t> handle_member = u64_member(request, "handle");
    if (!handle_member) {
        return bad_request("a session op needs a `handle`");
    }
    const uint64_t handle = *handle_member;
    auto found = all.open.find(handle);
    if (found == all.open.end()) {
        return bad_request("no session " + std::to_string(handle));
    }
    if (op == "close") {
        all.open.erase(found);
        return member("ok", Value::object());
    }
    testee::Session& half = *found->second;
    const uint64_t now_ms = u64_member(request, "now_ms").value_or(0);
    if (op == "advance") {
        const Value* ops = request.find("ops");
        auto done = half.advance(u64_member(request, "tick").value_or(0), now_ms,
            ops != nullptr ? *ops : Value::array());
        return done ? member("ok", Value::object()) : bad_request(done.error());
    }
    if (op == "deliver") {
        std::vector<uint8_t> bytes;
        std::string why;
        if (!ackwire::rt::from_hex(string_member(request, "hex"), bytes, why)) {
            return bad_request(why);
        }
        auto report = half.deliver(now_ms, string_member(request, "frame"), bytes);
        return report ? member("ok", member("report", std::move(report).value()))
                      : bad_request(report.error());
    }
    if (op == "take") {
        Value frames = Value::array();
        for (const auto& t : half.take()) {
            Value f = Value::object();
            f.set("frame", text(t.frame));
            f.set("hex", text(ackwire::rt::to_hex(t.bytes)));
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

// The body of the reply to `request` (every member but `id`); `bye` is set on `bye`.
Value answer(const Value& request, bool& bye) {
    const std::string op = string_member(request, "op");
    const std::string frame = string_member(request, "frame");
    if (op == "hello") {
        Value frames = Value::array();
        for (const std::string_view f : ackwire::protocol::FRAME_NAMES) {
            frames.push(text(f));
        }
        Value ok = Value::object();
        ok.set("name", text("ackwire-cpp"));
        ok.set("version", text("0.1.0"));
        ok.set("protocol", Value::from_u64(PROTOCOL_VERSION));
        ok.set("frames", std::move(frames));
        Value halves = Value::array();
        for (const auto& opener : sessions().openers) {
            halves.push(text(opener.first));
        }
        ok.set("sessions", std::move(halves));
        return member("ok", std::move(ok));
    }
    if ((op == "decode" || op == "encode") && !known_frame(frame)) {
        return unimplemented("frame `" + frame + "` is not implemented");
    }
    if (op == "decode") {
        std::vector<uint8_t> bytes;
        std::string why;
        if (!ackwire::rt::from_hex(string_member(request, "hex"), bytes, why)) {
            return bad_request(why);
        }
        check_decoded(frame, bytes);
        auto decoded = ackwire::protocol::decode_frame_json(frame, bytes.data(), bytes.size());
        if (!decoded) {
            return frame_error(decoded.error());
        }
        return member("ok", member("value", std::move(decoded).value()));
    }
    if (op == "encode") {
        const Value* value = request.find("value");
        const Value null;
        check_encoded(frame, value != nullptr ? *value : null);
        auto encoded = ackwire::protocol::encode_frame_json(frame, value != nullptr ? *value : null);
        if (!encoded) {
            return frame_error(encoded.error());
        }
        return member("ok", member("hex", text(ackwire::rt::to_hex(encoded.value()))));
    }
    if (op == "bye") {
        bye = true;
        return member("ok", Value::object());
    }
    if (op == "open" || op == "deliver" || op == "take" || op == "advance" || op == "state_hash" ||
        op == "close") {
        return session_op(op, request);
    }
    return unimplemented("unknown op `" + op + "`");
}

// The whole reply line to one request line.
Value reply_to(const std::string& line, bool& bye) {
    auto request = ackwire::json::parse(line);
    Value reply = Value::object();
    if (!request) {
        reply.set("id", Value());
        const Value body = bad_request(request.error().text());
        reply.set("error", body.items()[0]);
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

bool blank(const std::string& line) {
    return line.find_first_not_of(" \t\r\n") == std::string::npos;
}

}  // namespace

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        if (blank(line)) {
            continue;
        }
        bool bye = false;
        const Value reply = reply_to(line, bye);
        std::cout << reply.dump() << '\n' << std::flush;
        if (!std::cout) {
            return 1;
        }
        if (bye) {
            return 0;
        }
    }
    return 0;
}
