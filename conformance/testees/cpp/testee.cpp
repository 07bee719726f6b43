// The C++ testee: conformance/PROTOCOL.md over standard input and output, answering with the
// codec generated from the reference protocol (gen/protocol.hpp, written by build.sh).
//
// Its frames are served by the testee `ackwire gen --lang cpp --testee` writes for any spec
// (gen/testee.hpp over gen/ackwire_testee.hpp: `hello`, `decode`, `encode` through the frames'
// JSON form, `bye`, and the codec held to its own promises on every request); what is the
// reference protocol's own, the session halves of sessions.hpp and the coded frame
// `acked_coded` (kind 13, read and written against the `basis` its requests carry), is given to
// it here.

#include "sessions.hpp"
#include "testee.hpp"

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

using ackwire::json::Value;
using ackwire::protocol::AckedCoded;
using ackwire::protocol::EntityState;
using ackwire::testee::bad_request;
using ackwire::testee::member;
using ackwire::testee::string_member;
using ackwire::testee::u64_member;
using ackwire::testee::unimplemented;

Value text(std::string_view s) { return Value::from_string(std::string(s)); }

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

// The records a coded frame is read and written against, as a request's `basis` member gives
// them (conformance/PROTOCOL.md): `{"base": [{"eid", "state"}], "older": [...]}`.
class RequestBasis final : public ackwire::coded::CodedBasis<EntityState> {
public:
    std::map<uint16_t, EntityState> base_records;
    std::map<uint16_t, EntityState> older_records;

    std::optional<EntityState> base(uint16_t eid) const override { return find(base_records, eid); }
    std::optional<EntityState> older(uint16_t eid) const override {
        return find(older_records, eid);
    }

    // Reads `j` (null: nothing held) into this basis; why not, when it cannot.
    std::optional<std::string> read(const Value* j) {
        if (j == nullptr) {
            return std::nullopt;
        }
        for (const char* side : {"base", "older"}) {
            const Value* list = j->find(side);
            if (list == nullptr) {
                continue;
            }
            auto& records = std::string(side) == "base" ? base_records : older_records;
            for (const Value& entry : list->items()) {
                const Value* eid = entry.find("eid");
                const Value* state = entry.find("state");
                ackwire::json::Error error;
                uint16_t id = 0;
                EntityState record;
                if (eid == nullptr || state == nullptr) {
                    return std::string("basis.") + side + ": an entry needs `eid` and `state`";
                }
                if (!ackwire::json::get_uint(*eid, id, error)
                    || !ackwire::protocol::from_json(*state, record, error)) {
                    return std::string("basis.") + side + ": " + error.text();
                }
                records[id] = record;
            }
        }
        return std::nullopt;
    }

private:
    static std::optional<EntityState> find(
        const std::map<uint16_t, EntityState>& records, uint16_t eid) {
        auto it = records.find(eid);
        return it == records.end() ? std::nullopt : std::optional<EntityState>(it->second);
    }
};

// `decode` or `encode` of a coded frame against the request's basis. A decoded frame must encode
// back to its bytes against the same basis, as the codec promises every frame.
Value coded_frame_op(const std::string& op, const Value& request) {
    RequestBasis basis;
    if (auto why = basis.read(request.find("basis"))) {
        return bad_request(*why);
    }
    if (op == "decode") {
        std::vector<uint8_t> bytes;
        std::string why;
        if (!ackwire::rt::from_hex(string_member(request, "hex"), bytes, why)) {
            return bad_request(why);
        }
        auto frame = AckedCoded::decode(bytes.data(), bytes.size(), basis);
        if (!frame) {
            return ackwire::testee::decode_error(frame.error());
        }
        std::vector<uint8_t> again;
        if (frame.value().encode(again, basis) || again != bytes) {
            std::cerr << "testee: the acked_coded codec does not encode back what it decoded\n";
            std::abort();
        }
        return member("ok", member("value", ackwire::protocol::to_json(frame.value())));
    }
    const Value* given = request.find("value");
    AckedCoded frame;
    ackwire::json::Error error;
    if (given == nullptr || !ackwire::protocol::from_json(*given, frame, error)) {
        return bad_request("value: " + error.text());
    }
    std::vector<uint8_t> out;
    if (auto e = frame.encode(out, basis)) {
        return ackwire::testee::encode_error(*e);
    }
    return member("ok", member("hex", text(ackwire::rt::to_hex(out))));
}

// The halves of sessions.hpp, as the generated testee takes them.
class ReferenceSessions : public ackwire::testee::Sessions {
public:
    std::vector<std::string> names() const override {
        std::vector<std::string> all;
        for (const auto& opener : sessions().openers) {
            all.push_back(opener.first);
        }
        return all;
    }

    Value answer(const std::string& op, const Value& request) override {
        return session_op(op, request);
    }

    std::vector<std::string> frames() const override {
        return {ackwire::reference::CodedReference::FRAME_NAME};
    }

    Value frame_op(const std::string& op, const std::string&, const Value& request) override {
        return coded_frame_op(op, request);
    }
};

}  // namespace

int main() {
    ReferenceSessions halves;
    return ackwire::testee::serve(&halves);
}
