// Tests of the binding `ackwire gen --lang cpp` writes for the game's state (examples/game/wire:
// build/gen-game/arena.hpp, whose players' health is a ranged field, `u8 in 0..=100`, WIRE-29),
// over the recorded stream's kind 6 frames (examples/game/vectors/streams/arena.txt):
// - every record a decoder holds after each recorded frame is written by the fast record writer
//   (the check's canonical bytes, CHECK-3): the generated writer's bytes, in one allocation into
//   an empty buffer where the generated writer grows it at each field;
// - a health past 100 goes to the generated writer, which writes the record up to the health, the
//   field at fault; 0 and 100 are still written at once.

#include "ackwire_acked.hpp"
#include "arena.hpp"

#include "check.hpp"
#include "count_new.hpp"

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#ifndef ACKWIRE_GAME_DIR
#error "test.sh defines ACKWIRE_GAME_DIR, the game's examples/game folder"
#endif

namespace {

using namespace ackwire;
using arena::Arena;
using protocol::Entity;
using Bytes = std::vector<uint8_t>;

/// The recorded stream's kind 6 frames, in order.
std::vector<Bytes> recorded_frames() {
    std::ifstream file(ACKWIRE_GAME_DIR "/vectors/streams/arena.txt");
    CHECK(file.good());
    std::vector<Bytes> frames;
    std::string line;
    const std::string tag = "frame ";
    while (std::getline(file, line)) {
        if (line.compare(0, tag.size(), tag) != 0) {
            continue;
        }
        Bytes b;
        for (size_t i = tag.size(); i + 1 < line.size(); i += 2) {
            b.push_back(static_cast<uint8_t>(std::stoul(line.substr(i, 2), nullptr, 16)));
        }
        if (!b.empty() && b[0] == 6) {
            frames.push_back(b);
        }
    }
    return frames;
}

Bytes generated_bytes(const Entity& r) {
    Bytes out;
    rt::Writer w(out);
    (void)protocol::detail::write(w, r);
    return out;
}

/// The record's bytes by the binding's writer into an empty buffer, and how many allocations
/// that made.
std::pair<Bytes, size_t> written(const Entity& r) {
    const size_t before = g_allocations;
    Bytes out;
    Arena::write_record(r, out);
    const size_t made = g_allocations - before;
    return {out, made};
}

TEST(the_recorded_records_are_written_at_once_as_the_generated_writer_writes_them) {
    const std::vector<Bytes> frames = recorded_frames();
    CHECK(frames.size() > 100);
    acked::AckedDecoder<Arena> decoder;
    size_t records = 0;
    size_t players = 0;
    for (const Bytes& f : frames) {
        (void)decoder.deliver(f);
        decoder.live().for_each([&](uint16_t, const Entity& r) {
            const auto [bytes, made] = written(r);
            CHECK_EQ(bytes, generated_bytes(r));
            CHECK_EQ(made, size_t{1});
            ++records;
            players += r.player ? 1u : 0u;
        });
    }
    CHECK(records > 1000);
    CHECK(players > 500);
}

TEST(a_health_past_the_range_goes_to_the_generated_writer) {
    acked::AckedDecoder<Arena> decoder;
    std::optional<Entity> player;
    for (const Bytes& f : recorded_frames()) {
        (void)decoder.deliver(f);
        decoder.live().for_each([&](uint16_t, const Entity& r) {
            if (r.player && !player) {
                player = r;
            }
        });
    }
    if (!CHECK(player.has_value())) {
        return;
    }
    for (const int health : {0, 100, 101, 255}) {
        Entity r = *player;
        r.player->health = static_cast<uint8_t>(health);
        const auto [bytes, made] = written(r);
        CHECK_EQ(bytes, generated_bytes(r));
        if (health <= 100) {
            CHECK_EQ(made, size_t{1});
            CHECK_EQ(bytes.size(), size_t{20});
        } else {
            // The record up to the player's aim: the health is where the writer refused it.
            CHECK_EQ(bytes.size(), size_t{18});
        }
    }
}

}  // namespace

int main() { return check::run_all(); }
