// The native example: the C++ AckedDecoder (the facade acked::AckedClientHalf of
// ackwire_acked_half.hpp, over reference::Reference, the binding `ackwire gen --lang cpp` writes
// for the reference protocol's `state Reference`) on the cube scene's acked frames, over a real
// UDP socket on 127.0.0.1 against examples/sockets' cube-server.
//
//   cube_client 127.0.0.1 PORT [--timeout-s 60]
//
// It says `hello` (the server learns its address from it), then for every datagram: `done`
// ends the run; anything else is handed to the half as an `acked` frame. After a frame shown it
// reports `shown TICK HASH` (the tick of the frame shown, the FNV-1a of the state shown) to the
// server, which holds it to S_N's hash of that tick, and prints the same line on its standard
// output; after every frame it ticks the half and sends the kind 7 ack it queues. Hostile
// bytes are the decoder's to refuse (a delivery of kind undecodable), never a crash: the
// socket's datagrams are at most 64 KiB, read into a buffer of that size.
//
// Exit status: 0 after `done` with at least one frame shown, 1 otherwise (a timeout, a socket
// error, nothing shown), 2 for a bad command line.

#include "ackwire_acked_half.hpp"
#include "reference.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

bool send_bytes(int fd, const uint8_t* data, size_t len) {
    return send(fd, data, len, 0) == static_cast<ssize_t>(len);
}

bool send_text(int fd, const std::string& text) {
    return send_bytes(fd, reinterpret_cast<const uint8_t*>(text.data()), text.size());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: cube_client HOST PORT [--timeout-s N]\n");
        return 2;
    }
    long timeout_s = 60;
    if (argc >= 5 && std::string(argv[3]) == "--timeout-s") {
        timeout_s = std::strtol(argv[4], nullptr, 10);
    }
    const long port = std::strtol(argv[2], nullptr, 10);
    if (port <= 0 || port > 65535) {
        std::fprintf(stderr, "cube_client: bad port %s\n", argv[2]);
        return 2;
    }
    const int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) {
        std::perror("cube_client: socket");
        return 1;
    }
    sockaddr_in server{};
    server.sin_family = AF_INET;
    server.sin_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET, argv[1], &server.sin_addr) != 1) {
        std::fprintf(stderr, "cube_client: bad address %s\n", argv[1]);
        return 2;
    }
    if (connect(fd, reinterpret_cast<const sockaddr*>(&server), sizeof server) != 0) {
        std::perror("cube_client: connect");
        return 1;
    }
    // A bounded wait per datagram, so a silent server ends the run at the deadline.
    timeval wait{};
    wait.tv_usec = 200 * 1000;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    if (!send_text(fd, "hello")) {
        std::perror("cube_client: send");
        return 1;
    }

    using Half = ackwire::acked::AckedClientHalf<ackwire::reference::Reference>;
    Half half(16);
    std::vector<uint8_t> buf(65536);
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + std::chrono::seconds(timeout_s);
    uint64_t shown = 0;
    uint64_t frames = 0;
    uint32_t seq_tick = 0;
    bool done = false;
    while (std::chrono::steady_clock::now() < deadline) {
        const ssize_t n = recv(fd, buf.data(), buf.size(), 0);
        if (n < 0) {
            continue;  // the timeout: look at the deadline again
        }
        const size_t len = static_cast<size_t>(n);
        if (len == 4 && std::memcmp(buf.data(), "done", 4) == 0) {
            done = true;
            break;
        }
        const auto ms = static_cast<uint64_t>(
            std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::steady_clock::now() - start)
                .count());
        const ackwire::session::Now now{0, ms};
        frames += 1;
        auto delivery = half.handle_frame(now, "acked", buf.data(), len);
        if (delivery.ok() && delivery.value().kind == Half::Delivery::Kind::shown) {
            shown += 1;
            const auto tick = half.shown_tick();
            const std::string line = "shown " + std::to_string(tick ? *tick : 0) + " " +
                std::to_string(half.state_hash());
            std::printf("%s\n", line.c_str());
            send_text(fd, line);
        }
        // One kind 7 frame a frame received, carrying this client's (idle) input.
        ackwire::protocol::Input input;
        seq_tick += 1;
        input.tick = seq_tick;
        auto ticked = half.handle_tick(now, input);
        if (!ticked.ok()) {
            std::fprintf(stderr, "cube_client: the half refused a tick\n");
            return 1;
        }
        while (auto t = half.poll_transmit()) {
            send_bytes(fd, t->bytes.data(), t->bytes.size());
        }
    }
    close(fd);
    std::printf("cube_client: %llu frames, %llu shown, %s\n",
        static_cast<unsigned long long>(frames), static_cast<unsigned long long>(shown),
        done ? "done" : "timed out");
    return done && shown > 0 ? 0 : 1;
}
