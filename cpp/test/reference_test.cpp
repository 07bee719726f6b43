// Tests of the reference protocol's acked schemas (reference/acked.hpp's Reference and
// Presenter, reference/acked_packed.hpp's PackedReference, issue 19) over the generated codec of
// spec/protocol, which test.sh generates into build/gen with `ackwire gen --lang cpp`: the
// orientation group's diff and apply (sent whole when it differs, not when equal, refused when a
// record drops it, kept for the entity's life), the record writer against the generated one, the
// presenter's orientations, kind 6 frames through kind 12 and back (equal, byte for byte), the
// refusals of the conversion (not_ascending on encode, over_width on decode at the packed body's
// first byte with the field path), and warm deliveries of both kinds that allocate nothing (this
// binary counts operator new).
//
// The Rust codec's acked/reference.rs and acked/packed.rs hold the same rules; the conformance
// suite's stream vectors (streams/acked, streams/acked_packed) hold the two to the same bytes.

#include "reference/acked.hpp"
#include "reference/acked_packed.hpp"

#include "check.hpp"
#include "count_new.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace ackwire;
using protocol::Change;
using protocol::ChangeMask;
using protocol::EntityState;
using protocol::StateFlags;
using reference::PackedReference;
using reference::Reference;
using Frame = acked::Frame<Reference>;
using Bytes = std::vector<uint8_t>;
using Kind = acked::Delivery<protocol::Event>::Kind;

// A small xorshift, so that every run draws the same cases.
struct Rng {
    uint64_t s = 0x2545F4914F6CDD1Dull;
    uint64_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }
    uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }
    float unit() { return static_cast<float>(below(2001)) / 1000.0f - 1.0f; }
};

protocol::Orientation orientation(float x, float y, float z, float w) {
    return protocol::Orientation{rt::from_xyzw({x, y, z, w}, 9)};
}

EntityState record(int32_t x, std::optional<protocol::Orientation> orient) {
    EntityState r;
    r.x = x;
    r.y = -40;
    r.z = 7;
    r.yaw = 0x1200;
    r.measured = 10;
    r.hp = 90;
    r.seat = 1;
    r.orient = orient;
    r.flags.set(StateFlags::ORIENTED, orient.has_value());
    return r;
}

Bytes generated_bytes(const EntityState& r) {
    Bytes out;
    rt::Writer w(out);
    CHECK(protocol::detail::write(w, r));
    return out;
}

bool same_frame(const Frame& a, const Frame& b) {
    return a.tick == b.tick && a.base_tick == b.base_tick && a.last_seq == b.last_seq
        && a.input_buffer == b.input_buffer && a.keyframe == b.keyframe && a.check == b.check
        && a.removed == b.removed && a.changes == b.changes && a.first_serial == b.first_serial
        && a.events == b.events;
}

// ---- the orientation group of Reference ----

TEST(an_orientation_is_sent_whole_when_it_differs_and_not_when_equal) {
    // ACK-7.
    const protocol::Orientation q1 = orientation(0.1f, 0.2f, 0.3f, 0.9f);
    const protocol::Orientation q2 = orientation(-0.5f, 0.5f, 0.1f, 0.7f);
    CHECK(q1 != q2);
    const EntityState base = record(100, q1);

    // Equal to the base's: no change at all.
    std::optional<Change> c;
    CHECK(!Reference::diff(3, &base, base, 10, c));
    CHECK(!c.has_value());

    // Only the orientation differs: a change of that group alone, the quaternion whole.
    const EntityState turned = record(100, q2);
    CHECK(!Reference::diff(3, &base, turned, 10, c));
    if (CHECK(c.has_value())) {
        CHECK_EQ(c->mask.bits, uint16_t{1u << ChangeMask::ORIENT});
        CHECK(c->orient == q2);
        CHECK(!c->pose_step && !c->pose_full && !c->health && !c->vehicle);
        EntityState applied;
        CHECK_EQ(Reference::apply(&base, *c, 10, applied), static_cast<const char*>(nullptr));
        CHECK(applied == turned);
    }

    // The pose moves, the orientation stays: no ORIENT group, and the base's is kept.
    const EntityState moved = record(160, q1);
    CHECK(!Reference::diff(3, &base, moved, 10, c));
    if (CHECK(c.has_value())) {
        CHECK(!c->mask.contains(ChangeMask::ORIENT));
        CHECK(!c->orient.has_value());
        EntityState applied;
        CHECK_EQ(Reference::apply(&base, *c, 10, applied), static_cast<const char*>(nullptr));
        CHECK(applied == moved);
        CHECK(applied.flags.contains(StateFlags::ORIENTED));
    }

    // A whole entity with an orientation carries it.
    CHECK(!Reference::diff(3, nullptr, turned, 10, c));
    if (CHECK(c.has_value())) {
        CHECK(c->mask.contains(ChangeMask::ORIENT));
        CHECK(c->orient == q2);
        EntityState applied;
        CHECK_EQ(Reference::apply(nullptr, *c, 10, applied), static_cast<const char*>(nullptr));
        CHECK(applied == turned);
    }
}

TEST(a_record_that_drops_or_misstates_its_orientation_is_refused) {
    // ACK-22.
    const EntityState base = record(100, orientation(0.1f, 0.2f, 0.3f, 0.9f));
    std::optional<Change> c;
    // Dropped: the wire cannot take an orientation away.
    const rt::EncodeStatus dropped = Reference::diff(3, &base, record(100, std::nullopt), 10, c);
    if (CHECK(dropped.has_value())) {
        CHECK_EQ(dropped->kind, rt::ErrorKind::invalid_condition);
        CHECK_EQ(dropped->path.str(), std::string("orient"));
    }
    // ORIENTED without an orientation, and an orientation without ORIENTED.
    EntityState flag_only = record(100, std::nullopt);
    flag_only.flags.set(StateFlags::ORIENTED);
    EntityState value_only = base;
    value_only.flags.set(StateFlags::ORIENTED, false);
    for (const EntityState& bad : {flag_only, value_only}) {
        const rt::EncodeStatus e = Reference::diff(3, nullptr, bad, 10, c);
        if (CHECK(e.has_value())) {
            CHECK_EQ(e->kind, rt::ErrorKind::invalid_condition);
            CHECK_EQ(e->path.str(), std::string("orient"));
        }
    }
    // A base without one and a record without one: nothing refused.
    const EntityState plain = record(100, std::nullopt);
    CHECK(!Reference::diff(3, &plain, plain, 10, c));
}

TEST(an_orientation_stays_through_pose_changes_of_either_tier) {
    const protocol::Orientation q = orientation(0.3f, -0.2f, 0.6f, 0.7f);
    const EntityState base = record(100, q);
    Change step;
    step.eid = 3;
    step.mask.set(ChangeMask::POSE);
    step.pose_step = protocol::PoseStep{5, -5, 0, 0.0};
    EntityState r;
    CHECK_EQ(Reference::apply(&base, step, 11, r), static_cast<const char*>(nullptr));
    CHECK(r.orient == q);
    CHECK(r.flags.contains(StateFlags::ORIENTED));
    CHECK(!r.flags.contains(StateFlags::POSE_FULL));
    Change full;
    full.eid = 3;
    full.mask.set(ChangeMask::POSE);
    full.mask.set(ChangeMask::POSE_FULL);
    full.pose_full = protocol::PoseFull{1.0f, 2.0f, 0.5f, 90.0};
    CHECK_EQ(Reference::apply(&r, full, 12, r), static_cast<const char*>(nullptr));
    CHECK(r.orient == q);
    CHECK_EQ(r.flags.bits, uint8_t{3});
}

TEST(the_record_writer_writes_what_the_generated_writer_writes) {
    // CHECK-3.
    Rng rng;
    for (int i = 0; i < 500; ++i) {
        std::optional<protocol::Orientation> q;
        if (i % 3 != 0) {
            q = orientation(rng.unit(), rng.unit(), rng.unit(), rng.unit());
        }
        EntityState r = record(static_cast<int32_t>(rng.next()), q);
        r.yaw = static_cast<uint16_t>(rng.next());
        r.measured = static_cast<uint32_t>(rng.next());
        r.flags.set(StateFlags::POSE_FULL, i % 2 == 0);
        Bytes fast;
        Reference::write_record(r, fast);
        CHECK_EQ(fast, generated_bytes(r));
        CHECK_EQ(fast.size(), size_t{q ? 28u : 24u});
    }
    // A record no frame could apply goes to the generated writer, which stops at the fault.
    EntityState bad = record(1, std::nullopt);
    bad.flags.set(StateFlags::ORIENTED);
    Bytes out;
    Reference::write_record(bad, out);
    CHECK_EQ(out.size(), size_t{24});
}

// ---- the presenter's orientations ----

TEST(the_presenter_quantizes_the_world_orientation_and_keeps_it_for_the_life) {
    reference::Presenter p(reference::ViewConfig{});
    reference::World world;
    reference::WorldEntity e;
    e.life = 1;
    e.x = 1.0f;
    e.hp = 5;
    e.orient = std::array<float, 4>{0.0f, 0.0f, 0.6f, 0.8f};
    world[4] = e;
    const auto orient_of = [](const acked::ServerState<EntityState>& s) {
        return s.at(0).second.record;
    };
    EntityState r = orient_of(p.present(1, world));
    CHECK(r.orient == orientation(0.0f, 0.0f, 0.6f, 0.8f));
    CHECK(r.flags.contains(StateFlags::ORIENTED));
    // A far entity off its due tick still gets its new orientation at once.
    world[4].x = 30.0f;
    p.present(2, world);
    world[4].orient = std::array<float, 4>{0.6f, 0.0f, 0.0f, 0.8f};
    r = orient_of(p.present(3, world));
    CHECK(r.orient == orientation(0.6f, 0.0f, 0.0f, 0.8f));
    // The world drops it: the last one stays.
    world[4].orient.reset();
    r = orient_of(p.present(4, world));
    CHECK(r.orient == orientation(0.6f, 0.0f, 0.0f, 0.8f));
    CHECK(r.flags.contains(StateFlags::ORIENTED));
    // A new life starts without one.
    world[4].life = 2;
    r = orient_of(p.present(5, world));
    CHECK(!r.orient.has_value());
    CHECK(!r.flags.contains(StateFlags::ORIENTED));
}

// ---- kind 6 through kind 12 ----

// A change of `eid` with every group drawn (POSE forced when a pose bit needs it).
Change draw_change(Rng& rng, uint16_t eid) {
    Change c;
    c.eid = eid;
    const uint32_t bits = rng.below(64);
    const unsigned wide[6] = {ChangeMask::POSE, ChangeMask::HEALTH, ChangeMask::VEHICLE,
        ChangeMask::ORIENT, ChangeMask::POSE_FULL, ChangeMask::POSE_AGE};
    for (unsigned i = 0; i < 6; ++i) {
        c.mask.set(wide[i], ((bits >> i) & 1u) != 0);
    }
    if (c.mask.contains(ChangeMask::POSE_FULL) || c.mask.contains(ChangeMask::POSE_AGE)) {
        c.mask.set(ChangeMask::POSE);
    }
    if (c.mask.contains(ChangeMask::POSE_AGE)) {
        c.age = static_cast<uint8_t>(rng.next());
    }
    if (c.mask.contains(ChangeMask::POSE)) {
        if (c.mask.contains(ChangeMask::POSE_FULL)) {
            const auto f = [&] { return static_cast<float>(rng.below(200000)) / 512.0f - 190.0f; };
            c.pose_full = protocol::PoseFull{
                f(), f(), f(), static_cast<double>(rng.below(65536)) * (360.0 / 65536.0)};
        } else {
            // Small steps most often, as the buckets expect, and any i16 sometimes.
            const auto d = [&]() -> int16_t {
                return rng.below(4) == 0 ? static_cast<int16_t>(rng.next())
                                         : static_cast<int16_t>(rng.below(200)) - 100;
            };
            const double yaw = rng.below(2) == 0
                ? 0.0
                : static_cast<double>(rng.below(256)) * (360.0 / 256.0);
            c.pose_step = protocol::PoseStep{d(), d(), d(), yaw};
        }
    }
    if (c.mask.contains(ChangeMask::HEALTH)) {
        c.health = protocol::Health{static_cast<uint8_t>(rng.next()), 3};
    }
    if (c.mask.contains(ChangeMask::VEHICLE)) {
        c.vehicle = protocol::Vehicle{static_cast<uint16_t>(rng.next()), 2};
    }
    if (c.mask.contains(ChangeMask::ORIENT)) {
        c.orient = orientation(rng.unit(), rng.unit(), rng.unit(), rng.unit());
    }
    return c;
}

Frame draw_frame(Rng& rng) {
    Frame f;
    f.tick = static_cast<uint32_t>(rng.next());
    f.keyframe = rng.below(4) == 0;
    f.base_tick = f.keyframe ? 0 : static_cast<uint32_t>(rng.next());
    f.last_seq = static_cast<uint32_t>(rng.next());
    f.input_buffer = static_cast<uint8_t>(rng.next());
    if (rng.below(2) == 0) {
        f.check = static_cast<uint32_t>(rng.next());
    }
    for (uint32_t i = rng.below(4); i > 0; --i) {
        f.removed.push_back(static_cast<uint16_t>(rng.next()));
    }
    uint32_t id = rng.below(2) == 0 ? rng.below(40) : rng.below(65536);
    for (uint32_t n = rng.below(24); n > 0 && id <= 0xffff; --n) {
        f.changes.push_back(draw_change(rng, static_cast<uint16_t>(id)));
        id += 1 + (rng.below(5) == 0 ? rng.below(3000) : rng.below(40));
    }
    for (uint32_t i = rng.below(3); i > 0; --i) {
        protocol::Shot s;
        s.shooter = static_cast<uint16_t>(rng.next());
        s.weapon = static_cast<uint8_t>(rng.next());
        s.yaw = 90.0;
        f.events.emplace_back(s);
    }
    f.first_serial = f.events.empty() ? 0 : static_cast<uint32_t>(rng.next());
    return f;
}

TEST(kind_6_frames_with_orientations_go_through_kind_12_and_back_unchanged) {
    // ACK-15.
    Rng rng;
    size_t oriented = 0;
    size_t smaller = 0;
    Frame f, back, again;
    for (int i = 0; i < 600; ++i) {
        const Frame drawn = draw_frame(rng);
        Bytes six;
        if (!CHECK(!Reference::encode_frame(drawn, six))) {
            continue;
        }
        // The frame as kind 6 decodes it (the canonical values of its floats).
        CHECK(!Reference::decode_frame_into(six.data(), six.size(), f));
        Bytes twelve;
        CHECK(!PackedReference::encode_frame(f, twelve));
        CHECK(!PackedReference::decode_frame_into(twelve.data(), twelve.size(), back));
        CHECK(same_frame(back, f));
        Bytes six_again;
        CHECK(!Reference::encode_frame(back, six_again));
        CHECK_EQ(six_again, six);
        // The generated kind 12 codec agrees with the schema's conversion.
        protocol::AckedPacked packed;
        CHECK(!PackedReference::pack_frame(f, packed));
        auto bytes = protocol::to_bytes(packed);
        if (CHECK(bytes.ok())) {
            CHECK_EQ(bytes.value(), twelve);
        }
        auto decoded = protocol::decode_acked_packed(twelve.data(), twelve.size());
        if (CHECK(decoded.ok())) {
            CHECK(!PackedReference::unpack_frame(decoded.value(), again));
            CHECK(same_frame(again, f));
        }
        for (const Change& c : f.changes) {
            oriented += c.orient ? 1u : 0u;
        }
        smaller += twelve.size() < six.size() ? 1u : 0u;
    }
    // The draws reached what they are for.
    CHECK(oriented > 1000);
    CHECK(smaller > 300);
}

TEST(changes_out_of_order_have_no_kind_12_form) {
    // ACK-14.
    Rng rng;
    for (const std::array<uint16_t, 2> ids : {std::array<uint16_t, 2>{4, 4}, {9, 2}}) {
        Frame f;
        f.tick = 5;
        f.base_tick = 4;
        for (const uint16_t id : ids) {
            Change c = draw_change(rng, id);
            f.changes.push_back(c);
        }
        Bytes out;
        const rt::EncodeStatus e = PackedReference::encode_frame(f, out);
        if (CHECK(e.has_value())) {
            CHECK_EQ(e->kind, rt::ErrorKind::not_ascending);
            CHECK_EQ(e->path.str(), std::string("body.changes[1].eid"));
        }
    }
}

TEST(codes_past_kind_6_are_over_width_at_the_body_with_their_path) {
    // ACK-15.
    const auto plain = [](uint32_t eid) {
        protocol::PackedChange c;
        c.eid = eid;
        return c;
    };
    const auto step = [&](int32_t dx, int32_t dz, uint16_t yaw) {
        protocol::PackedChange c = plain(1);
        c.mask.set(protocol::PackedMask::POSE);
        c.pose_step = protocol::PackedPoseStep{dx, 0, dz, yaw};
        return c;
    };
    protocol::PackedChange aged = step(0, 0, 0);
    aged.mask.set(protocol::PackedMask::POSE_AGE);
    aged.age = 256;
    const std::pair<protocol::PackedChange, const char*> cases[] = {
        {plain(65536), "body.changes[0].eid"},
        {step(32768, 0, 0), "body.changes[0].pose_step.dx"},
        {step(-32769, 0, 0), "body.changes[0].pose_step.dx"},
        {step(0, 33000, 0), "body.changes[0].pose_step.dz"},
        {step(0, 0, 256), "body.changes[0].pose_step.yaw"},
        {aged, "body.changes[0].age"},
    };
    for (const bool with_check : {false, true}) {
        for (const auto& c : cases) {
            protocol::AckedPacked f;
            f.tick = 9;
            f.base_tick = 8;
            if (with_check) {
                f.flags.set(protocol::AckedFlags::CHECK);
                f.check = 77;
            }
            f.removed = {1};
            f.body.changes = {c.first};
            auto bytes = protocol::to_bytes(f);
            if (!CHECK(bytes.ok())) {
                continue;
            }
            Frame out;
            const auto e = PackedReference::decode_frame_into(
                bytes.value().data(), bytes.value().size(), out);
            if (CHECK(e.has_value())) {
                CHECK_EQ(e->kind, rt::ErrorKind::over_width);
                // 17 header bytes (kind 6's without changed_count), the check, one removed id.
                CHECK_EQ(e->offset, size_t{with_check ? 23u : 19u});
                CHECK(!e->bit.has_value());
                CHECK_EQ(e->path.str(), std::string(c.second));
            }
        }
    }
    // The same frame with an id of kind 6's range decodes.
    protocol::AckedPacked f;
    f.body.changes = {plain(65535)};
    f.flags.set(protocol::AckedFlags::KEYFRAME);
    auto bytes = protocol::to_bytes(f);
    Frame out;
    if (CHECK(bytes.ok())) {
        CHECK(!PackedReference::decode_frame_into(
            bytes.value().data(), bytes.value().size(), out));
        if (CHECK_EQ(out.changes.size(), size_t{1})) {
            CHECK_EQ(out.changes[0].eid, uint16_t{65535});
        }
    }
}

// ---- what a cold decode of kind 12 holds ----

// The most a kind 12 decode allocates per byte of its input, cold (the thread's scratch frame
// let go, a fresh frame to decode into): docs/limits.md states it. The worst input is a body of
// the smallest changes (an id gap of 1 and an empty mask: 9 bits each, the least the generated
// reader lets a change count claim), each held twice, as a PackedChange in the scratch frame
// and as a kind 6 Change in the frame decoded: 88 + 88 bytes (g++, x86-64) per 9 bits, 156.4
// per byte, measured below; at most 65,535 changes (the count is a u16), about 11.5 MB.
constexpr size_t KIND_12_ALLOC_PER_BYTE = 160;

TEST(a_cold_kind_12_decode_holds_a_bounded_multiple_of_its_input) {
    // WIRE-26.
    size_t worst = 0;
    double worst_ratio = 0.0;
    for (const size_t n : {size_t{1}, size_t{100}, size_t{5000}, size_t{65535}}) {
        protocol::AckedPacked f;
        f.flags.set(protocol::AckedFlags::KEYFRAME);
        for (size_t i = 0; i < n; ++i) {
            protocol::PackedChange c;
            c.eid = static_cast<uint32_t>(i);
            f.body.changes.push_back(c);
        }
        auto bytes = protocol::to_bytes(f);
        if (!CHECK(bytes.ok())) {
            continue;
        }
        const Bytes& b = bytes.value();
        PackedReference::release_scratch();
        const size_t before = g_allocated_bytes;
        {
            Frame out;
            CHECK(!PackedReference::decode_frame_into(b.data(), b.size(), out));
            CHECK_EQ(out.changes.size(), n);
        }
        const size_t held = g_allocated_bytes - before;
        CHECK(held <= KIND_12_ALLOC_PER_BYTE * b.size());
        const double ratio = static_cast<double>(held) / static_cast<double>(b.size());
        if (ratio > worst_ratio) {
            worst_ratio = ratio;
            worst = n;
        }
    }
    std::printf("a cold kind 12 decode: at most %.1f heap bytes per input byte (%zu changes)\n",
        worst_ratio, worst);
    CHECK(worst_ratio > 1.0);
}

// ---- nothing allocated once warm ----

// 400 ticks of a world of 200 entities that move (50 a tick), turn (a third of them) and fire
// (an event a tick), presented for one client and encoded by the schema `S`, every frame
// acknowledged at once; then a fresh decoder takes 100 frames to warm and the 300 others, which
// must allocate nothing. Returns the allocations of the 300.
template <typename S>
size_t warm_delivery_allocations(size_t& shown, uint32_t& hash, uint32_t& server_hash) {
    reference::Presenter presenter(reference::ViewConfig{});
    reference::EncoderOf<S> encoder(
        acked::ScheduledInputs<protocol::Input>(acked::InputWindow{4, 64}));
    reference::World world;
    Rng rng;
    for (uint16_t id = 1; id <= 200; ++id) {
        reference::WorldEntity e;
        e.life = 1;
        e.x = static_cast<float>(id % 20) - 10.0f;
        e.y = static_cast<float>(id / 20) - 5.0f;
        e.hp = 100;
        world[id] = e;
    }
    std::vector<Bytes> frames;
    const std::vector<protocol::Input> no_inputs;
    acked::ServerState<EntityState> last;
    for (uint32_t t = 1; t <= 400; ++t) {
        for (size_t k = 0; k < 50; ++k) {
            reference::WorldEntity& e = world[static_cast<uint16_t>(1 + (t * 50 + k) % 200)];
            e.x += 0.01f * rng.unit();
            e.y += 0.01f * rng.unit();
            e.yaw += 1.0f;
            if (k % 3 == 0) {
                e.orient = std::array<float, 4>{rng.unit(), rng.unit(), rng.unit(), 1.0f};
            }
        }
        protocol::Shot s;
        s.shooter = 1;
        s.weapon = static_cast<uint8_t>(t);
        s.yaw = 0.0;
        last = presenter.present(t, world);
        auto sent = encoder.encode(t, last, {protocol::Event(s)});
        if (!CHECK(sent.ok())) {
            return 0;
        }
        frames.push_back(std::move(sent.value().bytes));
        encoder.on_ack(t, t, false, 0, no_inputs, [](const protocol::Input& i) { return i.tick; });
    }
    acked::AckedDecoder<S> decoder;
    shown = 0;
    for (size_t i = 0; i < 100; ++i) {
        shown += decoder.deliver(frames[i]).kind == Kind::shown ? 1u : 0u;
    }
    const size_t before = g_allocations;
    for (size_t i = 100; i < frames.size(); ++i) {
        shown += decoder.deliver(frames[i]).kind == Kind::shown ? 1u : 0u;
    }
    const size_t allocations = g_allocations - before;
    hash = decoder.state_hash();
    server_hash = acked::server_check<S>(last);
    return allocations;
}

TEST(a_warm_delivery_of_kind_6_with_orientations_allocates_nothing) {
    size_t shown = 0;
    uint32_t hash = 0;
    uint32_t server = 0;
    CHECK_EQ(warm_delivery_allocations<Reference>(shown, hash, server), size_t{0});
    CHECK_EQ(shown, size_t{400});
    CHECK_EQ(hash, server);
}

TEST(a_warm_delivery_of_kind_12_allocates_nothing) {
    size_t shown = 0;
    uint32_t hash = 0;
    uint32_t server = 0;
    CHECK_EQ(warm_delivery_allocations<PackedReference>(shown, hash, server), size_t{0});
    CHECK_EQ(shown, size_t{400});
    CHECK_EQ(hash, server);
}

}  // namespace

int main() { return check::run_all(); }
