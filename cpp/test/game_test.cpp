// Tests of the binding `ackwire gen --lang cpp` writes for the game's state (examples/game/wire:
// build/gen-game/arena.hpp, whose players' health is a ranged field, `u8 in 0..=100`, WIRE-29),
// over the recorded stream's kind 6 frames (examples/game/vectors/streams/arena.txt):
// - every record a decoder holds after each recorded frame is written by the fast record writer
//   (the check's canonical bytes, CHECK-3): the generated writer's bytes, in one allocation into
//   an empty buffer where the generated writer grows it at each field;
// - a health past 100 goes to the generated writer, which writes the record up to the health, the
//   field at fault; 0 and 100 are still written at once;
// - the state's groups as datagram v2 components (`arena::ArenaComponent`): each back from its
//   bytes, a health past 100 refused by their writer and their reader where it is;
// - the recorded states through the coded schema (`arena::CodedArena`, kind 13: flat tables, the
//   ranged health, `coded velocity`) over a lossy link: every state shown is the server's, in
//   fewer bytes than kind 12's (`arena::PackedArena`).

#include "ackwire_acked.hpp"
#include "arena.hpp"

#include "check.hpp"
#include "count_new.hpp"

#include <cstdint>
#include <cstdio>
#include <map>
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

/// A state the recorded stream shows, and its tick.
struct Shown {
    uint32_t tick = 0;
    acked::ServerState<Entity> state;
};

/// The states the recorded stream's frames show, in order, as a server computes them.
std::vector<Shown> recorded_states() {
    acked::AckedDecoder<Arena> decoder;
    std::vector<Shown> states;
    for (const Bytes& f : recorded_frames()) {
        const auto d = decoder.deliver(f);
        if (d.kind != acked::Delivery<Arena::Event>::Kind::shown) {
            continue;
        }
        Shown s;
        s.tick = d.report->tick;
        decoder.live().for_each([&](uint16_t eid, const Entity& r) {
            s.state.emplace_back(eid, acked::Entry<Entity>{1, r});
        });
        states.push_back(std::move(s));
    }
    return states;
}

/// Sends `states` from an encoder of `S` to a decoder of `S`, each at its tick, losing every
/// third frame and acknowledging each frame shown two ticks later: every frame shown is the server's
/// state of its tick. Returns the bytes sent.
template <typename S>
uint64_t send_lossy(const std::vector<Shown>& states) {
    using Inputs = acked::ScheduledInputs<Arena::Input>;
    acked::AckedEncoder<S, Inputs> enc(Inputs(acked::InputWindow{4, 64}));
    acked::AckedDecoder<S> dec;
    std::map<uint32_t, uint32_t> truth;
    std::map<uint32_t, uint32_t> acks;
    uint64_t bytes = 0;
    uint64_t shown = 0;
    size_t sent = 0;
    for (const Shown& s : states) {
        const uint32_t tick = s.tick;
        sent += 1;
        truth[tick] = acked::server_check<S>(s.state);
        auto out = enc.encode(tick, s.state, {});
        if (!CHECK(out.ok())) {
            std::printf("tick %u: %s\n", tick, out.error().message().c_str());
            return bytes;
        }
        bytes += out.value().bytes.size();
        if (sent % 3 != 0) {
            const auto d = dec.deliver(out.value().bytes);
            if (CHECK(d.kind == acked::Delivery<Arena::Event>::Kind::shown)) {
                shown += 1;
                CHECK_EQ(dec.state_hash(), truth[tick]);
                acks[tick + 2] = dec.ack_tick();
            }
        }
        // The acks due by this tick.
        for (auto a = acks.begin(); a != acks.end() && a->first <= tick;) {
            acked::AckContent<Arena::Input> ack;
            ack.ack_tick = a->second;
            enc.on_ack(tick, ack);
            a = acks.erase(a);
        }
    }
    CHECK(shown > 60);
    return bytes;
}

TEST(the_recorded_states_go_through_the_coded_schema_in_fewer_bytes_than_kind_12) {
    static_assert(acked::is_coded<arena::CodedArena>, "kind 13 is coded");
    const std::vector<Shown> states = recorded_states();
    CHECK(states.size() > 100);
    const uint64_t coded = send_lossy<arena::CodedArena>(states);
    const uint64_t packed = send_lossy<arena::PackedArena>(states);
    std::printf("  kind 13: %llu bytes, kind 12: %llu bytes\n",
        static_cast<unsigned long long>(coded), static_cast<unsigned long long>(packed));
    CHECK(coded > 0);
    CHECK(coded < packed);
}

int main() { return check::run_all(); }
