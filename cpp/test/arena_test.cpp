// Tests of a second state's binding: arena.hpp, which `ackwire gen --lang cpp` writes for
// spec/tests/state/players.wire's `state Arena` (test.sh generates it into build/gen-arena). The
// arena declares what the reference protocol's cubes do not: a group of two forms without a
// tier (the step form whenever every field can step, the full form otherwise), a step form
// without a reach, an optional group of plain integers, a quaternion group every player has, a
// float and a bool carried as themselves, a byte-wide mask, session constants of its own. Held
// here to spec/LANGUAGE.md's rules: diff then apply gives the record back through both profiles'
// frames, each refusal at its field, packed codes past the byte-aligned range refused at the
// body, the staged readers agreeing with the generated ones, and the acked machines carrying a
// lossy stream whose every shown state hashes as the server's S_N of its tick.

#include "ackwire_acked_half.hpp"
#include "arena.hpp"

#include "check.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace ackwire;
using arena::Arena;
using arena::PackedArena;
using protocol::Player;
using protocol::PlayerFlags;
using protocol::PlayerMask;
using Staged = arena::StagedPlayerChange;
using Frame = arena::Frame;
using Bytes = std::vector<uint8_t>;
using Kind = acked::Delivery<protocol::Happening>::Kind;

struct Rng {
    uint64_t s = 0x9E3779B97F4A7C15ull;
    uint64_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }
    uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }
    float unit() { return static_cast<float>(below(2001)) / 1000.0f - 1.0f; }
};

/// A player measured at `seen`: positions near the origin most often (so that steps fit), any
/// i16 sometimes; a heading a multiple of 1024 most often (so that it steps too).
Player draw_player(Rng& rng, uint32_t seen) {
    Player p;
    const auto coord = [&]() -> int16_t {
        return rng.below(3) == 0 ? static_cast<int16_t>(rng.next())
                                 : static_cast<int16_t>(static_cast<int32_t>(rng.below(200)) - 100);
    };
    p.x = coord();
    p.y = coord();
    if (p.x == -32768) {
        p.x = 0;  // an f32 of a whole -512 m is the one i16 the full form cannot carry
    }
    p.heading = rng.below(4) == 0 ? static_cast<uint16_t>(rng.next())
                                  : static_cast<uint16_t>(rng.below(64) * 1024);
    p.seen = seen;
    p.hp = static_cast<uint8_t>(rng.next());
    p.speed = static_cast<float>(rng.below(1000)) / 7.0f;
    p.crouched = rng.below(2) == 0;
    if (rng.below(2) == 0) {
        p.shield = protocol::Shield{static_cast<uint16_t>(rng.next())};
        p.flags.set(PlayerFlags::SHIELDED);
    }
    p.aim.q = rt::from_xyzw({rng.unit(), rng.unit(), rng.unit(), 1.0f}, 7);
    return p;
}

/// `base` changed a little: a few fields drawn again.
Player nudge(Rng& rng, Player p, uint32_t seen) {
    const Player other = draw_player(rng, seen);
    switch (rng.below(5)) {
        case 0:
            p.x = static_cast<int16_t>(std::clamp(p.x + static_cast<int32_t>(rng.below(9)) - 4,
                -32767, 32767));
            p.seen = seen;
            break;
        case 1:
            p.hp = other.hp;
            p.crouched = other.crouched;
            break;
        case 2:
            if (other.shield) {
                p.shield = other.shield;
                p.flags.set(PlayerFlags::SHIELDED);
            }
            break;
        case 3:
            p.aim = other.aim;
            break;
        default:
            break;
    }
    return p;
}

bool same_frame(const Frame& a, const Frame& b) {
    return a.tick == b.tick && a.base_tick == b.base_tick && a.last_seq == b.last_seq
        && a.input_buffer == b.input_buffer && a.keyframe == b.keyframe && a.check == b.check
        && a.removed == b.removed && a.changes == b.changes && a.first_serial == b.first_serial
        && a.events == b.events;
}

TEST(the_declared_constants_and_names_reach_the_schema) {
    CHECK_EQ(Arena::HELD_RING, size_t{40});
    CHECK_EQ(Arena::SENT_RING, size_t{20});
    CHECK_EQ(Arena::EVENT_TTL, uint64_t{60});
    CHECK_EQ(std::string(Arena::FRAME_NAME), std::string("snapshot"));
    CHECK_EQ(std::string(PackedArena::FRAME_NAME), std::string("packed_snapshot"));
    CHECK_EQ(std::string(Arena::ACK_NAME), std::string("report"));
    // No tier: the report tells no tier of a record; it does tell when it was measured.
    Player p;
    p.seen = 12;
    CHECK(!Arena::pose_full(p).has_value());
    CHECK_EQ(Arena::measured(p), std::optional<uint32_t>(12));
}

TEST(diff_then_apply_gives_the_record_back_through_both_profiles) {
    Rng rng;
    size_t stepped = 0;
    size_t full = 0;
    size_t shielded = 0;
    for (int i = 0; i < 3000; ++i) {
        const uint32_t tick = 1000 + rng.below(1000);
        const bool whole = rng.below(4) == 0;
        const Player base = draw_player(rng, tick - rng.below(300));
        Player next = whole ? draw_player(rng, tick - rng.below(256)) : nudge(rng, base, tick);
        if (!whole && base.shield && !next.shield) {
            next.shield = base.shield;
            next.flags.set(PlayerFlags::SHIELDED);
        }
        std::optional<Staged> c;
        const rt::EncodeStatus e = Arena::diff(9, whole ? nullptr : &base, next, tick, c);
        if (!CHECK(!e.has_value())) {
            continue;
        }
        if (!c) {
            CHECK(!whole);
            CHECK(base == next);
            continue;
        }
        stepped += c->mask.contains(PlayerMask::MOTION) && !c->mask.contains(PlayerMask::MOTION_FULL)
            ? 1u
            : 0u;
        full += c->mask.contains(PlayerMask::MOTION_FULL) ? 1u : 0u;
        shielded += c->mask.contains(PlayerMask::SHIELD) ? 1u : 0u;
        Player applied;
        CHECK_EQ(Arena::apply(whole ? nullptr : &base, *c, tick, applied),
            static_cast<const char*>(nullptr));
        CHECK(applied == next);
        // The change through both profiles' frames.
        Frame f;
        f.tick = tick;
        f.base_tick = tick - 1;
        f.changes = {*c};
        Bytes a;
        Bytes b;
        Frame back;
        CHECK(!Arena::encode_frame(f, a));
        CHECK(!Arena::decode_frame_into(a.data(), a.size(), back));
        CHECK(same_frame(back, f));
        CHECK(!PackedArena::encode_frame(f, b));
        CHECK(!PackedArena::decode_frame_into(b.data(), b.size(), back));
        CHECK(same_frame(back, f));
    }
    CHECK(stepped > 300);
    CHECK(full > 300);
    CHECK(shielded > 300);
}

TEST(the_step_form_goes_when_every_field_can_step) {
    Player base;
    base.aim.q = rt::from_xyzw({0.0f, 0.0f, 0.0f, 1.0f}, 7);
    Player next = base;
    std::optional<Staged> c;
    // Within an i8 and a heading of whole 1024ths: steps, from the base's values.
    base.x = 1000;
    next.x = 1100;
    next.heading = 5 * 1024;
    CHECK(!Arena::diff(1, &base, next, 0, c));
    if (CHECK(c.has_value())) {
        CHECK(!c->mask.contains(PlayerMask::MOTION_FULL));
        CHECK_EQ(c->x, int32_t{100});
        CHECK_EQ(c->heading, uint16_t{5});
    }
    // A step past an i8: the full form.
    next.x = 1200;
    CHECK(!Arena::diff(1, &base, next, 0, c));
    if (CHECK(c.has_value())) {
        CHECK(c->mask.contains(PlayerMask::MOTION_FULL));
        CHECK_EQ(c->x, static_cast<int32_t>(state::f32_bits(1200.0f / 64.0f)));
    }
    // A heading off the 64 steps: the full form.
    next.x = 1100;
    next.heading = 5 * 1024 + 1;
    CHECK(!Arena::diff(1, &base, next, 0, c));
    if (CHECK(c.has_value())) {
        CHECK(c->mask.contains(PlayerMask::MOTION_FULL));
        CHECK_EQ(c->heading, uint16_t{5 * 1024 + 1});
    }
    // The full form cannot carry -32768 (an f32 holds it, but the field's magnitude limit is
    // the i16's): over_width at the form's field.
    next.x = -32768;
    const rt::EncodeStatus e = Arena::diff(1, &base, next, 0, c);
    if (CHECK(e.has_value())) {
        CHECK_EQ(e->kind, rt::ErrorKind::over_width);
        CHECK_EQ(e->path.str(), std::string("motion_full.x"));
    }
}

TEST(a_shield_stays_for_the_life_and_agrees_with_its_flag) {
    Rng rng;
    Player base = draw_player(rng, 5);
    base.shield = protocol::Shield{300};
    base.flags.set(PlayerFlags::SHIELDED);
    Player dropped = base;
    dropped.shield.reset();
    dropped.flags.set(PlayerFlags::SHIELDED, false);
    std::optional<Staged> c;
    for (const auto& bad : {std::make_pair(&base, dropped), std::make_pair(&dropped, [&] {
             Player p = dropped;
             p.flags.set(PlayerFlags::SHIELDED);
             return p;
         }())}) {
        const rt::EncodeStatus e = Arena::diff(1, bad.first, bad.second, 5, c);
        if (CHECK(e.has_value())) {
            CHECK_EQ(e->kind, rt::ErrorKind::invalid_condition);
            CHECK_EQ(e->path.str(), std::string("shield"));
        }
    }
    // A change without the shield keeps the base's.
    Player moved = base;
    moved.hp = static_cast<uint8_t>(base.hp + 1);
    CHECK(!Arena::diff(1, &base, moved, 5, c));
    if (CHECK(c.has_value())) {
        CHECK(!c->mask.contains(PlayerMask::SHIELD));
        Player applied;
        CHECK_EQ(Arena::apply(&base, *c, 5, applied), static_cast<const char*>(nullptr));
        CHECK(applied.shield == base.shield);
        CHECK(applied.flags.contains(PlayerFlags::SHIELDED));
    }
    // An entity coming whole needs every group but the shield.
    Staged partial;
    partial.mask.set(PlayerMask::MOTION);
    partial.mask.set(PlayerMask::VITALS);
    Player out;
    CHECK_EQ(std::string(Arena::apply(nullptr, partial, 5, out)),
        std::string("an entity comes whole without every group"));
    partial.mask.set(PlayerMask::AIM);
    CHECK_EQ(Arena::apply(nullptr, partial, 5, out), static_cast<const char*>(nullptr));
}

TEST(packed_codes_past_the_byte_aligned_fields_are_over_width_at_the_body) {
    const auto step = [](int16_t dx, uint16_t heading) {
        protocol::PackedPlayerChange c;
        c.eid = 3;
        c.mask.set(protocol::PackedPlayerMask::MOTION);
        c.motion_step = protocol::PackedMotionStep{dx, 0, heading};
        return c;
    };
    protocol::PackedPlayerChange far;
    far.eid = 65600;
    protocol::PackedPlayerChange aged = step(0, 0);
    aged.mask.set(protocol::PackedPlayerMask::MOTION_AGE);
    aged.age = 259;
    const std::pair<protocol::PackedPlayerChange, const char*> cases[] = {
        {step(128, 0), "body.changes[0].motion_step.dx"},
        {step(-129, 0), "body.changes[0].motion_step.dx"},
        {step(0, 256), "body.changes[0].motion_step.heading"},
        {far, "body.changes[0].eid"},
        {aged, "body.changes[0].age"},
    };
    for (const auto& c : cases) {
        protocol::PackedSnapshot f;
        f.tick = 2;
        f.base_tick = 1;
        f.body.changes = {c.first};
        auto bytes = protocol::to_bytes(f);
        if (!CHECK(bytes.ok())) {
            continue;
        }
        Frame out;
        const auto e =
            PackedArena::decode_frame_into(bytes.value().data(), bytes.value().size(), out);
        if (CHECK(e.has_value())) {
            CHECK_EQ(e->kind, rt::ErrorKind::over_width);
            CHECK_EQ(e->offset, size_t{17});
            CHECK_EQ(e->path.str(), std::string(c.second));
        }
    }
}

/// Mutants of `bytes` that the generated and the staged reader must judge alike.
template <typename S, typename Wire, typename Decode>
void judged_alike(const Bytes& bytes, Rng& rng, Decode decode_generated, size_t& refused) {
    for (int k = 0; k < 16; ++k) {
        Bytes m = bytes;
        const uint32_t at = rng.below(static_cast<uint32_t>(m.size()));
        switch (rng.below(3)) {
            case 0:
                m[at] ^= static_cast<uint8_t>(1u << rng.below(8));
                break;
            case 1:
                m.resize(at);
                break;
            default:
                m.push_back(static_cast<uint8_t>(rng.next()));
                break;
        }
        Frame staged;
        const auto got = S::decode_frame_into(m.data(), m.size(), staged);
        rt::Result<Wire> wire = decode_generated(m.data(), m.size());
        if (!wire.ok()) {
            refused += 1;
            if (CHECK(got.has_value())) {
                CHECK_EQ(got->kind, wire.error().kind);
                CHECK_EQ(got->offset, wire.error().offset);
                CHECK_EQ(got->path.str(), wire.error().path.str());
            }
        } else if (!got) {
            Bytes again;
            CHECK(!S::encode_frame(staged, again));
            CHECK_EQ(again, m);
        }
    }
}

/// S_N of a world of `n` players at `tick`, evolving the last one; `lives` counts the lives
/// of each id (a despawned id comes back as a new life).
acked::ServerState<Player> evolve(Rng& rng, const acked::ServerState<Player>& last,
    std::map<uint16_t, uint32_t>& lives, uint32_t tick, size_t n) {
    acked::ServerState<Player> next;
    for (size_t i = 0; i < n; ++i) {
        const auto eid = static_cast<uint16_t>(1 + i * 3);
        const auto held = std::find_if(
            last.begin(), last.end(), [&](const auto& e) { return e.first == eid; });
        if (held == last.end() || rng.below(50) == 0) {
            // New, or a new life under the id.
            lives[eid] += 1;
            next.emplace_back(eid, acked::Entry<Player>{lives[eid], draw_player(rng, tick)});
        } else if (rng.below(40) != 0) {
            Player p = rng.below(3) == 0 ? nudge(rng, held->second.record, tick)
                                         : held->second.record;
            // Measured again before its age passes the age's u8 (a keyframe carries it).
            if (tick - p.seen > 200) {
                p.seen = tick;
            }
            next.emplace_back(eid, acked::Entry<Player>{held->second.life, p});
        }
    }
    return next;
}

template <typename S>
void lossy_stream(size_t& shown, size_t& checked) {
    Rng rng;
    acked::AckedEncoder<S, acked::ScheduledInputs<protocol::Command>> encoder(
        acked::ScheduledInputs<protocol::Command>(acked::InputWindow{}));
    acked::AckedDecoder<S> decoder;
    acked::ServerState<Player> state;
    std::map<uint16_t, uint32_t> lives;
    std::vector<std::pair<uint32_t, uint32_t>> hashes;
    size_t refused = 0;
    for (uint32_t t = 1; t <= 600; ++t) {
        state = evolve(rng, state, lives, t, 30);
        hashes.emplace_back(t, acked::server_check<S>(state));
        protocol::Fired fired;
        fired.who = static_cast<uint16_t>(t);
        auto sent = encoder.encode(t, state, {protocol::Happening(fired)});
        if (!CHECK(sent.ok())) {
            std::printf("tick %u: %s\n", t, sent.error().message().c_str());
            return;
        }
        const Bytes& bytes = sent.value().bytes;
        if (t % 50 == 0) {
            if constexpr (std::is_same_v<S, PackedArena>) {
                judged_alike<S, protocol::PackedSnapshot>(
                    bytes, rng, protocol::decode_packed_snapshot, refused);
            } else {
                judged_alike<S, protocol::Snapshot>(bytes, rng, protocol::decode_snapshot, refused);
            }
        }
        // A third of the frames are lost; the acks of the others come back.
        if (rng.below(3) == 0) {
            continue;
        }
        const auto d = decoder.deliver(bytes);
        if (d.kind != Kind::shown) {
            continue;
        }
        shown += 1;
        CHECK_EQ(decoder.state_hash(), hashes.back().second);
        checked += d.report->check ? 1u : 0u;
        CHECK(d.report->check != std::optional<bool>(false));
        acked::AckContent<protocol::Command> ack;
        ack.ack_tick = decoder.ack_tick();
        encoder.on_ack(t, ack);
    }
    CHECK(refused > 20);
}

TEST(a_lossy_stream_of_either_profile_shows_s_n_at_every_frame) {
    size_t shown = 0;
    size_t checked = 0;
    lossy_stream<Arena>(shown, checked);
    CHECK(shown > 300);
    CHECK(checked > 5);
    shown = 0;
    checked = 0;
    lossy_stream<PackedArena>(shown, checked);
    CHECK(shown > 300);
    CHECK(checked > 5);
}

TEST(the_client_half_acks_with_the_report_frame) {
    acked::AckedClientHalf<Arena> client(4);
    protocol::Command c;
    c.tick = 3;
    c.fire = true;
    CHECK(client.handle_tick(session::Now{1, 16}, c).ok());
    auto t = client.poll_transmit();
    if (CHECK(t.has_value())) {
        CHECK_EQ(t->frame, std::string("report"));
        acked::AckContent<protocol::Command> ack;
        CHECK(!Arena::decode_ack(t->bytes.data(), t->bytes.size(), ack));
        CHECK_EQ(ack.first_seq, uint32_t{1});
        if (CHECK_EQ(ack.inputs.size(), size_t{1})) {
            CHECK(ack.inputs[0].fire);
            CHECK_EQ(Arena::input_tick(ack.inputs[0]), uint32_t{3});
        }
    }
}

}  // namespace

int main() { return check::run_all(); }
