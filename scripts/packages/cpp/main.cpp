// A user's program over the installed CMake package ackwire: every golden frame vector through
// the codec generated at build time (`ackwire gen --lang cpp --runtime package`). An accepted
// frame must re-encode to its own bytes; a refused one must fail with the vector's kind, byte
// offset and field path. Usage: frames VECTORS/frames
#include "protocol.hpp"

#include <ackwire_session.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using ackwire::json::Value;

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string field(const Value& object, std::string_view key) {
    const Value* v = object.find(key);
    return v == nullptr ? std::string() : v->text();
}

// What is wrong with case `c` of frame `frame`; empty when nothing is.
std::string check(const std::string& frame, const Value& c) {
    const std::string name = field(c, "name");
    std::vector<uint8_t> bytes;
    std::string why;
    if (!ackwire::rt::from_hex(field(c, "hex"), bytes, why)) {
        return name + ": bad hex: " + why;
    }
    const Value* want = c.find("error");
    auto decoded = ackwire::protocol::decode_frame_json(frame, bytes.data(), bytes.size());
    if (!decoded) {
        const auto& e = decoded.error();
        if (!e.decode_error) {
            return name + ": " + e.message;
        }
        const auto& d = *e.decode_error;
        if (want == nullptr) {
            return name + ": refused a valid frame: " + d.message();
        }
        if (std::string(ackwire::rt::kind_name(d.kind)) != field(*want, "kind")
            || std::to_string(d.offset) != field(*want, "offset")
            || d.path_string() != field(*want, "path")) {
            return name + ": " + d.message() + ", want " + field(*want, "kind") + " at byte "
                + field(*want, "offset") + ", field " + field(*want, "path");
        }
        return "";
    }
    if (want != nullptr) {
        return name + ": decoded, but the vector says " + field(*want, "kind");
    }
    auto again = ackwire::protocol::encode_frame_json(frame, decoded.value());
    if (!again) {
        return name + ": its JSON form does not encode: " + again.error().message;
    }
    if (again.value() != bytes) {
        return name + ": re-encoded as " + ackwire::rt::to_hex(again.value());
    }
    return "";
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: frames VECTORS/frames\n";
        return 2;
    }
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(argv[1])) {
        if (entry.path().extension() == ".json") {
            files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    std::vector<std::string> failures;
    size_t accepted = 0;
    size_t refused = 0;
    for (const auto& path : files) {
        auto parsed = ackwire::json::parse(read_file(path));
        if (!parsed) {
            failures.push_back(path.string() + ": not JSON");
            continue;
        }
        const Value& vectors = parsed.value();
        const std::string frame = field(vectors, "frame");
        const Value* cases = vectors.find("cases");
        if (cases == nullptr) {
            failures.push_back(path.string() + ": no cases");
            continue;
        }
        for (const Value& c : cases->items()) {
            std::string fault = check(frame, c);
            if (!fault.empty()) {
                failures.push_back(std::move(fault));
            }
            (c.find("error") == nullptr ? accepted : refused) += 1;
        }
    }
    // The session headers are installed too: a frame through the outbox every half queues in.
    ackwire::session::Outbox outbox;
    outbox.push(ackwire::session::Transmit{"ack", {7, 0}, false});
    const auto sent = outbox.poll();
    if (!sent || sent->frame != "ack" || outbox.poll()) {
        failures.push_back("ackwire_session.hpp: the outbox did not hand back its one frame");
    }
    for (const auto& f : failures) {
        std::cerr << "FAIL " << f << "\n";
    }
    std::cout << "ackwire::runtime in a project of its own: " << accepted
              << " frame vectors decoded and re-encoded, " << refused
              << " refused at their byte and field, " << failures.size() << " failures\n";
    return failures.empty() ? 0 : 1;
}
