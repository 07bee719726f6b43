// A line-driven driver of a generated C++ codec, for cli/tests/sink_codecs.rs: the protocol of
// driver.ts, one answer line per request line.
//
//   decode NAME HEX   ->  ok JSON | err KIND OFFSET BIT PATH (BIT `-` outside a packed body)
//   encode NAME JSON  ->  ok HEX  | err KIND PATH | bad_json MESSAGE

#include "protocol.hpp"

#include <iostream>
#include <string>
#include <vector>

namespace {

namespace rt = ackwire::rt;
namespace json = ackwire::json;
namespace protocol = ackwire::protocol;

std::string answer(const std::string& line) {
    const size_t first = line.find(' ');
    const size_t second = line.find(' ', first + 1);
    if (first == std::string::npos || second == std::string::npos) {
        return "bad_request";
    }
    const std::string op = line.substr(0, first);
    const std::string name = line.substr(first + 1, second - first - 1);
    const std::string arg = line.substr(second + 1);
    if (op == "decode") {
        std::vector<uint8_t> bytes;
        std::string why;
        if (!rt::from_hex(arg, bytes, why)) {
            return "bad_request " + why;
        }
        const auto decoded = protocol::decode_frame_json(name, bytes.data(), bytes.size());
        if (decoded.ok()) {
            return "ok " + decoded.value().dump();
        }
        if (!decoded.error().decode_error) {
            return "bad_request " + decoded.error().message;
        }
        const rt::DecodeError& e = *decoded.error().decode_error;
        return "err " + std::string(rt::kind_name(e.kind)) + " " + std::to_string(e.offset) + " "
            + (e.bit ? std::to_string(*e.bit) : std::string("-")) + " " + e.path_string();
    }
    const auto parsed = json::parse(arg);
    if (!parsed.ok()) {
        return "bad_request " + parsed.error().text();
    }
    const auto encoded = protocol::encode_frame_json(name, parsed.value());
    if (encoded.ok()) {
        return "ok " + rt::to_hex(encoded.value());
    }
    const rt::FrameError& f = encoded.error();
    if (f.kind == rt::FrameError::Kind::encode && f.encode_error) {
        return "err " + std::string(rt::kind_name(f.encode_error->kind)) + " "
            + f.encode_error->path.str();
    }
    return "bad_json " + f.message;
}

}  // namespace

int main() {
    std::string line;
    while (std::getline(std::cin, line)) {
        std::cout << answer(line) << '\n';
    }
    return 0;
}
