// Tests of the binding `ackwire gen --lang cpp` writes for the game's state (examples/game/wire:
// build/gen-game/arena.hpp, whose players' health is a ranged field, `u8 in 0..=100`, WIRE-29),
// over the recorded stream's kind 6 frames (examples/game/vectors/streams/arena.txt):
// - every record a decoder holds after each recorded frame is written by the fast record writer
//   (the check's canonical bytes, CHECK-3): the generated writer's bytes, in one allocation into
//   an empty buffer where the generated writer grows it at each field;
// - a health past 100 goes to the generated writer, which writes the record up to the health, the
//   field at fault; 0 and 100 are still written at once;
// - the state's groups as datagram v2 components (`arena::ArenaComponent`): each back from its
//   bytes, a health past 100 refused by their writer and their reader where it is.

#include "ackwire_acked.hpp"
#include "arena.hpp"

#include "check.hpp"
#include "count_new.hpp"

#include <cstdint>
#include <fstream>
#include <optional>
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

// The arena's groups as datagram v2 components (arena::ArenaComponent): each group's full form
// comes back from its bytes as itself, with its group's index as its type; a health past 100 is
// refused by the writer under its field, and in bytes by the reader at its byte, under the group.

/// A component as a datagram schema holds one: a type and its bytes (none for a removal).
struct Component {
    uint8_t type = 0;
    std::optional<Bytes> data;
};

TEST(the_arenas_components_come_back_from_their_bytes) {
    using arena::ArenaComponent;
    protocol::PositionFull position;
    position.x = 12.5f;
    position.y = -3.25f;
    protocol::Velocity velocity;
    // Whole steps of 1/64 m a second, which the quantization keeps exactly.
    velocity.vx = 1.5;
    velocity.vy = -0.015625;
    protocol::Player player;
    player.aim = 200;
    player.health = 100;
    player.weapon = 1;
    protocol::Projectile projectile;
    projectile.owner = 513;
    protocol::Pickup pickup;
    pickup.item = 1;
    const ArenaComponent all[] = {ArenaComponent::position(position),
        ArenaComponent::velocity(velocity), ArenaComponent::player(player),
        ArenaComponent::projectile(projectile), ArenaComponent::pickup(pickup)};
    uint8_t type = 0;
    for (const ArenaComponent& c : all) {
        auto change = c.to_component<Component>();
        if (!CHECK(change.ok() && change.value().data.has_value())) {
            continue;
        }
        CHECK_EQ(change.value().type, type);
        auto back = ArenaComponent::from_component(change.value());
        CHECK(back.ok() && back.value() == std::optional<ArenaComponent>(c));
        ++type;
    }
    const auto bytes = ArenaComponent::player(player).to_component<Component>();
    if (CHECK(bytes.ok())) {
        CHECK_EQ(*bytes.value().data, (Bytes{200, 100, 1}));
    }
    // DG-6: a type past the arena's groups, and a removal, carry no value.
    auto unknown = ArenaComponent::from_component(Component{5, Bytes{1}});
    CHECK(unknown.ok() && !unknown.value().has_value());
    auto removal = ArenaComponent::from_component(Component{2, std::nullopt});
    CHECK(removal.ok() && !removal.value().has_value());
}

TEST(a_health_past_100_is_refused_in_a_component_where_it_is) {
    using arena::ArenaComponent;
    protocol::Player player;
    player.aim = 7;
    player.health = 101;
    auto written = ArenaComponent::player(player).to_component<Component>();
    if (CHECK(!written.ok())) {
        CHECK(written.error().kind == rt::ErrorKind::over_width);
        CHECK_EQ(written.error().path.str(), std::string("health"));
    }
    auto read = ArenaComponent::from_component(Component{2, Bytes{7, 101, 0}});
    if (CHECK(!read.ok())) {
        CHECK(read.error().kind == rt::ErrorKind::over_width);
        CHECK_EQ(read.error().offset, size_t{1});
        CHECK_EQ(read.error().path_string(), std::string("player.health"));
    }
    auto edge = ArenaComponent::from_component(Component{2, Bytes{7, 100, 0}});
    player.health = 100;
    CHECK(edge.ok() && edge.value() == std::optional<ArenaComponent>(ArenaComponent::player(player)));
}

}  // namespace

int main() { return check::run_all(); }
